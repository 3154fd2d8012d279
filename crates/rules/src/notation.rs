//! The one-line position notation of `rules.md` §7, and the consistency checks every position
//! read from outside (notation or JSON) must pass.
//!
//! `b,b,12,f b,30,52,b yellow 4 0` reads: Red's planes, Yellow's planes, who acts, the pending
//! roll (`-` when a roll is due) and the consecutive sixes of the current turn.

use std::fmt;
use std::str::FromStr;

use crate::board::{Colour, Die, FINISH_PROGRESS, Plane, Position, RingIndex};
use crate::edition::Side;
use crate::game::{Game, Phase, side};
use crate::table::{Table, TablePhase};

/// Why a text or a JSON value is not a consistent live position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The notation needs exactly five space-separated fields.
    #[error(
        "expected 5 space-separated fields (red planes, yellow planes, to act, pending roll, six counter), found {0}"
    )]
    FieldCount(usize),
    /// A colour's plane list does not have four entries.
    #[error("{colour}'s planes: expected 4 comma-separated entries, found {found}")]
    PlaneCount {
        /// Whose planes.
        colour: Colour,
        /// How many entries there were.
        found: usize,
    },
    /// A plane entry is not `b`, `f` or a number from 0 to 55.
    #[error("{colour}'s plane {plane}: `{text}` is not `b`, `f` or a number from 0 to 55")]
    PlaneValue {
        /// Whose plane.
        colour: Colour,
        /// Which plane.
        plane: Plane,
        /// The text found.
        text: String,
    },
    /// The player to act is not `red` or `yellow`.
    #[error("to act: `{0}` is not `red` or `yellow`")]
    ToAct(String),
    /// The pending roll is not `-` or a number from 1 to 6.
    #[error("pending roll: `{0}` is not `-` or a number from 1 to 6")]
    PendingRoll(String),
    /// The six counter is not 0, 1 or 2.
    #[error("six counter: `{0}` is not 0, 1 or 2")]
    SixCounter(String),
    /// A roll is pending but no plane of the player to act can move for it.
    #[error("a {0} is pending but no plane can move for it")]
    NoLegalPlane(Die),
    /// A six is pending but the counter says no six was rolled this turn.
    #[error("a 6 is pending, so the six counter must be 1 or 2, not 0")]
    PendingSixWithoutCounter,
    /// A value other than six is pending but the counter is not zero.
    #[error("a {0} is pending, so the six counter must be 0")]
    PendingNonSixWithCounter(Die),
    /// Every plane of one player has finished, so the game would be over.
    #[error("all four of {0}'s planes are finished: the game would be over")]
    AllFinished(Colour),
    /// Planes of both colours stand on an unsafe ring square.
    #[error("Red and Yellow planes stand together on unsafe ring square {0}")]
    Collision(RingIndex),
    /// The legal planes given for the pending roll are not the ones the rules allow.
    #[error("the legal planes given for the pending roll are not the ones the rules allow")]
    LegalMismatch,
}

impl Game {
    /// Builds a live position from its parts, checking it the way a parser must (`rules.md` §7).
    pub fn from_parts(
        planes: [[Position; 4]; 2],
        to_act: Colour,
        pending_roll: Option<Die>,
        sixes: u8,
    ) -> Result<Game, PositionError> {
        if sixes > 2 {
            return Err(PositionError::SixCounter(sixes.to_string()));
        }
        for colour in Colour::ALL {
            if planes[colour.index()]
                .iter()
                .all(|p| *p == Position::Finished)
            {
                return Err(PositionError::AllFinished(colour));
            }
        }
        check_no_collision(&planes)?;
        let mut table = Table::PLYYARD;
        table.planes[Side::Red.index()] = planes[Colour::Red.index()];
        table.planes[Side::Yellow.index()] = planes[Colour::Yellow.index()];
        table.to_act = side(to_act);
        table.sixes = sixes;
        if let Some(roll) = pending_roll {
            match (roll.is_six(), sixes) {
                (true, 0) => return Err(PositionError::PendingSixWithoutCounter),
                (false, 1..) => return Err(PositionError::PendingNonSixWithCounter(roll)),
                _ => {}
            }
            let legal = table.legal_planes(side(to_act), roll);
            if legal.is_empty() {
                return Err(PositionError::NoLegalPlane(roll));
            }
            table.phase = TablePhase::AwaitingMove { roll, legal };
        }
        Ok(Game::from_table(table))
    }

