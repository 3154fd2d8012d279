//! The owner's side of forwarding: other nodes' connections to this node's rooms.
//!
//! Each forwarded connection is a *virtual connection* here: an [`Outbox`] handed to the room
//! in `RoomCommand::Connect` like any WebSocket's, whose frames a small task (the pump)
//! publishes to the edge's subject as they come, and whose close it sends as a close message.
//! The room cannot tell it from a local socket. One task reads everything addressed to this
//! node (`aeroplane.node.<node>.*`) and keeps the virtual connections by session; a connection
//! whose edge has not kept it alive for two and a half keep-alive periods is disconnected from
//! its room (its edge node died), so its seat is held for the grace period as for any dropped
//! socket.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use aeroplane_protocol::error::CloseCode;
use async_nats::{Client, Message, Subscriber};
use futures_util::StreamExt as _;
use tokio::time::{Instant, MissedTickBehavior};
use uuid::Uuid;

use super::wire::{Alive, AliveReply, FromOwner, StatusAsk, ToOwner};
use crate::lifecycle::Lifecycle;
use crate::outgoing::{self, Closer, Frames};
use crate::room::{ConnId, Registry, RoomCommand, RoomHandle};

/// Virtual connections are numbered from here, far from the WebSockets' numbers (counted from
/// 1) and the bots' (the last four).
const VIRTUAL_CONNS: ConnId = 1 << 62;

static NEXT_VIRTUAL: AtomicU64 = AtomicU64::new(VIRTUAL_CONNS);

/// How long the owner waits for a room's status before it answers nothing.
const STATUS_PATIENCE: Duration = Duration::from_secs(2);

/// The owner's side: the virtual connections of other nodes' clients, by session.
pub(super) struct Owner {
    pub(super) client: Client,
    pub(super) node: String,
    pub(super) registry: Arc<Registry>,
    pub(super) lifecycle: Arc<Lifecycle>,
    /// A virtual connection's outgoing queue (`--outgoing-queue`).
    pub(super) queue: usize,
    /// How often edges send keep-alives.
    pub(super) every: Duration,
    pub(super) virtuals: HashMap<Uuid, Virtual>,
}

/// One forwarded connection as its room sees it.
pub(super) struct Virtual {
    room: RoomHandle,
    conn: ConnId,
    closer: Arc<Closer>,
    /// When its edge last spoke of it.
    seen: Instant,
}

