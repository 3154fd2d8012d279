//! `POST /api/rooms` and `GET /api/rooms/{id}`.

use std::time::Duration;

use aeroplane_dice::ServerSeed;
use aeroplane_protocol::api::{CreateRoom, RoomCreated, RoomStatus};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::record::Mode;
use anyhow::Context;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use tokio::sync::oneshot;
use uuid::Uuid;

use crate::app::AppState;
use crate::error::HttpError;
use crate::room::{self, RoomCommand, RoomSetup};

/// How long the API waits for a room to answer a status request.
const STATUS_TIMEOUT: Duration = Duration::from_secs(5);

/// The room routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/rooms", post(create))
        .route("/api/rooms/{id}", get(status))
}

/// Parses a room id (the UUID, hyphenated or in its short form).
pub fn parse_room_id(text: &str) -> Result<Uuid, HttpError> {
    Uuid::parse_str(text).map_err(|_| {
        HttpError::bad_request(ErrorCode::BadField, format!("`{text}` is not a room id"))
    })
}

async fn create(
    State(state): State<AppState>,
    body: Bytes,
) -> Result<(StatusCode, Json<RoomCreated>), HttpError> {
    let request: CreateRoom = super::json_body(&body)?;
    if request.mode != Mode::Online {
        let message = format!("`{}` rooms are not offered yet", request.mode.as_str());
        return Err(HttpError::bad_request(ErrorCode::UnsupportedMode, message));
    }
    let server_seed = match request.test_server_seed {
        Some(hex) => test_seed(&hex)?,
        None => ServerSeed::generate()
            .context("failed to draw a server seed")
            .map_err(HttpError::Internal)?,
    };
    let commitment = server_seed.commitment().to_string();
    let id = Uuid::new_v4();
    let setup = RoomSetup {
        id,
        mode: Mode::Online,
        server_seed,
        seats: Vec::new(),
    };
    room::open(setup, state.room_context());
    let created = RoomCreated {
        id,
        mode: Mode::Online,
        invite_code: id.simple().to_string(),
        ws_path: format!("/ws/rooms/{id}"),
        commitment,
    };
    Ok((StatusCode::CREATED, Json(created)))
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
    let id = parse_room_id(&id)?;
    let room = state
        .registry
        .get(id)
        .ok_or_else(|| HttpError::room_not_found(id))?;
    let (reply, answer) = oneshot::channel();
    if room
        .inbox
        .send(RoomCommand::Status { reply })
        .await
        .is_err()
    {
        return Err(HttpError::room_not_found(id));
    }
    match tokio::time::timeout(STATUS_TIMEOUT, answer).await {
        Ok(Ok(status)) => Ok(Json(status)),
        Ok(Err(_)) => Err(HttpError::room_not_found(id)),
        Err(_) => Err(HttpError::Internal(anyhow::anyhow!(
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
