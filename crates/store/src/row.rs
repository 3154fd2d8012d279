//! A game record as the column values of one `games` row, shared by both databases.
//!
//! A row keeps a record in columns, not as the record's JSON, so that the list can filter on
//! them; this module is the one place that maps between the two, so both databases store and
//! read a record alike. The Blue and Green seats, the house rules, the places and the `players`
//! count (migration 0004) carry what a record of format 2 holds beyond a two-player `plyyard`
//! game.

use aeroplane_protocol::record::{
    FairnessRecord, GameRecord, LoggedAction, PLYYARD_FORMAT, Places, PlayerRecord, Players,
    ResultRecord, TABLE_FORMAT, actions_json,
};
use aeroplane_rules::Side;
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
    /// `red`, `green`, `yellow`, `blue`, or `None` for a draw.
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
    /// How many seats, 2 to 4 (migration 0004, as are the columns below).
    pub(crate) players: i16,
    /// The house rules as a JSON array of their names, `[]` for none.
    pub(crate) house_rules: String,
    /// The Blue seat, in games of three or four.
    pub(crate) blue: SeatColumns,
    /// The Green seat, in games of four.
    pub(crate) green: SeatColumns,
    /// Each seat's place from 1 (format 2 only); in the order red, yellow, blue, green.
    pub(crate) red_place: Option<i16>,
    pub(crate) yellow_place: Option<i16>,
    pub(crate) blue_place: Option<i16>,
    pub(crate) green_place: Option<i16>,
}

/// The columns of an optional seat (Blue or Green): all `None` when the colour is not seated.
#[derive(Clone, Debug, Default)]
pub(crate) struct SeatColumns {
    pub(crate) name: Option<String>,
    pub(crate) kind: Option<String>,
    pub(crate) level: Option<String>,
    pub(crate) player: Option<Uuid>,
    /// The seat's client seed as its UTF-8 bytes.
    pub(crate) seed: Option<Vec<u8>>,
}

impl SeatColumns {
    /// The columns of `seat` (with its client seed), or all `None` when it is not seated.
    fn of(seat: Option<&PlayerRecord>, seed: Option<&str>) -> Result<SeatColumns, StoreError> {
        let Some(seat) = seat else {
            return Ok(SeatColumns {
                seed: seed.map(|seed| seed.as_bytes().to_vec()),
                ..SeatColumns::default()
            });
        };
        Ok(SeatColumns {
            name: Some(seat.name.clone()),
            kind: Some(name_of(&seat.kind)?),
            level: seat.level.clone(),
            player: seat.player_id,
            seed: seed.map(|seed| seed.as_bytes().to_vec()),
        })
    }

    /// The seat these columns hold, if any, and its client seed.
    fn into_seat(
        self,
        id: Uuid,
        colour: &str,
    ) -> Result<(Option<PlayerRecord>, Option<String>), StoreError> {
        let seed = self
            .seed
            .map(|bytes| {
                String::from_utf8(bytes)
                    .map_err(|error| corrupt(id, &format!("{colour}_seed"), error))
            })
            .transpose()?;
        let seat = match (self.name, self.kind) {
            (None, None) => None,
            (Some(name), Some(kind)) => Some(PlayerRecord {
                name,
                kind: parse_name(id, &format!("{colour}_kind"), &kind)?,
                level: self.level,
                player_id: self.player,
            }),
            _ => {
                return Err(corrupt(
                    id,
                    &format!("{colour}_name"),
                    "a seat needs both a name and a kind",
                ));
            }
        };
        Ok((seat, seed))
    }
}

