//! Perft: the number of leaves of the full game tree to a given number of rolls.
//!
//! Counting leaves pins the move generator with numbers (`tests/data/perft.txt`): any change in
//! which planes are legal, or what a roll leads to, changes a count.

use crate::game::Game;
use crate::table::table_perft;

/// Counts the leaves of the game tree below `game`, `depth` rolls deep.
///
/// Each roll branches on the six values and each plane choice on every legal plane (planes on the
/// same square count separately). A void roll or one with no legal move has one child. A finished
/// game and depth 0 are leaves, except that a pending plane choice is always expanded first. The
/// count is [`table_perft`] of the game's table: the rules are played once, by the table.
pub fn perft(game: &Game, depth: u32) -> u64 {
    table_perft(game.table(), depth)
}
