//! The ceilings of the server load benchmark (`docs/benchmarks.md`, `bench/run.sh`): a bare
//! tokio-tungstenite WebSocket server with two behaviours, chosen by the path.
//!
//! - **Echo** (any path but the one below): every text message is answered with itself, to the
//!   sender only. It costs what any WebSocket server on tokio must: accepting, the handshake,
//!   reading and unmasking a frame, writing one back.
//! - **Broadcast echo** (`/broadcast/<room>`): the connections that name the same room form it,
//!   and every text message is sent to every member, the sender included. That is the least an
//!   authoritative room must do per action (read one frame, send it to both players), with no
//!   rules, no journal and no JSON parsing, so our server's ratio to it is the real overhead of
//!   being authoritative. Like our server, each connection has a reader and a writer task, and
//!   the writer sends every frame waiting in its queue with one flush.
//!
//! Our server's CPU per action and throughput are reported as ratios of these. Their sockets
//! read through the same 128-byte buffer as our server's (`crates/server/src/ws/mod.rs`), so
//! neither pays for a bigger one.
#![forbid(unsafe_code)]

mod broadcast;

use futures_util::{SinkExt as _, StreamExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

pub use broadcast::Rooms;

/// The read buffer of each socket, in bytes: the same as our server's.
pub const READ_BUFFER_BYTES: usize = 128;

/// The largest message accepted, in bytes: our server's default frame limit.
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// The path prefix of a broadcast room: `/broadcast/<room>`.
pub const BROADCAST_PREFIX: &str = "/broadcast/";

/// Accepts WebSockets on `listener` for ever, each served by its own task.
pub async fn serve(listener: TcpListener) -> std::io::Result<()> {
    let rooms = Rooms::default();
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(connection(stream, rooms.clone()));
    }
}

/// Serves one connection: the handshake, then echo or broadcast by the path.
async fn connection(stream: TcpStream, rooms: Rooms) {
    if stream.set_nodelay(true).is_err() {
        return;
    }
    let config = WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER_BYTES)
        .max_message_size(Some(MAX_MESSAGE_BYTES))
        .max_frame_size(Some(MAX_MESSAGE_BYTES));
    // A broadcast room's member joins before the handshake is answered (`Rooms::join`); if the
    // handshake fails after all, dropping the member leaves the room.
    let mut member = None;
    // The callback's error type (an HTTP response) is tungstenite's, not ours to make smaller.
    #[allow(clippy::result_large_err)]
    let join = |request: &Request, response: Response| {
        if let Some(room) = request.uri().path().strip_prefix(BROADCAST_PREFIX) {
            member = Some(rooms.join(room));
        }
        Ok(response)
    };
    let Ok(socket) =
        tokio_tungstenite::accept_hdr_async_with_config(stream, join, Some(config)).await
    else {
        return;
    };
    match member {
        Some((member, queue)) => broadcast::serve(socket, member, queue).await,
        None => echo(socket).await,
    }
}

/// Every text message comes back as it is; pings are answered by tungstenite; the connection
/// ends at a close, an error or anything else.
async fn echo(mut socket: tokio_tungstenite::WebSocketStream<TcpStream>) {
    while let Some(Ok(message)) = socket.next().await {
        let answer = match message {
            Message::Text(text) => Message::Text(text),
            Message::Ping(_) | Message::Pong(_) => continue,
            _ => break,
        };
        if socket.send(answer).await.is_err() {
            break;
        }
    }
}
