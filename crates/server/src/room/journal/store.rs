//! The journal's interface: a store of journals, and one room's journal.
//!
//! Every operation is asynchronous, so that a store on a message broker can wait for the
//! broker's acknowledgement of an append before the room sends the events it holds (the file
//! store's writes are copies that finish at once, so it also appends at once, through
//! `RoomJournal::append_now`, without a future). The room awaits its journal at one place,
//! after each command and before the command's events go out (`room/core.rs`, `Room::flush`).

use std::fmt::Debug;
use std::io;

use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::format::Line;

/// Where rooms' journals are kept: files in a directory, or a JetStream stream.
pub trait JournalStore: Send + Sync + Debug {
    /// Starts the journal of room `id` with `entries`, replacing any journal of that id as one
    /// step (a reader never sees half of it).
    fn create<'a>(
        &'a self,
        id: Uuid,
        entries: &'a [Line],
    ) -> BoxFuture<'a, io::Result<Box<dyn RoomJournal>>>;

    /// Every journal a previous run left, read up to its first unreadable entry (a torn write).
    fn load_all(&self) -> BoxFuture<'_, Vec<Loaded>>;

    /// Forces what was written since the last sync to durable storage (`all`: everything).
    fn sync(&self, all: bool) -> BoxFuture<'_, ()>;

    /// The rooms whose journals should be rewritten soon (in the file store's log, those begun
    /// in an old segment), so that a room which writes nothing by itself can be nudged to
    /// (`room/rejournal.rs`); none by default.
    fn wanting_rewrite(&self) -> Vec<Uuid> {
        Vec::new()
    }
}

/// One room's journal, owned by the room (and, once its game is over, by the task that puts
/// the game's record in the outbox).
pub trait RoomJournal: Send + Debug {
    /// Adds entries at the end.
    fn append<'a>(&'a mut self, entries: &'a [Line]) -> BoxFuture<'a, io::Result<()>>;

    /// Adds entries at the end at once, for a store whose appends never wait (the file
    /// store's): what [`RoomJournal::append`] would finish with, without boxing a future for
    /// it; `None` from a store whose appends wait (the caller awaits `append` instead). The
    /// room appends at every action, and the boxed future was an allocation and a free each
    /// time (issue 18).
    fn append_now(&mut self, _entries: &[Line]) -> Option<io::Result<()>> {
        None
    }

    /// Replaces every entry with `entries`, as one step.
    fn rewrite<'a>(&'a mut self, entries: &'a [Line]) -> BoxFuture<'a, io::Result<()>>;

    /// Deletes the journal (its game is in the outbox, or it closed unplayed).
    fn delete(self: Box<Self>) -> BoxFuture<'static, io::Result<()>>;

    /// Keeps the journal out of the way of every later start (it cannot be restored), where an
    /// operator can still read it.
    fn set_aside(self: Box<Self>) -> BoxFuture<'static, io::Result<()>>;

    /// Whether the next write should rewrite the journal whole instead of appending to it (the
    /// file store's log asks so of a journal begun in an old segment, to let that segment go);
    /// never by default.
    fn wants_rewrite(&self) -> bool {
        false
    }

    /// Cancelled once this process may no longer write the journal (another node owns the room
    /// now); `None` for a store whose journals cannot be taken away (files).
    fn revoked(&self) -> Option<CancellationToken> {
        None
    }
}

/// Why a journal refuses a write: another owner has the room now (this process lost its lease,
/// or a newer writer appended since). Carried inside the `io::Error` of the refused operation;
/// the room stops acting for the room when it sees it ([`is_revoked`]).
#[derive(Debug, thiserror::Error)]
#[error("the journal has another owner now: {0}")]
pub struct Revoked(pub String);

/// Why a journal cannot say whether a write was kept: the store must acknowledge every write
/// before the room sends its events, and this one got no acknowledgement (its broker was
/// unreachable past the client's timeout, or its stream had no leader for too long). The write
/// may or may not be stored. Carried inside the `io::Error` of the failed operation; the room
/// stops acting for the room when it sees it, as for [`Revoked`] (see [`Failure::of`]).
#[derive(Debug, thiserror::Error)]
#[error("the journal did not acknowledge a write: {0}")]
pub struct Unacknowledged(pub String);

/// Whether a journal error says that another owner has the room now.
pub fn is_revoked(error: &io::Error) -> bool {
    error.get_ref().is_some_and(|inner| inner.is::<Revoked>())
}

/// What a failed journal write means for the room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Another owner has the room now ([`Revoked`]): the room must stop, sending nothing.
    Fenced,
    /// The store could not acknowledge the write ([`Unacknowledged`]): nothing of it may be
    /// sent, so the room stops too, and a node that reaches the store takes it over from what
    /// was journaled.
    Unacknowledged,
    /// Any other failure (a file store's disk error): logged and counted; the game goes on and
    /// the next write sends what is missing.
    Other,
}

impl Failure {
    /// What `error`, from a journal operation, means for the room.
    pub fn of(error: &io::Error) -> Failure {
        match error.get_ref() {
            Some(inner) if inner.is::<Revoked>() => Failure::Fenced,
            Some(inner) if inner.is::<Unacknowledged>() => Failure::Unacknowledged,
            _ => Failure::Other,
        }
    }
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
