//! Where finished games live.
//!
//! The server hands every finished game's [`GameRecord`] to a [`GameStore`]. The trait is small on
//! purpose: rooms only ever save, the HTTP API only reads. Implementations: [`MemoryStore`] (tests
//! and a store of last resort); the database stores and the durable outbox arrive with issue 4.
#![forbid(unsafe_code)]

mod memory;

use aeroplane_protocol::record::GameRecord;
use futures_util::future::BoxFuture;
use uuid::Uuid;

pub use memory::MemoryStore;

/// Why a store operation failed. Details are for the log, never for clients.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached or refused the operation.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// A stored record could not be read back.
    #[error("stored record is corrupt: {0}")]
    Corrupt(String),
}

/// What saving a record did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saved {
    /// The record was new and is now stored.
    Inserted,
    /// A record with this id was already stored; nothing was written (saves are idempotent).
    AlreadyStored,
}

/// A filter for listing finished games, newest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameQuery {
    /// Only games in which a player of this name sat.
    pub player: Option<String>,
    /// Only games with this result: `red`, `yellow` (the winner) or `draw`.
    pub result: Option<String>,
    /// At most this many games.
    pub limit: u32,
    /// Only games that ended before this cursor (from the previous page).
    pub before: Option<String>,
}

/// Keeps finished games. Saving is idempotent: the game id is the key.
pub trait GameStore: Send + Sync + 'static {
    /// Stores `record` unless a record with its id is already stored.
    fn save<'a>(&'a self, record: &'a GameRecord) -> BoxFuture<'a, Result<Saved, StoreError>>;

    /// The record with this id, if stored.
    fn get(&self, id: Uuid) -> BoxFuture<'_, Result<Option<GameRecord>, StoreError>>;

    /// Finished games matching `query`, newest first.
    fn list<'a>(&'a self, query: &'a GameQuery) -> BoxFuture<'a, Result<Vec<GameRecord>, StoreError>>;
}
