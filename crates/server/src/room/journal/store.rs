//! The journal's interface: a store of journals, and one room's journal.

use std::fmt::Debug;
use std::io;

use futures_util::future::BoxFuture;
use uuid::Uuid;

use super::format::Line;

/// Where rooms' journals are kept: the file directory today, a broker's streams tomorrow.
pub trait JournalStore: Send + Sync + Debug {
    /// Starts the journal of room `id` with `entries`, replacing any journal of that id as one
    /// step (a reader never sees half of it).
    fn create(&self, id: Uuid, entries: &[Line]) -> io::Result<Box<dyn RoomJournal>>;

    /// Every journal a previous run left, read up to its first unreadable entry (a torn write).
    fn load_all(&self) -> Vec<Loaded>;

    /// Forces what was written since the last sync to durable storage (`all`: everything).
    fn sync(&self, all: bool) -> BoxFuture<'_, ()>;
}

/// One room's journal, owned by the room (and, once its game is over, by the task that puts
/// the game's record in the outbox).
pub trait RoomJournal: Send + Debug {
    /// Adds entries at the end.
    fn append(&mut self, entries: &[Line]) -> io::Result<()>;

    /// Replaces every entry with `entries`, as one step.
    fn rewrite(&mut self, entries: &[Line]) -> io::Result<()>;

    /// Deletes the journal (its game is in the outbox, or it closed unplayed).
    fn delete(self: Box<Self>) -> io::Result<()>;

    /// Keeps the journal out of the way of every later start (it cannot be restored), where an
    /// operator can still read it.
    fn set_aside(self: Box<Self>) -> io::Result<()>;
}

/// A journal found at start.
#[derive(Debug)]
pub struct Loaded {
    /// Where it was found, for the logs.
    pub name: String,
    /// Its entries, or why they cannot be read.
    pub entries: io::Result<Vec<Line>>,
    /// The journal, to go on writing it or to set it aside.
    pub journal: Box<dyn RoomJournal>,
}
