//! The router and the running server.
//!
//! [`serve`] opens the outbox and the journals in the data directory, restores the live games
//! an earlier run left, binds, starts serving in the background and returns at once with the
//! bound address, so tests can bind port 0 and learn the port; `main` does the same and then
//! waits for SIGTERM or Ctrl-C and calls [`RunningServer::shutdown`].

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use aeroplane_store::{GameStore, Outbox, OutboxOptions};
use anyhow::Context;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::cluster::Cluster;
use crate::config::{Config, NodeId};
use crate::error::HttpError;
use crate::lifecycle::Lifecycle;
use crate::matchmaking::Matchmaker;
use crate::metrics::MeteredStore;
use crate::room::Registry;
use crate::room::journal::{JournalStore, NatsJournals};
use crate::room::{FileJournals, restore_all};
use crate::state::AppState;

/// Every route of the server (`/metrics` too, unless `--metrics-listen` serves it apart).
///
/// The layers, outermost first: `observe` (JSON errors, counts, logs), the drain check, then
/// `edge::guard` (origin, media type, the body read within its bounds).
pub fn router(state: AppState) -> Router {
    let mut routes = Router::new()
        .merge(crate::http::router())
        .merge(crate::ws::router());
    if state.config.metrics_listen.is_none() {
        routes = routes.merge(crate::http::health::metrics_router());
    }
    routes
        .fallback(|| async { HttpError::NoRoute })
        .layer(middleware::from_fn_with_state(
            state.clone(),
            crate::http::edge::guard,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            refuse_while_draining,
        ))
        .layer(middleware::from_fn(crate::http::observe::observe))
        .with_state(state)
}

/// `/metrics` alone, for `--metrics-listen`.
fn metrics_router(state: AppState) -> Router {
    crate::http::health::metrics_router()
        .fallback(|| async { HttpError::NoRoute })
        .with_state(state)
}

/// While draining, new rooms and new WebSockets are refused with 503.
async fn refuse_while_draining(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    let opens_something = (request.method() == Method::POST
        && (path == "/api/rooms" || path == "/api/quick-match"))
        || path.starts_with("/ws/");
    if opens_something && state.lifecycle.is_draining() {
        return HttpError::Draining.into_response();
    }
    next.run(request).await
}

/// A server serving in the background.
pub struct RunningServer {
    addr: SocketAddr,
    state: AppState,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
    metrics: Option<(SocketAddr, JoinHandle<std::io::Result<()>>)>,
    restored: usize,
}

impl std::fmt::Debug for RunningServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl RunningServer {
    /// The address the server is bound to (with the real port when port 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The address `/metrics` is served on apart (`--metrics-listen`), if it is.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics.as_ref().map(|(addr, _)| *addr)
    }

    /// How many live games were restored from journals at start.
    pub fn restored(&self) -> usize {
        self.restored
    }

    /// Shuts down gracefully within `--shutdown-deadline-ms`: drains (readiness fails, new rooms
    /// and connections are refused), stops every room (its connections close with 1001
    /// `shutting_down`, its game stays in its journal), syncs the journals, waits for finished
    /// games to reach the outbox and the outbox to empty into the store, then stops serving.
    /// What is not flushed by the deadline stays on disk for the next start.
    pub async fn shutdown(mut self) -> anyhow::Result<()> {
        let deadline = Instant::now() + self.state.config.shutdown_deadline();
        let lifecycle = self.state.lifecycle.clone();
        tracing::info!(rooms = self.state.registry.len(), "draining");
        lifecycle.drain();
        self.state.registry.stop_all();
        let _ = tokio::time::timeout_at(deadline, self.state.registry.closed()).await;
        let _ = tokio::time::timeout_at(deadline, lifecycle.submitted()).await;
        self.state.journals.sync(true).await;
        match self.state.outbox.flush(deadline).await {
            Ok(()) => tracing::info!("outbox flushed"),
            Err(left) => tracing::warn!(
                left,
                "outbox not flushed by the deadline; the records stay on disk for the next start"
            ),
        }
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some((_, metrics)) = self.metrics.take() {
            metrics.abort();
        }
        let remaining = deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(100));
        match tokio::time::timeout(remaining, &mut self.task).await {
            Ok(joined) => joined
                .context("the server task panicked")?
                .context("the server failed"),
            Err(_) => {
                tracing::warn!("connections still open at the deadline; stopping anyway");
                self.task.abort();
                Ok(())
            }
        }
    }
}

