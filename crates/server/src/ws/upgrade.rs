//! The WebSocket handshake (RFC 6455 §4.2) over this server's HTTP/1.1 connections, handing
//! back the connection's own TCP socket.
//!
//! Why not axum's `WebSocketUpgrade`: it hands over a `WebSocket` whose halves share a lock and
//! whose every write goes through the connection's task, while a room here writes its frames
//! to the socket itself (`crate::outgoing::socket`), which needs the socket's write half. The
//! checks are axum's (and tungstenite's accept key); no extension or subprotocol is ever
//! negotiated, so the answer is the same as axum's was.

use aeroplane_protocol::error::ErrorCode;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::error::HttpError;

/// A valid WebSocket upgrade request, not answered yet.
#[derive(Debug)]
pub(super) struct Upgrade {
    key: HeaderValue,
    on_upgrade: OnUpgrade,
}

/// Why a request is no WebSocket upgrade, in words for the `bad_field` answer.
#[derive(Debug)]
pub(super) struct NotAnUpgrade(pub(super) &'static str);

impl NotAnUpgrade {
    /// The answer: 400 `bad_field`, saying why.
    pub(super) fn into_http(self) -> HttpError {
        HttpError::bad_request(
            ErrorCode::BadField,
            format!("not a WebSocket upgrade: {}", self.0),
        )
    }
}

impl IntoResponse for NotAnUpgrade {
    fn into_response(self) -> Response {
        self.into_http().into_response()
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Upgrade {
    type Rejection = NotAnUpgrade;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        if parts.method != Method::GET {
            return Err(NotAnUpgrade("the request's method must be `GET`"));
        }
        if !header_contains(&parts.headers, header::CONNECTION, "upgrade") {
            return Err(NotAnUpgrade(
                "`Connection` header did not include `upgrade`",
            ));
        }
        if !header_is(&parts.headers, header::UPGRADE, "websocket") {
            return Err(NotAnUpgrade("`Upgrade` header did not include `websocket`"));
        }
        if !header_is(&parts.headers, header::SEC_WEBSOCKET_VERSION, "13") {
            return Err(NotAnUpgrade(
                "`Sec-WebSocket-Version` header did not include `13`",
            ));
        }
        let key = parts
            .headers
            .get(header::SEC_WEBSOCKET_KEY)
            .cloned()
            .ok_or(NotAnUpgrade("`Sec-WebSocket-Key` header missing"))?;
        let on_upgrade = parts
            .extensions
            .remove::<OnUpgrade>()
            .ok_or(NotAnUpgrade("the connection cannot be upgraded"))?;
        Ok(Upgrade { key, on_upgrade })
    }
}

impl Upgrade {
    /// Answers `101 Switching Protocols`, and once the connection has switched spawns what
    /// `serve` makes of the socket and the bytes the client sent after its request, as a task
    /// of its own: run inside the task that waited for the switch, every poll of it went
    /// through that task's state first, a cache line more per frame (issue 18, stop 39).
    pub(super) fn answer<F, Fut>(self, serve: F) -> Response
    where
        F: FnOnce(TcpStream, Bytes) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let on_upgrade = self.on_upgrade;
        tokio::spawn(async move {
            let upgraded = match on_upgrade.await {
                Ok(upgraded) => upgraded,
                Err(error) => return tracing::debug!(%error, "the upgrade failed"),
            };
            // `crate::serve` serves every connection as `TokioIo<TcpStream>`.
            match upgraded.downcast::<TokioIo<TcpStream>>() {
                Ok(parts) => {
                    tokio::spawn(serve(parts.io.into_inner(), parts.read_buf));
                }
                Err(_) => tracing::error!("an upgraded connection is not a TCP socket"),
            }
        });
        let accept = tungstenite::handshake::derive_accept_key(self.key.as_bytes());
        Response::builder()
            .status(StatusCode::SWITCHING_PROTOCOLS)
            .header(header::CONNECTION, HeaderValue::from_static("upgrade"))
            .header(header::UPGRADE, HeaderValue::from_static("websocket"))
            .header(header::SEC_WEBSOCKET_ACCEPT, accept)
            .body(axum::body::Body::empty())
            .expect("a 101 answer of valid headers")
    }
}

fn header_is(headers: &HeaderMap, name: header::HeaderName, value: &str) -> bool {
    headers
        .get(&name)
        .is_some_and(|header| header.as_bytes().eq_ignore_ascii_case(value.as_bytes()))
}

fn header_contains(headers: &HeaderMap, name: header::HeaderName, value: &str) -> bool {
    headers
        .get(&name)
        .and_then(|header| header.to_str().ok())
        .is_some_and(|header| header.to_ascii_lowercase().contains(value))
}
