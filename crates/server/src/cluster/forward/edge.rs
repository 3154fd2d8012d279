//! The edge's side of forwarding: this node's WebSockets to rooms other nodes own.
//!
//! Each forwarded room has one proxy task here, whose inbox is the `RoomHandle` the room's
//! connections hold; it lives while one of them does (the map keeps only a weak sender). The
//! proxy keeps, for each connection, its outbox, its session (new at every route), its last
//! `join` and the seat token its `welcome` carried, so that it can follow the room to another
//! node and join again for the client. Frames from the owner go into the outboxes unchanged,
//! except a `welcome` answering such a re-join, which goes as a `snapshot`. Long (about 550
//! lines) because the proxy is one state machine: its route, its connections and the
//! re-routing that changes both; cut apart, its steps would share every field anyway.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aeroplane_protocol::api::RoomStatus;
use aeroplane_protocol::client::{Join, Role};
use aeroplane_protocol::error::CloseCode;
use aeroplane_protocol::server::{ServerMessage, SnapshotMessage};
use async_nats::{Client, Message, Subscriber};
use futures_util::StreamExt as _;
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, MissedTickBehavior};
use tracing::Instrument;
use uuid::Uuid;

use super::wire::{self, Alive, AliveReply, FromOwner, StatusAsk, ToOwner};
use crate::cluster::takeover::{TakeOver, TakeOvers};
use crate::lifecycle::Lifecycle;
use crate::outgoing::{Frame, Outbox, SendError};
use crate::room::{ConnId, RoomCommand, RoomHandle, inbox};

/// How many commands may wait in a proxy's inbox (as in a room's).
const PROXY_INBOX: usize = 256;

/// How long a status asked of the owner may take.
const STATUS_PATIENCE: Duration = Duration::from_secs(3);

/// This node's forwarded rooms: one proxy each.
#[derive(Debug)]
pub struct Forwarding {
    client: Client,
    node: String,
    /// The keep-alive period (a third of a lease).
    every: Duration,
    takeovers: TakeOvers,
    lifecycle: Arc<Lifecycle>,
    proxies: Mutex<HashMap<Uuid, inbox::WeakSender<RoomCommand>>>,
}

