//! Quick match across nodes (`--nats-url`): one node of the cluster runs the pool, every node
//! sends its waiting players there over NATS.
//!
//! Why one matchmaker: the pairing rules (`crate::matchmaking`: a queue per edition and player
//! count, the rating window, the closest rating, never a player with himself, four-player queues
//! filled oldest first) need every waiter in one place to be the same as on one node. So the node
//! that holds the key [`KEY`] of the bucket [`BUCKET`] (its value the node's name, the bucket's
//! max age `--lease-ms`) runs a [`Matchmaker`] exactly as a single node does, and opens each game's
//! room on itself (it owns the room and its lease). Each node tries every third of the lease
//! (jittered) to create the key, or renews it by compare-and-set on its revision while it holds
//! it; a node that died stops renewing and another takes the key once it lapsed, a drained one
//! gives it back. Every node learns the holder's name from the same rounds.
//!
//! In cluster mode every quick-match request goes this way, the matchmaker's own included
//! ([`QuickMatches::wait`]): it sends its waiter ([`Arrival`]: queue, name, client seed, player,
//! rating, what remains of its window and of its wait) to `aeroplane.quick-match.<holder>.arrive`
//! and waits on an inbox of its own for the [`Outcome`]. It sends the waiter again every third of
//! the lease, and at once when the holder changes. For the matchmaker an arrival of a waiter it
//! has is a sign of life; one it has not heard from for a lease is gone (its node died) and is
//! withdrawn. A request closed by its client sends a [`Cancel`], which withdraws the waiter
//! at once, so nobody is paired with someone gone. The matchmaker answers `no_match` at the
//! waiter's deadline; a request that heard nothing answers `no_match` itself a lease after its
//! deadline (no matchmaker was reachable).
//!
//! When the matchmaker dies its pool dies with it; the waiters' next sending (within a third of
//! the lease of the new holder being known) fills the new one's pool, with what remains of their
//! windows and waits. A pair formed just before the death, whose answers never left, is lost: its
//! room is taken over like any other, its players wait again and may be paired anew.
//!
//! This file is the waiting side and the messages; `election.rs` holds the key, `pool.rs` is the
//! pool while this node holds it.

/// The rounds for the matchmaker's key.
mod election;
/// The pool, on the node holding the key.
mod pool;

use std::time::Duration;

use aeroplane_protocol::api::QuickMatched;
use async_nats::{Client, Subscriber};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::watch;
use tokio::time::Instant;
use tracing::Instrument;
use uuid::Uuid;

use crate::matchmaking::{Queue, Wanted};
use crate::room::{NotJournaled, RoomContext};
use election::Election;

/// The key-value bucket of the matchmaker's key.
pub const BUCKET: &str = "aeroplane_matchmaker";

/// The key whose holder runs the cluster's quick-match pool.
pub const KEY: &str = "quick-match";

/// What the matchmaker answers a waiter.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Paired: the seat taken for the player.
    Matched(QuickMatched),
    /// Nobody to pair with within the wait.
    NoMatch,
    /// Paired, but the game's room could not be opened: its journal could not be written. (A
    /// node of an earlier version cannot read this outcome and answers `no_match` at the end
    /// of its wait instead.)
    NotOpened,
}

/// A waiter, as sent to the matchmaker (again every third of the lease).
#[derive(Debug, Serialize, Deserialize)]
struct Arrival {
    id: Uuid,
    inbox: String,
    queue: Queue,
    name: String,
    client_seed: String,
    player: Option<Uuid>,
    rating: Option<f64>,
    due_in_ms: u64,
    deadline_in_ms: u64,
}

/// A waiter withdrawn by its node (its request was closed).
#[derive(Debug, Serialize, Deserialize)]
struct Cancel {
    id: Uuid,
}

/// The subject of the matchmaker `node`'s messages of kind `what` (`arrive`, `cancel`).
fn subject(node: &str, what: &str) -> String {
    format!("aeroplane.quick-match.{node}.{what}")
}

/// This node's side of quick match in a cluster: sends its waiters to the matchmaker and, while
/// it holds the key, is the matchmaker.
#[derive(Debug)]
pub struct QuickMatches {
    client: Client,
    holder: watch::Receiver<Option<String>>,
    ttl: Duration,
}

