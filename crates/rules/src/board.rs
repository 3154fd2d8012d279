//! The board's vocabulary: colours, planes, die values, ring squares and plane positions.
//!
//! Every type here is a small `Copy` value that can only hold what `rules.md` §1–§3 allows, so the
//! rest of the crate never re-checks ranges.

use std::fmt;

/// Squares on the shared ring (`rules.md` §1).
pub const RING_LEN: u8 = 52;
/// Progress of the last ring square a plane visits, the mouth of its home lane.
pub const LAST_RING_PROGRESS: u8 = 50;
/// Progress at which a plane reaches the finish.
pub const FINISH_PROGRESS: u8 = 56;
/// Ring squares on which nothing is ever captured: the four start squares and the four stars.
pub const SAFE_SQUARES: [RingIndex; 8] = [
    RingIndex(0),
    RingIndex(8),
    RingIndex(13),
    RingIndex(21),
    RingIndex(26),
    RingIndex(34),
    RingIndex(39),
    RingIndex(47),
];
/// Start squares of the two inactive colours, Green and Blue; they are safe squares all the same.
pub const INACTIVE_START_SQUARES: [RingIndex; 2] = [RingIndex(13), RingIndex(39)];

/// One of the two playing colours. Green and Blue bases exist on the board but never play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Colour {
    /// Red, whose start square is ring index 0; Red makes the first roll of every game.
    Red,
    /// Yellow, whose start square is ring index 26.
    Yellow,
}

impl Colour {
    /// Both playing colours, Red first.
    pub const ALL: [Colour; 2] = [Colour::Red, Colour::Yellow];

    /// The other playing colour.
    pub const fn opponent(self) -> Colour {
        match self {
            Colour::Red => Colour::Yellow,
            Colour::Yellow => Colour::Red,
        }
    }

    /// 0 for Red, 1 for Yellow: the index of this colour in per-colour arrays.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The ring square where this colour's planes enter the ring.
    pub const fn start_square(self) -> RingIndex {
        match self {
            Colour::Red => RingIndex(0),
            Colour::Yellow => RingIndex(26),
        }
    }

    /// The lower-case name used in codes and notation: `red` or `yellow`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Colour::Red => "red",
            Colour::Yellow => "yellow",
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Colour::Red => "Red",
            Colour::Yellow => "Yellow",
        })
    }
}

impl std::str::FromStr for Colour {
    type Err = ParseColourError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "red" => Ok(Colour::Red),
            "yellow" => Ok(Colour::Yellow),
            _ => Err(ParseColourError),
        }
    }
}

/// The text was not `red` or `yellow`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a colour is `red` or `yellow`")]
pub struct ParseColourError;

/// One of a player's four planes, numbered `0..=3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "u8", into = "u8"))]
pub struct Plane(u8);

impl Plane {
    /// The four planes in order.
    pub const ALL: [Plane; 4] = [Plane(0), Plane(1), Plane(2), Plane(3)];

    /// The plane with this number, if it is in `0..=3`.
    pub const fn new(number: u8) -> Option<Plane> {
        if number < 4 {
            Some(Plane(number))
        } else {
            None
        }
    }

    /// The plane's number, `0..=3`.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// The plane's number as an array index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl TryFrom<u8> for Plane {
    type Error = OutOfRange;

    fn try_from(number: u8) -> Result<Self, Self::Error> {
        Plane::new(number).ok_or(OutOfRange {
            what: "plane",
            min: 0,
            max: 3,
        })
    }
}

impl From<Plane> for u8 {
    fn from(plane: Plane) -> u8 {
        plane.0
    }
}

impl fmt::Display for Plane {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A number outside the range its type allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a {what} is a number from {min} to {max}")]
pub struct OutOfRange {
    /// What the number was meant to be.
    pub what: &'static str,
    /// The smallest allowed value.
    pub min: u8,
    /// The largest allowed value.
    pub max: u8,
}

/// The value of one roll of the six-sided die, `1..=6`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "u8", into = "u8"))]
pub struct Die(u8);

impl Die {
    /// The six, which deploys planes and earns an extra roll.
    pub const SIX: Die = Die(6);
    /// All six values in order.
    pub const ALL: [Die; 6] = [Die(1), Die(2), Die(3), Die(4), Die(5), Die(6)];

    /// The die value, if it is in `1..=6`.
    pub const fn new(value: u8) -> Option<Die> {
        if value >= 1 && value <= 6 {
            Some(Die(value))
        } else {
            None
        }
    }

    /// The number shown, `1..=6`.
    pub const fn value(self) -> u8 {
        self.0
    }

    /// Whether this is a six.
    pub const fn is_six(self) -> bool {
        self.0 == 6
    }
}

impl TryFrom<u8> for Die {
    type Error = OutOfRange;

    fn try_from(value: u8) -> Result<Self, Self::Error> {
        Die::new(value).ok_or(OutOfRange {
            what: "die value",
            min: 1,
            max: 6,
        })
    }
}

impl From<Die> for u8 {
    fn from(die: Die) -> u8 {
        die.0
    }
}

impl fmt::Display for Die {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A square of the shared ring, `0..=51` in clockwise travel order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "u8", into = "u8"))]
pub struct RingIndex(u8);

impl RingIndex {
    /// The ring square with this index, if it is in `0..=51`.
    pub const fn new(index: u8) -> Option<RingIndex> {
        if index < RING_LEN {
            Some(RingIndex(index))
        } else {
            None
        }
    }

