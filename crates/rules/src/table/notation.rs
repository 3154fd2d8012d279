//! The editions' one-line position notation (`docs/rules/README.md`), and the consistency checks
//! every position read from outside must pass.
//!
//! `flights red:b,b,12,f yellow:b,30,52,b red - 0 -` reads: the ruleset, one field per seated
//! colour in turn order, who acts, the pending roll, the six counter and the planes at stake.

use std::fmt;
use std::str::FromStr;

use super::{Table, TablePhase};
use crate::board::{Die, Plane, PlaneSet, Position, RingIndex};
use crate::edition::{ParseEditionError, Rules, Side, ThirdSix};
use crate::notation::{parse_pending, parse_sixes, parse_small};

/// Why a text is not a consistent live position of a table.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TablePositionError {
    /// The ruleset or a colour name is unknown.
    #[error(transparent)]
    Name(#[from] ParseEditionError),
    /// Too few fields for a ruleset, two seats and the four state fields.
    #[error(
        "expected `<ruleset> <seat>... <to act> <pending roll> <six counter> <at stake>`, found {0} fields"
    )]
    FieldCount(usize),
    /// The edition does not seat this many players.
    #[error("{rules} does not seat {players} players")]
    Players {
        /// The edition.
        rules: Rules,
        /// The number of seats given.
        players: usize,
    },
    /// The seated colours are not the ones, or not in the order, that play at this count.
    #[error("with {players} players the seats are {expected}, in this order")]
    Seating {
        /// The number of seats given.
        players: usize,
        /// The colours expected, space-separated.
        expected: String,
    },
    /// A seat field is not `<colour>[=<place>]:<planes>`.
    #[error("`{0}` is not a seat (`<colour>:<planes>` or `<colour>=<place>:<planes>`)")]
    Seat(String),
    /// A colour's plane list does not have four entries.
    #[error("{side}'s planes: expected 4 comma-separated entries, found {found}")]
    PlaneCount {
        /// Whose planes.
        side: Side,
        /// How many entries there were.
        found: usize,
    },
    /// A plane entry is not `b`, `f` or a progress short of the centre.
    #[error("{side}'s plane {plane}: `{text}` is not `b`, `f` or a progress from 0 to {max}")]
    PlaneValue {
        /// Whose plane.
        side: Side,
        /// Which plane.
        plane: Plane,
        /// The text found.
        text: String,
        /// The largest progress allowed.
        max: u8,
    },
    /// The places of the players who are out do not fit how they left.
    #[error(
        "places: finished players hold 1, 2, … in order, resigned ones the last places with every plane in the hangar, and at least two players are in play"
    )]
    Places,
    /// The player to act is not a colour in play.
    #[error("to act: `{0}` is not a colour in play")]
    ToAct(String),
    /// The pending roll is not `-` or a number from 1 to 6.
    #[error("pending roll: `{0}` is not `-` or a number from 1 to 6")]
    PendingRoll(String),
    /// The six counter is not 0, 1 or 2.
    #[error("six counter: `{0}` is not 0, 1 or 2")]
    SixCounter(String),
    /// The at-stake field is not `-` or ascending plane numbers that this edition allows.
    #[error(
        "at stake: `{0}` is not `-` or ascending plane numbers on the route (none in plyyard or with counter 0, one in flights)"
    )]
    AtStake(String),
    /// A roll is pending but no plane of the player to act can move for it.
    #[error("a {0} is pending but no plane can move for it")]
    NoLegalPlane(Die),
    /// The pending roll disagrees with the six counter.
    #[error("a pending 6 needs a six counter of 1 or 2, any other pending value a counter of 0")]
    CounterMismatch,
    /// Every plane of a player in play is at the centre, so it would be out.
    #[error("all four of {0}'s planes are at the centre, so it would be out of play")]
    AllFinished(Side),
    /// Planes of two colours share a ring square where a landing would have sent one home.
    #[error("planes of two colours stand together on ring square {0}")]
    Collision(RingIndex),
}

/// One seat: its colour, its planes and its final place (0 while in play).
pub type Seat = (Side, [Position; 4], u8);