impl Forwarding {
    pub(super) fn new(
        client: Client,
        node: String,
        every: Duration,
        takeovers: TakeOvers,
        lifecycle: Arc<Lifecycle>,
    ) -> Forwarding {
        Forwarding {
            client,
            node,
            every,
            takeovers,
            lifecycle,
            proxies: Mutex::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, inbox::WeakSender<RoomCommand>>> {
        self.proxies.lock().expect("proxy map lock poisoned")
    }

    /// A handle to room `room`, live on node `owner`: its inbox is this node's proxy for the
    /// room, started now unless one runs.
    pub fn handle(self: &Arc<Self>, room: Uuid, owner: String) -> RoomHandle {
        let mut proxies = self.lock();
        if let Some(inbox) = proxies.get(&room).and_then(inbox::WeakSender::upgrade) {
            return RoomHandle { id: room, inbox };
        }
        let (inbox, commands) = inbox::channel(PROXY_INBOX);
        proxies.insert(room, inbox.downgrade());
        drop(proxies);
        let proxy = Proxy {
            forwarding: self.clone(),
            room,
            reply: wire::edge_subject(&self.node, room),
            owner,
            conns: HashMap::new(),
            sessions: HashMap::new(),
            reroute_at: None,
            last_reroute: None,
            closed: false,
        };
        let span =
            tracing::info_span!(parent: None, "proxy", room_id = %room, node_id = %self.node);
        tokio::spawn(proxy.run(commands).instrument(span));
        RoomHandle { id: room, inbox }
    }

    /// Forgets room `room`'s proxy if it has ended (a newer one may have taken its place).
    fn ended(&self, room: Uuid) {
        let mut proxies = self.lock();
        if proxies
            .get(&room)
            .is_some_and(|inbox| inbox.upgrade().is_none())
        {
            proxies.remove(&room);
        }
    }
}

/// One forwarded connection, as its proxy keeps it.
struct Forwarded {
    outbox: Outbox,
    /// Its session on the current route.
    session: Uuid,
    /// Its last `join` sent, with the identified player.
    join: Option<(Box<Join>, Option<Uuid>)>,
    /// The seat token of its `welcome` (a player's).
    token: Option<String>,
    /// Whether the room welcomed it.
    welcomed: bool,
    /// Whether it joined again on a new route and waits for that `welcome`.
    rejoining: bool,
}

/// What woke a proxy.
enum Woken {
    Command(Option<RoomCommand>),
    Heard(Option<Message>),
    KeepAlive,
    Reroute,
    Checked(Checked),
    Stopping,
}

/// What a keep-alive learned.
enum Checked {
    /// The owner answered (for the route to `owner`).
    Answered { owner: String, reply: AliveReply },
    /// The owner did not answer (for the route to `owner`).
    Silent { owner: String },
}

/// How a proxy follows its room when asked to look for it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Look {
    /// The owner said the room is gone: connect again wherever the room is now.
    Gone,
    /// The owner is silent: move only if the room has another owner now.
    Silent,
}

/// The proxy of one forwarded room on this node.
struct Proxy {
    forwarding: Arc<Forwarding>,
    room: Uuid,
    /// Where owners send this room's frames for this node.
    reply: String,
    /// The node the connections are routed to (possibly this one, after a takeover here).
    owner: String,
    conns: HashMap<ConnId, Forwarded>,
    sessions: HashMap<Uuid, ConnId>,
    /// A re-route asked for, not before this.
    reroute_at: Option<Instant>,
    last_reroute: Option<Instant>,
    /// The room is over everywhere: its connections are closed and nothing is forwarded.
    closed: bool,
}

impl Proxy {
    /// Forwards until every connection has let go of the proxy's inbox.
    async fn run(mut self, mut commands: inbox::Receiver<RoomCommand>) {
        let heard = match self.forwarding.client.subscribe(self.reply.clone()).await {
            Ok(heard) => Some(heard),
            Err(error) => {
                tracing::error!(%error, "cannot hear the room's owner; closing its connections");
                self.closed = true;
                None
            }
        };
        let mut heard = heard;
        let (checks, mut checked) = mpsc::channel(4);
        let mut keep_alive = tokio::time::interval(self.forwarding.every);
        keep_alive.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut stopping = self.forwarding.lifecycle.stopping();
        let mut stopped = false;
        loop {
            let reroute_at = self.reroute_at;
            let woken = tokio::select! {
                command = commands.recv() => Woken::Command(command),
                message = next_heard(&mut heard) => Woken::Heard(message),
                Some(result) = checked.recv() => Woken::Checked(result),
                _ = keep_alive.tick() => Woken::KeepAlive,
                () = sleep_until(reroute_at) => Woken::Reroute,
                _ = stopping.wait_for(|stop| *stop), if !stopped => Woken::Stopping,
            };
            match woken {
                Woken::Command(None) => break,
                Woken::Command(Some(command)) => self.command(command).await,
                Woken::Heard(Some(message)) => self.heard(message),
                Woken::Heard(None) => heard = None,
                Woken::KeepAlive => self.keep_alive(&checks),
                Woken::Checked(result) => self.checked(result).await,
                Woken::Reroute => {
                    self.reroute_at = None;
                    self.reroute(Look::Gone).await;
                }
                Woken::Stopping => {
                    // This node drains: its clients reconnect to another.
                    stopped = true;
                    self.close_all(CloseCode::ShuttingDown);
                }
            }
        }
        for (_, gone) in std::mem::take(&mut self.conns) {
            self.send(&ToOwner::Disconnect {
                session: gone.session,
            })
            .await;
            crate::metrics::cluster_forwarded(&self.forwarding.node, "edge", -1.0);
        }
        if let Some(mut heard) = heard {
            let _ = heard.unsubscribe().await;
        }
        self.forwarding.ended(self.room);
    }

    /// A command from one of the room's connections on this node.
    async fn command(&mut self, command: RoomCommand) {
        match command {
            RoomCommand::Connect { conn, outbox } => {
                if self.closed {
                    outbox.close(CloseCode::ShuttingDown);
                    return;
                }
                let session = Uuid::new_v4();
                self.sessions.insert(session, conn);
                self.conns.insert(
                    conn,
                    Forwarded {
                        outbox,
                        session,
                        join: None,
                        token: None,
                        welcomed: false,
                        rejoining: false,
                    },
                );
                crate::metrics::cluster_forwarded(&self.forwarding.node, "edge", 1.0);
                self.connect(session).await;
            }
            RoomCommand::Join { conn, join, player } => {
                let Some(target) = self.conns.get_mut(&conn) else {
                    return;
                };
                target.join = Some((join.clone(), player));
                let session = target.session;
                self.send(&ToOwner::Join {
                    session,
                    join,
                    player,
                })
                .await;
            }
            RoomCommand::Message { conn, message } => {
                let Some(target) = self.conns.get(&conn) else {
                    return;
                };
                let session = target.session;
                self.send(&ToOwner::Message { session, message }).await;
            }
            RoomCommand::Disconnect { conn } => {
                let Some(gone) = self.conns.remove(&conn) else {
                    return;
                };
                self.sessions.remove(&gone.session);
                crate::metrics::cluster_forwarded(&self.forwarding.node, "edge", -1.0);
                self.send(&ToOwner::Disconnect {
                    session: gone.session,
                })
                .await;
            }
            RoomCommand::Status { reply } => self.status(reply),
            // The owner's journal is its own; the edge keeps none.
            RoomCommand::Rejournal => {}
            // Sent by the registry, where no proxy is: a proxy stops with the node's lifecycle
            // (`Woken::Stopping`). Were one sent, it would mean the same.
            RoomCommand::Stop => self.close_all(CloseCode::ShuttingDown),
        }
    }

