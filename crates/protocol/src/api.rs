//! The HTTP API's JSON bodies: rooms, quick match, finished games, players and errors.

use aeroplane_rules::{Game, Side};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::ErrorCode;
use crate::record::{LoggedAction, Mode, Players, ResultRecord};
use crate::snapshot::{RoomPhase, Seats};

/// The body of every HTTP error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ApiError {
    /// The stable code, e.g. `room_not_found`.
    pub code: ErrorCode,
    /// What went wrong, for people.
    pub message: String,
}

/// `POST /api/rooms`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateRoom {
    /// The kind of room: `online` (the default), `computer` or `local`.
    #[serde(default = "online")]
    pub mode: Mode,
    /// The edition: `plyyard` (when absent), `flights` or `classic` (`docs/rules/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruleset: Option<String>,
    /// How many players: 2 (when absent) to 4, as the edition allows (`plyyard`: 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<u8>,
    /// The edition's house rules to turn on, by name: `jump-after-shortcut` (`classic` only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub house_rules: Vec<String>,
    /// Computer rooms only: the human's colour (`red` when absent); the computers play the
    /// others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::openapi::ColourName>)]
    pub colour: Option<Side>,
    /// Computer rooms only: the computer's level, `random`, `easy`, `normal` (when absent) or
    /// `hard`; in a room of three or four, every computer's unless `levels` says otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// Computer rooms of three or four only: each computer's level, in turn order of the
    /// computers' colours (one to three entries; the last repeats for the computers not named).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<String>,
    /// Test builds only: the server seed (64 hex digits) instead of a fresh one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_server_seed: Option<String>,
    /// The turn clock: how long the player to act has for each roll or plane choice, in ms
    /// (100 to 3,600,000); absent or 0 for no clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_clock_ms: Option<u64>,
}

fn online() -> Mode {
    Mode::Online
}

impl Default for CreateRoom {
    fn default() -> Self {
        CreateRoom {
            mode: Mode::Online,
            ruleset: None,
            players: None,
            house_rules: Vec::new(),
            colour: None,
            level: None,
            levels: Vec::new(),
            test_server_seed: None,
            turn_clock_ms: None,
        }
    }
}

/// The answer to `POST /api/rooms`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RoomCreated {
    /// The room id.
    pub id: Uuid,
    /// The kind of room.
    pub mode: Mode,
    /// The code to give a friend (the room id in its short form).
    pub invite_code: String,
    /// The path of the room's WebSocket endpoint.
    pub ws_path: String,
    /// The dice commitment, published before anyone joins.
    pub commitment: String,
    /// Computer rooms only: the human's colour (join without a colour to take it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::openapi::ColourName>)]
    pub colour: Option<Side>,
    /// Computer rooms only: the computer's level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// Table rooms only (any other edition or player count): the edition, e.g. `flights` or
    /// `classic+jump-after-shortcut`, and the colours that play, in turn order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableRules>,
}

/// What a table room plays: the edition with its house rules and the seated colours.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TableRules {
    /// The edition and its house rules, as the notation names them (`classic+jump-after-shortcut`).
    #[schema(value_type = String)]
    pub rules: aeroplane_rules::Rules,
    /// The colours that play, in turn order.
    #[schema(value_type = Vec<crate::openapi::ColourName>)]
    pub seats: Vec<Side>,
}

/// `GET /api/rooms/{id}`: a room's public status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RoomStatus {
    /// The room id.
    pub id: Uuid,
    /// The kind of room.
    pub mode: Mode,
    /// Waiting, playing or over.
    pub phase: RoomPhase,
    /// The seats.
    pub seats: Seats,
    /// Table rooms only: the edition and the colours that play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableRules>,
    /// How many spectators are connected.
    pub spectators: u32,
    /// The number of the last room event.
    pub event: u64,
}

/// `POST /api/quick-match`: wait for the next other player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QuickMatchRequest {
    /// The display name; it must parse as a [`crate::name::PlayerName`].
    pub name: String,
    /// The player's dice seed.
    #[serde(default)]
    pub client_seed: Option<String>,
    /// The edition to play: `plyyard` (when absent), `flights` or `classic`. Players wait in
    /// one queue per edition and player count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruleset: Option<String>,
    /// How many players the game seats: 2 (when absent) to 4, as the edition allows. A queue
    /// of four fills when four wait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<u8>,
}

/// The answer to a quick match: a seat already taken for you in a new room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct QuickMatched {
    /// The new room.
    pub room_id: Uuid,
    /// Your colour.
    #[schema(value_type = crate::openapi::ColourName)]
    pub colour: Side,
    /// Your seat token: send it in `join` on the room's WebSocket.
    pub token: String,
    /// The path of the room's WebSocket endpoint.
    pub ws_path: String,
}

