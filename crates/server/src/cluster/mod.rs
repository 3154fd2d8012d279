//! Cluster mode (`--nats-url`): a node takes over, while it runs, the rooms whose owner died or
//! gave them back, and serves any room's clients by forwarding them to the room's owner.
//!
//! Why: a room's lease lapses when its node dies (SIGKILL, a lost machine) and is given back
//! when its node drains (SIGTERM). Without [`takeover`] such a room came back only when some
//! node *started*. Now each node's takeover task looks every third of `--lease-ms` (jittered,
//! so nodes do not all ask at once) for journals on the stream that nobody holds a lease on,
//! and takes each over: it creates the lease (compare-and-set: of several nodes, one wins) and
//! rebuilds the room exactly as a start-up restore does (`room::restore_one`). A request for a
//! room this node does not have (its WebSocket, its status) asks the same task to take the room
//! over at once ([`Cluster::take_over`]), so a client that reconnects is not kept waiting for
//! the next look.
//!
//! A room another node holds live is served here through [`forward`]: the WebSocket stays on
//! this node (the *edge*) and its messages go to the owner over NATS, the room's frames come
//! back the same way, and when the owner dies or lets the room go the edge follows the room to
//! its next owner without the client noticing more than a `snapshot`. The room knows nothing of
//! either: it is restored like at a start, journals through the same two traits, and sees a
//! forwarded connection as one more outbox.
//!
//! Quick match across nodes ([`quick_match`]) starts with the cluster: one node runs the pool.

pub mod forward;
pub mod quick_match;
pub mod takeover;

use std::sync::Arc;

use uuid::Uuid;

use crate::room::journal::nats::NatsJournals;
use crate::room::{RoomContext, RoomHandle};
pub use forward::Forwarding;
pub use takeover::{TakeOver, TakeOvers};

/// This node's part in the cluster: the takeover task, forwarding, and the broker's state for
/// `/readyz`.
#[derive(Debug)]
pub struct Cluster {
    journals: Arc<NatsJournals>,
    takeovers: TakeOvers,
    forwarding: Arc<Forwarding>,
    quick_matches: quick_match::QuickMatches,
}

impl Cluster {
    /// Starts this node's takeover task, which looks for unowned rooms every third of the
    /// lease (jittered) until the node drains, and its forwarding (the owner's side listens for
    /// other nodes' connections to this node's rooms).
    pub fn start(journals: Arc<NatsJournals>, context: RoomContext) -> Arc<Cluster> {
        let takeovers = TakeOvers::start(journals.clone(), context.clone());
        let forwarding = Forwarding::start(&journals, &context, takeovers.clone());
        let quick_matches = quick_match::QuickMatches::start(
            journals.jetstream().clone(),
            journals.leases().node().to_string(),
            journals.leases().ttl(),
            context.config.nats_replicas(),
            context,
        );
        Arc::new(Cluster {
            journals,
            takeovers,
            forwarding,
            quick_matches,
        })
    }

    /// Quick match across the cluster's nodes.
    pub fn quick_matches(&self) -> &quick_match::QuickMatches {
        &self.quick_matches
    }

    /// This node's name (`--node-id`).
    pub fn node(&self) -> &str {
        self.journals.leases().node().as_str()
    }

    /// Whether the connection to the broker is up.
    pub fn broker_connected(&self) -> bool {
        self.journals.connected()
    }

    /// Room `room` on this node: open here already, or taken over now if its journal is on the
    /// stream and nobody holds its lease.
    pub async fn take_over(&self, room: Uuid) -> TakeOver {
        self.takeovers.take_over(room).await
    }

    /// A handle to room `room`, live on node `owner`, whose inbox forwards to that node (see
    /// [`forward`]).
    pub fn forward(&self, room: Uuid, owner: String) -> RoomHandle {
        self.forwarding.handle(room, owner)
    }
}