impl Table {
    /// Builds a live position from its parts (seats in turn order), checking it the way a parser
    /// must.
    pub fn from_parts(
        rules: Rules,
        seats: &[Seat],
        to_act: Side,
        pending_roll: Option<Die>,
        sixes: u8,
        at_stake: PlaneSet,
    ) -> Result<Table, TablePositionError> {
        let players = seats.len();
        let mut table = Table::new(rules, players)?;
        let expected = Rules::seating(players);
        if seats.iter().map(|s| s.0).ne(expected.iter().copied()) {
            return Err(TablePositionError::Seating {
                players,
                expected: expected
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            });
        }
        for (side, planes, place) in seats {
            table.planes[side.index()] = *planes;
            if *place != 0 {
                table.set_place(*side, *place);
            }
        }
        check_places(&table)?;
        check_collisions(&table)?;
        if !table.in_play(to_act) {
            return Err(TablePositionError::ToAct(to_act.as_str().to_owned()));
        }
        if sixes > 2 {
            return Err(TablePositionError::SixCounter(sixes.to_string()));
        }
        table.to_act = to_act;
        table.sixes = sixes;
        let stake_ok = at_stake.is_empty()
            || (sixes > 0
                && rules.third_six() != ThirdSix::Nothing
                && (rules.third_six() == ThirdSix::AllMoved || at_stake.len() == 1)
                && at_stake
                    .iter()
                    .all(|p| matches!(table.position(to_act, p), Position::Route(_))));
        if !stake_ok {
            return Err(TablePositionError::AtStake(stake_text(at_stake)));
        }
        table.at_stake = at_stake;
        if let Some(roll) = pending_roll {
            if roll.is_six() != (sixes > 0) {
                return Err(TablePositionError::CounterMismatch);
            }
            let legal = table.legal_planes(to_act, roll);
            if legal.is_empty() {
                return Err(TablePositionError::NoLegalPlane(roll));
            }
            table.phase = TablePhase::AwaitingMove { roll, legal };
        }
        Ok(table)
    }

    /// The position in the editions' notation. For a finished game it prints the final planes
    /// with `-` as the pending roll (such a line need not parse).
    pub fn notation(&self) -> String {
        self.to_string()
    }
}

fn check_places(table: &Table) -> Result<(), TablePositionError> {
    let n = table.players() as u8;
    let mut finished = Vec::new();
    let mut resigned = Vec::new();
    for side in table.sides() {
        let planes = table.planes(side);
        match table.places[side.index()] {
            0 if planes == [Position::Finished; 4] => {
                return Err(TablePositionError::AllFinished(side));
            }
            0 => {}
            place if planes == [Position::Finished; 4] => finished.push(place),
            place if planes == [Position::Base; 4] => resigned.push(place),
            _ => return Err(TablePositionError::Places),
        }
    }
    finished.sort_unstable();
    resigned.sort_unstable();
    let in_play = n as usize - finished.len() - resigned.len();
    let first_fits = finished.iter().copied().eq(1..=finished.len() as u8);
    let last_fits = resigned
        .iter()
        .copied()
        .eq(n + 1 - resigned.len() as u8..=n);
    let finish_allowed = finished.is_empty() || !table.rules.ends_at_first_finish();
    if in_play < 2 || !first_fits || !last_fits || !finish_allowed {
        return Err(TablePositionError::Places);
    }
    Ok(())
}

fn check_collisions(table: &Table) -> Result<(), TablePositionError> {
    let mut owner: [Option<Side>; 52] = [None; 52];
    for side in table.sides().filter(|s| table.in_play(*s)) {
        for position in table.planes(side) {
            let Some(square) = Table::ring_square(side, position) else {
                continue;
            };
            match owner[square.value() as usize] {
                Some(other) if other != side && !table.rules.is_safe(square) => {
                    return Err(TablePositionError::Collision(square));
                }
                _ => owner[square.value() as usize] = Some(side),
            }
        }
    }
    Ok(())
}

