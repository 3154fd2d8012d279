//! The record of a finished game: what the store keeps, the API serves and verifiers check.
//!
//! A record holds everything needed to replay the game through the rules crate and to re-derive
//! every roll from the revealed seeds (`fairness.md`), so it can be trusted without the server.
//!
//! A record is served, written to the outbox and stored, so it carries its format: `format`,
//! [`RECORD_FORMAT`] in what this build writes. A record without the field (every record written
//! before it existed) is of format 1, the shape it has today. A reader refuses a record of a
//! format newer than it knows with an error naming both versions, rather than misread it.

use aeroplane_rules::{Action, Colour, Die, EndReason, Game, ReplayError};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

/// The kind of room a game was played in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Two people on two connections.
    Online,
    /// A person against a bot.
    Computer,
    /// Two people on one device, one connection controlling both colours.
    Local,
}

impl Mode {
    /// The stable lower-case name, e.g. `online`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Mode::Online => "online",
            Mode::Computer => "computer",
            Mode::Local => "local",
        }
    }
}

/// Whether a seat was played by a person or a bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlayerKind {
    /// A person.
    Human,
    /// The server's bot.
    Computer,
}

/// One seat of a finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PlayerRecord {
    /// The display name the player gave.
    pub name: String,
    /// Person or bot.
    pub kind: PlayerKind,
    /// The bot's level (`easy`, `normal`, `hard`, `random`) for a computer seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// The identified player (`POST /api/players`) who held the seat; absent for an anonymous
    /// or computer seat, and in records written before identities existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<Uuid>,
}

/// Both seats of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Players {
    /// The Red seat (Red rolls first).
    pub red: PlayerRecord,
    /// The Yellow seat.
    pub yellow: PlayerRecord,
}

impl Players {
    /// The seat of `colour`.
    pub fn get(&self, colour: Colour) -> &PlayerRecord {
        match colour {
            Colour::Red => &self.red,
            Colour::Yellow => &self.yellow,
        }
    }
}

/// How the game ended: the winner (none for a draw) and the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ResultRecord {
    /// The winner, or `null` for a draw.
    #[schema(value_type = Option<crate::openapi::ColourName>)]
    pub winner: Option<Colour>,
    /// Why the game ended.
    #[schema(value_type = crate::openapi::EndReasonName)]
    pub reason: EndReason,
}

/// One action of the log, with the room event number it produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedAction {
    /// The room event number of the first event this action produced.
    pub event: u64,
    /// The action, as the rules crate applies it.
    #[serde(flatten)]
    pub action: Action,
    /// Whether a later undo took the action back (computer and local games only). Undone
    /// actions stay in the log; a replay skips them, except undone rolls, which still consumed a
    /// value of the die stream.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub undone: bool,
}

/// The fairness fields of `fairness.md`: everything needed to re-derive every roll.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FairnessRecord {
    /// The scheme version, `v1`.
    pub scheme: String,
    /// `hex(SHA-256(server_seed))`, published before the first roll.
    pub commitment: String,
    /// The server seed, revealed at game over (lower-case hex).
    pub server_seed: String,
    /// Red's client seed (empty if none was given).
    pub red_seed: String,
    /// Yellow's client seed (empty if none was given).
    pub yellow_seed: String,
}

/// The format of the [`GameRecord`]s this build writes, and the newest it reads.
///
/// Format 1 is the first: the record as it was before it carried a format, which is why a
/// record without the field reads as format 1. A change to what a record holds or means takes
/// the next number, and the readers of older formats stay.
pub const RECORD_FORMAT: u32 = 1;

/// The format of a record that does not say (it was written before records carried one).
const UNVERSIONED_FORMAT: u32 = 1;

/// Everything kept about one finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GameRecord {
    /// The record's format: [`RECORD_FORMAT`] when written by this build; 1 when absent (a
    /// record written before records carried a format). A reader refuses a newer format.
    #[serde(default = "unversioned_format", deserialize_with = "known_format")]
    #[schema(minimum = 1)]
    pub format: u32,
    /// The game's id (the id of the room it was played in).
    pub id: Uuid,
    /// The ruleset, `plyyard`.
    pub ruleset: String,
    /// The kind of room.
    pub mode: Mode,
    /// When the room was created.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When both seats were taken and the game started.
    #[serde(with = "time::serde::rfc3339")]
    pub started_at: OffsetDateTime,
    /// When the game ended.
    #[serde(with = "time::serde::rfc3339")]
    pub ended_at: OffsetDateTime,
    /// Both seats.
    pub players: Players,
    /// Whether the game counts for the players' ratings: an online game between two different
    /// identified players that ended with a result. Absent (false) otherwise, and in records
    /// written before ratings existed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// How it ended.
    pub result: ResultRecord,
    /// Rolls made (undone ones included: each consumed a die value).
    pub rolls: u32,
    /// Plane moves made and not undone.
    pub moves: u32,
    /// Every action in order.
    pub actions: Vec<LoggedAction>,
    /// The dice seeds and commitment.
    pub fairness: FairnessRecord,
}

fn unversioned_format() -> u32 {
    UNVERSIONED_FORMAT
}

/// Reads `format`, refusing a format this build does not know.
fn known_format<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let format = u32::deserialize(deserializer)?;
    match format {
        1..=RECORD_FORMAT => Ok(format),
        0 => Err(serde::de::Error::custom(
            "game record format 0 does not exist (the first is 1)",
        )),
        newer => Err(serde::de::Error::custom(format_args!(
            "game record format {newer} is newer than this reader knows (up to {RECORD_FORMAT})"
        ))),
    }
}

impl GameRecord {
    /// Every roll value in order (undone rolls included), as the die stream produced them.
    pub fn roll_values(&self) -> Vec<Die> {
        self.actions
            .iter()
            .filter_map(|logged| match logged.action {
                Action::Roll { value, .. } => Some(value),
                _ => None,
            })
            .collect()
    }

    /// The actions that stand (not undone), in order: the log a replay applies.
    pub fn standing_actions(&self) -> impl Iterator<Item = Action> + '_ {
        self.actions
            .iter()
            .filter(|logged| !logged.undone)
            .map(|logged| logged.action)
    }

    /// Replays the standing actions through the rules crate.
    pub fn replay(&self) -> Result<Game, ReplayError> {
        Game::replay(self.standing_actions()).map(|(game, _)| game)
    }
}