    /// Asks the owner for the room's status, in a task of its own; no answer drops `reply`.
    fn status(&self, reply: oneshot::Sender<RoomStatus>) {
        let client = self.forwarding.client.clone();
        let subject = wire::owner_subject(&self.owner, "status");
        let ask = serde_json::to_vec(&StatusAsk { room: self.room }).unwrap_or_default();
        tokio::spawn(async move {
            let asked = client.request(subject, ask.into());
            let Ok(Ok(answer)) = tokio::time::timeout(STATUS_PATIENCE, asked).await else {
                return;
            };
            if let Ok(Some(status)) = serde_json::from_slice::<Option<RoomStatus>>(&answer.payload)
            {
                let _ = reply.send(status);
            }
        });
    }

    /// One message from an owner for one of the connections.
    fn heard(&mut self, message: Message) {
        let Some((session, kind)) = FromOwner::read(message.headers.as_ref()) else {
            return;
        };
        // A session of an older route (a paused old owner that woke): never passed on.
        let Some(conn) = self.sessions.get(&session).copied() else {
            return;
        };
        match kind {
            FromOwner::Frame => self.frame(conn, &message.payload),
            FromOwner::Close(CloseCode::ShuttingDown) | FromOwner::Gone => {
                // The owner drained or lost the room: find it again.
                self.reroute_soon();
            }
            FromOwner::Close(code) => {
                if let Some(target) = self.conns.get(&conn) {
                    target.outbox.close(code);
                }
            }
        }
    }