    /// The square's index, `0..=51`.
    pub const fn value(self) -> u8 {
        self.0
    }

    /// Whether nothing can be captured here (a start square or a star, of any colour).
    pub const fn is_safe(self) -> bool {
        // Start squares are multiples of 13; stars are eight squares past them.
        matches!(self.0 % 13, 0 | 8)
    }

    /// The square `steps` squares further along the ring.
    pub const fn advanced(self, steps: u8) -> RingIndex {
        RingIndex(((self.0 as u16 + steps as u16) % RING_LEN as u16) as u8)
    }

    /// How many steps clockwise lead from `from` to this square, `0..=51`.
    pub const fn steps_from(self, from: RingIndex) -> u8 {
        (self.0 + RING_LEN - from.0) % RING_LEN
    }
}

impl TryFrom<u8> for RingIndex {
    type Error = OutOfRange;

    fn try_from(index: u8) -> Result<Self, Self::Error> {
        RingIndex::new(index).ok_or(OutOfRange {
            what: "ring index",
            min: 0,
            max: 51,
        })
    }
}

impl From<RingIndex> for u8 {
    fn from(index: RingIndex) -> u8 {
        index.0
    }
}

impl fmt::Display for RingIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Where one plane is (`rules.md` §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Position {
    /// In its owner's base; every plane starts here and captured planes return here.
    Base,
    /// On its route, this many steps (`0..=55`) past its own start square: `0..=50` is the ring,
    /// `51..=55` its own home lane.
    Route(u8),
    /// At the finish; it never moves again.
    Finished,
}

impl Position {
    /// The position reached at `progress` steps (`0..=56`; 56 is the finish), if in range.
    pub const fn from_progress(progress: u8) -> Option<Position> {
        if progress < FINISH_PROGRESS {
            Some(Position::Route(progress))
        } else if progress == FINISH_PROGRESS {
            Some(Position::Finished)
        } else {
            None
        }
    }

    /// Steps from the start square: `None` in the base, `0..=55` on the route, 56 when finished.
    pub const fn progress(self) -> Option<u8> {
        match self {
            Position::Base => None,
            Position::Route(progress) => Some(progress),
            Position::Finished => Some(FINISH_PROGRESS),
        }
    }

    /// The ring square of a plane of `colour` at this position, if it is on the ring.
    pub const fn ring_index(self, colour: Colour) -> Option<RingIndex> {
        match self {
            Position::Route(progress) if progress <= LAST_RING_PROGRESS => {
                Some(colour.start_square().advanced(progress))
            }
            _ => None,
        }
    }

    /// Whether this is a square of the owner's home lane (progress `51..=55`).
    pub const fn is_in_home_lane(self) -> bool {
        matches!(self, Position::Route(progress) if progress > LAST_RING_PROGRESS)
    }

    /// Whether the value is one `rules.md` §2 allows (`Route` progress at most 55).
    pub const fn is_valid(self) -> bool {
        match self {
            Position::Route(progress) => progress < FINISH_PROGRESS,
            Position::Base | Position::Finished => true,
        }
    }
}

/// A set of a player's planes, such as the planes that may move for a roll.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PlaneSet(u8);

impl PlaneSet {
    /// The set with no plane.
    pub const EMPTY: PlaneSet = PlaneSet(0);

    /// This set with `plane` added.
    pub const fn with(self, plane: Plane) -> PlaneSet {
        PlaneSet(self.0 | (1 << plane.0))
    }

    /// Whether `plane` is in the set.
    pub const fn contains(self, plane: Plane) -> bool {
        self.0 & (1 << plane.0) != 0
    }

    /// Whether the set has no plane.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many planes the set holds.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The lowest-numbered plane of the set, if any.
    pub(crate) const fn first(self) -> Option<Plane> {
        if self.0 == 0 {
            None
        } else {
            Some(Plane(self.0.trailing_zeros() as u8))
        }
    }

    /// The planes in the set, in increasing order.
    pub fn iter(self) -> impl Iterator<Item = Plane> + Clone {
        Plane::ALL
            .into_iter()
            .filter(move |plane| self.contains(*plane))
    }
}

impl FromIterator<Plane> for PlaneSet {
    fn from_iter<I: IntoIterator<Item = Plane>>(planes: I) -> Self {
        planes.into_iter().fold(PlaneSet::EMPTY, PlaneSet::with)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_squares_are_exactly_the_starts_and_stars() {
        let safe: Vec<u8> = (0..RING_LEN).filter(|i| RingIndex(*i).is_safe()).collect();
        let listed: Vec<u8> = SAFE_SQUARES.iter().map(|s| s.value()).collect();
        assert_eq!(safe, listed);
        assert_eq!(safe, [0, 8, 13, 21, 26, 34, 39, 47]);
    }

    #[test]
    fn progress_fifty_is_two_squares_before_the_own_start() {
        assert_eq!(
            Position::Route(50).ring_index(Colour::Red),
            RingIndex::new(50)
        );
        assert_eq!(
            Position::Route(50).ring_index(Colour::Yellow),
            RingIndex::new(24)
        );
        assert_eq!(Position::Route(51).ring_index(Colour::Red), None);
    }

    #[test]
    fn steps_from_wraps_around_the_ring() {
        let a = RingIndex(50);
        assert_eq!(RingIndex(2).steps_from(a), 4);
        assert_eq!(a.advanced(4), RingIndex(2));
    }
}
