//! A room is a tokio task that owns one game and reads an inbox.
//!
//! Connections and HTTP handlers never touch a room's state: they send it a [`RoomCommand`] and,
//! where they need an answer, wait on a oneshot. So there is no lock around a game, and a room
//! only ever waits on its own inbox and its own timers (seat grace periods, the turn clock,
//! retirement).
//!
//! The room is made of owned parts, each in its own file:
//!
//! - [`handle`]: how the rest of the server reaches a room; [`inbox`]: the channel it
//!   reads, one cache line per send; [`registry`]: the open rooms.
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
//! - [`journal`]: the room's journal behind a small interface, and restoring rooms from it;
//!   `rejournal.rs`: nudging quiet rooms whose journals their store wants rewritten.
//! - `task.rs`: building a room, the loop and its timers, and [`open`]'s one way of starting
//!   a room, new or restored.

mod assist;
mod bot;
mod clock;
mod core;
pub mod handle;
pub mod inbox;
mod join;
pub mod journal;
mod parts;
mod play;
mod record;
pub mod registry;
mod rejournal;
mod restore;
mod setup;
mod sizes;
mod social;
mod task;

pub use bot::{bot_conn, is_bot_conn};
pub use handle::{ConnId, RoomCommand, RoomHandle, StatusError};
pub use journal::{FileJournals, JournalStore, RoomJournal};
pub use registry::{PlayerSeat, Registry};
pub use rejournal::nudge_periodically;
pub use restore::{restore_all, restore_one};
pub use setup::{ComputerSeat, RoomContext, RoomSetup, SeatSetup};
pub use task::{NotJournaled, open, open_journaled};
