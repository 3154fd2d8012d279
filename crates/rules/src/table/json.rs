//! The JSON form of a [`Table`] (feature `serde`), documented in `docs/state-json.md`.
//!
//! The notation line of `docs/rules/README.md` names a live position; a room also needs the
//! draw-offer state and a finished game's outcome, so a table is written whole as JSON. Reading
//! is strict like the notation's: the seats, places, collisions, six counter, planes at stake and
//! pending roll pass the same checks (a live table is built by [`Table::from_parts`]), the draw
//! state names only players in play, and a finished table's outcome must agree with its places.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Table, TableDraw, TableOutcome, TablePhase};
use crate::board::{Die, PlaneSet, Position};
use crate::edition::{Rules, Side};
use crate::game::EndReason;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableForm {
    rules: Rules,
    seats: Vec<SeatForm>,
    to_act: Side,
    phase: PhaseForm,
    sixes: u8,
    at_stake: PlaneSet,
    draw: DrawForm,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeatForm {
    colour: Side,
    place: Option<u8>,
    planes: [Position; 4],
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum PhaseForm {
    AwaitingRoll,
    AwaitingMove {
        roll: Die,
        legal: PlaneSet,
    },
    Over {
        winner: Option<Side>,
        reason: EndReason,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawForm {
    offer: Option<Side>,
    agreed: Vec<Side>,
    barred: Vec<Side>,
}

impl Serialize for Table {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let draw = self.draw;
        TableForm {
            rules: self.rules,
            seats: self
                .sides()
                .map(|side| SeatForm {
                    colour: side,
                    place: self.place(side),
                    planes: self.planes(side),
                })
                .collect(),
            to_act: self.to_act,
            phase: match self.phase {
                TablePhase::AwaitingRoll => PhaseForm::AwaitingRoll,
                TablePhase::AwaitingMove { roll, legal } => PhaseForm::AwaitingMove { roll, legal },
                TablePhase::Over(outcome) => PhaseForm::Over {
                    winner: outcome.winner,
                    reason: outcome.reason,
                },
            },
            sixes: self.sixes,
            at_stake: self.at_stake,
            draw: DrawForm {
                offer: draw.standing_offer(),
                agreed: self.sides().filter(|s| draw.has_agreed(*s)).collect(),
                barred: self.sides().filter(|s| !draw.may_offer(*s)).collect(),
            },
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Table {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let form = TableForm::deserialize(deserializer)?;
        table_from_form(form).map_err(serde::de::Error::custom)
    }
}

fn table_from_form(form: TableForm) -> Result<Table, String> {
    let seats: Vec<_> = form
        .seats
        .iter()
        .map(|seat| (seat.colour, seat.planes, seat.place.unwrap_or(0)))
        .collect();
    let mut table = match form.phase {
        PhaseForm::AwaitingRoll => Table::from_parts(
            form.rules,
            &seats,
            form.to_act,
            None,
            form.sixes,
            form.at_stake,
        )
        .map_err(|e| e.to_string())?,
        PhaseForm::AwaitingMove { roll, legal } => {
            let table = Table::from_parts(
                form.rules,
                &seats,
                form.to_act,
                Some(roll),
                form.sixes,
                form.at_stake,
            )
            .map_err(|e| e.to_string())?;
            if table.legal_planes(form.to_act, roll) != legal {
                return Err("`legal` is not the set of planes the rules allow".to_owned());
            }
            table
        }
        PhaseForm::Over { winner, reason } => ended(&form, &seats, winner, reason)?,
    };
    let draw = form.draw;
    if let Some(offerer) = draw.offer {
        if table.is_over() || !table.in_play(offerer) {
            return Err("a draw offer stands only in a live game, by a player in play".to_owned());
        }
        if draw.agreed.iter().any(|side| !table.in_play(*side)) || !draw.agreed.contains(&offerer) {
            return Err("the players who agreed are the offerer and receivers in play".to_owned());
        }
    } else if !draw.agreed.is_empty() {
        return Err("nobody agrees to an offer that does not stand".to_owned());
    }
    let mut state = TableDraw::NONE;
    state.offer = draw.offer;
    for side in &draw.agreed {
        state.agreed |= 1 << side.index();
    }
    for side in &draw.barred {
        if !table.is_seated(*side) {
            return Err(format!("{side} is not seated"));
        }
        state.set_may_offer(*side, false);
    }
    table.draw = state;
    Ok(table)
}

/// A finished table: its planes and places as given, every seat placed, the winner the one in
/// first place (or nobody, for an agreed draw before anyone finished).
fn ended(
    form: &TableForm,
    seats: &[super::Seat],
    winner: Option<Side>,
    reason: EndReason,
) -> Result<Table, String> {
    let mut table = Table::new(form.rules, seats.len()).map_err(|e| e.to_string())?;
    if seats
        .iter()
        .map(|s| s.0)
        .ne(Rules::seating(seats.len()).iter().copied())
    {
        return Err("the seats are not the ones that play at this count, in turn order".into());
    }
    for (side, planes, place) in seats {
        if planes.iter().any(|position| match position {
            Position::Route(progress) => *progress >= form.rules.finish(),
            _ => false,
        }) {
            return Err(format!("a plane of {side} is past the centre"));
        }
        table.planes[side.index()] = *planes;
        if *place != 0 {
            table.set_place(*side, *place);
        }
    }
    let first = seats.iter().find(|seat| seat.2 == 1).map(|seat| seat.0);
    if winner != first {
        return Err("the winner is the player in first place".to_owned());
    }
    let agreed = reason == EndReason::Agreed;
    if !agreed && seats.iter().any(|seat| seat.2 == 0) {
        return Err("a game that was not agreed drawn gives every seat a place".to_owned());
    }
    if form.sixes > 2 {
        return Err("the six counter is 0 to 2".to_owned());
    }
    table.to_act = form.to_act;
    table.sixes = form.sixes;
    table.at_stake = form.at_stake;
    table.phase = TablePhase::Over(TableOutcome { winner, reason });
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Plane;
    use crate::table::TableAction;

    fn round_trip(table: &Table) {
        let json = serde_json::to_string(table).unwrap();
        let back: Table = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, table, "{json}");
    }

    #[test]
    fn live_finished_and_offered_tables_read_back_as_they_were_written() {
        let mut table = Table::new(Rules::CLASSIC, 4).unwrap();
        round_trip(&table);
        let six = Die::new(6).unwrap();
        table
            .apply(TableAction::Roll {
                colour: Side::Red,
                value: six,
            })
            .unwrap();
        round_trip(&table);
        table
            .apply(TableAction::OfferDraw { colour: Side::Blue })
            .unwrap();
        table
            .apply(TableAction::AcceptDraw {
                colour: Side::Green,
            })
            .unwrap();
        round_trip(&table);
        table
            .apply(TableAction::Move {
                colour: Side::Red,
                plane: Plane::new(0).unwrap(),
            })
            .unwrap();
        round_trip(&table);
        for side in [Side::Green, Side::Yellow, Side::Blue] {
            table.apply(TableAction::Resign { colour: side }).unwrap();
        }
        assert!(table.is_over());
        round_trip(&table);
    }

    #[test]
    fn the_example_of_state_json_reads_and_writes_back_the_same() {
        let doc = include_str!("../../../../docs/state-json.md");
        let start = doc.find("## Table").unwrap();
        let block = &doc[start..];
        let json = &block[block.find("```json").unwrap() + 7..];
        let json = &json[..json.find("```").unwrap()];
        let table: Table = serde_json::from_str(json).expect("the documented table reads");
        let written = serde_json::to_value(table).unwrap();
        let documented: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(written, documented);
    }

    #[test]
    fn an_inconsistent_table_is_refused_with_a_reason() {
        let table = Table::new(Rules::FLIGHTS, 3).unwrap();
        let mut json = serde_json::to_value(table).unwrap();
        json["draw"]["agreed"] = serde_json::json!(["red"]);
        let error = serde_json::from_value::<Table>(json).unwrap_err();
        assert!(error.to_string().contains("does not stand"), "{error}");
    }
}
