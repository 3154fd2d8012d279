//! Perft: the number of leaves of the full game tree to a given number of rolls.
//!
//! Counting leaves pins the move generator with numbers (`tests/data/perft.txt`): any change in
//! which planes are legal, or what a roll leads to, changes a count.

use crate::board::{Die, Plane};
use crate::game::{Game, Phase};

/// Counts the leaves of the game tree below `game`, `depth` rolls deep.
///
/// Each roll branches on the six values and each plane choice on every legal plane (planes on the
/// same square count separately). A void roll or one with no legal move has one child. A finished
/// game and depth 0 are leaves, except that a pending plane choice is always expanded first.
pub fn perft(game: &Game, depth: u32) -> u64 {
    match game.phase() {
        Phase::Over(_) => 1,
        Phase::AwaitingMove { legal, .. } => legal
            .iter()
            .map(|plane| perft(&after_move(game, plane), depth))
            .sum(),
        Phase::AwaitingRoll if depth == 0 => 1,
        // At the last roll every child is a leaf: count the branches without playing them.
        Phase::AwaitingRoll if depth == 1 => Die::ALL
            .into_iter()
            .map(|die| {
                let mut child = *game;
                child
                    .roll(game.to_act(), die)
                    .expect("the player to act may roll");
                match child.phase() {
                    Phase::AwaitingMove { legal, .. } => legal.len() as u64,
                    _ => 1,
                }
            })
            .sum(),
        Phase::AwaitingRoll => Die::ALL
            .into_iter()
            .map(|die| {
                let mut child = *game;
                child
                    .roll(game.to_act(), die)
                    .expect("the player to act may roll");
                perft(&child, depth - 1)
            })
            .sum(),
    }
}

fn after_move(game: &Game, plane: Plane) -> Game {
    let mut child = *game;
    child
        .move_plane(game.to_act(), plane)
        .expect("listed planes are legal");
    child
}
