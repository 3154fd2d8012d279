//! The WebSocket endpoint of a room: `GET /ws/rooms/{id}`.
//!
//! - [`connection`]: reads frames, enforces size and garbage limits, decodes, and forwards
//!   messages to the room's inbox.
//! - [`writer`]: drains the connection's bounded queue into the socket and pings.
//!
//! The handle a room holds to reach a connection is `crate::outgoing`, beside both.

mod connection;
mod writer;

use aeroplane_protocol::error::ErrorCode;
use axum::Router;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{Path, State, WebSocketUpgrade};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::error::HttpError;
use crate::limits::ClientAddr;
use crate::state::AppState;

/// The WebSocket layer's read buffer, in bytes. Every socket holds one for its whole life, idle
/// or not (tungstenite's default of 128 KiB would cost that much per connection). Client
/// messages are a few hundred bytes at most; a bigger frame (up to `--max-frame-bytes`) still
/// arrives whole, since tungstenite grows the buffer for the frame it is reading.
const READ_BUFFER_BYTES: usize = 1024;

/// The WebSocket routes.
pub fn router() -> Router<AppState> {
    Router::new().route("/ws/rooms/{id}", get(upgrade))
}

/// Upgrades to a WebSocket for an open room (404 before upgrading when there is none; in
/// cluster mode a room whose lease lapsed is taken over first, and one live on another node is
/// reached through this node's forwarding proxy, `crate::cluster::forward`; a browser page
/// from a foreign origin was refused with 403 by `crate::http::edge`). A request
/// that is not a WebSocket upgrade is 400 `bad_field`.
async fn upgrade(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ClientAddr(address): ClientAddr,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, HttpError> {
    let id = HttpError::parse_room_id(&id)?;
    let upgrade = upgrade.map_err(|rejection| {
        HttpError::bad_request(
            ErrorCode::BadField,
            format!("not a WebSocket upgrade: {}", rejection.body_text()),
        )
    })?;
    let room = state.room(id).await?;
    // Counted from here until the socket closes; refused before the upgrade when over a limit.
    let place = match address {
        Some(address) => Some(
            state
                .limits
                .connections
                .try_open(address)
                .map_err(HttpError::TooManyConnections)?,
        ),
        None => None,
    };
    let limits = connection::Limits::from_config(&state.config);
    let store = state.store.clone();
    // The upgrade never negotiates compression: axum offers no permessage-deflate, whatever the
    // client asks for (a test holds this).
    let upgrade = upgrade
        .read_buffer_size(READ_BUFFER_BYTES)
        .max_message_size(limits.hard_frame_bytes)
        .max_frame_size(limits.hard_frame_bytes);
    Ok(upgrade
        .on_upgrade(move |socket| async move {
            connection::run(socket, room, limits, address, store).await;
            drop(place);
        })
        .into_response())
}