impl Owner {
    /// Serves what other nodes send this node until the subscription ends.
    pub(super) async fn run(mut self, mut heard: Subscriber) {
        let mut reap = tokio::time::interval(self.every);
        reap.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                message = heard.next() => match message {
                    Some(message) => self.heard(message).await,
                    None => break,
                },
                _ = reap.tick() => self.reap().await,
            }
        }
        for (_, gone) in std::mem::take(&mut self.virtuals) {
            self.drop_virtual(gone).await;
        }
    }

    /// One message from another node.
    async fn heard(&mut self, message: Message) {
        let what = message.subject.rsplit('.').next().unwrap_or_default();
        match what {
            "conns" => match serde_json::from_slice::<ToOwner>(&message.payload) {
                Ok(step) => self.step(step).await,
                Err(error) => tracing::warn!(%error, "a forwarded step that does not decode"),
            },
            "alive" => self.alive(message).await,
            "status" => self.status(message),
            _ => {}
        }
    }

    /// A forwarded connection's step.
    async fn step(&mut self, step: ToOwner) {
        let session = match step {
            ToOwner::Connect {
                room,
                session,
                reply,
            } => return self.connect(room, session, reply).await,
            ToOwner::Disconnect { session } => {
                if let Some(gone) = self.virtuals.remove(&session) {
                    self.drop_virtual(gone).await;
                }
                return;
            }
            ToOwner::Join { session, .. } | ToOwner::Message { session, .. } => session,
        };
        let Some(target) = self.virtuals.get_mut(&session) else {
            // Dropped meanwhile: the edge's next keep-alive learns it and connects again.
            return;
        };
        target.seen = Instant::now();
        let conn = target.conn;
        let command = match step {
            ToOwner::Join { join, player, .. } => RoomCommand::Join { conn, join, player },
            ToOwner::Message { message, .. } => RoomCommand::Message { conn, message },
            ToOwner::Connect { .. } | ToOwner::Disconnect { .. } => return,
        };
        let _ = target.room.inbox.send(command).await;
    }

    /// A new forwarded connection to room `room`, whose frames go to `reply`.
    async fn connect(&mut self, room: Uuid, session: Uuid, reply: String) {
        let handle = self
            .registry
            .get(room)
            .filter(|_| !self.lifecycle.is_draining());
        let Some(handle) = handle else {
            self.publish(&reply, FromOwner::Gone, session, Default::default())
                .await;
            return;
        };
        let closer = Arc::new(Closer::default());
        let (outbox, frames) = outgoing::queue(self.queue, closer.clone());
        let conn = NEXT_VIRTUAL.fetch_add(1, Ordering::Relaxed);
        let connect = RoomCommand::Connect { conn, outbox };
        if handle.inbox.send(connect).await.is_err() {
            self.publish(&reply, FromOwner::Gone, session, Default::default())
                .await;
            return;
        }
        tracing::debug!(room_id = %room, conn, %session, "forwarded connection");
        let pump = Pump {
            client: self.client.clone(),
            subject: reply,
            session,
        };
        tokio::spawn(pump.run(frames, closer.clone()));
        crate::metrics::cluster_forwarded(&self.node, "owner", 1.0);
        let seen = Instant::now();
        let virtual_conn = Virtual {
            room: handle,
            conn,
            closer,
            seen,
        };
        if let Some(old) = self.virtuals.insert(session, virtual_conn) {
            self.drop_virtual(old).await;
        }
    }

    /// An edge's keep-alive: marks its sessions seen and answers which are unknown here.
    async fn alive(&mut self, message: Message) {
        let Some(reply) = message.reply else { return };
        let Ok(alive) = serde_json::from_slice::<Alive>(&message.payload) else {
            return;
        };
        let now = Instant::now();
        let mut unknown = Vec::new();
        for session in alive.sessions {
            match self.virtuals.get_mut(&session) {
                Some(known) => known.seen = now,
                None => unknown.push(session),
            }
        }
        let here = !self.lifecycle.is_draining() && self.registry.get(alive.room).is_some();
        let answer = AliveReply { here, unknown };
        let body = serde_json::to_vec(&answer).unwrap_or_default();
        let _ = self.client.publish(reply, body.into()).await;
    }

    /// A room's status for another node, answered by a task of its own so that a slow room
    /// holds nothing else up.
    fn status(&self, message: Message) {
        let Some(reply) = message.reply else { return };
        let Ok(ask) = serde_json::from_slice::<StatusAsk>(&message.payload) else {
            return;
        };
        let room = self.registry.get(ask.room);
        let client = self.client.clone();
        tokio::spawn(async move {
            let status = match room {
                Some(room) => room.status(STATUS_PATIENCE).await.ok(),
                None => None,
            };
            let body = serde_json::to_vec(&status).unwrap_or_default();
            let _ = client.publish(reply, body.into()).await;
        });
    }

    /// Disconnects the virtual connections whose edge went silent (its node died).
    async fn reap(&mut self) {
        let patience = self.every * 5 / 2;
        let silent: Vec<Uuid> = self
            .virtuals
            .iter()
            .filter(|(_, known)| known.seen.elapsed() > patience)
            .map(|(session, _)| *session)
            .collect();
        for session in silent {
            if let Some(gone) = self.virtuals.remove(&session) {
                tracing::info!(room_id = %gone.room.id, conn = gone.conn, "forwarded connection's edge went silent");
                self.drop_virtual(gone).await;
            }
        }
    }

    /// Takes a virtual connection out of its room and stops its pump.
    async fn drop_virtual(&self, gone: Virtual) {
        let disconnect = RoomCommand::Disconnect { conn: gone.conn };
        let _ = gone.room.inbox.send(disconnect).await;
        // The edge has forgotten the session, or will ignore it: the close goes nowhere.
        gone.closer.close(CloseCode::RoomClosed);
        crate::metrics::cluster_forwarded(&self.node, "owner", -1.0);
    }

    async fn publish(&self, subject: &str, kind: FromOwner, session: Uuid, body: bytes::Bytes) {
        let headers = kind.headers(session);
        let published = self
            .client
            .publish_with_headers(subject.to_owned(), headers, body)
            .await;
        if let Err(error) = published {
            tracing::debug!(%error, "cannot answer a forwarded connection");
        }
    }
}

/// Publishes one virtual connection's frames to its edge, in order, then its close.
struct Pump {
    client: Client,
    subject: String,
    session: Uuid,
}

impl Pump {
    async fn run(self, mut frames: Frames, closer: Arc<Closer>) {
        let code = loop {
            tokio::select! {
                biased;
                code = closer.closed() => break code,
                frame = frames.recv() => match frame {
                    Some(frame) => self.send(FromOwner::Frame, frame.as_str()).await,
                    None => break CloseCode::RoomClosed,
                },
            }
        };
        // As a WebSocket's writer does: what was queued before the close still goes, unless
        // the connection is dropped for not keeping up.
        if code != CloseCode::TooSlow {
            while let Some(frame) = frames.try_recv() {
                self.send(FromOwner::Frame, frame.as_str()).await;
            }
        }
        self.send(FromOwner::Close(code), "").await;
    }

    async fn send(&self, kind: FromOwner, body: &str) {
        let headers = kind.headers(self.session);
        let body = bytes::Bytes::copy_from_slice(body.as_bytes());
        let published = self
            .client
            .publish_with_headers(self.subject.clone(), headers, body)
            .await;
        if let Err(error) = published {
            tracing::debug!(%error, "cannot forward a frame");
        }
    }
}
