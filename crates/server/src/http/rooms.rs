//! `POST /api/rooms` (online, computer and local rooms of every edition for two to four players)
//! and `GET /api/rooms/{id}`.
//!
//! A request that names nothing new (no `ruleset`, `players`, `house_rules` or `levels`) opens
//! today's two-player `plyyard` room, which speaks protocol 1 exactly as before; any other
//! edition or player count opens a table room (protocol 2, `docs/protocol.md` §12).

use std::time::Duration;

use aeroplane_bot::{Level, ParseLevelError};
use aeroplane_dice::ServerSeed;
use aeroplane_protocol::api::{CreateRoom, RoomCreated, RoomStatus, TableRules};
use aeroplane_protocol::board::Board;
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::record::Mode;
use aeroplane_rules::{Rules, Ruleset, Side};
use anyhow::Context;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use axum::{Json, Router};
use uuid::Uuid;

use crate::error::HttpError;
use crate::limits::ClientAddr;
use crate::room::{self, ComputerSeat, RoomSetup, StatusError};
use crate::state::AppState;

/// How long the API waits for a room to answer a status request.
const STATUS_TIMEOUT: Duration = Duration::from_secs(5);

/// The room routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/rooms", post(create))
        .route("/api/rooms/{id}", get(status))
}

/// Credentials in `Authorization` are checked (401 `bad_identity` when wrong) but take no seat:
/// the player's seat is taken, and tied to them, when they `join` with `player`.
async fn create(
    State(state): State<AppState>,
    ClientAddr(address): ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, Json<RoomCreated>), HttpError> {
    let request: CreateRoom = super::json_body(&body)?;
    super::players::identify(&state, &headers).await?;
    let board = board_of(
        request.ruleset.as_deref(),
        request.players,
        &request.house_rules,
    )?;
    let computers = computer_seats(&request, &board)?;
    let turn_clock = turn_clock(&request)?;
    // The refusal is counted and logged once per burst by `http::observe`.
    if let Err(refused) = state.limits.admit_room(&state.registry, address, true) {
        return Err(refused.into());
    }
    let server_seed = match request.test_server_seed {
        Some(hex) => test_seed(&hex)?,
        None => ServerSeed::generate()
            .context("failed to draw a server seed")
            .map_err(HttpError::Internal)?,
    };
    let commitment = server_seed.commitment().to_string();
    let id = Uuid::new_v4();
    let seats = computers
        .iter()
        .map(|computer| {
            computer
                .seat()
                .context("failed to draw the computer's seat token and seed")
                .map_err(HttpError::Internal)
        })
        .collect::<Result<Vec<_>, _>>()?;
    // The human's colour: the one seat the computers leave.
    let human = board
        .sides()
        .iter()
        .copied()
        .find(|side| !computers.iter().any(|computer| computer.colour == *side));
    let computer = computers.first().copied();
    let table = board.is_table().then(|| TableRules {
        rules: board.rules(),
        seats: board.sides().to_vec(),
    });
    let setup = RoomSetup {
        id,
        mode: request.mode,
        board,
        server_seed,
        seats,
        turn_clock,
        computers,
    };
    room::open_journaled(setup, state.room_context())
        .await
        .map_err(|_| HttpError::JournalUnavailable)?;
    let created = RoomCreated {
        id,
        mode: request.mode,
        invite_code: id.simple().to_string(),
        ws_path: format!("/ws/rooms/{id}"),
        commitment,
        colour: computer.and(human),
        level: computer.map(|computer| computer.level.as_str().to_owned()),
        table,
    };
    Ok((StatusCode::CREATED, Json(created)))
}

/// The game a request asks for: an edition (`plyyard` when absent) with its house rules and a
/// player count (2 when absent), refused with `unknown_ruleset` or `bad_player_count` when this
/// server does not play it. Quick match asks the same.
pub(super) fn board_of(
    ruleset: Option<&str>,
    players: Option<u8>,
    house_rules: &[String],
) -> Result<Board, HttpError> {
    let ruleset = match ruleset {
        None => Ruleset::Plyyard,
        Some(name) => name.parse().map_err(|_| {
            let message = format!("`{name}` is not a ruleset (plyyard, flights, classic)");
            HttpError::bad_request(ErrorCode::UnknownRuleset, message)
        })?,
    };
    let rules = Rules::with_house_rules(ruleset, house_rules).map_err(|_| {
        let message = format!(
            "{} has no house rule {:?} (classic has jump-after-shortcut)",
            ruleset.as_str(),
            house_rules
        );
        HttpError::bad_request(ErrorCode::UnknownRuleset, message)
    })?;
    let players = usize::from(players.unwrap_or(2));
    Board::new(rules, players).map_err(|_| {
        let message = match ruleset {
            Ruleset::Plyyard => format!("plyyard seats 2 players, not {players}"),
            _ => format!("{} seats 2 to 4 players, not {players}", ruleset.as_str()),
        };
        HttpError::bad_request(ErrorCode::BadPlayerCount, message)
    })
}

