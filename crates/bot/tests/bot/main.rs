//! The bot's behaviour: legality, determinism, explanations and each level's preferences.

mod explanations;
mod legality;
mod level_names;
mod preferences;
mod tables;

use aeroplane_rules::Game;

/// The position written in the notation of `rules.md` §7; panics on a typo in a test.
fn position(notation: &str) -> Game {
    notation
        .parse()
        .unwrap_or_else(|error| panic!("bad test position {notation:?}: {error}"))
}
