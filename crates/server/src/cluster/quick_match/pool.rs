//! The cluster's pool, on the node holding the key: the waiters sent over NATS, each followed
//! by a task of its own that sends its outcome back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aeroplane_dice::ClientSeed;
use aeroplane_protocol::api::QuickMatched;
use aeroplane_protocol::name::PlayerName;
use async_nats::{Client, Subscriber};
use futures_util::StreamExt;
use tokio::sync::{oneshot, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;
use uuid::Uuid;

use super::{Arrival, Cancel, Outcome, subject};
use crate::matchmaking::{Matchmaker, Waiter, open_room};
use crate::room::RoomContext;

/// The cluster's pool, on the node holding the key: a [`Matchmaker`] fed over NATS.
pub(super) struct Pool {
    client: Client,
    context: RoomContext,
    ttl: Duration,
    matchmaker: Matchmaker,
    /// Who waits and who is gone, under one lock so that a waiter's arrival and its end never
    /// interleave.
    waiters: Mutex<Waiters>,
    /// Cancelled when this node stops being the matchmaker.
    stop: CancellationToken,
}

/// The pool's waiters by id.
#[derive(Default)]
struct Waiters {
    /// The waiters in the pool.
    waiting: HashMap<Uuid, Entry>,
    /// The waiters answered or withdrawn, and when: a late arrival of theirs is ignored.
    gone: HashMap<Uuid, Instant>,
}

impl Waiters {
    /// Takes `id` out of the pool, if there, and remembers it is gone.
    fn end(&mut self, id: Uuid) -> Option<Entry> {
        self.gone.insert(id, Instant::now());
        self.waiting.remove(&id)
    }
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
    pub(super) async fn start(
        client: &Client,
        node: &str,
        context: &RoomContext,
        ttl: Duration,
    ) -> anyhow::Result<CancellationToken> {
        let messages = client.subscribe(subject(node, "*")).await?;
        let stop = CancellationToken::new();
        let pool = Arc::new(Pool {
            client: client.clone(),
            context: context.clone(),
            ttl,
            matchmaker: Matchmaker::new(),
            waiters: Mutex::new(Waiters::default()),
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

    fn lock(&self) -> std::sync::MutexGuard<'_, Waiters> {
        self.waiters.lock().expect("pool lock poisoned")
    }

    /// A waiter arrives, or shows it is still there.
    fn arrive(self: &Arc<Pool>, arrival: Arrival) {
        let now = Instant::now();
        let (Ok(name), Ok(client_seed)) = (
            PlayerName::parse(&arrival.name),
            ClientSeed::new(arrival.client_seed.clone()),
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
        {
            let mut waiters = self.lock();
            waiters
                .gone
                .retain(|_, when| now.duration_since(*when) < self.ttl);
            if waiters.gone.contains_key(&arrival.id) {
                return;
            }
            if let Some(entry) = waiters.waiting.get(&arrival.id) {
                entry.seen.send_replace(now);
                return;
            }
            let entry = Entry {
                ticket,
                seen,
                withdrawn: withdrawn.clone(),
            };
            waiters.waiting.insert(arrival.id, entry);
        }
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
        let entry = self.lock().end(id);
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
        self.lock().end(id);
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

    /// What a waiter comes to: paired, `no_match` at its deadline, `not_opened` when its game's
    /// room could not be opened, or `None` when its node stopped sending it for a lease.
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
        // The answer is dropped only when the formed game's room could not be opened.
        Some(matched.map_or(Outcome::NotOpened, Outcome::Matched))
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