/// One finished game in a list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GameSummary {
    /// The game id.
    pub id: Uuid,
    /// The edition: `plyyard`, `flights` or `classic` (`plyyard` when absent, as a server
    /// from before the other editions lists it).
    #[serde(default = "plyyard")]
    pub ruleset: String,
    /// The edition's house rules that were on, by name; absent when none was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub house_rules: Vec<String>,
    /// The kind of room.
    pub mode: Mode,
    /// The seats: Red and Yellow, Blue with three players or more, Green with four.
    pub players: Players,
    /// Whether the game counted for the players' ratings (absent when not).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// How it ended.
    pub result: ResultRecord,
    /// When it started.
    #[serde(with = "time::serde::rfc3339")]
    pub started_at: OffsetDateTime,
    /// When it ended.
    #[serde(with = "time::serde::rfc3339")]
    pub ended_at: OffsetDateTime,
    /// Rolls made.
    pub rolls: u32,
    /// Moves made.
    pub moves: u32,
}

fn plyyard() -> String {
    "plyyard".to_owned()
}

/// `GET /api/games`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GameList {
    /// The games, newest first.
    pub games: Vec<GameSummary>,
    /// Pass as `before` to get the next page; `null` on the last page.
    pub next_before: Option<String>,
}

/// One position of a replay.
///
/// A two-player `plyyard` game's step carries the position as `game` (`docs/state-json.md`) and
/// `notation`, exactly as before other editions existed. A step of any other game (another
/// edition, or three or four players) carries it as `table`, in the editions' notation
/// (`docs/rules/README.md`), and has no `game`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ReplayStep {
    /// The action that led here; `null` for the initial position.
    pub action: Option<LoggedAction>,
    /// A two-player `plyyard` game only: the position after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub game: Option<Game>,
    /// The position in notation (the table notation for a table game); `null` once the game is
    /// over.
    pub notation: Option<String>,
    /// Every game but a two-player `plyyard` one: the position after it in the editions'
    /// notation, e.g. `flights red:b,b,12,f yellow:b,30,52,b blue:b,b,b,b yellow - 0 -`. Unlike
    /// `notation` it is there at game over too (with the places, and `-` as the pending roll).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
}

/// `GET /api/games/{id}/replay`: every position of a finished game, in order (a table game's
/// steps carry `table`, a two-player `plyyard` game's `game`; see [`ReplayStep`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Replay {
    /// The game id.
    pub id: Uuid,
    /// The initial position, then one step per standing action.
    pub steps: Vec<ReplayStep>,
}

/// `POST /api/players`: a new guest identity.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatePlayer {
    /// The display name (a [`crate::name::PlayerName`]); a generated `Guest 1234` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The answer to `POST /api/players`: the identity and its secret, shown this once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PlayerCreated {
    /// The player id.
    pub id: Uuid,
    /// The secret (43 characters of unpadded base64url, 32 random bytes). Present it as
    /// `Authorization: Bearer <id>.<secret>` or as `join`'s `player`. The server keeps only its
    /// SHA-256 hash: a lost secret cannot be recovered.
    pub secret: String,
    /// The display name.
    pub name: String,
}

/// `PATCH /api/players/me`: a new display name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RenamePlayer {
    /// The new display name; it must parse as a [`crate::name::PlayerName`].
    pub name: String,
}

/// A player's Glicko-2 rating, as of now (the deviation grows with inactivity).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RatingView {
    /// The rating, 1500 to start.
    pub rating: f64,
    /// The rating deviation, 350 to start.
    pub deviation: f64,
    /// Whether the rating is provisional (shown with a `?`): the deviation is above 110.
    pub provisional: bool,
}

/// `GET /api/players/{id}` and `GET /api/players/me`: a player's profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PlayerProfile {
    /// The player id.
    pub id: Uuid,
    /// The display name.
    pub name: String,
    /// The rating.
    pub rating: RatingView,
    /// Finished games stored with this player in a seat (every mode).
    pub games: u64,
    /// Of those, the games the player won.
    pub wins: u64,
    /// Of those, the games the player lost.
    pub losses: u64,
    /// Of those, the drawn games.
    pub draws: u64,
}

/// One open room where a player holds a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LiveRoom {
    /// The room id.
    pub room_id: Uuid,
    /// The path of the room's WebSocket endpoint.
    pub ws_path: String,
    /// The player's colour (Red's seat for the player of a local room, who holds both).
    #[schema(value_type = crate::openapi::ColourName)]
    pub colour: Side,
    /// The seat token: send it in `join` to take the seat (again).
    pub token: String,
    /// The kind of room.
    pub mode: Mode,
    /// Waiting, playing or over.
    pub phase: RoomPhase,
}

/// `GET /api/players/me/live`: the open rooms where the player holds a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LiveRooms {
    /// The rooms, oldest seat first.
    pub rooms: Vec<LiveRoom>,
}

/// One row of the leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LeaderboardEntry {
    /// 1 for the highest rating.
    pub rank: u32,
    /// The player id.
    pub id: Uuid,
    /// The display name.
    pub name: String,
    /// The rating.
    pub rating: f64,
    /// The rating deviation, as of now.
    pub deviation: f64,
    /// Whether the rating is provisional (deviation above 110).
    pub provisional: bool,
    /// Rated games played.
    pub games: u64,
}

/// `GET /api/leaderboard`: the rated players, highest rating first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Leaderboard {
    /// The players with at least one rated game, by rating.
    pub players: Vec<LeaderboardEntry>,
}
