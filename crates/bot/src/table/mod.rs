//! The bots for a [`Table`] of any edition and two to four players (`docs/rules/`).
//!
//! The levels mean what they mean for `plyyard` (crate docs): `random` picks any legal plane,
//! `easy` follows fixed priorities, `normal` scores each move one roll deep, `hard` looks one
//! roll further. The evaluation weighs *every* opponent: its threats come from each opponent's
//! own moves as the rules would play them ([`Table::preview`]), so jumps, flights, shortcuts and
//! stacks need no special code here, and a position is worth its material minus a blend of the
//! strongest and the average opponent.

mod eval;
mod explain;

use aeroplane_rules::{Plane, PlaneSet, Position, Table, TableEvent, TablePhase};

use crate::easy::random;
use crate::{Decision, Level, NotAwaitingMove};

/// Chooses a plane for the player to act at `table`, which must await a move.
///
/// The same `level`, `table` and `seed` always give the same decision; only [`Level::Random`]
/// draws on the seed.
pub fn choose_table(level: Level, table: &Table, seed: u64) -> Result<Decision, NotAwaitingMove> {
    let TablePhase::AwaitingMove { legal, .. } = table.phase() else {
        return Err(NotAwaitingMove);
    };
    let plane = match level {
        Level::Random => random(legal, seed),
        Level::Easy => easy(table, legal),
        Level::Normal => eval::best_plane(table, 0),
        Level::Hard => eval::best_plane(table, 1),
    };
    Ok(Decision {
        plane,
        explanation: explain::explain(level, table, plane),
    })
}

/// Fixed priorities: send someone home, then reach the centre, then launch, then advance the
/// leading plane.
fn easy(table: &Table, legal: PlaneSet) -> Plane {
    let me = table.to_act();
    let events = |plane: Plane| after_move(table, plane).1;
    let sends_home = |plane: &Plane| {
        events(*plane)
            .iter()
            .any(|e| matches!(e, TableEvent::SentHome { .. }))
    };
    let finishes = |plane: &Plane| {
        events(*plane)
            .iter()
            .any(|e| matches!(e, TableEvent::Finished { .. }))
    };
    let launches = |plane: &Plane| table.position(me, *plane) == Position::Base;
    legal
        .iter()
        .find(sends_home)
        .or_else(|| legal.iter().find(finishes))
        .or_else(|| legal.iter().find(launches))
        .or_else(|| {
            legal.iter().max_by_key(|plane| {
                let progress = table.position(me, *plane).progress().unwrap_or(0);
                (progress, std::cmp::Reverse(*plane))
            })
        })
        .expect("a table awaiting a move has a legal plane")
}

/// The table and events after the player to act moves `plane`, which must be legal.
pub(crate) fn after_move(table: &Table, plane: Plane) -> (Table, aeroplane_rules::TableEvents) {
    let mut after = *table;
    let events = after
        .move_plane(table.to_act(), plane)
        .expect("only legal planes are moved");
    (after, events)
}

/// The legal planes, skipping a plane that stands where an earlier one stands (same effect).
pub(crate) fn distinct_moves(table: &Table) -> impl Iterator<Item = Plane> + '_ {
    let TablePhase::AwaitingMove { legal, .. } = table.phase() else {
        panic!("distinct_moves needs a table awaiting a move");
    };
    let planes = table.planes(table.to_act());
    legal.iter().filter(move |plane| {
        !Plane::ALL[..plane.index()].iter().any(|earlier| {
            legal.contains(*earlier) && planes[earlier.index()] == planes[plane.index()]
        })
    })
}