impl QuickMatches {
    /// Starts this node's rounds for the matchmaker's key (leases of `ttl`, the bucket kept by
    /// `replicas` servers), until the node drains.
    pub fn start(
        jetstream: async_nats::jetstream::Context,
        node: String,
        ttl: Duration,
        replicas: usize,
        context: RoomContext,
    ) -> QuickMatches {
        let client = jetstream.client();
        let (holder, watched) = watch::channel(None);
        let election = Election {
            jetstream,
            node,
            ttl,
            replicas,
            context,
            holder,
        };
        let span = tracing::info_span!(parent: None, "matchmaker", node_id = %election.node);
        tokio::spawn(election.run().instrument(span));
        QuickMatches {
            client,
            holder: watched,
            ttl,
        }
    }

    /// Waits for `wanted` to be paired by the cluster's matchmaker: the seat taken, or `None`
    /// (`no_match`) at the deadline; [`NotJournaled`] when the paired game's room could not be
    /// opened. Dropping the future withdraws the waiter.
    pub(crate) async fn wait(&self, wanted: Wanted) -> anyhow::Result<Option<QuickMatched>> {
        let id = Uuid::new_v4();
        let inbox = self.client.new_inbox();
        let mut answers = self.client.subscribe(inbox.clone()).await?;
        let mut withdraw = Withdraw {
            client: self.client.clone(),
            holder: self.holder.clone(),
            id,
            answered: false,
        };
        let mut holder = self.holder.clone();
        let give_up = wanted.deadline + self.ttl;
        loop {
            let target = holder.borrow_and_update().clone();
            if let Some(node) = target {
                let arrival = Arrival::of(&wanted, id, &inbox);
                let payload = serde_json::to_vec(&arrival)?;
                if let Err(error) = self
                    .client
                    .publish(subject(&node, "arrive"), payload.into())
                    .await
                {
                    tracing::warn!(%error, matchmaker = %node, "cannot send a quick-match waiter");
                }
            }
            tokio::select! {
                outcome = next_outcome(&mut answers) => {
                    withdraw.answered = true;
                    return match outcome {
                        Some(Outcome::Matched(matched)) => Ok(Some(matched)),
                        Some(Outcome::NotOpened) => Err(NotJournaled.into()),
                        Some(Outcome::NoMatch) | None => Ok(None),
                    };
                }
                () = changed(&mut holder) => {}
                () = tokio::time::sleep(self.ttl / 3) => {}
                () = tokio::time::sleep_until(give_up) => {
                    tracing::warn!("no quick-match matchmaker answered within the wait");
                    return Ok(None);
                }
            }
        }
    }
}

impl Arrival {
    /// `wanted` as sent now, with what remains of its window and wait.
    fn of(wanted: &Wanted, id: Uuid, inbox: &str) -> Arrival {
        let now = Instant::now();
        let remains = |until: Instant| until.saturating_duration_since(now).as_millis() as u64;
        Arrival {
            id,
            inbox: inbox.to_owned(),
            queue: wanted.queue,
            name: wanted.name.as_str().to_owned(),
            client_seed: wanted.client_seed.as_str().to_owned(),
            player: wanted.player,
            rating: wanted.rating,
            due_in_ms: remains(wanted.window_end),
            deadline_in_ms: remains(wanted.deadline),
        }
    }
}

/// The next readable outcome on a waiter's inbox (`None`: the subscription ended).
async fn next_outcome(answers: &mut Subscriber) -> Option<Outcome> {
    while let Some(message) = answers.next().await {
        match serde_json::from_slice(&message.payload) {
            Ok(outcome) => return Some(outcome),
            Err(error) => tracing::warn!(%error, "unreadable quick-match outcome"),
        }
    }
    None
}

/// Returns once the holder changed; never if its sender is gone (the node drains).
async fn changed(holder: &mut watch::Receiver<Option<String>>) {
    if holder.changed().await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Withdraws a waiter from the matchmaker when its request ends unanswered (closed by its
/// client, or given up).
struct Withdraw {
    client: Client,
    holder: watch::Receiver<Option<String>>,
    id: Uuid,
    answered: bool,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        if self.answered {
            return;
        }
        let Some(node) = self.holder.borrow().clone() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let client = self.client.clone();
        let payload = serde_json::to_vec(&Cancel { id: self.id }).unwrap_or_default();
        runtime.spawn(async move {
            let sent = client
                .publish(subject(&node, "cancel"), payload.into())
                .await;
            if let Err(error) = sent {
                tracing::warn!(%error, "cannot withdraw a quick-match waiter");
            }
        });
    }
}