/// The journal store: the NATS server's stream with `--nats-url` (answered a second time as
/// itself, for the cluster's takeovers), else files in the data directory, synced every
/// `--journal-sync-ms`.
async fn open_journals(
    config: &Config,
    node: NodeId,
) -> anyhow::Result<(Arc<dyn JournalStore>, Option<Arc<NatsJournals>>)> {
    if let Some(url) = config.nats_url() {
        let journals =
            NatsJournals::connect(url, node.clone(), config.lease(), config.nats_replicas())
                .await
                .context("failed to open the journals on NATS (--nats-url)")?;
        tracing::info!(node_id = %node, "live games' journals on NATS JetStream");
        return Ok((journals.clone(), Some(journals)));
    }
    let dir = config.data_dir.join("rooms");
    let journals = FileJournals::open(dir).with_context(|| {
        format!(
            "failed to open the journals in {}",
            config.data_dir.display()
        )
    })?;
    journals.sync_periodically(config.journal_sync());
    Ok((journals, None))
}

/// Opens the outbox and the journals (under `config.data_dir`, or on NATS with `--nats-url`),
/// restores the live games found there, binds `config.listen` and starts serving. Long (about
/// 90 lines) because it is the start-up sequence in its one order (stores, journals, restore,
/// cluster, listener), each step short; cut apart, the order would be harder to see.
pub async fn serve(config: Config, store: Arc<dyn GameStore>) -> anyhow::Result<RunningServer> {
    crate::metrics::handle();
    crate::telemetry::spawn_lag_probe();
    let store: Arc<dyn GameStore> = Arc::new(MeteredStore::new(store));
    let data_dir = config.data_dir.clone();
    aeroplane_store::prepare_data_dir(&data_dir).context("the data directory is not usable")?;
    let (outbox, _writer) = Outbox::start(
        data_dir.join("outbox"),
        store.clone(),
        OutboxOptions::default(),
    )
    .await
    .with_context(|| format!("failed to open the outbox in {}", data_dir.display()))?;
    let mut config = config;
    let node = config.node_id.get_or_insert_with(NodeId::random).clone();
    let (journals, nats) = open_journals(&config, node.clone()).await?;
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("failed to bind {}", config.listen))?;
    let addr = listener
        .local_addr()
        .context("failed to read the bound address")?;
    let metrics_listener = match config.metrics_listen {
        Some(address) => Some(
            tokio::net::TcpListener::bind(address)
                .await
                .with_context(|| format!("failed to bind {address} (--metrics-listen)"))?,
        ),
        None => None,
    };
    let limits = Arc::new(crate::limits::Limits::from_config(&config));
    let connection_limits = crate::serve::ConnectionLimits {
        header_read_timeout: config.header_read_timeout(),
        per_address: config.max_http_connections_per_address,
    };
    let state = AppState {
        limits,
        config: Arc::new(config),
        registry: Arc::new(Registry::new()),
        store,
        matchmaker: Arc::new(Matchmaker::new()),
        outbox,
        journals,
        lifecycle: Arc::new(Lifecycle::default()),
        cluster: None,
    };
    let restored = restore_all(&state.room_context()).await;
    crate::room::nudge_periodically(state.journals.clone(), &state.registry);
    if restored > 0 {
        tracing::info!(restored, "live games restored; their players may reconnect");
    }
    // Only once the start-up restore is done: takeovers while running (`crate::cluster`).
    let state = AppState {
        cluster: nats.map(|journals| Cluster::start(journals, state.room_context())),
        ..state
    };
    let app = router(state.clone());
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        // Not `axum::serve`: it sets no header-read timeout (see `crate::serve`).
        crate::serve::run(listener, app, connection_limits, async move {
            let _ = stopped.await;
        })
        .await
    });
    tracing::info!(%addr, data_dir = %data_dir.display(), node_id = %node, "listening");
    let metrics = match metrics_listener {
        Some(listener) => {
            let metrics_addr = listener
                .local_addr()
                .context("failed to read the metrics address")?;
            let app = metrics_router(state.clone());
            let task = tokio::spawn(crate::serve::run(
                listener,
                app,
                connection_limits,
                std::future::pending(),
            ));
            tracing::info!(addr = %metrics_addr, "serving /metrics apart");
            Some((metrics_addr, task))
        }
        None => None,
    };
    Ok(RunningServer {
        addr,
        state,
        stop: Some(stop),
        task,
        metrics,
        restored,
    })
}
