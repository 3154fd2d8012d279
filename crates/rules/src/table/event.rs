//! What an action on a [`Table`](crate::Table) did, told as a short list of events.
//!
//! The editions' moves have more steps than `plyyard`'s (a jump, a flight, planes sent home on the
//! way, a third six that sends planes back, players leaving), so a table tells each step as its
//! own event and a client animates them in order. [`Game`](crate::Game) tells the same steps of a
//! `plyyard` move as one [`Event::Moved`](crate::Event::Moved).

use crate::board::{Die, Plane, PlaneSet, Position, RingIndex};
use crate::edition::Side;
use crate::event::PassReason;
use crate::game::EndReason;

/// The most events one action on a table can produce.
pub const MAX_TABLE_EVENTS: usize = 32;

/// The events of one action, in the order they happened.
pub type TableEvents = arrayvec::ArrayVec<TableEvent, MAX_TABLE_EVENTS>;

/// How a table's game ended: who won, and why the last step ended it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TableOutcome {
    /// The player in first place; `None` for an agreed draw in which nobody had finished.
    pub winner: Option<Side>,
    /// Why the game ended (`Finished`, `Resigned`, `Agreed`, `Abandoned` or `Timeout`).
    pub reason: EndReason,
}

/// What a table waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TablePhase {
    /// The player to act must roll.
    AwaitingRoll,
    /// The player to act must choose one of `legal` for the pending `roll`.
    AwaitingMove {
        /// The value rolled and not yet played.
        roll: Die,
        /// The planes that may move for it (never empty; every plane of a stack is listed).
        legal: PlaneSet,
    },
    /// The game has ended.
    Over(TableOutcome),
}

/// One thing that happened at a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TableEvent {
    /// `side` rolled `value`; `legal` are the planes it may now move (empty when the roll is void
    /// or has no legal move, which a `TurnPassed` event then reports).
    Rolled {
        /// Who rolled.
        side: Side,
        /// The value rolled.
        value: Die,
        /// The planes that may move for this roll.
        legal: PlaneSet,
    },
    /// A plane left its hangar for its start square.
    Launched {
        /// The plane's owner.
        side: Side,
        /// The plane launched.
        plane: Plane,
    },
    /// Planes (one, or a `classic` stack) walked the number rolled, bouncing back in the runway in
    /// `flights`.
    Moved {
        /// Their owner.
        side: Side,
        /// The planes that moved together.
        planes: PlaneSet,
        /// Where they were.
        from: Position,
        /// Where the walk ended, before any jump or flight (`Finished` at the centre).
        to: Position,
    },
    /// The planes jumped 4 squares to the next square of their colour.
    Jumped {
        /// Their owner.
        side: Side,
        /// The planes that jumped.
        planes: PlaneSet,
        /// Progress before the jump.
        from: u8,
        /// Progress after it.
        to: u8,
    },
    /// The planes took the flight (`flights`) or shortcut (`classic`).
    Flew {
        /// Their owner.
        side: Side,
        /// The planes that flew.
        planes: PlaneSet,
        /// Progress of the flight square.
        from: u8,
        /// Progress of the landing square.
        to: u8,
    },
    /// Opposing planes went back to their hangar.
    SentHome {
        /// Their owner.
        side: Side,
        /// The planes sent home.
        planes: PlaneSet,
        /// The ring square, or `None` for the lane square a `classic` shortcut crosses.
        square: Option<RingIndex>,
    },
    /// Planes reached the centre.
    Finished {
        /// Their owner.
        side: Side,
        /// The planes that finished.
        planes: PlaneSet,
    },
    /// A third consecutive six: void, and `returned` went back to the hangar.
    ThirdSix {
        /// Who rolled it.
        side: Side,
        /// The planes sent back (maybe none).
        returned: PlaneSet,
    },
    /// The player who just moved rolls again.
    ExtraRoll {
        /// Who rolls again.
        side: Side,
    },
    /// The turn went to `to`.
    TurnPassed {
        /// Whose turn ended.
        from: Side,
        /// Who acts now.
        to: Side,
        /// Why it ended.
        reason: PassReason,
    },
    /// A player left play with a final place (all planes at the centre, or resigned).
    Out {
        /// Who.
        side: Side,
        /// The place, from 1.
        place: u8,
    },
    /// `by` offered a draw.
    DrawOffered {
        /// The offerer.
        by: Side,
    },
    /// `by`, a receiver, accepted the standing draw offer (a `GameOver` follows when it was the
    /// last receiver to).
    DrawAccepted {
        /// The receiver who accepted.
        by: Side,
    },
    /// `by` declined the standing draw offer, which is gone; `implicit` when it declined by
    /// rolling.
    DrawDeclined {
        /// The receiver who declined.
        by: Side,
        /// Whether the receiver declined by rolling rather than by saying so.
        implicit: bool,
    },
    /// `by` withdrew its own draw offer.
    DrawWithdrawn {
        /// The offerer.
        by: Side,
    },
    /// The draw offer of `by` lapsed because a player left play and the game goes on.
    DrawLapsed {
        /// The offerer.
        by: Side,
    },
    /// `side` resigned.
    Resigned {
        /// Who.
        side: Side,
    },
    /// The game ended.
    GameOver {
        /// How.
        outcome: TableOutcome,
    },
}

/// Where a table's action writes its events, in order: a [`TableEvents`] list, or the account of
/// [`Game`](crate::Game), which tells them as `plyyard` [`Event`](crate::Event)s as they come (so
/// no list of table events is built and copied on the hot path of play).
pub(crate) trait Record {
    /// Appends the next event.
    fn record(&mut self, event: TableEvent);
}

impl Record for TableEvents {
    #[inline(always)]
    fn record(&mut self, event: TableEvent) {
        self.push(event);
    }
}
