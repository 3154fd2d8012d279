//! A room is a tokio task that owns one game and reads an inbox.
//!
//! Connections and HTTP handlers never touch a room's state: they send it a [`RoomCommand`] and,
//! where they need an answer, wait on a oneshot. So there is no lock around a game, and a room
//! only ever waits on its own inbox and its own timers (seat grace periods, the turn clock,
//! retirement).
//!
//! The room is made of owned parts, each in its own file:
//!
//! - [`handle`]: how the rest of the server reaches a room; [`registry`]: the open rooms.
//! - `core.rs`: the room's struct, its snapshot and status, and `publish`, the one way its
//!   events go out (journaled, then sent).
//! - `seats.rs`: who sits where, keyed by colour, and the connections.
//! - `timeline.rs`: the game, the dice, the action log and the event numbers; the only mutator
//!   of the game, and the stale rule.
//! - `clock.rs`: the turn clock. `assist.rs`: hints and undo (computer and local rooms).
//!   `social.rs`: quick messages and the rematch (online rooms).
//! - `play.rs`: routing a client's message and game actions; `join.rs`: joining, the start of
//!   the game, leaving; `record.rs`: the finished game's record.
//! - `bot.rs`: the computer player, a task that holds its seat like a connection would.
//! - [`journal`]: the room's journal behind a small interface, and restoring rooms from it.
//! - `task.rs`: building a room, the loop and its timers, and [`open`]'s one way of starting
//!   a room, new or restored.

mod assist;
mod bot;
mod clock;
mod core;
pub mod handle;
mod join;
pub mod journal;
mod play;
mod record;
pub mod registry;
mod seats;
mod social;
mod task;
mod timeline;

use std::sync::Arc;

use aeroplane_dice::{ClientSeed, ServerSeed};
use aeroplane_protocol::name::PlayerName;
use aeroplane_protocol::record::{GameRecord, Mode};
use aeroplane_rules::Colour;
use aeroplane_store::{GameStore, OutboxHandle};

use crate::config::Config;
use crate::lifecycle::Lifecycle;
use crate::token::SeatToken;

pub use bot::{BOT_CONN, ComputerSeat};
pub use handle::{ConnId, RoomCommand, RoomHandle};
pub use journal::{JournalStore, RoomJournal};
pub use registry::Registry;
pub use task::open;

/// A seat taken before the room opens (quick match, rematch, the computer's seat).
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
    pub id: uuid::Uuid,
    /// The kind of room.
    pub mode: Mode,
    /// The secret dice seed.
    pub server_seed: ServerSeed,
    /// Seats taken in advance (in a computer room, the computer's among them).
    pub seats: Vec<SeatSetup>,
    /// The turn clock: how long each decision may take (`None`: no clock).
    pub turn_clock: Option<std::time::Duration>,
    /// The computer's seat, in a computer room; its bot starts with the room.
    pub computer: Option<ComputerSeat>,
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
    /// Where the rooms' journals are kept.
    pub journals: Arc<dyn JournalStore>,
    /// Draining and stopping.
    pub lifecycle: Arc<Lifecycle>,
}

impl RoomContext {
    /// Hands a finished game's record to the durable outbox without blocking the room; once it
    /// is there, the game's journal is deleted. Should that fail, the journal stays and the next
    /// start hands the record over again.
    pub(crate) fn keep_record(&self, record: GameRecord, journal: Option<Box<dyn RoomJournal>>) {
        let context = self.clone();
        let submitting = context.lifecycle.submitting();
        tokio::spawn(async move {
            let _submitting = submitting;
            let id = record.id;
            match context.outbox.submit(record).await {
                Ok(()) => {
                    tracing::info!(room_id = %id, "game record in the outbox");
                    if let Some(journal) = journal
                        && let Err(error) = journal.delete()
                    {
                        tracing::warn!(%error, room_id = %id, "cannot delete a journal");
                    }
                }
                Err(error) => {
                    tracing::error!(room_id = %id, %error, "cannot put the game record in the outbox; its journal keeps it for the next start");
                }
            }
        });
    }
}
