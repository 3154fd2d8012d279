//! Forwarding: any node serves any room's clients, the room living on its owner.
//!
//! A WebSocket (or a room status) on a node that does not own the room gets, from
//! `AppState::room`, a [`RoomHandle`] whose inbox is this node's *proxy* for the room
//! ([`edge`]): one task per forwarded room per node, shared by its connections, gone when the
//! last of them leaves. The connection on the edge does everything it does for a local room
//! (frame limits, the rate limit, pings, the identity check against the one store), so the
//! proxy only carries `Connect`, `Join`, `Message` and `Disconnect` to the owner over NATS and
//! asks the owner for `Status`. The owner ([`owner`]) hands the room a *virtual connection*
//! per forwarded one, whose frames go back to the edge unchanged. The subjects and bodies are
//! in [`wire`].
//!
//! Liveness goes both ways: the edge sends a keep-alive for each proxy every third of a lease,
//! and the owner drops virtual connections not kept alive (their edge died). When the owner
//! says the room is not there, closes a connection with 1001 (it drained or lost the room), or
//! stays silent, the proxy asks the takeover task where the room is now: here (taken over
//! now) or on another node. It then connects every connection again under a new session and
//! sends each its last accepted `join` again with its seat token; the new owner's `welcome` is
//! handed to the client as a `snapshot`, which every client must adopt at any time. Frames of
//! an older session (a paused old owner that woke) are dropped, so no client sees two
//! continuations of one game.

mod edge;
mod owner;
mod wire;

use std::collections::HashMap;
use std::sync::Arc;

use async_nats::Client;
use tracing::Instrument;

pub use edge::Forwarding;
use owner::Owner;

use super::takeover::TakeOvers;
use crate::room::RoomContext;
use crate::room::journal::nats::NatsJournals;

impl Forwarding {
    /// Starts this node's forwarding: the owner's side listens on `aeroplane.node.<node>.*`;
    /// the edge's proxies start on demand ([`Forwarding::handle`]).
    pub fn start(
        journals: &NatsJournals,
        context: &RoomContext,
        takeovers: TakeOvers,
    ) -> Arc<Forwarding> {
        let client: Client = journals.client();
        let node = journals.leases().node().to_string();
        let every = journals.leases().ttl() / 3;
        let queue = context.config.outgoing_queue.max(1);
        let owner = Owner {
            client: client.clone(),
            node: node.clone(),
            registry: context.registry.clone(),
            lifecycle: context.lifecycle.clone(),
            queue,
            every,
            virtuals: HashMap::new(),
        };
        let span = tracing::info_span!(parent: None, "forwarding", node_id = %node);
        tokio::spawn(
            async move {
                let heard = owner.client.subscribe(wire::owner_subjects(&owner.node)).await;
                match heard {
                    Ok(heard) => owner.run(heard).await,
                    Err(error) => {
                        tracing::error!(%error, "cannot hear other nodes: no client is forwarded here");
                    }
                }
            }
            .instrument(span),
        );
        crate::metrics::cluster_forwarding_started(&node);
        Arc::new(Forwarding::new(
            client,
            node,
            every,
            takeovers,
            context.lifecycle.clone(),
        ))
    }
}