impl GameRow {
    /// The row that stores `record`. Times are kept in UTC to the microsecond.
    pub(crate) fn from_record(record: &GameRecord) -> Result<GameRow, StoreError> {
        check_storable(record)?;
        let actions = actions_json(&record.actions);
        let house_rules = serde_json::to_string(&record.house_rules)
            .map_err(|error| StoreError::Rejected(format!("house rules: {error}")))?;
        let players = &record.players;
        let fairness = &record.fairness;
        let places = record.result.places.unwrap_or_default();
        let place = |side: Side| places.get(side).map(i16::from);
        Ok(GameRow {
            id: record.id,
            ruleset: record.ruleset.clone(),
            mode: name_of(&record.mode)?,
            created_at: stored_time(record.created_at),
            started_at: stored_time(record.started_at),
            ended_at: stored_time(record.ended_at),
            red_name: players.red.name.clone(),
            red_kind: name_of(&players.red.kind)?,
            red_level: players.red.level.clone(),
            yellow_name: players.yellow.name.clone(),
            yellow_kind: name_of(&players.yellow.kind)?,
            yellow_level: players.yellow.level.clone(),
            winner: record.result.winner.map(|side| side.as_str().to_owned()),
            reason: record.result.reason.as_str().to_owned(),
            rolls: i64::from(record.rolls),
            moves: i64::from(record.moves),
            actions,
            scheme: fairness.scheme.clone(),
            commitment: fairness.commitment.clone(),
            server_seed: fairness.server_seed.clone(),
            red_seed: fairness.red_seed.clone().into_bytes(),
            yellow_seed: fairness.yellow_seed.clone().into_bytes(),
            red_player: players.red.player_id,
            yellow_player: players.yellow.player_id,
            rated: record.rated,
            // `check_storable` made sure of 2 to 4.
            players: players.count() as i16,
            house_rules,
            blue: SeatColumns::of(players.blue.as_ref(), fairness.blue_seed.as_deref())?,
            green: SeatColumns::of(players.green.as_ref(), fairness.green_seed.as_deref())?,
            red_place: place(Side::Red),
            yellow_place: place(Side::Yellow),
            blue_place: place(Side::Blue),
            green_place: place(Side::Green),
        })
    }

    /// The record this row stores: format 1 ([`PLYYARD_FORMAT`]) for a two-player `plyyard`
    /// game, exactly the record it was before format 2 existed, and format 2 for every other
    /// game ([`GameRecord::format_for`]), with its places.
    ///
    /// A row keeps a record in columns, not as the record's JSON, so it has no format of its
    /// own: the numbered migrations bring every row to the current schema, and this reads it in
    /// the format its game is written in. Rows written before records carried a format, and
    /// before migration 0004, are two-player `plyyard` games and read as format 1.
    ///
    /// A record of format 2 always reads back with `places` (a seat without a place has `null`),
    /// as every record the rules crate's result gives ([`ResultRecord::of_table`]) has them.
    pub(crate) fn into_record(self) -> Result<GameRecord, StoreError> {
        let id = self.id;
        let actions: Vec<LoggedAction> =
            serde_json::from_str(&self.actions).map_err(|error| corrupt(id, "actions", error))?;
        let house_rules: Vec<String> = serde_json::from_str(&self.house_rules)
            .map_err(|error| corrupt(id, "house_rules", error))?;
        let winner = self
            .winner
            .as_deref()
            .map(|winner| winner.parse().map_err(|error| corrupt(id, "winner", error)))
            .transpose()?;
        let seed = |column: &str, bytes: Vec<u8>| {
            String::from_utf8(bytes).map_err(|error| corrupt(id, column, error))
        };
        let red_seed = seed("red_seed", self.red_seed)?;
        let yellow_seed = seed("yellow_seed", self.yellow_seed)?;
        let (blue, blue_seed) = self.blue.into_seat(id, "blue")?;
        let (green, green_seed) = self.green.into_seat(id, "green")?;
        let place = |column: &str, place: Option<i16>| {
            place
                .map(|place| u8::try_from(place).map_err(|error| corrupt(id, column, error)))
                .transpose()
        };
        let places = Places {
            red: place("red_place", self.red_place)?,
            green: place("green_place", self.green_place)?,
            yellow: place("yellow_place", self.yellow_place)?,
            blue: place("blue_place", self.blue_place)?,
        };
        let mut record = GameRecord {
            format: PLYYARD_FORMAT,
            id,
            ruleset: self.ruleset,
            house_rules,
            mode: parse_name(id, "mode", &self.mode)?,
            created_at: self.created_at,
            started_at: self.started_at,
            ended_at: self.ended_at,
            players: Players {
                red: PlayerRecord {
                    name: self.red_name,
                    kind: parse_name(id, "red_kind", &self.red_kind)?,
                    level: self.red_level,
                    player_id: self.red_player,
                },
                yellow: PlayerRecord {
                    name: self.yellow_name,
                    kind: parse_name(id, "yellow_kind", &self.yellow_kind)?,
                    level: self.yellow_level,
                    player_id: self.yellow_player,
                },
                blue,
                green,
            },
            rated: self.rated,
            result: ResultRecord {
                winner,
                reason: parse_name(id, "reason", &self.reason)?,
                places: None,
            },
            rolls: u32::try_from(self.rolls).map_err(|error| corrupt(id, "rolls", error))?,
            moves: u32::try_from(self.moves).map_err(|error| corrupt(id, "moves", error))?,
            actions,
            fairness: FairnessRecord {
                scheme: self.scheme,
                commitment: self.commitment,
                server_seed: self.server_seed,
                red_seed,
                yellow_seed,
                blue_seed,
                green_seed,
            },
        };
        if usize::try_from(self.players).ok() != Some(record.players.count()) {
            return Err(corrupt(
                id,
                "players",
                format!(
                    "{} players but {} seats",
                    self.players,
                    record.players.count()
                ),
            ));
        }
        // An edition this build does not know is still read (nothing stored is lost), as the
        // format of a game that is not a two-player `plyyard` one.
        record.format = match record.rules() {
            Ok(rules) => GameRecord::format_for(rules, record.players.count()),
            Err(_) if record.is_plyyard() => PLYYARD_FORMAT,
            Err(_) => TABLE_FORMAT,
        };
        if record.format != PLYYARD_FORMAT {
            record.result.places = Some(places);
        }
        Ok(record)
    }
}