    /// The position in the notation of `rules.md` §7. For a finished game it prints the final
    /// planes with `-` as the pending roll (such a line is not a live position and does not parse).
    pub fn notation(&self) -> String {
        self.to_string()
    }
}

/// No plane of one colour stands on an unsafe ring square together with a plane of the other.
pub(crate) fn check_no_collision(planes: &[[Position; 4]; 2]) -> Result<(), PositionError> {
    for red in planes[Colour::Red.index()] {
        let Some(square) = red.ring_index(Colour::Red) else {
            continue;
        };
        let shared = planes[Colour::Yellow.index()]
            .iter()
            .any(|yellow| yellow.ring_index(Colour::Yellow) == Some(square));
        if shared && !square.is_safe() {
            return Err(PositionError::Collision(square));
        }
    }
    Ok(())
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for colour in Colour::ALL {
            for (index, position) in self.planes(colour).into_iter().enumerate() {
                if index > 0 {
                    f.write_str(",")?;
                }
                match position {
                    Position::Base => f.write_str("b")?,
                    Position::Route(progress) => write!(f, "{progress}")?,
                    Position::Finished => f.write_str("f")?,
                }
            }
            f.write_str(" ")?;
        }
        f.write_str(self.to_act().as_str())?;
        match self.phase() {
            Phase::AwaitingMove { roll, .. } => write!(f, " {roll}")?,
            Phase::AwaitingRoll | Phase::Over(_) => f.write_str(" -")?,
        }
        write!(f, " {}", self.sixes())
    }
}

impl FromStr for Game {
    type Err = PositionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [red, yellow, to_act, pending, sixes] = fields[..] else {
            return Err(PositionError::FieldCount(fields.len()));
        };
        let planes = [
            parse_planes(Colour::Red, red)?,
            parse_planes(Colour::Yellow, yellow)?,
        ];
        let to_act = to_act
            .parse()
            .map_err(|_| PositionError::ToAct(to_act.to_owned()))?;
        let pending_roll =
            parse_pending(pending).ok_or_else(|| PositionError::PendingRoll(pending.to_owned()))?;
        let sixes =
            parse_sixes(sixes).ok_or_else(|| PositionError::SixCounter(sixes.to_owned()))?;
        Game::from_parts(planes, to_act, pending_roll, sixes)
    }
}

fn parse_planes(colour: Colour, text: &str) -> Result<[Position; 4], PositionError> {
    let entries: Vec<&str> = text.split(',').collect();
    if entries.len() != 4 {
        return Err(PositionError::PlaneCount {
            colour,
            found: entries.len(),
        });
    }
    let mut planes = [Position::Base; 4];
    for ((slot, entry), plane) in planes.iter_mut().zip(entries).zip(Plane::ALL) {
        *slot = match entry {
            "b" => Position::Base,
            "f" => Position::Finished,
            number => parse_small(number)
                .filter(|progress| *progress < FINISH_PROGRESS)
                .map(Position::Route)
                .ok_or_else(|| PositionError::PlaneValue {
                    colour,
                    plane,
                    text: number.to_owned(),
                })?,
        };
    }
    Ok(planes)
}

/// Parses a short unsigned decimal made of ASCII digits only (no sign, no spaces).
/// The pending-roll field of every edition's notation: `-` for none, else the die's value.
pub(crate) fn parse_pending(text: &str) -> Option<Option<Die>> {
    match text {
        "-" => Some(None),
        text => parse_small(text).and_then(Die::new).map(Some),
    }
}

/// The six-counter field of every edition's notation: 0 to 2.
pub(crate) fn parse_sixes(text: &str) -> Option<u8> {
    parse_small(text).filter(|count| *count <= 2)
}

/// A small decimal number: one to three ASCII digits.
pub(crate) fn parse_small(text: &str) -> Option<u8> {
    if text.is_empty() || text.len() > 3 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}
