//! How the rest of the server reaches a room: its id, its inbox and what the inbox carries.
//!
//! Kept apart from the room's parts so that the registry, the WebSocket connections and the HTTP
//! handlers depend on this small module only.

use aeroplane_protocol::api::RoomStatus;
use aeroplane_protocol::client::{ClientMessage, Join};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::oneshot;
use uuid::Uuid;

use super::inbox;
use crate::outgoing::Outbox;

/// Identifies one WebSocket connection for the lifetime of the process.
pub type ConnId = u64;

/// What a room's inbox carries.
#[derive(Debug)]
pub enum RoomCommand {
    /// A WebSocket connected to the room (it has not joined yet).
    Connect {
        /// The connection.
        conn: ConnId,
        /// How to reach it.
        outbox: Outbox,
    },
    /// A decoded message from a connection.
    Message {
        /// The connection.
        conn: ConnId,
        /// The message.
        message: ClientMessage,
    },
    /// A connection's `join`, its `player` credentials checked by the connection: `player` is
    /// the identified player who joins (`None`: anonymous). The `join`'s own `player` field is
    /// never read by the room.
    Join {
        /// The connection.
        conn: ConnId,
        /// The message (boxed like `ClientMessage::Join`'s, so that every command a room's
        /// inbox holds stays small).
        join: Box<Join>,
        /// The identified player.
        player: Option<Uuid>,
    },
    /// A connection went away.
    Disconnect {
        /// The connection.
        conn: ConnId,
    },
    /// The journal store wants the room's journal rewritten (`room/rejournal.rs`): the room
    /// does nothing but its journal write, which every command is followed by.
    Rejournal,
    /// The server is shutting down: the room stops, its connections closed with 1001
    /// `shutting_down` and its game kept in its journal for the next start. Sent to every open
    /// room, and to every room opened after, by [`Registry::stop_all`](super::Registry::stop_all).
    /// Before stop 43 of issue 18 each room watched the server's stop signal, making and dropping
    /// a waiter on it at every command (about 1% of the server's CPU under load).
    Stop,
    /// The HTTP API asks for the room's public status.
    Status {
        /// Where to answer.
        reply: oneshot::Sender<RoomStatus>,
    },
}

/// How to reach an open room.
#[derive(Clone, Debug)]
pub struct RoomHandle {
    /// The room id.
    pub id: Uuid,
    /// The room's inbox.
    pub inbox: inbox::Sender<RoomCommand>,
}

/// Why a room gave no status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusError {
    /// The room closed before it answered.
    Closed,
    /// The room did not answer within the time allowed.
    Late,
}

impl RoomHandle {
    /// Puts `command` in the room's inbox, waiting while the inbox is full; answers whether the
    /// room took it (`false`: the room is gone). The inbox's `send` tries at once and sets up
    /// a wait only when the inbox is full (`room/inbox.rs`).
    pub async fn deliver(&self, command: RoomCommand) -> bool {
        self.inbox.send(command).await.is_ok()
    }

    /// Puts `command` in the room's inbox if it has room, without waiting: answers whether the
    /// room took it (`false`: the room is gone), or gives the command back when the inbox is
    /// full.
    pub fn try_deliver(&self, command: RoomCommand) -> Result<bool, RoomCommand> {
        match self.inbox.try_send(command) {
            Ok(()) => Ok(true),
            Err(TrySendError::Full(command)) => Err(command),
            Err(TrySendError::Closed(_)) => Ok(false),
        }
    }

    /// Asks the room for its status, waiting at most `patience` for the answer.
    pub async fn status(&self, patience: std::time::Duration) -> Result<RoomStatus, StatusError> {
        let (reply, answer) = oneshot::channel();
        let asked = self.inbox.send(RoomCommand::Status { reply }).await;
        asked.map_err(|_| StatusError::Closed)?;
        match tokio::time::timeout(patience, answer).await {
            Ok(Ok(status)) => Ok(status),
            Ok(Err(_)) => Err(StatusError::Closed),
            Err(_) => Err(StatusError::Late),
        }
    }
}
