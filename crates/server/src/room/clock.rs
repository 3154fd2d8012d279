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

use std::collections::BTreeMap;
use std::time::Duration;

use aeroplane_bot::Level;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::{ClockView, Strikes};
use aeroplane_rules::{Action, Colour, Forfeit, Phase};
use tokio::time::Instant;

use super::core::Room;
use super::journal::SavedClock;
use super::seats::millis;

/// A room's turn clock.
#[derive(Debug, Default)]
pub(super) struct Clock {
    /// How long each decision may take; `None` for a room without a clock.
    per_decision: Option<Duration>,
    /// When the pending decision times out.
    deadline: Option<Instant>,
    /// Strikes per colour in this game.
    strikes: BTreeMap<Colour, u32>,
    /// The indices in the action log of the actions the clock played for a player.
    played: Vec<usize>,
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

    /// How long each decision may take (`None`: no clock).
    pub(super) fn per_decision(&self) -> Option<Duration> {
        self.per_decision
    }

    /// The clock's length in ms, as the journal and turn events carry it.
    pub(super) fn length_ms(&self) -> Option<u64> {
        self.per_decision.map(millis)
    }

    /// When the pending decision times out.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The count the journal keeps.
    pub(super) fn saved(&self) -> SavedClock {
        SavedClock {
            strikes: Colour::ALL.map(|colour| self.strikes(colour)),
            played: self.played.clone(),
        }
    }

    /// Puts back a journaled count.
    pub(super) fn put_back(&mut self, saved: SavedClock) {
        self.strikes = Colour::ALL.into_iter().zip(saved.strikes).collect();
        self.played = saved.played;
    }

    fn strikes(&self, colour: Colour) -> u32 {
        self.strikes.get(&colour).copied().unwrap_or(0)
    }

    /// The clock as snapshots show it (`None` in a room without a clock).
    pub(super) fn view(&self, max_strikes: u32) -> Option<ClockView> {
        let per_decision_ms = self.length_ms()?;
        let now = Instant::now();
        let remaining_ms = self
            .deadline
            .map(|deadline| millis(deadline.saturating_duration_since(now)));
        Some(ClockView {
            per_decision_ms,
            remaining_ms,
            strikes: Strikes {
                red: self.strikes(Colour::Red),
                yellow: self.strikes(Colour::Yellow),
            },
            max_strikes: max_strikes.max(1),
        })
    }
}

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
            self.clock.deadline.is_none() && self.timeline.actions().is_empty() && self.is_live();
        let to_act = self.timeline.game().to_act();
        if !waiting || self.is_computer(to_act) || self.first_clock_waits() {
            return None;
        }
        let length = self.clock.per_decision?;
        self.clock.deadline = Some(Instant::now() + length);
        self.clock.length_ms()
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
        let computer = self.is_computer(self.timeline.game().to_act());
        let running = self.clock.per_decision.is_some()
            && self.is_live()
            && !computer
            && !self.first_clock_waits();
        self.clock.deadline = self
            .clock
            .per_decision
            .filter(|_| running)
            .map(|length| Instant::now() + length);
        if self.clock.deadline.is_none() {
            return;
        }
        let deadline_ms = self.clock.length_ms();
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
        let colour = self.timeline.game().to_act();
        let strikes = self.clock.strikes.entry(colour).or_insert(0);
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
        if matches!(self.timeline.game().phase(), Phase::AwaitingRoll) {
            let Ok(value) = self.timeline.draw(colour) else {
                return;
            };
            if let Err(error) = self.play_for(Action::Roll { colour, value }) {
                tracing::error!(%error, "the rules refused a roll for a timed-out player");
                return;
            }
        }
        let game = self.timeline.game();
        if game.to_act() == colour && matches!(game.phase(), Phase::AwaitingMove { .. }) {
            self.move_for(colour);
        }
    }

    /// Picks and moves a plane for `colour` with the `easy` bot.
    fn move_for(&mut self, colour: Colour) {
        let seed = self.timeline.event();
        let Ok(decision) = aeroplane_bot::choose(Level::Easy, self.timeline.game(), seed) else {
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
        self.clock.played.push(self.timeline.actions().len());
        self.clock.playing = true;
        let result = self.apply(action);
        self.clock.playing = false;
        if result.is_err() {
            self.clock.played.pop();
        }
        result
    }
}
