//! The difficulty levels and their lower-case names.

use std::fmt;
use std::str::FromStr;

/// How strongly the bot plays; see the crate docs for what each level does.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Picks a legal plane uniformly at random from the seed; a baseline for tests and tournaments.
    Random,
    /// Follows fixed priorities: capture, finish, deploy, then advance the leading plane.
    Easy,
    /// Scores each move with a position evaluation that counts real threats.
    Normal,
    /// Looks ahead over the coming dice (expectiminimax) with the normal evaluation at the leaves.
    Hard,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [Level::Random, Level::Easy, Level::Normal, Level::Hard];

    /// The lower-case name: `random`, `easy`, `normal` or `hard`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Easy => "easy",
            Level::Normal => "normal",
            Level::Hard => "hard",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Level {
    type Err = ParseLevelError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Level::ALL
            .into_iter()
            .find(|level| level.as_str() == text)
            .ok_or_else(|| ParseLevelError(text.to_owned()))
    }
}

/// The text was not one of `random`, `easy`, `normal` or `hard`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a bot level: expected `random`, `easy`, `normal` or `hard`")]
pub struct ParseLevelError(pub String);
