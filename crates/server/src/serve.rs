//! The accept loop: HTTP/1.1 connections with a bound on how long a request head may take.
//!
//! `axum::serve` (axum 0.8.9) builds each hyper connection without a timer, and hyper's
//! `header_read_timeout` only fires when a timer is set: so under `axum::serve` a client that
//! sends part of its request head and then nothing (slowloris), or nothing at all, holds its
//! connection and its task for as long as it likes. This loop accepts connections itself and
//! serves each with hyper's HTTP/1 builder, a Tokio timer and `--header-read-timeout-ms`. The
//! same timeout closes an idle keep-alive connection that starts no new request. Every request
//! carries the peer's address as [`ConnectInfo<SocketAddr>`] for the per-address limits.
//!
//! Plain HTTP connections are counted per client address from accept to close (an upgraded
//! WebSocket leaves this count for the WebSockets' own): past `--max-http-connections-per-address`
//! a new one is answered 429 `too_many_connections` and closed before anything is read, so one
//! client cannot hold thousands of silent connections and their descriptors.
//!
//! Graceful shutdown as in `axum::serve`: stop accepting, ask every connection to finish the
//! request it is serving, and wait for them. Upgraded WebSockets are not waited for here; rooms
//! close them when they stop.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use aeroplane_protocol::api::ApiError;
use aeroplane_protocol::error::ErrorCode;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;

use crate::limits::{ConnectionGuard, Connections};

/// The most header fields hyper parses. hyper answers a head over this (or over its buffer,
/// about 400 KiB) with an empty 431 that no layer sees; so it is set well above the limit that
/// `crate::http::edge` enforces with the JSON body (100 fields, 16 KiB).
const HYPER_MAX_HEADERS: usize = 256;

/// How long to wait before accepting again after `accept` failed (e.g. out of file descriptors).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// How the accept loop treats each connection.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// How long a request head may take (and an idle keep-alive connection may stay).
    pub header_read_timeout: Duration,
    /// Plain HTTP connections one client address may hold open.
    pub per_address: usize,
}

/// Serves `app` on `listener` until `stop` completes, then shuts down gracefully.
pub async fn run(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    stop: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let open = Arc::new(Connections::new(limits.per_address, usize::MAX));
    let (closing, closing_seen) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut stop = std::pin::pin!(stop);
    loop {
        let (stream, remote) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let Ok(place) = open.try_open(remote.ip().to_canonical()) else {
            refuse(stream, remote);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let closing = closing_seen.clone();
        connections.spawn(serve_connection(
            stream,
            remote,
            app,
            limits.header_read_timeout,
            closing,
            place,
        ));
        // Forget connections that have finished, so the set holds only live ones.
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    let _ = closing.send(true);
    while connections.join_next().await.is_some() {}
    Ok(())
}

/// Answers 429 without reading the request and closes: the address holds too many connections.
fn refuse(stream: tokio::net::TcpStream, remote: SocketAddr) {
    crate::telemetry::refused(
        ErrorCode::TooManyConnections,
        Some(remote.ip().to_canonical()),
    );
    let body = serde_json::to_string(&ApiError {
        code: ErrorCode::TooManyConnections,
        message: "too many HTTP connections from this address".to_owned(),
    })
    .expect("an error body serializes");
    let response = format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    // A fresh socket's send buffer takes this whole; if not, the client only sees the close.
    let _ = stream.try_write(response.as_bytes());
    if let Ok(stream) = stream.into_std() {
        let _ = stream.shutdown(std::net::Shutdown::Write);
    }
}

async fn serve_connection(
    stream: tokio::net::TcpStream,
    remote: SocketAddr,
    app: Router,
    header_read_timeout: Duration,
    mut closing: watch::Receiver<bool>,
    // This connection's place in the per-address count, given back when it closes.
    _place: ConnectionGuard,
) {
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(remote));
        let response = app.clone().oneshot(request.map(Body::new));
        async move { Ok::<_, Infallible>(response.await.unwrap_or_else(|never| match never {})) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .max_headers(HYPER_MAX_HEADERS);
    let connection = builder
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    let mut connection = std::pin::pin!(connection);
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(error) = result {
                tracing::debug!(%remote, %error, "connection ended with an error");
            }
            return;
        }
        _ = closing.wait_for(|closing| *closing) => connection.as_mut().graceful_shutdown(),
    }
    if let Err(error) = connection.await {
        tracing::debug!(%remote, %error, "connection ended with an error during shutdown");
    }
}
