//! The takeover task: one per node, it takes over the rooms whose lease lapsed or was given back,
//! every third of a lease (a scan) and on request ([`TakeOvers::take_over`]).
//!
//! One task does every takeover of its node, so two requests for one room never restore it
//! twice here; other nodes are kept out by the lease. The task stops when the node drains: a
//! draining node must not take back the rooms it is giving away.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tracing::Instrument;
use uuid::Uuid;

use crate::room::journal::nats::{Claim, NatsJournals};
use crate::room::{RoomContext, RoomHandle, restore_one};

/// How many takeover requests may wait for the task.
const REQUESTS: usize = 256;

/// The way to ask this node's takeover task for a room (cheap to clone).
#[derive(Clone, Debug)]
pub struct TakeOvers {
    requests: mpsc::Sender<Request>,
}

/// What asking for a room this node does not have came to.
#[derive(Debug)]
pub enum TakeOver {
    /// The room is open on this node: it was already, or it was taken over now.
    Here(RoomHandle),
    /// Another node holds the room's lease: the room is live there.
    Elsewhere {
        /// The owner's node name.
        node: String,
    },
    /// No live room has this id (no journal, the game is over, or the node is draining).
    Missing,
    /// The broker did not answer as it should (logged).
    Failed,
}

/// A request for one room, answered by the task.
struct Request {
    room: Uuid,
    reply: oneshot::Sender<TakeOver>,
}

impl TakeOvers {
    /// Starts this node's takeover task, which looks for unowned rooms every third of the
    /// lease (jittered) until the node drains.
    pub fn start(journals: Arc<NatsJournals>, context: RoomContext) -> TakeOvers {
        let (requests, inbox) = mpsc::channel(REQUESTS);
        let node = journals.leases().node().to_string();
        let every = journals.leases().ttl() / 3;
        let span = tracing::info_span!(parent: None, "cluster", node_id = %node);
        let taker = Taker {
            journals,
            context,
            node,
        };
        tokio::spawn(taker.run(inbox, every).instrument(span));
        TakeOvers { requests }
    }

    /// Room `room` on this node: open here already, or taken over now if its journal is on the
    /// stream and nobody holds its lease.
    pub async fn take_over(&self, room: Uuid) -> TakeOver {
        let (reply, answer) = oneshot::channel();
        if self.requests.send(Request { room, reply }).await.is_err() {
            // The task stopped: the node is draining.
            return TakeOver::Missing;
        }
        answer.await.unwrap_or(TakeOver::Missing)
    }
}

/// What woke the takeover task.
enum Woken {
    /// The node drains.
    Stop,
    /// A request for a room.
    Request(Request),
    /// Time to look for unowned rooms.
    Scan,
}

/// The takeover task's state.
struct Taker {
    journals: Arc<NatsJournals>,
    context: RoomContext,
    node: String,
}

impl Taker {
    /// Answers requests and looks for unowned rooms every `every` or so, until the node drains.
    async fn run(self, mut requests: mpsc::Receiver<Request>, every: Duration) {
        let mut stopping = self.context.lifecycle.stopping();
        let mut next = Instant::now() + jittered(every);
        loop {
            let woken = tokio::select! {
                _ = stopping.wait_for(|stop| *stop) => Woken::Stop,
                request = requests.recv() => request.map_or(Woken::Stop, Woken::Request),
                () = tokio::time::sleep_until(next) => Woken::Scan,
            };
            match woken {
                Woken::Stop => return,
                Woken::Request(Request { room, reply }) => {
                    let _ = reply.send(self.take_over(room, "request").await);
                }
                Woken::Scan => {
                    self.scan().await;
                    next = Instant::now() + jittered(every);
                }
            }
        }
    }

    /// Takes over every room on the stream that nobody holds a lease on.
    async fn scan(&self) {
        for room in self.journals.unowned().await {
            if self.context.lifecycle.is_draining() {
                return;
            }
            if self.context.registry.get(room).is_none() {
                self.take_over(room, "scan").await;
            }
        }
    }

    /// Room `room`, open here already or taken over now (`trigger` labels the metric).
    async fn take_over(&self, room: Uuid, trigger: &'static str) -> TakeOver {
        if let Some(handle) = self.context.registry.get(room) {
            return TakeOver::Here(handle);
        }
        if self.context.lifecycle.is_draining() {
            return TakeOver::Missing;
        }
        let started = Instant::now();
        match self.journals.claim(room).await {
            Claim::Loaded(loaded) => match restore_one(loaded, &self.context).await {
                Some(handle) => {
                    crate::metrics::cluster_takeover(&self.node, trigger);
                    tracing::info!(
                        room_id = %room,
                        node_id = %self.node,
                        trigger,
                        took_ms = started.elapsed().as_millis() as u64,
                        "took over a room"
                    );
                    TakeOver::Here(handle)
                }
                None => TakeOver::Missing,
            },
            Claim::Elsewhere { node } => TakeOver::Elsewhere { node },
            Claim::Missing => TakeOver::Missing,
            Claim::Failed(_) => TakeOver::Failed,
        }
    }
}

/// `every`, give or take a quarter, so that nodes started together do not look together.
pub(crate) fn jittered(every: Duration) -> Duration {
    let spread = getrandom::u32().unwrap_or(u32::MAX / 2) as f64 / u32::MAX as f64;
    every.mul_f64(0.75 + spread / 2.0)
}
