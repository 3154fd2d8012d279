//! What an action did, told as a short list of events.
//!
//! Events are the rules crate's account of a step: the server turns each into one wire message,
//! and clients animate them. A move is one [`Event::Moved`] that carries everything it did (its
//! capture, its finish, its extra roll). One action produces at most [`MAX_EVENTS`] events, so
//! the list lives on the stack.

use crate::board::{Colour, Die, Plane, PlaneSet, Position, RingIndex};
use crate::game::Outcome;

/// The most events one action can produce (a roll: rolled, draw declined, turn passed).
pub const MAX_EVENTS: usize = 3;

/// The events of one action, in the order they happened.
pub type Events = arrayvec::ArrayVec<Event, MAX_EVENTS>;

/// Opposing planes that a move sent back to their base (`rules.md` §4 step 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Capture {
    /// The owner of the captured planes.
    pub colour: Colour,
    /// The captured planes (all opposing planes on that square).
    pub planes: PlaneSet,
    /// The ring square of the capture.
    pub square: RingIndex,
}

/// Why the turn went to the other player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum PassReason {
    /// A plane moved and earned no extra roll.
    Normal,
    /// The roll left no plane able to move (a six included).
    NoLegalMove,
    /// The roll was the third consecutive six of the turn, which is void.
    VoidThirdSix,
}

/// One thing that happened in the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "event", rename_all = "snake_case"))]
pub enum Event {
    /// `colour` rolled `value`; `legal` are the planes it may now move (empty when the roll is
    /// void or has no legal move, which a `TurnPassed` event then reports).
    Rolled {
        /// Who rolled.
        colour: Colour,
        /// The value rolled.
        value: Die,
        /// The planes that may move for this roll.
        legal: PlaneSet,
    },
    /// A plane moved: deployed from its base to its start square (`from` is `Base`, `to` is
    /// `Route(0)`; a deployment never advances further) or advanced on its route, with what the
    /// move did.
    Moved {
        /// The plane's owner.
        colour: Colour,
        /// The plane moved.
        plane: Plane,
        /// Where it was (`Base` for a deployment).
        from: Position,
        /// Where it is now (`Finished` when it reached the finish).
        to: Position,
        /// The opposing planes it sent back to base, if any (a move captures on one square at
        /// most).
        capture: Option<Capture>,
        /// Whether the plane reached the finish (`to` is `Finished`).
        finished: bool,
        /// Whether the mover rolls again (a six, a capture or a finish, unless the move won the
        /// game; at most one per move).
        extra_roll: bool,
    },
    /// The turn went to `to`.
    TurnPassed {
        /// Whose turn ended.
        from: Colour,
        /// Who acts now.
        to: Colour,
        /// Why it ended.
        reason: PassReason,
    },
    /// `by` offered a draw.
    DrawOffered {
        /// The offerer.
        by: Colour,
    },
    /// `by` accepted the standing draw offer.
    DrawAccepted {
        /// The receiver who accepted.
        by: Colour,
    },
    /// `by` declined the standing draw offer; `implicit` when it was declined by rolling.
    DrawDeclined {
        /// The receiver who declined.
        by: Colour,
        /// Whether the receiver declined by rolling rather than by saying so.
        implicit: bool,
    },
    /// `by` withdrew its own draw offer.
    DrawWithdrawn {
        /// The offerer.
        by: Colour,
    },
    /// `colour` resigned.
    Resigned {
        /// Who resigned.
        colour: Colour,
    },
    /// The game ended.
    GameOver {
        /// How it ended.
        outcome: Outcome,
    },
}