fn stake_text(planes: PlaneSet) -> String {
    if planes.is_empty() {
        "-".to_owned()
    } else {
        planes.iter().map(|p| p.to_string()).collect()
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.rules)?;
        for side in self.sides() {
            write!(f, " {}", side.as_str())?;
            if let Some(place) = self.place(side) {
                write!(f, "={place}")?;
            }
            f.write_str(":")?;
            for (index, position) in self.planes(side).into_iter().enumerate() {
                if index > 0 {
                    f.write_str(",")?;
                }
                match position {
                    Position::Base => f.write_str("b")?,
                    Position::Route(progress) => write!(f, "{progress}")?,
                    Position::Finished => f.write_str("f")?,
                }
            }
        }
        write!(f, " {}", self.to_act.as_str())?;
        match self.phase {
            TablePhase::AwaitingMove { roll, .. } => write!(f, " {roll}")?,
            TablePhase::AwaitingRoll | TablePhase::Over(_) => f.write_str(" -")?,
        }
        write!(f, " {} {}", self.sixes, stake_text(self.at_stake))
    }
}

impl FromStr for Table {
    type Err = TablePositionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() < 7 {
            return Err(TablePositionError::FieldCount(fields.len()));
        }
        let rules: Rules = fields[0].parse()?;
        let (seat_fields, rest) = fields[1..].split_at(fields.len() - 5);
        let [to_act, pending, sixes, at_stake] = rest[..] else {
            unreachable!("four fields remain");
        };
        let seats = seat_fields
            .iter()
            .map(|field| parse_seat(rules, field))
            .collect::<Result<Vec<Seat>, _>>()?;
        let to_act: Side = to_act
            .parse()
            .map_err(|_| TablePositionError::ToAct(to_act.to_owned()))?;
        let pending_roll = parse_pending(pending)
            .ok_or_else(|| TablePositionError::PendingRoll(pending.to_owned()))?;
        let sixes =
            parse_sixes(sixes).ok_or_else(|| TablePositionError::SixCounter(sixes.to_owned()))?;
        let at_stake = parse_stake(at_stake)?;
        Table::from_parts(rules, &seats, to_act, pending_roll, sixes, at_stake)
    }
}

fn parse_seat(rules: Rules, field: &str) -> Result<Seat, TablePositionError> {
    let bad = || TablePositionError::Seat(field.to_owned());
    let (head, planes) = field.split_once(':').ok_or_else(bad)?;
    let (colour, place) = match head.split_once('=') {
        Some((colour, place)) => (
            colour,
            parse_small(place)
                .filter(|p| (1..=4).contains(p))
                .ok_or_else(bad)?,
        ),
        None => (head, 0),
    };
    let side: Side = colour.parse()?;
    let entries: Vec<&str> = planes.split(',').collect();
    if entries.len() != 4 {
        return Err(TablePositionError::PlaneCount {
            side,
            found: entries.len(),
        });
    }
    let max = rules.finish() - 1;
    let mut positions = [Position::Base; 4];
    for ((slot, entry), plane) in positions.iter_mut().zip(entries).zip(Plane::ALL) {
        *slot = match entry {
            "b" => Position::Base,
            "f" => Position::Finished,
            number => parse_small(number)
                .filter(|progress| *progress <= max)
                .map(Position::Route)
                .ok_or_else(|| TablePositionError::PlaneValue {
                    side,
                    plane,
                    text: number.to_owned(),
                    max,
                })?,
        };
    }
    Ok((side, positions, place))
}

fn parse_stake(text: &str) -> Result<PlaneSet, TablePositionError> {
    if text == "-" {
        return Ok(PlaneSet::EMPTY);
    }
    let bad = || TablePositionError::AtStake(text.to_owned());
    let numbers: Vec<u8> = text.bytes().map(|b| b.wrapping_sub(b'0')).collect();
    if numbers.is_empty() || numbers.windows(2).any(|w| w[0] >= w[1]) {
        return Err(bad());
    }
    numbers
        .into_iter()
        .map(|n| Plane::new(n).ok_or_else(bad))
        .collect()
}
