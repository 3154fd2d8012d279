//! `POST /api/rooms` (online, computer and local rooms) and `GET /api/rooms/{id}`.

use std::time::Duration;

use aeroplane_bot::{Level, ParseLevelError};
use aeroplane_dice::ServerSeed;
use aeroplane_protocol::api::{CreateRoom, RoomCreated, RoomStatus};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::record::Mode;
use aeroplane_rules::Colour;
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
    let computer = computer_seat(&request)?;
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
    let seats = match computer {
        Some(computer) => vec![
            computer
                .seat()
                .context("failed to draw the computer's seat token and seed")
                .map_err(HttpError::Internal)?,
        ],
        None => Vec::new(),
    };
    let setup = RoomSetup {
        id,
        mode: request.mode,
        server_seed,
        seats,
        turn_clock,
        computer,
    };
    room::open_journaled(setup, state.room_context()).await;
    let created = RoomCreated {
        id,
        mode: request.mode,
        invite_code: id.simple().to_string(),
        ws_path: format!("/ws/rooms/{id}"),
        commitment,
        colour: computer.map(|computer| computer.colour.opponent()),
        level: computer.map(|computer| computer.level.as_str().to_owned()),
    };
    Ok((StatusCode::CREATED, Json(created)))
}

/// The computer's seat a `computer` room asks for: the colour the human does not take (the
/// human is Red unless they ask for Yellow) at the level asked for (`normal` by default). Other
/// modes take neither field.
fn computer_seat(request: &CreateRoom) -> Result<Option<ComputerSeat>, HttpError> {
    if request.mode != Mode::Computer {
        if request.colour.is_some() || request.level.is_some() {
            let message = "`colour` and `level` apply to computer rooms only";
            return Err(HttpError::bad_request(ErrorCode::BadField, message));
        }
        return Ok(None);
    }
    let human = request.colour.unwrap_or(Colour::Red);
    let level = match request.level.as_deref() {
        None => Level::Normal,
        Some(text) => text.parse().map_err(|error: ParseLevelError| {
            HttpError::bad_request(ErrorCode::BadField, error.to_string())
        })?,
    };
    Ok(Some(ComputerSeat {
        colour: human.opponent(),
        level,
    }))
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