/// The computers' seats a `computer` room asks for: every colour but the human's (Red unless
/// they ask for another that plays), each at its level from `levels` (the last repeating) or
/// `level` (`normal` by default). Other modes take none of these fields.
fn computer_seats(request: &CreateRoom, board: &Board) -> Result<Vec<ComputerSeat>, HttpError> {
    if request.mode != Mode::Computer {
        if request.colour.is_some() || request.level.is_some() || !request.levels.is_empty() {
            let message = "`colour`, `level` and `levels` apply to computer rooms only";
            return Err(HttpError::bad_request(ErrorCode::BadField, message));
        }
        return Ok(Vec::new());
    }
    let human = request.colour.unwrap_or(Side::Red);
    if !board.sides().contains(&human) {
        let message = format!(
            "{} does not play with {} players",
            human.as_str(),
            board.players()
        );
        return Err(HttpError::bad_request(ErrorCode::BadField, message));
    }
    let parse = |text: &str| {
        text.parse::<Level>().map_err(|error: ParseLevelError| {
            HttpError::bad_request(ErrorCode::BadField, error.to_string())
        })
    };
    let default = request
        .level
        .as_deref()
        .map(parse)
        .transpose()?
        .unwrap_or(Level::Normal);
    let levels = request
        .levels
        .iter()
        .map(|text| parse(text))
        .collect::<Result<Vec<_>, _>>()?;
    let computers: Vec<Side> = board
        .sides()
        .iter()
        .copied()
        .filter(|s| *s != human)
        .collect();
    if levels.len() > computers.len() {
        let message = format!("{} levels for {} computers", levels.len(), computers.len());
        return Err(HttpError::bad_request(ErrorCode::BadPlayerCount, message));
    }
    Ok(computers
        .into_iter()
        .enumerate()
        .map(|(index, colour)| ComputerSeat {
            colour,
            level: levels
                .get(index)
                .or(levels.last())
                .copied()
                .unwrap_or(default),
        })
        .collect())
}

/// The turn clock a room asks for: 100 ms to an hour, or none.
fn turn_clock(request: &CreateRoom) -> Result<Option<Duration>, HttpError> {
    match request.turn_clock_ms {
        None | Some(0) => Ok(None),
        Some(ms @ 100..=3_600_000) => Ok(Some(Duration::from_millis(ms))),
        Some(_) => Err(HttpError::bad_request(
            ErrorCode::BadField,
            "turn_clock_ms is 100 to 3600000 (or 0 for no clock)",
        )),
    }
}

/// The server seed a test asked for: only a build with the `test-hooks` feature accepts one.
#[cfg(feature = "test-hooks")]
fn test_seed(hex: &str) -> Result<ServerSeed, HttpError> {
    hex.parse().map_err(|_| {
        HttpError::bad_request(ErrorCode::BadField, "test_server_seed is 64 hex digits")
    })
}

/// Without the `test-hooks` feature nobody chooses the server seed.
#[cfg(not(feature = "test-hooks"))]
fn test_seed(_hex: &str) -> Result<ServerSeed, HttpError> {
    Err(HttpError::bad_request(
        ErrorCode::TestHooksDisabled,
        "this server has no test hooks",
    ))
}

async fn status(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<RoomStatus>, HttpError> {
    let id = HttpError::parse_room_id(&id)?;
    let room = state.room(id).await?;
    match room.status(STATUS_TIMEOUT).await {
        Ok(status) => Ok(Json(status)),
        Err(StatusError::Closed) => Err(HttpError::room_not_found(id)),
        Err(StatusError::Late) => Err(HttpError::Internal(anyhow::anyhow!(
            "room {id} did not answer in time"
        ))),
    }
}

#[cfg(all(test, not(feature = "test-hooks")))]
mod tests {
    use super::*;

    #[test]
    fn a_build_without_test_hooks_refuses_a_chosen_server_seed() {
        let Err(HttpError::BadRequest { code, .. }) = test_seed(&"00".repeat(32)) else {
            panic!("a production build accepted a chosen seed");
        };
        assert_eq!(code, ErrorCode::TestHooksDisabled);
    }
}
