//! `GET /healthz` (the process is alive), `GET /readyz` (it can serve: the store answers with
//! its migrations applied, and the server is not draining) and `GET /metrics` (Prometheus text).
//! All three are cheap: readiness pings the store with a short timeout, metrics render what is
//! already counted.

use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;

use crate::app::AppState;

/// How long readiness waits for the store.
const STORE_PING_TIMEOUT: Duration = Duration::from_secs(2);

/// The health routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/health", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
}

async fn healthz() -> &'static str {
    "ok"
}

async fn readyz(State(state): State<AppState>) -> (StatusCode, String) {
    if state.lifecycle.is_draining() {
        return (StatusCode::SERVICE_UNAVAILABLE, "draining\n".to_owned());
    }
    match tokio::time::timeout(STORE_PING_TIMEOUT, state.store.ping()).await {
        Ok(Ok(())) => (StatusCode::OK, "ready\n".to_owned()),
        Ok(Err(error)) => {
            tracing::warn!(%error, "not ready: the store does not answer");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "store unavailable\n".to_owned(),
            )
        }
        Err(_) => {
            tracing::warn!("not ready: the store did not answer in time");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "store unavailable\n".to_owned(),
            )
        }
    }
}

async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let (max, total) = state.registry.inbox_queued();
    crate::metrics::scraped(state.outbox.depth(), max, total);
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        crate::metrics::handle().render(),
    )
}
