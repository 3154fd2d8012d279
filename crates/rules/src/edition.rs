//! The three editions as data: which squares jump, where a flight goes, what a third six does.
//!
//! `docs/rules/` has one normative page per edition. Everything the editions share (a 52-square
//! ring, four planes, a six counter, turns that rotate clockwise) is written once in
//! [`Table`](crate::Table); what differs is answered here, by small `const fn`s of [`Rules`], so
//! that a reader can compare the editions line by line and the engine never asks "which edition
//! is this?" in more than one place per rule.

use std::fmt;
use std::str::FromStr;

use crate::board::{Colour, Die, LAST_RING_PROGRESS, RingIndex};

/// One of the four colours of the board, in clockwise seat order (`flights.md` F1.3, F2.3).
///
/// `plyyard` seats only Red and Yellow and keeps its two-colour [`Colour`]; `Side` is the colour
/// type of [`Table`](crate::Table), which seats two to four.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// Red, start square 0; Red rolls first in every edition.
    Red,
    /// Green, start square 13.
    Green,
    /// Yellow, start square 26, opposite Red.
    Yellow,
    /// Blue, start square 39.
    Blue,
}

impl Side {
    /// The four colours in clockwise order, the order turns pass in.
    pub const ALL: [Side; 4] = [Side::Red, Side::Green, Side::Yellow, Side::Blue];

    /// 0 for Red to 3 for Blue: the clockwise seat index.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The colour with this clockwise seat index (taken modulo 4).
    #[inline]
    pub const fn from_index(index: usize) -> Side {
        Side::ALL[index % 4]
    }

    /// The ring square where this colour's planes enter the ring.
    #[inline]
    pub const fn start_square(self) -> RingIndex {
        match RingIndex::new(13 * self as u8) {
            Some(square) => square,
            None => unreachable!(),
        }
    }

    /// The colour seated opposite, whose lane a `classic` shortcut crosses.
    pub const fn opposite(self) -> Side {
        Side::from_index(self.index() + 2)
    }

    /// The lower-case name used in notation and dice keys: `red`, `green`, `yellow`, `blue`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Side::Red => "red",
            Side::Green => "green",
            Side::Yellow => "yellow",
            Side::Blue => "blue",
        }
    }

    /// The `plyyard` colour of this side, if it has one (Red and Yellow).
    pub const fn colour(self) -> Option<Colour> {
        match self {
            Side::Red => Some(Colour::Red),
            Side::Yellow => Some(Colour::Yellow),
            Side::Green | Side::Blue => None,
        }
    }

    /// The colour of a ring square (`flights.md` F1.2): the four colours repeat every 4 squares.
    pub const fn of_square(square: RingIndex) -> Side {
        Side::from_index(square.value() as usize % 4)
    }
}

impl From<Colour> for Side {
    fn from(colour: Colour) -> Side {
        match colour {
            Colour::Red => Side::Red,
            Colour::Yellow => Side::Yellow,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Red => "Red",
            Side::Green => "Green",
            Side::Yellow => "Yellow",
            Side::Blue => "Blue",
        })
    }
}

impl FromStr for Side {
    type Err = ParseEditionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Side::ALL
            .into_iter()
            .find(|side| side.as_str() == text)
            .ok_or_else(|| ParseEditionError::Colour(text.to_owned()))
    }
}

/// The name of an edition (`docs/rules/README.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ruleset {
    /// Two players, safe squares, no jumps (`rules.md`).
    Plyyard,
    /// Colour jumps, a dashed flight, bounce-back (`flights.md`).
    Flights,
    /// Take-off on evens, stacks, jumps that send home what they pass (`classic.md`).
    Classic,
}

impl Ruleset {
    /// The three editions.
    pub const ALL: [Ruleset; 3] = [Ruleset::Plyyard, Ruleset::Flights, Ruleset::Classic];

    /// The name in notation, records and dice keys.
    pub const fn as_str(self) -> &'static str {
        match self {
            Ruleset::Plyyard => "plyyard",
            Ruleset::Flights => "flights",
            Ruleset::Classic => "classic",
        }
    }
}

/// What a third consecutive six sends back to the hangar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThirdSix {
    /// Nothing: the roll is only void (`rules.md` §4 step 3).
    Nothing,
    /// The plane moved for the second six (`flights.md` F3.6).
    LastMoved,
    /// Every plane moved by the first two sixes (`classic.md` C3.5).
    AllMoved,
}

/// An edition with its options: the data the engine asks about every rule that differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    ruleset: Ruleset,
    jump_after_shortcut: bool,
}

/// The named option of `classic.md` C5 step 5, as written after a `+` in notation.
pub const JUMP_AFTER_SHORTCUT: &str = "jump-after-shortcut";

impl Rules {
    /// The `plyyard` rules.
    pub const PLYYARD: Rules = Rules::new(Ruleset::Plyyard);
    /// The `flights` rules.
    pub const FLIGHTS: Rules = Rules::new(Ruleset::Flights);
    /// The `classic` rules without the house rule.
    pub const CLASSIC: Rules = Rules::new(Ruleset::Classic);

