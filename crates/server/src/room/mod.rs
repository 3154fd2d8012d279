//! A room is a tokio task that owns one game and reads an inbox.
//!
//! Connections and HTTP handlers never touch a room's state: they send it a [`RoomCommand`] and,
//! where they need an answer, wait on a oneshot. So there is no lock around a game, and a room
//! only ever waits on its own inbox and its own timers (seat grace periods, retirement).
//!
//! - [`state`]: the room's state, snapshots and broadcasting.
//! - [`join`]: taking seats, reclaiming them by token, watching, disconnecting.
//! - [`play`]: game actions, the stale rule, game over and the game record.
//! - [`assist`]: what only computer and local rooms offer: hints and undo.
//! - [`bot`]: the computer player, a task that holds its seat like a connection would.
//! - [`social`]: what two people online share besides the game: preset quick messages and the
//!   rematch.
//! - [`task`]: the loop and its timers.
//! - [`journal`]: the live game's journal, and restoring games from it after a restart.

mod assist;
mod bot;
mod clock;
mod join;
pub mod journal;
mod play;
mod social;
mod state;
mod task;

use std::sync::Arc;

use aeroplane_dice::{ClientSeed, ServerSeed};
use aeroplane_protocol::api::RoomStatus;
use aeroplane_protocol::client::ClientMessage;
use aeroplane_protocol::name::PlayerName;
use aeroplane_protocol::record::{GameRecord, Mode};
use aeroplane_rules::Colour;
use aeroplane_store::{GameStore, OutboxHandle};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use crate::config::Config;
use crate::lifecycle::Lifecycle;
use crate::registry::Registry;
use crate::room::journal::Journals;
use crate::token::SeatToken;
use crate::ws::outbox::Outbox;

/// Identifies one WebSocket connection for the lifetime of the process.
pub type ConnId = u64;

pub use bot::{BOT_CONN, ComputerSeat, open_computer};

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
    /// A connection went away.
    Disconnect {
        /// The connection.
        conn: ConnId,
    },
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
    pub inbox: mpsc::Sender<RoomCommand>,
}

/// A seat taken before the room opens (quick match takes both seats for its players).
#[derive(Debug)]
pub struct SeatSetup {
    /// The colour.
    pub colour: Colour,
    /// The player's display name.
    pub name: PlayerName,
    /// The player's dice seed.
    pub client_seed: ClientSeed,
    /// The token the player will present.
    pub token: SeatToken,
}

/// Everything a new room starts from.
#[derive(Debug)]
pub struct RoomSetup {
    /// The room id.
    pub id: Uuid,
    /// The kind of room.
    pub mode: Mode,
    /// The secret dice seed.
    pub server_seed: ServerSeed,
    /// Seats taken in advance.
    pub seats: Vec<SeatSetup>,
    /// The turn clock: how long each decision may take (`None`: no clock).
    pub turn_clock: Option<std::time::Duration>,
}

/// What every room shares with the server.
#[derive(Clone)]
pub struct RoomContext {
    /// The settings.
    pub config: Arc<Config>,
    /// Where finished games go.
    pub store: Arc<dyn GameStore>,
    /// The open rooms, so a room can remove itself when it closes.
    pub registry: Arc<Registry>,
    /// Where finished games' records wait for the store (on disk).
    pub outbox: OutboxHandle,
    /// The journals of live games.
    pub journals: Arc<Journals>,
    /// Draining and stopping.
    pub lifecycle: Arc<Lifecycle>,
}

impl RoomContext {
    /// Hands a finished game's record to the durable outbox without blocking the room; once it
    /// is there, the game's journal is deleted. Should that fail, the journal stays and the next
    /// start hands the record over again.
    pub fn keep_record(&self, record: GameRecord) {
        let context = self.clone();
        tokio::spawn(async move {
            let _guard = context.lifecycle.submitting();
            let id = record.id;
            match context.outbox.submit(record).await {
                Ok(()) => {
                    tracing::info!(room_id = %id, "game record in the outbox");
                    context.journals.remove(id);
                }
                Err(error) => {
                    tracing::error!(room_id = %id, %error, "cannot put the game record in the outbox; its journal keeps it for the next start");
                }
            }
        });
    }
}

/// Opens a room: spawns its task and registers it.
pub fn open(setup: RoomSetup, context: RoomContext) -> RoomHandle {
    open_room(setup, None, context)
}

/// Opens a room, with the computer's seat in a computer room.
fn open_room(setup: RoomSetup, computer: Option<ComputerSeat>, context: RoomContext) -> RoomHandle {
    let (inbox, commands) = mpsc::channel(context.config.room_inbox.max(1));
    let handle = RoomHandle {
        id: setup.id,
        inbox,
    };
    // Every room opens waiting; `start` tells the registry when its game starts.
    context.registry.insert(handle.clone(), true);
    let room = task::build(setup, computer, context);
    task::launch(room, commands);
    handle
}
