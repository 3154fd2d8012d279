//! Raw WebSockets for the echo and Colyseus targets, from a chosen local address, with Nagle's
//! algorithm off (small messages in a ping-pong must not wait for an ACK).

use std::net::IpAddr;

use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// A client WebSocket over plain TCP.
pub(super) type Socket = WebSocketStream<TcpStream>;

/// The read buffer of the load generator's sockets: small, like the servers' (8 KiB).
const READ_BUFFER_BYTES: usize = 8 * 1024;

/// Opens a WebSocket to `url` (`ws://host:port/path?query`) from `bind`, if given.
pub(super) async fn open(url: &str, bind: Option<IpAddr>) -> Result<Socket, String> {
    let authority = url
        .strip_prefix("ws://")
        .and_then(|rest| rest.split(['/', '?']).next())
        .ok_or_else(|| "connect".to_owned())?;
    let addr = tokio::net::lookup_host(authority)
        .await
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| "connect".to_owned())?;
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()
    } else {
        TcpSocket::new_v6()
    }
    .map_err(|_| "connect".to_owned())?;
    if let Some(bind) = bind {
        socket
            .bind((bind, 0).into())
            .map_err(|_| "connect".to_owned())?;
    }
    let stream = socket
        .connect(addr)
        .await
        .map_err(|_| "connect".to_owned())?;
    stream.set_nodelay(true).map_err(|_| "connect".to_owned())?;
    let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER_BYTES);
    let (socket, _) = tokio_tungstenite::client_async_with_config(url, stream, Some(config))
        .await
        .map_err(|_| "connect".to_owned())?;
    Ok(socket)
}

/// The `ws://host:port` of an `http://host:port` base URL.
pub(super) fn ws_base(server: &str) -> String {
    let base = server.trim_end_matches('/');
    match base.strip_prefix("http://") {
        Some(rest) => format!("ws://{rest}"),
        None => base.to_owned(),
    }
}