    /// The edition with its default options.
    pub const fn new(ruleset: Ruleset) -> Rules {
        Rules {
            ruleset,
            jump_after_shortcut: false,
        }
    }

    /// `classic` with the house rule "a direct landing on a shortcut may then jump" on.
    pub const fn classic_with_jump_after_shortcut() -> Rules {
        Rules {
            ruleset: Ruleset::Classic,
            jump_after_shortcut: true,
        }
    }

    /// Which edition.
    pub const fn ruleset(self) -> Ruleset {
        self.ruleset
    }

    /// Whether the house rule `jump-after-shortcut` is on (only ever in `classic`).
    pub const fn jump_after_shortcut(self) -> bool {
        self.jump_after_shortcut
    }

    /// Whether this edition seats `players` players (plyyard: 2; the others: 2 to 4).
    pub const fn allows_players(self, players: usize) -> bool {
        match self.ruleset {
            Ruleset::Plyyard => players == 2,
            Ruleset::Flights | Ruleset::Classic => players >= 2 && players <= 4,
        }
    }

    /// The colours that play with `players` players, in turn order (`flights.md` F2.2).
    pub const fn seating(players: usize) -> &'static [Side] {
        match players {
            2 => &[Side::Red, Side::Yellow],
            3 => &[Side::Red, Side::Yellow, Side::Blue],
            _ => &Side::ALL,
        }
    }

    /// The progress of the centre: 56 in `plyyard` (a lane of 5), 57 elsewhere (a runway of 6).
    #[inline]
    pub const fn finish(self) -> u8 {
        match self.ruleset {
            Ruleset::Plyyard => 56,
            Ruleset::Flights | Ruleset::Classic => 57,
        }
    }

    /// Whether `roll` lets a plane leave its hangar (a six; in `classic` any even number).
    #[inline]
    pub const fn launches(self, roll: Die) -> bool {
        match self.ruleset {
            Ruleset::Plyyard | Ruleset::Flights => roll.is_six(),
            Ruleset::Classic => roll.value().is_multiple_of(2),
        }
    }

    /// Whether nothing is ever sent home on this ring square (only `plyyard` has such squares).
    #[inline]
    pub const fn is_safe(self, square: RingIndex) -> bool {
        match self.ruleset {
            Ruleset::Plyyard => square.is_safe(),
            Ruleset::Flights | Ruleset::Classic => false,
        }
    }

    /// Whether an overshoot in the runway bounces back (`flights`) instead of being illegal.
    #[inline]
    pub const fn bounces(self) -> bool {
        matches!(self.ruleset, Ruleset::Flights)
    }

    /// Whether a capture or a plane reaching the centre earns a roll (only `plyyard`).
    #[inline]
    pub const fn rewards_captures_and_finishes(self) -> bool {
        matches!(self.ruleset, Ruleset::Plyyard)
    }

    /// The flight (`flights`) or shortcut (`classic`): from which progress to which.
    #[inline]
    pub const fn flight(self) -> Option<(u8, u8)> {
        match self.ruleset {
            Ruleset::Plyyard => None,
            Ruleset::Flights => Some((36, 48)),
            Ruleset::Classic => Some((20, 32)),
        }
    }

    /// Whether a plane that stopped at `progress` jumps 4 on (`flights.md` F1.7, `classic.md`
    /// C1.4): an own-colour ring square from 4 to 44 that is not the flight square.
    #[inline]
    pub const fn jumps_from(self, progress: u8) -> bool {
        // The edition first: in `plyyard` nothing jumps, whatever square a random roll reached.
        if matches!(self.ruleset, Ruleset::Plyyard) {
            return false;
        }
        let own_colour =
            progress.is_multiple_of(4) && progress >= 4 && progress + 4 < LAST_RING_PROGRESS;
        let flight_square = match self.flight() {
            Some((from, _)) => from == progress,
            None => false,
        };
        own_colour && !flight_square
    }

    /// Whether jumps and shortcuts send home what they pass (`classic`), not only the final square.
    #[inline]
    pub const fn sends_home_along_the_way(self) -> bool {
        matches!(self.ruleset, Ruleset::Classic)
    }

    /// Whether own planes on one square form a stack that moves as one (`classic`).
    #[inline]
    pub const fn stacks(self) -> bool {
        matches!(self.ruleset, Ruleset::Classic)
    }

    /// What a third consecutive six sends home.
    #[inline]
    pub const fn third_six(self) -> ThirdSix {
        match self.ruleset {
            Ruleset::Plyyard => ThirdSix::Nothing,
            Ruleset::Flights => ThirdSix::LastMoved,
            Ruleset::Classic => ThirdSix::AllMoved,
        }
    }

    /// Whether the first player to finish ends the game for everyone (all but `classic`).
    #[inline]
    pub const fn ends_at_first_finish(self) -> bool {
        !matches!(self.ruleset, Ruleset::Classic)
    }

    /// `ruleset` with the house rules named in `house_rules` on (`jump-after-shortcut`, in
    /// `classic` only); an unknown or misplaced one is refused with the line it would make.
    pub fn with_house_rules<S: AsRef<str>>(
        ruleset: Ruleset,
        house_rules: &[S],
    ) -> Result<Rules, ParseEditionError> {
        let mut name = ruleset.as_str().to_owned();
        for rule in house_rules {
            name.push('+');
            name.push_str(rule.as_ref());
        }
        name.parse()
    }

    /// The names of the house rules that are on, as records and requests list them.
    pub fn house_rules(self) -> &'static [&'static str] {
        if self.jump_after_shortcut {
            &[JUMP_AFTER_SHORTCUT]
        } else {
            &[]
        }
    }
}

