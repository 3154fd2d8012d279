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
//! Graceful shutdown as in `axum::serve`: stop accepting, ask every connection to finish the
//! request it is serving, and wait for them. Upgraded WebSockets are not waited for here; rooms
//! close them when they stop.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

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

/// How long to wait before accepting again after `accept` failed (e.g. out of file descriptors).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Serves `app` on `listener` until `stop` completes, then shuts down gracefully.
pub async fn run(
    listener: TcpListener,
    app: Router,
    header_read_timeout: Duration,
    stop: impl Future<Output = ()>,
) -> std::io::Result<()> {
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
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let closing = closing_seen.clone();
        connections.spawn(serve_connection(
            stream,
            remote,
            app,
            header_read_timeout,
            closing,
        ));
        // Forget connections that have finished, so the set holds only live ones.
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    let _ = closing.send(true);
    while connections.join_next().await.is_some() {}
    Ok(())
}

async fn serve_connection(
    stream: tokio::net::TcpStream,
    remote: SocketAddr,
    app: Router,
    header_read_timeout: Duration,
    mut closing: watch::Receiver<bool>,
) {
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(remote));
        let response = app.clone().oneshot(request.map(Body::new));
        async move { Ok::<_, Infallible>(response.await.unwrap_or_else(|never| match never {})) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
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
