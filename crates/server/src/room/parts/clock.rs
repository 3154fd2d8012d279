//! The turn clock's state: its length, the pending deadline, the strikes and which actions it
//! played. How the room uses it is `room/clock.rs`.

use std::time::Duration;

use aeroplane_protocol::snapshot::{ClockView, Strikes};
use aeroplane_rules::Side;
use tokio::time::Instant;

use super::seats::millis;
use crate::room::journal::SavedClock;

/// A room's turn clock: its length, the pending deadline and what it counted.
#[derive(Debug, Default)]
pub(in crate::room) struct Clock {
    /// The colours that play, in turn order (the order the journal keeps the strikes in).
    sides: &'static [Side],
    /// How long each decision may take; `None` for a room without a clock.
    per_decision: Option<Duration>,
    /// When the pending decision times out.
    deadline: Option<Instant>,
    /// What the clock counted, in the form the journal keeps: the strikes of the colours of
    /// `sides` (one each, in that order) and the indices in the action log of the actions it
    /// played for a player. Kept in that form, the journal compares it with what it wrote
    /// without building it anew (that was two allocations and a comparison of fresh memory
    /// per action, about 1% of the server's CPU in the closed loop).
    count: SavedClock,
    /// How many times `count` changed since the clock was made, counted from 1 (0 is the
    /// journal writer's "never looked at"): the journal compares the count only when this
    /// moved (comparing it at every action cost a cache miss on each of its vectors, about 2%
    /// of the server's CPU in the closed loop).
    changes: u32,
    /// Whether the action being applied now is one the clock plays for a player.
    playing: bool,
}

impl Clock {
    /// A clock of this length, or none, for the players of `sides`.
    pub(in crate::room) fn new(per_decision: Option<Duration>, sides: &'static [Side]) -> Clock {
        Clock {
            sides,
            per_decision: per_decision.filter(|length| !length.is_zero()),
            count: SavedClock {
                strikes: vec![0; sides.len()],
                played: Vec::new(),
            },
            changes: 1,
            ..Clock::default()
        }
    }

    /// How long each decision may take (`None`: no clock).
    pub(in crate::room) fn per_decision(&self) -> Option<Duration> {
        self.per_decision
    }

    /// The clock's length in ms, as the journal and turn events carry it.
    pub(in crate::room) fn length_ms(&self) -> Option<u64> {
        self.per_decision.map(millis)
    }

    /// When the pending decision times out.
    pub(in crate::room) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The count the journal keeps.
    pub(in crate::room) fn saved(&self) -> &SavedClock {
        &self.count
    }

    /// How many times the count changed since the clock was made, from 1 (it cannot have
    /// changed while this stays the same).
    pub(in crate::room) fn changes(&self) -> u32 {
        self.changes
    }

    /// Puts back a journaled count (strikes a journal lacks are none, those past the colours
    /// that play are dropped).
    pub(in crate::room) fn put_back(&mut self, saved: SavedClock) {
        self.count = saved;
        self.count.strikes.resize(self.sides.len(), 0);
        self.changed();
    }

    /// Counts a change of the count. (Wrapping round to 0, after four billion changes, would
    /// only make the journal compare the count once more.)
    fn changed(&mut self) {
        self.changes = self.changes.wrapping_add(1);
    }

    fn strikes(&self, colour: Side) -> u32 {
        self.slot(colour)
            .map_or(0, |index| self.count.strikes[index])
    }

    /// Where `colour`'s strikes are in the count (`None`: it does not play).
    fn slot(&self, colour: Side) -> Option<usize> {
        self.sides.iter().position(|side| *side == colour)
    }

    /// Counts a strike against `colour`; answers its strikes now. Only a colour that plays is
    /// ever to act, so only one that plays is struck; any other is answered as struck once and
    /// counted nowhere (the journal keeps the strikes of the colours that play).
    pub(in crate::room) fn strike(&mut self, colour: Side) -> u32 {
        let Some(index) = self.slot(colour) else {
            return 1;
        };
        self.changed();
        let strikes = &mut self.count.strikes[index];
        *strikes += 1;
        *strikes
    }

    /// Sets (or clears) the pending decision's deadline.
    pub(in crate::room) fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Whether the action being applied now is one the clock plays for a player.
    pub(in crate::room) fn is_playing(&self) -> bool {
        self.playing
    }

    /// The clock starts (`Some(index)`: the index the action it plays will have in the log) or
    /// stops (`None`) playing an action for a player.
    pub(in crate::room) fn playing(&mut self, index: Option<usize>) {
        self.playing = index.is_some();
        if let Some(index) = index {
            self.count.played.push(index);
            self.changed();
        }
    }

    /// The action the clock was playing was refused: it played nothing.
    pub(in crate::room) fn refused(&mut self) {
        self.count.played.pop();
        self.changed();
    }

    /// The clock as snapshots show it (`None` in a room without a clock).
    pub(in crate::room) fn view(&self, max_strikes: u32) -> Option<ClockView> {
        let per_decision_ms = self.length_ms()?;
        let now = Instant::now();
        let remaining_ms = self
            .deadline
            .map(|deadline| millis(deadline.saturating_duration_since(now)));
        Some(ClockView {
            per_decision_ms,
            remaining_ms,
            strikes: Strikes {
                red: self.strikes(Side::Red),
                yellow: self.strikes(Side::Yellow),
                blue: self.strikes(Side::Blue),
                green: self.strikes(Side::Green),
            },
            max_strikes: max_strikes.max(1),
        })
    }
}
