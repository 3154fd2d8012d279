//! Which opposing planes could hit a square next roll: the rule pages' "count back one to six".
//!
//! Bots weigh danger with it and hints explain themselves with it.

use arrayvec::ArrayVec;

use crate::board::{Colour, Die, LAST_RING_PROGRESS, Plane, Position, RingIndex};
use crate::game::Game;

/// One way a plane could land on a square with its next roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Threat {
    /// The attacking plane.
    pub plane: Plane,
    /// The die value that would bring it there.
    pub die: Die,
}

impl Game {
    /// The planes of `attacker` that could capture on `square` with one roll, and the value each
    /// needs. Empty on a safe square, where nothing is ever captured.
    ///
    /// Only planes on the ring count: a deployment lands on a (safe) start square, and a plane
    /// whose advance would take it past its lane mouth (progress 50) leaves the ring. (In
    /// `plyyard` a walk is the whole move: no jump or flight follows; whether a square is safe is
    /// the table's rule.)
    pub fn threats(&self, attacker: Colour, square: RingIndex) -> ArrayVec<Threat, 4> {
        let mut threats = ArrayVec::new();
        if self.table().rules().is_safe(square) {
            return threats;
        }
        for (plane, position) in Plane::ALL.into_iter().zip(self.planes(attacker)) {
            let (Position::Route(progress), Some(at)) = (position, position.ring_index(attacker))
            else {
                continue;
            };
            let distance = square.steps_from(at);
            if let Some(die) = Die::new(distance)
                && progress + distance <= LAST_RING_PROGRESS
            {
                threats.push(Threat { plane, die });
            }
        }
        threats
    }
}
