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

use std::time::Duration;

use aeroplane_bot::Level;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::{ClockView, Strikes};
use aeroplane_rules::{Action, Colour, Forfeit, Phase};
use tokio::time::Instant;

use super::state::Room;

/// A room's turn clock.
#[derive(Debug, Default)]
pub(super) struct Clock {
    /// How long each decision may take; `None` for a room without a clock.
    pub(super) per_decision: Option<Duration>,
    /// When the pending decision times out.
    pub(super) deadline: Option<Instant>,
    /// Strikes per colour in this game.
    pub(super) strikes: [u32; 2],
    /// The indices in the action log of the actions the clock played for a player.
    pub(super) played: Vec<usize>,
    /// Whether the action being applied now is one the clock plays for a player.
    playing: bool,
}

impl Clock {
    /// A clock of this length, or none.
    pub(super) fn new(per_decision: Option<Duration>) -> Clock {
        Clock {
            per_decision: per_decision.filter(|length| !length.is_zero()),
            ..Clock::default()
        }
    }

    /// The clock's length in ms, as the journal and turn events carry it.
    pub(super) fn deadline_ms(&self) -> Option<u64> {
        self.per_decision
            .map(|length| u64::try_from(length.as_millis()).unwrap_or(u64::MAX))
    }
}

impl Room {
    /// The clock as snapshots show it (`None` in a room without a clock).
    pub(super) fn clock_view(&self) -> Option<ClockView> {
        let per_decision_ms = self.clock.deadline_ms()?;
        let now = Instant::now();
        let remaining_ms = self.clock.deadline.map(|deadline| {
            let left = deadline.saturating_duration_since(now);
            u64::try_from(left.as_millis()).unwrap_or(u64::MAX)
        });
        Some(ClockView {
            per_decision_ms,
            remaining_ms,
            strikes: Strikes {
                red: self.clock.strikes[Colour::Red.index()],
                yellow: self.clock.strikes[Colour::Yellow.index()],
            },
            max_strikes: self.context.config.max_strikes.max(1),
        })
    }

    /// Whether the first decision's clock still waits for its player to connect.
    fn first_clock_waits(&self) -> bool {
        let to_act = self.game.to_act();
        self.actions.is_empty() && self.seat(to_act).is_some_and(|seat| seat.conn.is_none())
    }

    /// Starts the first decision's clock if it was waiting for the player to act and that
    /// player is now connected; returns the clock's length for the event that says so.
    pub(super) fn start_waiting_clock(&mut self) -> Option<u64> {
        let waiting = self.clock.deadline.is_none() && self.actions.is_empty() && self.is_live();
        if !waiting || self.is_computer(self.game.to_act()) || self.first_clock_waits() {
            return None;
        }
        let length = self.clock.per_decision?;
        self.clock.deadline = Some(Instant::now() + length);
        self.clock.deadline_ms()
    }

    /// Restarts the clock for the decision now pending (none once the game is over, before it
    /// starts, or when the computer is to act) and stamps the turn events with its length.
    pub(super) fn restart_clock(&mut self, messages: &mut [ServerMessage]) {
        if self.clock.playing {
            for message in messages.iter_mut() {
                match message {
                    ServerMessage::Rolled(rolled) => rolled.by_clock = true,
                    ServerMessage::Moved(moved) => moved.by_clock = true,
                    _ => {}
                }
            }
        }
        let computer = self.is_computer(self.game.to_act());
        let running = self.clock.per_decision.is_some()
            && self.is_live()
            && !computer
            && !self.first_clock_waits();
        self.clock.deadline = running
            .then(|| {
                self.clock
                    .per_decision
                    .map(|length| Instant::now() + length)
            })
            .flatten();
        if self.clock.deadline.is_none() {
            return;
        }
        let deadline_ms = self.clock.deadline_ms();
        for message in messages {
            match message {
                ServerMessage::GameStarted(started) => started.deadline_ms = deadline_ms,
                ServerMessage::Rolled(rolled) => rolled.deadline_ms = deadline_ms,
                ServerMessage::Moved(moved) => moved.deadline_ms = deadline_ms,
                ServerMessage::TurnPassed(passed) => passed.deadline_ms = deadline_ms,
                _ => {}
            }
        }
    }

    /// The clock ran out: act for the player to act, count a strike, forfeit at the limit.
    pub(super) fn expire_clock(&mut self, now: Instant) {
        if self.clock.deadline.is_none_or(|deadline| deadline > now) {
            return;
        }
        self.clock.deadline = None;
        if !self.is_live() {
            return;
        }
        let colour = self.game.to_act();
        let strikes = &mut self.clock.strikes[colour.index()];
        *strikes += 1;
        let strikes = *strikes;
        let max = self.context.config.max_strikes.max(1);
        tracing::info!(seat = colour.as_str(), strikes, "turn clock ran out");
        if strikes >= max {
            let forfeit = Action::Forfeit {
                colour,
                reason: Forfeit::Timeout,
            };
            if let Err(error) = self.apply(forfeit) {
                tracing::error!(%error, "the rules refused a timeout forfeit");
            }
            return;
        }
        if matches!(self.game.phase(), Phase::AwaitingRoll) {
            let Some(dice) = self.dice.as_mut() else {
                return;
            };
            let value = dice.next_die();
            if let Err(error) = self.play_for(Action::Roll { colour, value }) {
                tracing::error!(%error, "the rules refused a roll for a timed-out player");
                return;
            }
        }
        if self.game.to_act() == colour && matches!(self.game.phase(), Phase::AwaitingMove { .. }) {
            self.move_for(colour);
        }
    }

    /// Picks and moves a plane for `colour` with the `easy` bot.
    fn move_for(&mut self, colour: Colour) {
        let seed = self.event;
        let Ok(decision) = aeroplane_bot::choose(Level::Easy, &self.game, seed) else {
            return;
        };
        let action = Action::Move {
            colour,
            plane: decision.plane,
        };
        if let Err(error) = self.play_for(action) {
            tracing::error!(%error, "the rules refused a move for a timed-out player");
        }
    }

    /// Applies an action the clock plays for a player, noting its place in the log first so the
    /// journal written with the action already says who played it.
    fn play_for(&mut self, action: Action) -> Result<(), aeroplane_rules::RuleError> {
        self.clock.played.push(self.actions.len());
        self.clock.playing = true;
        let result = self.apply(action);
        self.clock.playing = false;
        if result.is_err() {
            self.clock.played.pop();
        }
        result
    }
}