    /// One frame from the owner for `conn`, passed on as it is, but for a `welcome`: it is
    /// noted (the seat token, the join accepted) and, answering a re-join, sent as a
    /// `snapshot`.
    fn frame(&mut self, conn: ConnId, payload: &[u8]) {
        let Some(target) = self.conns.get_mut(&conn) else {
            return;
        };
        let Ok(text) = std::str::from_utf8(payload) else {
            return;
        };
        let mut frame = Frame::from(text);
        if text.starts_with(r#"{"type":"welcome""#)
            && let Ok(ServerMessage::Welcome(welcome)) = ServerMessage::from_json(text)
        {
            target.outbox.mark_joined();
            target.welcomed = true;
            target.token = welcome.token.clone().or(target.token.take());
            if target.rejoining {
                target.rejoining = false;
                let snapshot = ServerMessage::Snapshot(SnapshotMessage {
                    id: None,
                    snapshot: welcome.snapshot,
                });
                frame = crate::outgoing::encode(&snapshot);
            }
        } else if target.rejoining && text.starts_with(r#"{"type":"error""#) {
            // The new owner refused the re-join: the client joins again by itself.
            tracing::info!(conn, "a re-join was refused: {text}");
            target.outbox.close(CloseCode::ShuttingDown);
            return;
        }
        match target.outbox.send_frame(&frame) {
            Ok(()) => target.outbox.flush(),
            Err(SendError::Closed) => {}
            Err(SendError::Full) => target.outbox.close(CloseCode::TooSlow),
        }
    }

    /// Sends a keep-alive for every connection to the owner, in a task whose answer comes back
    /// through `checks`.
    fn keep_alive(&self, checks: &mpsc::Sender<Checked>) {
        if self.conns.is_empty() || self.closed {
            return;
        }
        let alive = Alive {
            room: self.room,
            sessions: self.conns.values().map(|conn| conn.session).collect(),
        };
        let body = serde_json::to_vec(&alive).unwrap_or_default();
        let client = self.forwarding.client.clone();
        let owner = self.owner.clone();
        let subject = wire::owner_subject(&owner, "alive");
        let patience = self.forwarding.every;
        let checks = checks.clone();
        tokio::spawn(async move {
            let asked = tokio::time::timeout(patience, client.request(subject, body.into())).await;
            let reply = match asked {
                Ok(Ok(answer)) => serde_json::from_slice::<AliveReply>(&answer.payload).ok(),
                _ => None,
            };
            let result = match reply {
                Some(reply) => Checked::Answered { owner, reply },
                None => Checked::Silent { owner },
            };
            let _ = checks.try_send(result);
        });
    }

    /// What a keep-alive learned.
    async fn checked(&mut self, result: Checked) {
        match result {
            Checked::Answered { owner, reply } if owner == self.owner => {
                if !reply.here || !reply.unknown.is_empty() {
                    self.reroute_soon();
                }
            }
            Checked::Silent { owner } if owner == self.owner => self.reroute(Look::Silent).await,
            // An answer about an older route.
            Checked::Answered { .. } | Checked::Silent { .. } => {}
        }
    }

    /// Asks for a re-route at once, or half a keep-alive period after the last one, so that an
    /// owner that keeps saying "gone" is not asked in a tight loop.
    fn reroute_soon(&mut self) {
        if self.closed || self.reroute_at.is_some() {
            return;
        }
        let now = Instant::now();
        let gap = self.forwarding.every / 2;
        self.reroute_at = Some(match self.last_reroute {
            Some(last) if last + gap > now => last + gap,
            _ => now,
        });
    }

    /// Finds where the room is now (asking this node's takeover task, which takes it over here
    /// when nobody holds it) and connects every connection there again.
    async fn reroute(&mut self, look: Look) {
        if self.closed || self.conns.is_empty() {
            return;
        }
        let owner = match self.forwarding.takeovers.take_over(self.room).await {
            TakeOver::Here(_) => self.forwarding.node.clone(),
            TakeOver::Elsewhere { node } => node,
            TakeOver::Missing => {
                // The game is over (its journal is gone), or this node drains.
                tracing::info!("the forwarded room is gone; closing its connections");
                self.closed = true;
                let code = if self.forwarding.lifecycle.is_draining() {
                    CloseCode::ShuttingDown
                } else {
                    CloseCode::RoomClosed
                };
                self.close_all(code);
                return;
            }
            TakeOver::Failed => {
                // The broker failed: try again at the next keep-alive.
                return;
            }
        };
        if look == Look::Silent && owner == self.owner {
            // Its lease still stands: the owner is slow or paused, not gone.
            return;
        }
        tracing::info!(from = %self.owner, to = %owner, conns = self.conns.len(), "re-routing a forwarded room");
        crate::metrics::cluster_rerouted(&self.forwarding.node);
        self.last_reroute = Some(Instant::now());
        self.owner = owner;
        self.sessions.clear();
        let conns: Vec<ConnId> = self.conns.keys().copied().collect();
        for conn in conns {
            self.route_again(conn).await;
        }
    }

    /// Connects `conn` on the current route under a new session, and joins again as it had.
    async fn route_again(&mut self, conn: ConnId) {
        let Some(target) = self.conns.get_mut(&conn) else {
            return;
        };
        let session = Uuid::new_v4();
        target.session = session;
        self.sessions.insert(session, conn);
        let rejoin = match &target.join {
            Some((join, player)) if target.welcomed => {
                target.rejoining = true;
                let mut join = join.clone();
                join.id = None;
                if join.role == Role::Player {
                    join.token.clone_from(&target.token);
                }
                Some((join, *player))
            }
            // A join not answered yet: sent again as it was, answered by a plain `welcome`.
            Some((join, player)) => Some((join.clone(), *player)),
            None => None,
        };
        self.connect(session).await;
        if let Some((join, player)) = rejoin {
            self.send(&ToOwner::Join {
                session,
                join,
                player,
            })
            .await;
        }
    }

    /// Tells the owner of a new session.
    async fn connect(&self, session: Uuid) {
        self.send(&ToOwner::Connect {
            room: self.room,
            session,
            reply: self.reply.clone(),
        })
        .await;
    }

    /// Publishes one step to the owner (a lost one is found by the keep-alives).
    async fn send(&self, step: &ToOwner) {
        let body = match serde_json::to_vec(step) {
            Ok(body) => body,
            Err(error) => {
                tracing::error!(%error, "cannot encode a forwarded step");
                return;
            }
        };
        let subject = wire::owner_subject(&self.owner, "conns");
        if let Err(error) = self.forwarding.client.publish(subject, body.into()).await {
            tracing::debug!(%error, "cannot forward a step");
        }
    }

    fn close_all(&self, code: CloseCode) {
        for conn in self.conns.values() {
            conn.outbox.close(code);
        }
    }
}

/// The next message heard, or never without a subscription.
async fn next_heard(heard: &mut Option<Subscriber>) -> Option<Message> {
    match heard {
        Some(heard) => heard.next().await,
        None => std::future::pending().await,
    }
}

/// Sleeps until `at`, or forever without it.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
