//! The ceiling of the server load benchmark (`docs/benchmarks.md`, `bench/run.sh`): a bare
//! tokio-tungstenite WebSocket server that answers every text message with one message of the
//! same size (the message itself), and does nothing else.
//!
//! It costs what any WebSocket server on tokio must: accepting, the handshake, reading and
//! unmasking a frame, writing one back. Our server's CPU per action and throughput are reported
//! as ratios of this one's. Its sockets read through the same 1 KiB buffer as our server's
//! (`crates/server/src/ws/mod.rs`), so neither pays for a bigger one; it accepts any path.
#![forbid(unsafe_code)]

use futures_util::{SinkExt as _, StreamExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// The read buffer of each socket, in bytes: the same as our server's.
pub const READ_BUFFER_BYTES: usize = 1024;

/// The largest message accepted, in bytes: our server's default frame limit.
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// Accepts WebSockets on `listener` for ever, each served by its own task.
pub async fn serve(listener: TcpListener) -> std::io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(echo(stream));
    }
}

/// Serves one connection: every text message comes back as it is; pings are answered by
/// tungstenite; the connection ends at a close, an error or anything else.
async fn echo(stream: TcpStream) {
    if stream.set_nodelay(true).is_err() {
        return;
    }
    let config = WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER_BYTES)
        .max_message_size(Some(MAX_MESSAGE_BYTES))
        .max_frame_size(Some(MAX_MESSAGE_BYTES));
    let Ok(mut socket) = tokio_tungstenite::accept_async_with_config(stream, Some(config)).await
    else {
        return;
    };
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
