//! The router and the running server.
//!
//! [`serve`] binds, starts serving in the background and returns at once with the bound
//! address, so tests can bind port 0 and learn the port; `main` does the same and then waits.

use std::net::SocketAddr;
use std::sync::Arc;

use aeroplane_store::GameStore;
use anyhow::Context;
use axum::Router;
use axum::routing::get;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tower_http::trace::TraceLayer;

use crate::config::Config;
use crate::http::quick_match::Matchmaker;
use crate::registry::Registry;
use crate::room::RoomContext;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The settings.
    pub config: Arc<Config>,
    /// The open rooms.
    pub registry: Arc<Registry>,
    /// Where finished games go and are read from.
    pub store: Arc<dyn GameStore>,
    /// The quick-match queue.
    pub matchmaker: Arc<Matchmaker>,
}

impl AppState {
    /// The state of a fresh server.
    pub fn new(config: Config, store: Arc<dyn GameStore>) -> AppState {
        AppState {
            config: Arc::new(config),
            registry: Arc::new(Registry::new()),
            store,
            matchmaker: Arc::new(Matchmaker::new()),
        }
    }

    /// What a new room needs from the server.
    pub fn room_context(&self) -> RoomContext {
        RoomContext {
            config: self.config.clone(),
            store: self.store.clone(),
            registry: self.registry.clone(),
        }
    }
}

/// Every route of the server.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/health", get(|| async { "ok" }))
        .merge(crate::http::router())
        .merge(crate::ws::router())
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// A server serving in the background.
#[derive(Debug)]
pub struct RunningServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl RunningServer {
    /// The address the server is bound to (with the real port when port 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting connections and waits for the HTTP server to finish.
    pub async fn shutdown(mut self) -> anyhow::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.task
            .await
            .context("the server task panicked")?
            .context("the server failed")
    }
}

/// Binds `config.listen` and starts serving.
pub async fn serve(config: Config, store: Arc<dyn GameStore>) -> anyhow::Result<RunningServer> {
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("failed to bind {}", config.listen))?;
    let addr = listener
        .local_addr()
        .context("failed to read the bound address")?;
    let app = router(AppState::new(config, store));
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
    });
    tracing::info!(%addr, "listening");
    Ok(RunningServer {
        addr,
        stop: Some(stop),
        task,
    })
}
