//! What every HTTP handler and WebSocket upgrade shares: the server's state.
//!
//! Kept apart from `app.rs` (which builds the router from `http` and `ws`) so that the handlers
//! depend on this module and nothing depends back on them.

use std::sync::Arc;

use aeroplane_store::{GameStore, OutboxHandle};

use crate::cluster::{Cluster, TakeOver};
use crate::config::Config;
use crate::error::HttpError;
use crate::lifecycle::Lifecycle;
use crate::matchmaking::Matchmaker;
use crate::room::journal::JournalStore;
use crate::room::{Registry, RoomContext, RoomHandle};

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The settings.
    pub config: Arc<Config>,
    /// The open rooms.
    pub registry: Arc<Registry>,
    /// Where finished games are read from (writes go through the outbox).
    pub store: Arc<dyn GameStore>,
    /// The quick-match queue.
    pub matchmaker: Arc<Matchmaker>,
    /// Where finished games wait for the store.
    pub outbox: OutboxHandle,
    /// The journals of live games.
    pub journals: Arc<dyn JournalStore>,
    /// Draining and stopping.
    pub lifecycle: Arc<Lifecycle>,
    /// Connection counts and rate limits shared by every request.
    pub limits: Arc<crate::limits::Limits>,
    /// This node's part in the cluster (`--nats-url`); `None` for a single node.
    pub cluster: Option<Arc<Cluster>>,
}

impl AppState {
    /// The open room `id`: this node's, or, in cluster mode, one taken over now because its
    /// journal is on the stream and nobody holds its lease, or one another node holds live,
    /// reached through this node's forwarding proxy (`crate::cluster::forward`). 404
    /// `room_not_found` when there is none; 409 `room_elsewhere` when the room's lease names
    /// this very node but this process does not serve the room; 503 `journal_unavailable` when
    /// the journals' broker does not answer.
    pub async fn room(&self, id: uuid::Uuid) -> Result<RoomHandle, HttpError> {
        if let Some(room) = self.registry.get(id) {
            return Ok(room);
        }
        let Some(cluster) = &self.cluster else {
            return Err(HttpError::room_not_found(id));
        };
        match cluster.take_over(id).await {
            TakeOver::Here(room) => Ok(room),
            // The lease names this node, which does not serve the room: another process runs
            // under the same `--node-id`, or the room is closing here. Forwarding to oneself
            // would go in circles; the client is told to try again.
            TakeOver::Elsewhere { node } if node == cluster.node() => {
                Err(HttpError::RoomElsewhere { room: id, node })
            }
            TakeOver::Elsewhere { node } => Ok(cluster.forward(id, node)),
            TakeOver::Missing => Err(HttpError::room_not_found(id)),
            // The journal's broker does not answer: whether the room exists cannot be known.
            TakeOver::Failed => Err(HttpError::JournalUnavailable),
        }
    }

    /// What a new room needs from the server.
    pub fn room_context(&self) -> RoomContext {
        RoomContext {
            config: self.config.clone(),
            store: self.store.clone(),
            registry: self.registry.clone(),
            outbox: self.outbox.clone(),
            journals: self.journals.clone(),
            lifecycle: self.lifecycle.clone(),
        }
    }
}
