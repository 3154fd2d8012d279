//! The turn clock: a room option that bounds how long the player to act may take.
//!
//! When a room has a clock, every decision (a roll, or a plane choice) must come within it. When
//! it runs out, the server acts for the player to act: it rolls, and when that leaves a plane
//! choice it picks one with the `easy` bot, and counts a strike against the player. After
//! `--max-strikes` strikes in one game the player forfeits (`timeout`). The clock runs whether
//! the player is connected or not, so a disconnected player's turns are played for them while the
//! grace period holds the seat (the grace period still ends the game `abandoned`).
//!
//! The clock restarts at the start of the game and after every roll and move; draw offers and
//! presence events leave it alone. The first decision of a game is the exception: a room whose
//! seats were taken in advance (quick match, rematch) starts its game before anyone connected,
//! so the first clock waits until the player to act is there, and the `player_connected` event
//! that starts it carries `deadline_ms`. Snapshots carry the time left and the strikes, so a
//! client that (re)joins shows the clock at once. Every turn event (`game_started`, `rolled`, `moved`,
//! `turn_passed`) carries `deadline_ms`, the clock's length, counted from when it was sent.
//! The computer's seat in a computer room has no clock.
//!
//! The clock's length, the strikes and which actions the clock played are journaled, so a
//! restored room keeps them. Its deadline is not: after a restart the player to act gets a fresh,
//! full decision time counted from the moment the room is restored, because the time the server
//! was down is nobody's fault and players first have to reconnect. A move the clock played is
//! never one that `undo` may take back (it was not the player's choice), after a restart too.

use aeroplane_bot::Level;
use aeroplane_protocol::board::BoardPhase;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::{Forfeit, Side, TableAction};
use tokio::time::Instant;

use super::core::Room;

impl Room {
    /// Whether the first decision's clock still waits for its player to connect.
    fn first_clock_waits(&self) -> bool {
        let to_act = self.timeline.game().to_act();
        self.timeline.actions().is_empty()
            && self
                .seats
                .get(to_act)
                .is_some_and(|seat| seat.conn.is_none())
    }

    /// Starts the first decision's clock if it was waiting for the player to act and that
    /// player is now connected; returns the clock's length for the event that says so.
    pub(super) fn start_waiting_clock(&mut self) -> Option<u64> {
        let waiting =
            self.clock.deadline().is_none() && self.timeline.actions().is_empty() && self.is_live();
        let to_act = self.timeline.game().to_act();
        if !waiting || self.is_computer(to_act) || self.first_clock_waits() {
            return None;
        }
        let length = self.clock.per_decision()?;
        self.clock.set_deadline(Some(Instant::now() + length));
        self.clock.length_ms()
    }

    /// Restarts the clock for the decision now pending (none once the game is over, before it
    /// starts, or when the computer is to act) and stamps the turn events with its length.
    pub(super) fn restart_clock(&mut self, messages: &mut [ServerMessage]) {
        if self.clock.is_playing() {
            for message in messages.iter_mut() {
                match message {
                    ServerMessage::Rolled(rolled) => rolled.by_clock = true,
                    ServerMessage::Moved(moved) => moved.by_clock = true,
                    ServerMessage::Launched(launched) => launched.by_clock = true,
                    ServerMessage::Walked(walked) => walked.by_clock = true,
                    _ => {}
                }
            }
        }
        let computer = self.is_computer(self.timeline.game().to_act());
        let running = self.clock.per_decision().is_some()
            && self.is_live()
            && !computer
            && !self.first_clock_waits();
        let deadline = self
            .clock
            .per_decision()
            .filter(|_| running)
            .map(|length| Instant::now() + length);
        self.clock.set_deadline(deadline);
        if deadline.is_none() {
            return;
        }
        let deadline_ms = self.clock.length_ms();
        for message in messages {
            match message {
                ServerMessage::GameStarted(started) => started.deadline_ms = deadline_ms,
                ServerMessage::Rolled(rolled) => rolled.deadline_ms = deadline_ms,
                ServerMessage::Moved(moved) => moved.deadline_ms = deadline_ms,
                ServerMessage::TurnPassed(passed) => passed.deadline_ms = deadline_ms,
                ServerMessage::ExtraRoll(extra) => extra.deadline_ms = deadline_ms,
                _ => {}
            }
        }
    }

    /// The clock ran out: act for the player to act, count a strike, forfeit at the limit.
    pub(super) fn expire_clock(&mut self, now: Instant) {
        if self.clock.deadline().is_none_or(|deadline| deadline > now) {
            return;
        }
        self.clock.set_deadline(None);
        if !self.is_live() {
            return;
        }
        let colour = self.timeline.game().to_act();
        let strikes = self.clock.strike(colour);
        let max = self.context.config.max_strikes.max(1);
        tracing::info!(seat = colour.as_str(), strikes, "turn clock ran out");
        if strikes >= max {
            let forfeit = TableAction::Forfeit {
                colour,
                reason: Forfeit::Timeout,
            };
            if let Err(error) = self.apply(forfeit) {
                tracing::error!(%error, "the rules refused a timeout forfeit");
            }
            return;
        }
        if matches!(self.timeline.game().phase(), BoardPhase::AwaitingRoll) {
            let Ok(value) = self.timeline.draw(colour) else {
                return;
            };
            if let Err(error) = self.play_for(TableAction::Roll { colour, value }) {
                tracing::error!(%error, "the rules refused a roll for a timed-out player");
                return;
            }
        }
        let game = self.timeline.game();
        if game.to_act() == colour && matches!(game.phase(), BoardPhase::AwaitingMove { .. }) {
            self.move_for(colour);
        }
    }

    /// Picks and moves a plane for `colour` with the `easy` bot.
    fn move_for(&mut self, colour: Side) {
        let seed = self.timeline.event();
        let Ok(decision) = super::bot::choose(Level::Easy, self.timeline.game(), seed) else {
            return;
        };
        let action = TableAction::Move {
            colour,
            plane: decision.plane,
        };
        if let Err(error) = self.play_for(action) {
            tracing::error!(%error, "the rules refused a move for a timed-out player");
        }
    }

    /// Applies an action the clock plays for a player, noting its place in the log first so the
    /// journal written with the action already says who played it.
    fn play_for(&mut self, action: TableAction) -> Result<(), aeroplane_rules::RuleError> {
        self.clock.playing(Some(self.timeline.actions().len()));
        let result = self.apply(action);
        self.clock.playing(None);
        if result.is_err() {
            self.clock.refused();
        }
        result
    }
}
