//! The WebSocket endpoint of a room: `GET /ws/rooms/{id}`.
//!
//! - [`upgrade`]: the handshake, which hands back the TCP socket itself.
//! - [`connection`]: the connection's one task: reads frames, enforces size and garbage limits,
//!   decodes, and forwards messages to the room's inbox; pings, and writes what the room could
//!   not (a full socket's leftovers, the close).
//! - [`read_side`]: the socket as tungstenite reads it; [`frames`]: the control frames sent.
//!
//! The handle a room holds to reach a connection, and the queue that writes the room's frames
//! to the socket, are `crate::outgoing`, beside these.

mod connection;
mod frames;
mod read_side;
mod timers;
mod upgrade;

use axum::Router;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::get;

use crate::error::HttpError;
use crate::limits::ClientAddr;
use crate::state::AppState;
use upgrade::{NotAnUpgrade, Upgrade};

/// The WebSocket layer's read buffer, in bytes, and the most one read asks the socket for.
/// Every socket holds one for its whole life, idle or not (tungstenite's default of 128 KiB
/// would cost that much per connection). tungstenite zeroes the free part of the buffer before
/// every read, up to this much: at 1 KiB that was about eight cache lines written per action,
/// cold at 1,000 rooms (issue 18, stop 34). An action's frame is under 100 bytes; a bigger
/// frame (up to `--max-frame-bytes`) still arrives whole, in a few reads, since tungstenite
/// grows the buffer for the frame it is reading.
const READ_BUFFER_BYTES: usize = 128;

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
    upgrade: Result<Upgrade, NotAnUpgrade>,
) -> Result<Response, HttpError> {
    let id = HttpError::parse_room_id(&id)?;
    let upgrade = upgrade.map_err(NotAnUpgrade::into_http)?;
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
    // The upgrade never negotiates compression (permessage-deflate), whatever the client asks
    // for (a test holds this).
    Ok(upgrade.answer(move |socket, read| {
        connection::run(socket, read, room, limits, address, store, place)
    }))
}
