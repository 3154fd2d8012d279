//! The computer opponent: given a game awaiting a move, choose a plane and say why in one sentence.
//!
//! The bot is pure like the rules crate it asks: no I/O, no clock, no global RNG. A decision
//! depends only on the level, the position and a seed, so the server can replay it and tests can
//! pin it.
//!
//! # Levels
//!
//! - [`Level::Random`] picks any legal plane (uniformly, from the seed). It is the floor that
//!   tests and tournaments measure the others against.
//! - [`Level::Easy`] follows fixed priorities a beginner would: capture if it can, else finish a
//!   plane, else deploy a new one, else advance its leading plane. It never looks at danger, so a
//!   player who learns to keep out of its reach beats it.
//! - [`Level::Normal`] scores the position after each legal move and keeps the best. The score
//!   counts planes in play, progress, home-lane safety and, above all, real threats: for each
//!   plane on an unsafe ring square, which opposing planes could hit it with which die values next
//!   roll ([`Game::threats`]), weighted by the chance of rolling one of them. It plays sensibly
//!   but only one move deep.
//! - [`Level::Hard`] looks ahead over the dice: expectiminimax over the next two rolls (the
//!   opponent's reply, or its own extra roll after a six, capture or finish) with the normal
//!   score at the leaves. That lets it see that a move which looks safe now walks into a six-and-
//!   extra-roll capture, or that a capture is worth an exposed plane. Moves with the same effect
//!   (two planes on one square, several planes in base) are searched once, which keeps the average
//!   decision well under a millisecond (and the slowest far below the 50 ms budget).
//!
//! The same four levels play every edition with two to four players through [`choose_table`]
//! (module `table`): the evaluation weighs every opponent and finds threats by asking the rules
//! what each opponent's next move would do, so jumps, flights and stacks need no bot code.
//!
//! Hints use the players' numbering, as the browser's move buttons do: planes from 1, squares as
//! steps from the plane's own start square.
//!
//! Measured strength and speed are in `docs/benchmarks.md` (the `tournament` example).
#![forbid(unsafe_code)]

mod easy;
mod eval;
mod explain;
mod level;
mod search;
mod table;

use aeroplane_rules::{Game, Phase, Plane};

pub use level::{Level, ParseLevelError};
pub use table::choose_table;

/// How many die rolls past its own move the `hard` bot looks.
const HARD_LOOKAHEAD: u8 = 2;

/// A chosen plane and the one-sentence reason shown as a hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The plane to move; always one of the legal planes for the pending roll.
    pub plane: Plane,
    /// What the move does and why, as a short lower-case sentence without a final full stop, in
    /// the players' numbering (planes from 1, squares as steps from the plane's own start), e.g.
    /// "captures Yellow's plane on square 17".
    pub explanation: String,
}

/// The game was not waiting for the player to act to choose a plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the bot can only choose a plane when the game awaits a move")]
pub struct NotAwaitingMove;

/// Chooses a plane for the player to act in `game`, which must await a move.
///
/// The same `level`, `game` and `seed` always give the same decision; only [`Level::Random`]
/// draws on the seed.
pub fn choose(level: Level, game: &Game, seed: u64) -> Result<Decision, NotAwaitingMove> {
    let Phase::AwaitingMove { legal, .. } = game.phase() else {
        return Err(NotAwaitingMove);
    };
    let plane = match level {
        Level::Random => easy::random(legal, seed),
        Level::Easy => easy::choose(game),
        Level::Normal => search::best_plane(game, 0, &eval::Weights::DEFAULT),
        Level::Hard => search::best_plane(game, HARD_LOOKAHEAD, &eval::Weights::DEFAULT),
    };
    Ok(Decision {
        plane,
        explanation: explain::explain(level, game, plane),
    })
}
