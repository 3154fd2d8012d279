//! The WebSocket endpoint of a room: `GET /ws/rooms/{id}`.
//!
//! - [`connection`]: reads frames, enforces size and garbage limits, decodes, and forwards
//!   messages to the room's inbox.
//! - [`writer`]: drains the connection's bounded queue into the socket and pings.
//! - [`outbox`]: the handle a room holds to reach a connection.

mod connection;
pub mod outbox;
mod writer;

use axum::Router;
use axum::extract::{Path, State, WebSocketUpgrade};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::app::AppState;
use crate::error::HttpError;
use crate::http::rooms::parse_room_id;

/// The WebSocket routes.
pub fn router() -> Router<AppState> {
    Router::new().route("/ws/rooms/{id}", get(upgrade))
}

/// Upgrades to a WebSocket for an open room (404 before upgrading when there is none).
async fn upgrade(
    State(state): State<AppState>,
    Path(id): Path<String>,
    upgrade: WebSocketUpgrade,
) -> Result<Response, HttpError> {
    let id = parse_room_id(&id)?;
    let room = state
        .registry
        .get(id)
        .ok_or_else(|| HttpError::room_not_found(id))?;
    let limits = connection::Limits::from_config(&state.config);
    let upgrade = upgrade
        .max_message_size(limits.hard_frame_bytes)
        .max_frame_size(limits.hard_frame_bytes);
    Ok(upgrade
        .on_upgrade(move |socket| connection::run(socket, room, limits))
        .into_response())
}
