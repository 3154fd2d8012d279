//! Perft for tables: leaf counts of the game tree, which pin each edition's move generator.

use super::{Table, TablePhase};
use crate::board::{Die, Plane};

/// Counts the leaves of the game tree below `table`, `depth` rolls deep, exactly as
/// [`perft`](crate::perft) does for `plyyard`: each roll branches on the six values and each
/// pending plane choice on every legal plane (planes of one stack count separately); a choice uses
/// no depth; a finished game and depth 0 are leaves, but a pending choice is expanded first.
pub fn table_perft(table: &Table, depth: u32) -> u64 {
    match table.phase() {
        TablePhase::Over(_) => 1,
        TablePhase::AwaitingMove { legal, .. } => legal
            .iter()
            .map(|plane| table_perft(&after_move(table, plane), depth))
            .sum(),
        TablePhase::AwaitingRoll if depth == 0 => 1,
        TablePhase::AwaitingRoll => Die::ALL
            .into_iter()
            .map(|die| {
                let mut child = *table;
                child
                    .roll(table.to_act(), die)
                    .expect("the player to act may roll");
                match child.phase() {
                    TablePhase::AwaitingMove { legal, .. } if depth == 1 => legal.len() as u64,
                    _ if depth == 1 => 1,
                    _ => table_perft(&child, depth - 1),
                }
            })
            .sum(),
    }
}

fn after_move(table: &Table, plane: Plane) -> Table {
    let mut child = *table;
    child
        .move_plane(table.to_act(), plane)
        .expect("listed planes are legal");
    child
}
