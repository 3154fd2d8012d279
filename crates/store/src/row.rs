//! A game record as the column values of one `games` row, shared by both databases.

use aeroplane_protocol::record::{
    FairnessRecord, GameRecord, LoggedAction, PLYYARD_FORMAT, PlayerRecord, Players, ResultRecord,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::query::stored_time;
use crate::{Saved, StoreError};

/// The columns of one `games` row, in the order of the migrations.
#[derive(Clone, Debug)]
pub(crate) struct GameRow {
    pub(crate) id: Uuid,
    pub(crate) ruleset: String,
    pub(crate) mode: String,
    pub(crate) created_at: OffsetDateTime,
    pub(crate) started_at: OffsetDateTime,
    pub(crate) ended_at: OffsetDateTime,
    pub(crate) red_name: String,
    pub(crate) red_kind: String,
    pub(crate) red_level: Option<String>,
    pub(crate) yellow_name: String,
    pub(crate) yellow_kind: String,
    pub(crate) yellow_level: Option<String>,
    /// `red`, `yellow`, or `None` for a draw.
    pub(crate) winner: Option<String>,
    pub(crate) reason: String,
    pub(crate) rolls: i64,
    pub(crate) moves: i64,
    /// The action log as a JSON array of the protocol's `LoggedAction`s.
    pub(crate) actions: String,
    pub(crate) scheme: String,
    pub(crate) commitment: String,
    pub(crate) server_seed: String,
    /// The client seeds as their UTF-8 bytes (`bytea`, a SQLite blob): they may hold NUL.
    pub(crate) red_seed: Vec<u8>,
    pub(crate) yellow_seed: Vec<u8>,
    /// The identified players of the seats (migration 0003).
    pub(crate) red_player: Option<Uuid>,
    pub(crate) yellow_player: Option<Uuid>,
    pub(crate) rated: bool,
}

impl GameRow {
    /// The row that stores `record`. Times are kept in UTC to the microsecond.
    pub(crate) fn from_record(record: &GameRecord) -> Result<GameRow, StoreError> {
        check_storable(record)?;
        let actions = serde_json::to_string(&record.actions)
            .map_err(|error| StoreError::Rejected(format!("action log: {error}")))?;
        Ok(GameRow {
            id: record.id,
            ruleset: record.ruleset.clone(),
            mode: name_of(&record.mode)?,
            created_at: stored_time(record.created_at),
            started_at: stored_time(record.started_at),
            ended_at: stored_time(record.ended_at),
            red_name: record.players.red.name.clone(),
            red_kind: name_of(&record.players.red.kind)?,
            red_level: record.players.red.level.clone(),
            yellow_name: record.players.yellow.name.clone(),
            yellow_kind: name_of(&record.players.yellow.kind)?,
            yellow_level: record.players.yellow.level.clone(),
            winner: record
                .result
                .winner
                .map(|colour| colour.as_str().to_owned()),
            reason: record.result.reason.as_str().to_owned(),
            rolls: i64::from(record.rolls),
            moves: i64::from(record.moves),
            actions,
            scheme: record.fairness.scheme.clone(),
            commitment: record.fairness.commitment.clone(),
            server_seed: record.fairness.server_seed.clone(),
            red_seed: record.fairness.red_seed.clone().into_bytes(),
            yellow_seed: record.fairness.yellow_seed.clone().into_bytes(),
            red_player: record.players.red.player_id,
            yellow_player: record.players.yellow.player_id,
            rated: record.rated,
        })
    }

    /// The record this row stores. Until the store keeps the seats and places of format 2
    /// (issue 16), every row holds a two-player `plyyard` game, read as format 1
    /// ([`PLYYARD_FORMAT`]), the format such games are written in.
    ///
    /// A row keeps a record in columns, not as the record's JSON, so it has no format of its
    /// own: the numbered migrations bring every row to the current schema, and this reads it as
    /// the current format. Rows written before records carried a format read as format 1.
    pub(crate) fn into_record(self) -> Result<GameRecord, StoreError> {
        let actions: Vec<LoggedAction> = serde_json::from_str(&self.actions)
            .map_err(|error| corrupt(self.id, "actions", error))?;
        let winner = self
            .winner
            .as_deref()
            .map(|winner| {
                winner
                    .parse()
                    .map_err(|error| corrupt(self.id, "winner", error))
            })
            .transpose()?;
        let seed = |column: &str, bytes: Vec<u8>| {
            String::from_utf8(bytes).map_err(|error| corrupt(self.id, column, error))
        };
        let red_seed = seed("red_seed", self.red_seed)?;
        let yellow_seed = seed("yellow_seed", self.yellow_seed)?;
        Ok(GameRecord {
            format: PLYYARD_FORMAT,
            id: self.id,
            ruleset: self.ruleset,
            house_rules: Vec::new(),
            mode: parse_name(self.id, "mode", &self.mode)?,
            created_at: self.created_at,
            started_at: self.started_at,
            ended_at: self.ended_at,
            players: Players {
                red: PlayerRecord {
                    name: self.red_name,
                    kind: parse_name(self.id, "red_kind", &self.red_kind)?,
                    level: self.red_level,
                    player_id: self.red_player,
                },
                yellow: PlayerRecord {
                    name: self.yellow_name,
                    kind: parse_name(self.id, "yellow_kind", &self.yellow_kind)?,
                    level: self.yellow_level,
                    player_id: self.yellow_player,
                },
                blue: None,
                green: None,
            },
            rated: self.rated,
            result: ResultRecord {
                winner,
                reason: parse_name(self.id, "reason", &self.reason)?,
                places: None,
            },
            rolls: u32::try_from(self.rolls).map_err(|error| corrupt(self.id, "rolls", error))?,
            moves: u32::try_from(self.moves).map_err(|error| corrupt(self.id, "moves", error))?,
            actions,
            fairness: FairnessRecord {
                scheme: self.scheme,
                commitment: self.commitment,
                server_seed: self.server_seed,
                red_seed,
                yellow_seed,
                blue_seed: None,
                green_seed: None,
            },
        })
    }
}

/// Refuses, as [`StoreError::Rejected`], a record that a database could not hold as it is: a NUL
/// character in any text field (PostgreSQL text cannot hold one). The client seeds are exempt:
/// they are stored as bytes. Every store calls this, so they all refuse the same records; the
/// server refuses such names where they come in, so only a record from an older server can
/// hold one.
pub(crate) fn check_storable(record: &GameRecord) -> Result<(), StoreError> {
    let players = &record.players;
    let texts = [
        ("ruleset", Some(&record.ruleset)),
        ("red_name", Some(&players.red.name)),
        ("red_level", players.red.level.as_ref()),
        ("yellow_name", Some(&players.yellow.name)),
        ("yellow_level", players.yellow.level.as_ref()),
        ("scheme", Some(&record.fairness.scheme)),
        ("commitment", Some(&record.fairness.commitment)),
        ("server_seed", Some(&record.fairness.server_seed)),
    ];
    match texts
        .iter()
        .find(|(_, text)| text.is_some_and(|text| text.contains('\0')))
    {
        Some((column, _)) => Err(StoreError::Rejected(format!(
            "game {}: {column} holds a NUL character, which a database text cannot hold",
            record.id
        ))),
        None => Ok(()),
    }
}

/// What saving `records` did, given which ids the database inserted: a record was inserted the
/// first time its id appears, if the database inserted that id; otherwise it was already stored.
pub(crate) fn outcomes(records: &[GameRecord], inserted: impl Fn(Uuid) -> bool) -> Vec<Saved> {
    let mut seen = std::collections::HashSet::new();
    records
        .iter()
        .map(|record| {
            if seen.insert(record.id) && inserted(record.id) {
                Saved::Inserted
            } else {
                Saved::AlreadyStored
            }
        })
        .collect()
}

/// The serde name of a unit enum variant, e.g. `computer`: the text stored in its column.
fn name_of<T: Serialize>(value: &T) -> Result<String, StoreError> {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => Ok(name),
        other => Err(StoreError::Rejected(format!("not a plain name: {other:?}"))),
    }
}

/// The enum variant whose serde name is `name`.
fn parse_name<T: DeserializeOwned>(id: Uuid, column: &str, name: &str) -> Result<T, StoreError> {
    serde_json::from_value(serde_json::Value::String(name.to_owned()))
        .map_err(|error| corrupt(id, column, error))
}

fn corrupt(id: Uuid, column: &str, error: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("game {id}, column {column}: {error}"))
}
