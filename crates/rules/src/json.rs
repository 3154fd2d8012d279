//! The stable JSON form of positions (feature `serde`), documented in `docs/state-json.md`.
//!
//! The JSON is written from and read into private mirror types, so the public types keep their
//! invariants: a deserialized game passes the same checks as a parsed notation line.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::board::{Colour, Die, Plane, PlaneSet, Position};
use crate::game::{DrawState, EndReason, Game, Outcome, Phase};
use crate::notation::{PositionError, check_no_collision};

/// The ruleset name written into every serialized game.
pub const RULESET: &str = "plyyard";

impl Serialize for Position {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            Position::Base => serializer.serialize_str("base"),
            Position::Route(progress) => serializer.serialize_u8(progress),
            Position::Finished => serializer.serialize_str("finished"),
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum PositionForm {
    Progress(u8),
    Word(PositionWord),
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum PositionWord {
    Base,
    Finished,
}

impl<'de> Deserialize<'de> for Position {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match PositionForm::deserialize(deserializer)? {
            PositionForm::Word(PositionWord::Base) => Ok(Position::Base),
            PositionForm::Word(PositionWord::Finished) => Ok(Position::Finished),
            // 56 is a route square of the editions' longer runway (`docs/rules/`); a `plyyard`
            // game refuses it where it reads its planes (`plyyard_planes`).
            PositionForm::Progress(progress) if progress <= 56 => Ok(Position::Route(progress)),
            PositionForm::Progress(_) => Err(serde::de::Error::custom(
                "a route progress is from 0 to 55 (56 in flights and classic)",
            )),
        }
    }
}

impl Serialize for PlaneSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for PlaneSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let planes = Vec::<Plane>::deserialize(deserializer)?;
        Ok(planes.into_iter().collect())
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GameForm {
    ruleset: String,
    planes: PlanesForm,
    to_act: Colour,
    phase: PhaseForm,
    sixes: u8,
    draw: DrawForm,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanesForm {
    red: [Position; 4],
    yellow: [Position; 4],
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
        winner: Option<Colour>,
        reason: EndReason,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawForm {
    offer: Option<Colour>,
    may_offer: PerColour<bool>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PerColour<T> {
    red: T,
    yellow: T,
}

impl Serialize for Game {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let phase = match self.phase() {
            Phase::AwaitingRoll => PhaseForm::AwaitingRoll,
            Phase::AwaitingMove { roll, legal } => PhaseForm::AwaitingMove { roll, legal },
            Phase::Over(Outcome { winner, reason }) => PhaseForm::Over { winner, reason },
        };
        let draw = self.draw();
        GameForm {
            ruleset: RULESET.to_owned(),
            planes: PlanesForm {
                red: self.planes(Colour::Red),
                yellow: self.planes(Colour::Yellow),
            },
            to_act: self.to_act(),
            phase,
            sixes: self.sixes(),
            draw: DrawForm {
                offer: draw.standing_offer(),
                may_offer: PerColour {
                    red: draw.may_offer(Colour::Red),
                    yellow: draw.may_offer(Colour::Yellow),
                },
            },
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Game {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let form = GameForm::deserialize(deserializer)?;
        game_from_form(form).map_err(serde::de::Error::custom)
    }
}

/// An outcome must fit the planes: a win by finishing needs all four of the winner's planes
/// finished, a draw is only agreed, and only a win by finishing may leave a player all finished.
fn check_outcome(
    planes: &[[Position; 4]; 2],
    winner: Option<Colour>,
    reason: EndReason,
) -> Result<(), String> {
    let all_finished = |colour: Colour| planes[colour.index()] == [Position::Finished; 4];
    let nobody_all_finished = || match Colour::ALL.into_iter().find(|c| all_finished(*c)) {
        Some(colour) => Err(format!(
            "all four of {colour}'s planes are finished, so the game ended by finishing"
        )),
        None => Ok(()),
    };
    match (winner, reason) {
        (None, EndReason::Agreed) => nobody_all_finished(),
        (None, _) => Err("a draw is only ever agreed".to_owned()),
        (Some(_), EndReason::Agreed) => Err("an agreed end is a draw, with no winner".to_owned()),
        (Some(colour), EndReason::Finished) if all_finished(colour) => Ok(()),
        (Some(colour), EndReason::Finished) => Err(format!(
            "{colour} cannot have won by finishing with planes still to finish"
        )),
        (Some(_), _) => nobody_all_finished(),
    }
}

fn game_from_form(form: GameForm) -> Result<Game, String> {
    if form.ruleset != RULESET {
        return Err(format!(
            "unknown ruleset `{}`; this crate plays `{RULESET}`",
            form.ruleset
        ));
    }
    let planes = [form.planes.red, form.planes.yellow];
    if planes.iter().flatten().any(|position| !position.is_valid()) {
        return Err("a route progress is from 0 to 55".to_owned());
    }
    let draw = DrawState {
        offer: form.draw.offer,
        offer_blocked: [!form.draw.may_offer.red, !form.draw.may_offer.yellow],
    };
    let game = match form.phase {
        PhaseForm::Over { winner, reason } => {
            if form.sixes > 2 {
                return Err(PositionError::SixCounter(form.sixes.to_string()).to_string());
            }
            check_no_collision(&planes).map_err(|e| e.to_string())?;
            if draw.offer.is_some() {
                return Err("a finished game has no standing draw offer".to_owned());
            }
            check_outcome(&planes, winner, reason)?;
            Game::ended(planes, form.to_act, form.sixes, Outcome { winner, reason })
        }
        PhaseForm::AwaitingRoll => {
            Game::from_parts(planes, form.to_act, None, form.sixes).map_err(|e| e.to_string())?
        }
        PhaseForm::AwaitingMove { roll, legal } => {
            let game = Game::from_parts(planes, form.to_act, Some(roll), form.sixes)
                .map_err(|e| e.to_string())?;
            if game.legal_planes(form.to_act, roll) != legal {
                return Err(PositionError::LegalMismatch.to_string());
            }
            game
        }
    };
    Ok(game.with_draw(draw))
}