impl FromStr for Ruleset {
    type Err = ParseEditionError;

    /// Reads an edition's name: `plyyard`, `flights` or `classic`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ruleset::ALL
            .into_iter()
            .find(|ruleset| ruleset.as_str() == text)
            .ok_or_else(|| ParseEditionError::Ruleset(text.to_owned()))
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ruleset.as_str())?;
        if self.jump_after_shortcut {
            write!(f, "+{JUMP_AFTER_SHORTCUT}")?;
        }
        Ok(())
    }
}

impl FromStr for Rules {
    type Err = ParseEditionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "plyyard" => Ok(Rules::PLYYARD),
            "flights" => Ok(Rules::FLIGHTS),
            "classic" => Ok(Rules::CLASSIC),
            _ if text == format!("classic+{JUMP_AFTER_SHORTCUT}") => {
                Ok(Rules::classic_with_jump_after_shortcut())
            }
            _ => Err(ParseEditionError::Ruleset(text.to_owned())),
        }
    }
}

#[cfg(feature = "serde")]
mod serde_names {
    //! `Side` and `Rules` are written by name (`"blue"`, `"classic+jump-after-shortcut"`), the
    //! same names as in notation, so a two-player `plyyard` colour reads the same as a `Colour`.

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{Rules, Side};

    impl Serialize for Side {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_str(self.as_str())
        }
    }

    impl<'de> Deserialize<'de> for Side {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
            text.parse().map_err(serde::de::Error::custom)
        }
    }

    impl Serialize for Rules {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_str(self)
        }
    }

    impl<'de> Deserialize<'de> for Rules {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
            text.parse().map_err(serde::de::Error::custom)
        }
    }
}

/// A ruleset or colour name that is not one of ours.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseEditionError {
    /// Not `plyyard`, `flights`, `classic` or `classic+jump-after-shortcut`.
    #[error("`{0}` is not a ruleset (plyyard, flights, classic, classic+jump-after-shortcut)")]
    Ruleset(String),
    /// Not `red`, `green`, `yellow` or `blue`.
    #[error("`{0}` is not a colour (red, green, yellow, blue)")]
    Colour(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_start_square_has_its_own_colour() {
        for side in Side::ALL {
            assert_eq!(Side::of_square(side.start_square()), side);
        }
    }

    #[test]
    fn jump_squares_are_the_own_colour_squares_from_4_to_44_but_the_flight_square() {
        let flights: Vec<u8> = (0..=56).filter(|p| Rules::FLIGHTS.jumps_from(*p)).collect();
        assert_eq!(flights, [4, 8, 12, 16, 20, 24, 28, 32, 40, 44]);
        let classic: Vec<u8> = (0..=56).filter(|p| Rules::CLASSIC.jumps_from(*p)).collect();
        assert_eq!(classic, [4, 8, 12, 16, 24, 28, 32, 36, 40, 44]);
        assert!((0..=56).all(|p| !Rules::PLYYARD.jumps_from(p)));
    }

    #[test]
    fn rulesets_print_as_they_parse() {
        for text in [
            "plyyard",
            "flights",
            "classic",
            "classic+jump-after-shortcut",
        ] {
            assert_eq!(text.parse::<Rules>().unwrap().to_string(), text);
        }
        assert!("flights+jump-after-shortcut".parse::<Rules>().is_err());
    }

    #[test]
    fn house_rules_are_named_on_and_off_as_requests_and_records_list_them() {
        let rules = Rules::with_house_rules(Ruleset::Classic, &["jump-after-shortcut"]).unwrap();
        assert_eq!(rules, Rules::classic_with_jump_after_shortcut());
        assert_eq!(rules.house_rules(), ["jump-after-shortcut"]);
        assert_eq!(
            Rules::with_house_rules::<&str>(Ruleset::Flights, &[]).unwrap(),
            Rules::FLIGHTS
        );
        assert!(Rules::with_house_rules(Ruleset::Flights, &["jump-after-shortcut"]).is_err());
        assert!("ludo".parse::<Ruleset>().is_err());
    }
}