/// Refuses, as [`StoreError::Rejected`], a record that a database could not hold as it is: a NUL
/// character in any text field (PostgreSQL text cannot hold one), or seats a table does not have
/// (Green without Blue) or a place outside 1 to 4. The client seeds are exempt from the NUL check: they are stored as
/// bytes. Every store calls this, so they all refuse the same records; the server refuses such
/// names where they come in, so only a record from an older server can hold one.
pub(crate) fn check_storable(record: &GameRecord) -> Result<(), StoreError> {
    let players = &record.players;
    if players.green.is_some() && players.blue.is_none() {
        return Err(StoreError::Rejected(format!(
            "game {}: a Green seat without a Blue one (Green sits only with four players)",
            record.id
        )));
    }
    if let Some(places) = record.result.places
        && Side::ALL.into_iter().any(|side| {
            places
                .get(side)
                .is_some_and(|place| !(1..=4).contains(&place))
        })
    {
        return Err(StoreError::Rejected(format!(
            "game {}: a place outside 1 to 4",
            record.id
        )));
    }
    fn seat(seat: Option<&PlayerRecord>) -> (Option<&String>, Option<&String>) {
        (
            seat.map(|seat| &seat.name),
            seat.and_then(|seat| seat.level.as_ref()),
        )
    }
    let (blue_name, blue_level) = seat(players.blue.as_ref());
    let (green_name, green_level) = seat(players.green.as_ref());
    let mut texts = vec![
        ("ruleset", Some(&record.ruleset)),
        ("red_name", Some(&players.red.name)),
        ("red_level", players.red.level.as_ref()),
        ("yellow_name", Some(&players.yellow.name)),
        ("yellow_level", players.yellow.level.as_ref()),
        ("blue_name", blue_name),
        ("blue_level", blue_level),
        ("green_name", green_name),
        ("green_level", green_level),
        ("scheme", Some(&record.fairness.scheme)),
        ("commitment", Some(&record.fairness.commitment)),
        ("server_seed", Some(&record.fairness.server_seed)),
    ];
    texts.extend(
        record
            .house_rules
            .iter()
            .map(|rule| ("house_rules", Some(rule))),
    );
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
