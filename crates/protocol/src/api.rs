//! The HTTP API's JSON bodies: rooms, quick match, finished games and errors.

use aeroplane_rules::{Colour, Game};
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
    /// Computer rooms only: the human's colour (`red` when absent); the computer plays the other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::openapi::ColourName>)]
    pub colour: Option<Colour>,
    /// Computer rooms only: the computer's level, `random`, `easy`, `normal` (when absent) or
    /// `hard`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
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
            colour: None,
            level: None,
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
    pub colour: Option<Colour>,
    /// Computer rooms only: the computer's level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
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
    /// Both seats.
    pub seats: Seats,
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
}

/// The answer to a quick match: a seat already taken for you in a new room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct QuickMatched {
    /// The new room.
    pub room_id: Uuid,
    /// Your colour.
    #[schema(value_type = crate::openapi::ColourName)]
    pub colour: Colour,
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
    /// The kind of room.
    pub mode: Mode,
    /// Both seats.
    pub players: Players,
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

/// `GET /api/games`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GameList {
    /// The games, newest first.
    pub games: Vec<GameSummary>,
    /// Pass as `before` to get the next page; `null` on the last page.
    pub next_before: Option<String>,
}

/// One position of a replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ReplayStep {
    /// The action that led here; `null` for the initial position.
    pub action: Option<LoggedAction>,
    /// The position after it.
    #[schema(value_type = Object)]
    pub game: Game,
    /// The position in notation; `null` once the game is over.
    pub notation: Option<String>,
}

/// `GET /api/games/{id}/replay`: every position of a finished game, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Replay {
    /// The game id.
    pub id: Uuid,
    /// The initial position, then one step per standing action.
    pub steps: Vec<ReplayStep>,
}
