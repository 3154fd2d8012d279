//! `GET /healthz` (liveness: the process serves), `GET /readyz` (readiness: the store answers
//! with its migrations applied, the server is not draining and, in cluster mode, the NATS
//! connection is up: a node cut off from the broker can journal nothing) and `GET /metrics` (Prometheus
//! text, here or on `--metrics-listen`).
//!
//! Liveness never looks at the database: while it is down the outbox keeps finished games and
//! play goes on, so a container healthcheck or liveness probe must not restart the server then.
//! Readiness answers within [`STORE_PING_TIMEOUT`], well inside the probe's own timeout, so a
//! slow store reads as "not ready", never as a hung probe.

use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;

use crate::state::AppState;

/// How long readiness waits for the store: half the probe's default timeout.
pub const STORE_PING_TIMEOUT: Duration = Duration::from_millis(1_000);

/// The health routes (`/metrics` is [`metrics_router`]).
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/health", get(healthz))
        .route("/readyz", get(readyz))
}

/// `GET /metrics`.
pub fn metrics_router() -> Router<AppState> {
    Router::new().route("/metrics", get(metrics))
}

async fn healthz() -> &'static str {
    "ok"
}

async fn readyz(State(state): State<AppState>) -> (StatusCode, String) {
    if state.lifecycle.is_draining() {
        return (StatusCode::SERVICE_UNAVAILABLE, "draining\n".to_owned());
    }
    if let Some(cluster) = &state.cluster
        && !cluster.broker_connected()
    {
        tracing::warn!("not ready: no connection to the NATS server");
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "broker unavailable\n".to_owned(),
        );
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
    crate::telemetry::scrape_process();
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        crate::metrics::handle().render(),
    )
}
