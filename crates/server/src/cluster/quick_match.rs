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

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aeroplane_dice::ClientSeed;
use aeroplane_protocol::api::QuickMatched;
use aeroplane_protocol::name::PlayerName;
use async_nats::jetstream::kv::{self, CreateErrorKind, Operation, UpdateErrorKind};
use async_nats::jetstream::stream::StorageType;
use async_nats::{Client, Subscriber};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::{oneshot, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;
use uuid::Uuid;

use crate::matchmaking::{Matchmaker, Queue, Waiter, open_room};
use crate::room::RoomContext;

/// The key-value bucket of the matchmaker's key.
pub const BUCKET: &str = "aeroplane_matchmaker";

/// The key whose holder runs the cluster's quick-match pool.
pub const KEY: &str = "quick-match";

/// A quick-match request, as the HTTP handler hands it over.
#[derive(Debug)]
pub struct Wanted {
    /// The game wanted.
    pub(crate) queue: Queue,
    /// The player's display name.
    pub(crate) name: PlayerName,
    /// The player's dice seed.
    pub(crate) client_seed: ClientSeed,
    /// The identified player, if any.
    pub(crate) player: Option<Uuid>,
    /// The player's rating (`None`: anonymous).
    pub(crate) rating: Option<f64>,
    /// When the matching window ends.
    pub(crate) window_end: Instant,
    /// When the request gives up (`no_match`).
    pub(crate) deadline: Instant,
}

/// What the matchmaker answers a waiter.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Paired: the seat taken for the player.
    Matched(QuickMatched),
    /// Nobody to pair with within the wait.
    NoMatch,
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
    /// (`no_match`) at the deadline. Dropping the future withdraws the waiter.
    pub async fn wait(&self, wanted: Wanted) -> anyhow::Result<Option<QuickMatched>> {
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
                let arrival = wanted.arrival(id, &inbox);
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
                    return Ok(match outcome {
                        Some(Outcome::Matched(matched)) => Some(matched),
                        Some(Outcome::NoMatch) | None => None,
                    });
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

impl Wanted {
    /// The waiter as sent now, with what remains of its window and wait.
    fn arrival(&self, id: Uuid, inbox: &str) -> Arrival {
        let now = Instant::now();
        let remains = |until: Instant| until.saturating_duration_since(now).as_millis() as u64;
        Arrival {
            id,
            inbox: inbox.to_owned(),
            queue: self.queue,
            name: self.name.as_str().to_owned(),
            client_seed: self.client_seed.as_str().to_owned(),
            player: self.player,
            rating: self.rating,
            due_in_ms: remains(self.window_end),
            deadline_in_ms: remains(self.deadline),
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

/// The rounds for the matchmaker's key.
struct Election {
    jetstream: async_nats::jetstream::Context,
    node: String,
    ttl: Duration,
    replicas: usize,
    context: RoomContext,
    holder: watch::Sender<Option<String>>,
}

/// The key, held by this node: its revision, when it was last renewed, and the pool it runs.
struct Held {
    revision: u64,
    renewed: Instant,
    pool: CancellationToken,
}

impl Election {
    /// Creates the bucket, then every third of the lease (jittered) takes, renews or reads the
    /// key, until the node drains; then gives the key back if it holds it.
    async fn run(self) {
        let mut stopping = self.context.lifecycle.stopping();
        let every = self.ttl / 3;
        let bucket = loop {
            match self.bucket().await {
                Ok(bucket) => break bucket,
                Err(error) => tracing::warn!(%error, bucket = BUCKET, "cannot set up the bucket"),
            }
            tokio::select! {
                _ = stopping.wait_for(|stop| *stop) => return,
                () = tokio::time::sleep(super::jittered(every)) => {}
            }
        };
        let mut held = None;
        loop {
            held = self.round(&bucket, held).await;
            tokio::select! {
                _ = stopping.wait_for(|stop| *stop) => break,
                () = tokio::time::sleep(super::jittered(every)) => {}
            }
        }
        if let Some(held) = held {
            held.pool.cancel();
            let _ = bucket
                .delete_expect_revision(KEY, Some(held.revision))
                .await;
            tracing::info!("gave the quick-match matchmaker's key back");
        }
    }

    async fn bucket(&self) -> anyhow::Result<kv::Store> {
        Ok(self
            .jetstream
            .create_or_update_key_value(kv::Config {
                bucket: BUCKET.to_owned(),
                description: "Which node runs the quick-match pool (aeroplane-server)".to_owned(),
                history: 1,
                max_age: self.ttl,
                storage: StorageType::File,
                num_replicas: self.replicas,
                ..Default::default()
            })
            .await?)
    }

    /// One round: renews the key if this node holds it, else tries to take it, else reads who
    /// holds it. Answers whether (and how) this node holds it now.
    async fn round(&self, bucket: &kv::Store, held: Option<Held>) -> Option<Held> {
        let value = || bytes::Bytes::from(self.node.clone());
        if let Some(mut held) = held {
            match bucket.update(KEY, value(), held.revision).await {
                Ok(revision) => {
                    held.revision = revision;
                    held.renewed = Instant::now();
                    return Some(held);
                }
                Err(error)
                    if error.kind() != UpdateErrorKind::WrongLastRevision
                        && held.renewed.elapsed() + self.ttl / 3 < self.ttl =>
                {
                    tracing::warn!(%error, "cannot renew the matchmaker's key; trying again");
                    return Some(held);
                }
                Err(error) => {
                    tracing::warn!(%error, "lost the matchmaker's key; its waiters go elsewhere");
                    held.pool.cancel();
                    self.holder.send_replace(None);
                }
            }
        }
        match bucket.create(KEY, value()).await {
            Ok(revision) => match Pool::start(&self.jetstream.client(), self).await {
                Ok(pool) => {
                    tracing::info!(revision, "this node is the quick-match matchmaker");
                    self.holder.send_replace(Some(self.node.clone()));
                    return Some(Held {
                        revision,
                        renewed: Instant::now(),
                        pool,
                    });
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot serve as the matchmaker; giving the key back");
                    let _ = bucket.delete_expect_revision(KEY, Some(revision)).await;
                }
            },
            Err(error) if error.kind() == CreateErrorKind::AlreadyExists => {}
            Err(error) => tracing::warn!(%error, "cannot take the matchmaker's key"),
        }
        match bucket.entry(KEY).await {
            Ok(entry) => {
                let holder = entry
                    .filter(|entry| entry.operation == Operation::Put)
                    .map(|entry| String::from_utf8_lossy(&entry.value).into_owned());
                self.holder.send_if_modified(|known| {
                    let changed = *known != holder;
                    *known = holder;
                    changed
                });
            }
            Err(error) => tracing::warn!(%error, "cannot read the matchmaker's key"),
        }
        None
    }
}

/// The cluster's pool, on the node holding the key: a [`Matchmaker`] fed over NATS.
struct Pool {
    client: Client,
    context: RoomContext,
    ttl: Duration,
    matchmaker: Matchmaker,
    /// The waiters in the pool, by their id.
    waiting: Mutex<HashMap<Uuid, Entry>>,
    /// The waiters answered or withdrawn, and when: a late arrival of theirs is ignored.
    gone: Mutex<HashMap<Uuid, Instant>>,
    /// Cancelled when this node stops being the matchmaker.
    stop: CancellationToken,
}

/// A waiter in the pool.
struct Entry {
    ticket: u64,
    seen: watch::Sender<Instant>,
    withdrawn: CancellationToken,
}

impl Pool {
    /// Subscribes to this node's matchmaker subjects and serves them until the returned token
    /// is cancelled.
    async fn start(client: &Client, election: &Election) -> anyhow::Result<CancellationToken> {
        let messages = client.subscribe(subject(&election.node, "*")).await?;
        let stop = CancellationToken::new();
        let pool = Arc::new(Pool {
            client: client.clone(),
            context: election.context.clone(),
            ttl: election.ttl,
            matchmaker: Matchmaker::new(),
            waiting: Mutex::new(HashMap::new()),
            gone: Mutex::new(HashMap::new()),
            stop: stop.clone(),
        });
        tokio::spawn(pool.serve(messages).in_current_span());
        Ok(stop)
    }

    /// Handles arrivals and cancels until this node stops being the matchmaker.
    async fn serve(self: Arc<Pool>, mut messages: Subscriber) {
        loop {
            let message = tokio::select! {
                () = self.stop.cancelled() => return,
                message = messages.next() => match message {
                    Some(message) => message,
                    None => return,
                },
            };
            if message.subject.ends_with(".arrive") {
                match serde_json::from_slice(&message.payload) {
                    Ok(arrival) => self.arrive(arrival),
                    Err(error) => tracing::warn!(%error, "unreadable quick-match arrival"),
                }
            } else if message.subject.ends_with(".cancel") {
                match serde_json::from_slice::<Cancel>(&message.payload) {
                    Ok(cancel) => self.withdraw(cancel.id),
                    Err(error) => tracing::warn!(%error, "unreadable quick-match cancel"),
                }
            }
        }
    }

    fn lock_waiting(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Entry>> {
        self.waiting.lock().expect("pool lock poisoned")
    }

    fn lock_gone(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Instant>> {
        self.gone.lock().expect("pool lock poisoned")
    }

    /// A waiter arrives, or shows it is still there.
    fn arrive(self: &Arc<Pool>, arrival: Arrival) {
        let now = Instant::now();
        {
            let mut gone = self.lock_gone();
            gone.retain(|_, when| now.duration_since(*when) < self.ttl);
            if gone.contains_key(&arrival.id) {
                return;
            }
        }
        if let Some(entry) = self.lock_waiting().get(&arrival.id) {
            entry.seen.send_replace(now);
            return;
        }
        let (Ok(name), Ok(client_seed)) = (
            PlayerName::parse(&arrival.name),
            ClientSeed::new(arrival.client_seed),
        ) else {
            tracing::warn!(waiter = %arrival.id, "a quick-match waiter with a bad name or seed");
            return;
        };
        let (reply, answer) = oneshot::channel();
        let ticket = self.matchmaker.ticket();
        let (seen, seen_by_task) = watch::channel(now);
        let withdrawn = self.stop.child_token();
        let due = now + Duration::from_millis(arrival.due_in_ms);
        let deadline = now + Duration::from_millis(arrival.deadline_in_ms);
        self.lock_waiting().insert(
            arrival.id,
            Entry {
                ticket,
                seen,
                withdrawn: withdrawn.clone(),
            },
        );
        let task = self.clone().follow(Followed {
            id: arrival.id,
            inbox: arrival.inbox,
            ticket,
            answer,
            due,
            deadline,
            seen: seen_by_task,
            withdrawn,
        });
        tokio::spawn(task.in_current_span());
        let waiter = Waiter {
            ticket,
            queue: arrival.queue,
            name,
            client_seed,
            player: arrival.player,
            rating: arrival.rating,
            due,
            reply,
        };
        if let Some(players) = self.matchmaker.arrive(waiter, now) {
            self.open(players);
        }
    }

    /// A waiter's request was closed: nobody is paired with it any more.
    fn withdraw(&self, id: Uuid) {
        let entry = self.lock_waiting().remove(&id);
        self.lock_gone().insert(id, Instant::now());
        if let Some(entry) = entry {
            self.matchmaker.cancel(entry.ticket);
            entry.withdrawn.cancel();
        }
    }

    /// Opens the room of a formed game on this node, apart from any waiter's task.
    fn open(&self, players: Vec<Waiter>) {
        let context = self.context.clone();
        let opening = async move {
            if let Err(error) = open_room(&context, players).await {
                tracing::error!(%error, "cannot open a quick-match room");
            }
        };
        tokio::spawn(opening.in_current_span());
    }

    /// Follows one waiter until it is answered, withdrawn or gone, and sends its outcome.
    async fn follow(self: Arc<Pool>, followed: Followed) {
        let (id, inbox) = (followed.id, followed.inbox.clone());
        let withdrawn = followed.withdrawn.clone();
        let outcome = tokio::select! {
            () = withdrawn.cancelled() => None,
            outcome = self.outcome(followed) => outcome,
        };
        self.lock_waiting().remove(&id);
        self.lock_gone().insert(id, Instant::now());
        let Some(outcome) = outcome else {
            return;
        };
        let payload = match serde_json::to_vec(&outcome) {
            Ok(payload) => payload,
            Err(error) => return tracing::error!(%error, "cannot write a quick-match outcome"),
        };
        let sent = self.client.publish(inbox, payload.into()).await;
        if let Err(error) = sent {
            tracing::warn!(%error, waiter = %id, "cannot answer a quick-match waiter");
        }
    }

    /// What a waiter comes to: paired, `no_match` at its deadline, or `None` when its node
    /// stopped sending it for a lease.
    async fn outcome(&self, followed: Followed) -> Option<Outcome> {
        let Followed {
            ticket,
            mut answer,
            due,
            deadline,
            seen,
            ..
        } = followed;
        let lapsed = lapsed(seen, self.ttl);
        tokio::pin!(lapsed);
        let mut window_over = false;
        let matched = loop {
            tokio::select! {
                matched = &mut answer => break matched,
                () = tokio::time::sleep_until(due), if !window_over => {
                    window_over = true;
                    if let Some(players) = self.matchmaker.due(ticket) {
                        self.open(players);
                    }
                }
                () = tokio::time::sleep_until(deadline) => {
                    if self.matchmaker.cancel(ticket) {
                        return Some(Outcome::NoMatch);
                    }
                    break answer.await;
                }
                () = &mut lapsed => {
                    if self.matchmaker.cancel(ticket) {
                        return None;
                    }
                    break answer.await;
                }
            }
        };
        matched.ok().map(Outcome::Matched)
    }
}

/// A waiter as its task in the pool follows it.
struct Followed {
    id: Uuid,
    inbox: String,
    ticket: u64,
    answer: oneshot::Receiver<QuickMatched>,
    due: Instant,
    deadline: Instant,
    seen: watch::Receiver<Instant>,
    withdrawn: CancellationToken,
}

/// Returns once nothing was heard of a waiter for `ttl`.
async fn lapsed(seen: watch::Receiver<Instant>, ttl: Duration) {
    loop {
        let last = *seen.borrow();
        tokio::time::sleep_until(last + ttl).await;
        if *seen.borrow() == last {
            return;
        }
    }
}
