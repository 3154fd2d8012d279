//! Where finished games live.
//!
//! The server hands every finished game's [`GameRecord`] to an [`Outbox`], which writes it to
//! local disk at once and then, in the background, to a [`GameStore`]. The trait is small on
//! purpose: rooms only ever save (through the outbox), the HTTP API only reads.
//!
//! # Which store when
//!
//! [`open`] picks one from `DATABASE_URL`:
//!
//! - `postgres://` or `postgresql://`: [`PostgresStore`], the deployment store. Its migrations
//!   (`migrations/postgres/`) are applied on open, which fails if the database is down;
//!   [`PostgresStore::connect_lazy`] instead connects (and migrates) on first use, so a server
//!   can start while its database is down and let the outbox hold the games.
//! - unset: [`SqliteStore`] in the file `<data_dir>/games.sqlite3` (created if missing, WAL
//!   journal, migrations from `migrations/sqlite/` applied on open), so a fresh machine needs no
//!   database server. `sqlite://` URLs are accepted too.
//! - [`MemoryStore`]: for tests; everything is lost when the process ends.
//!
//! All three behave alike: the same idempotent save, the same list order, filters and cursor.
//! Times come back in UTC, to the microsecond (what PostgreSQL keeps).
//!
//! # Why the SQL is checked by tests, not by `query!`
//!
//! sqlx's `query!` macros check SQL against a live database at compile time, or against `.sqlx/`
//! offline data prepared from one. We speak to two databases, so that would need two prepared
//! data sets kept in step and a database (or a stale cache) on every machine that compiles. We
//! use runtime `sqlx::query` with plain lowercase SQL instead, kept in one module per database
//! ([`postgres`](PostgresStore), [`sqlite`](SqliteStore)), and the contract suite in
//! `tests/store` executes every statement and every filter combination against both real
//! databases (PostgreSQL whenever `TEST_DATABASE_URL` is set, and always in CI). A typo in SQL
//! fails a test, not a build; a column that changes type fails the round-trip test.
//!
//! # The list cursor
//!
//! [`Cursor`] is opaque to clients. Today it reads `<ended_at as Unix microseconds>_<id as 32 hex
//! digits>`, taken from the last game of a page; the next page holds the games strictly older in
//! the order `(ended_at desc, id desc)`, so pages never overlap or leave gaps, even while new
//! games arrive. A string that does not parse is [`StoreError::BadCursor`].
#![forbid(unsafe_code)]

#[cfg(target_os = "linux")]
pub mod disk;
mod memory;
mod outbox;
mod players;
mod postgres;
pub mod private;
mod query;
pub mod rating;
mod row;
mod sqlite;
#[cfg(feature = "testing")]
pub mod testing;

use std::path::Path;
use std::sync::Arc;

use aeroplane_protocol::record::GameRecord;
use futures_util::future::{BoxFuture, FutureExt};
use uuid::Uuid;

pub use memory::MemoryStore;
pub use outbox::{Outbox, OutboxError, OutboxHandle, OutboxOptions, REJECTED_METRIC, Settled};
pub use players::{NewPlayer, StoredPlayer};
pub use postgres::PostgresStore;
pub use private::{DataDirError, prepare_data_dir};
pub use query::{Cursor, DEFAULT_LIMIT, MAX_LIMIT};
pub use sqlite::SqliteStore;

/// The file name of the embedded store inside the data directory.
pub const SQLITE_FILE_NAME: &str = "games.sqlite3";

/// Why a store operation failed. Details are for the log, never for clients, except the
/// messages of [`BadQuery`](StoreError::BadQuery) and [`BadCursor`](StoreError::BadCursor),
/// which describe the caller's own input.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached or refused the operation; trying again may help.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// A stored record could not be read back.
    #[error("stored record is corrupt: {0}")]
    Corrupt(String),
    /// The database refused this record for good (a constraint or a value it cannot hold);
    /// trying again will not help.
    #[error("store rejected the record: {0}")]
    Rejected(String),
    /// A list query asked for something invalid: a limit outside `1..=100`, an unknown result or
    /// edition, or a player count outside `2..=4`.
    #[error("bad query: {0}")]
    BadQuery(String),
    /// A list query's `before` is not a cursor this store handed out.
    #[error("bad cursor: not a cursor from a previous page")]
    BadCursor,
    /// The store could not be opened as configured (for example an unsupported `DATABASE_URL`).
    #[error("store configuration: {0}")]
    Config(String),
}

/// What saving a record did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saved {
    /// The record was new and is now stored.
    Inserted,
    /// A record with this id was already stored; nothing was written (saves are idempotent).
    AlreadyStored,
}

/// A filter for listing finished games, newest first (by `ended_at`, then by id).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameQuery {
    /// Only games in which a player of exactly this name sat, in any seat.
    pub player: Option<String>,
    /// Only games in which the identified player with this id sat, in any seat.
    pub player_id: Option<Uuid>,
    /// Only games with this result: `red`, `green`, `yellow`, `blue` (the winner) or `draw`.
    pub result: Option<String>,
    /// Only games of this edition: `plyyard`, `flights` or `classic` (whatever house rules
    /// were on); anything else is [`StoreError::BadQuery`].
    pub ruleset: Option<String>,
    /// Only games of this many players, `2..=4`; anything else is [`StoreError::BadQuery`].
    pub players: Option<u32>,
    /// At most this many games, `1..=`[`MAX_LIMIT`]; `0` means [`DEFAULT_LIMIT`]. The store
    /// validates it ([`StoreError::BadQuery`]), so the API may pass the client's value through.
    pub limit: u32,
    /// Only games after this cursor in list order: the [`Cursor`] of the previous page's last
    /// game ([`Cursor::after`]).
    pub before: Option<String>,
}

/// The most players a leaderboard query may ask for.
pub const MAX_LEADERBOARD: u32 = 200;

/// Keeps finished games and the players who played them. Saving is idempotent: the game id is
/// the key.
///
/// Saving a game also updates its identified players (`players.*.player_id`, any of the four
/// seats), in the same transaction as the insert and only when the insert inserted: each counts
/// one more game and its result (in a game of format 2, first place is a win, any other place a
/// loss, no place a draw), and a `rated` two-player `plyyard` game between two different players
/// updates both ratings ([`rating::rate_game`]); no other game rates anyone. A record handed
/// over twice (a replayed outbox) changes nothing the second time. A seat naming a player the
/// store does not know changes nothing for it.
///
/// Records of both formats are kept: [`get`](GameStore::get) and [`list`](GameStore::list)
/// give a two-player `plyyard` game back as format 1 and every other game as format 2, exactly
/// as saved.
pub trait GameStore: Send + Sync + 'static {
    /// Stores `record` unless a record with its id is already stored.
    fn save<'a>(&'a self, record: &'a GameRecord) -> BoxFuture<'a, Result<Saved, StoreError>>;

    /// Stores several records, each unless already stored, returning what happened to each in
    /// order. Databases do it in one round trip; the default saves one at a time.
    fn save_batch<'a>(
        &'a self,
        records: &'a [GameRecord],
    ) -> BoxFuture<'a, Result<Vec<Saved>, StoreError>> {
        async move {
            let mut saved = Vec::with_capacity(records.len());
            for record in records {
                saved.push(self.save(record).await?);
            }
            Ok(saved)
        }
        .boxed()
    }

    /// The record with this id, if stored.
    fn get(&self, id: Uuid) -> BoxFuture<'_, Result<Option<GameRecord>, StoreError>>;

    /// Finished games matching `query`, newest first.
    fn list<'a>(
        &'a self,
        query: &'a GameQuery,
    ) -> BoxFuture<'a, Result<Vec<GameRecord>, StoreError>>;

    /// Answers `Ok` when the store can serve requests now (the readiness check).
    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Stores a new player (rating 1500, no games). An id already stored is
    /// [`StoreError::Rejected`].
    fn create_player<'a>(&'a self, player: &'a NewPlayer) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The player with this id, if stored.
    fn player(&self, id: Uuid) -> BoxFuture<'_, Result<Option<StoredPlayer>, StoreError>>;

    /// Gives a player a new display name; false when no player has this id.
    fn rename_player<'a>(
        &'a self,
        id: Uuid,
        name: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// The players with at least one rated game, highest rating first (then by id), at most
    /// `limit` (`1..=`[`MAX_LEADERBOARD`], else [`StoreError::BadQuery`]).
    fn leaderboard(&self, limit: u32) -> BoxFuture<'_, Result<Vec<StoredPlayer>, StoreError>>;
}

/// Opens the store that `database_url` names (see the [crate docs](crate)): PostgreSQL for a
/// `postgres://` URL, SQLite for a `sqlite://` URL, and with no URL the SQLite file
/// `<data_dir>/games.sqlite3` (the directory is created if missing and made owner-only, see
/// [`prepare_data_dir`]). Migrations are applied.
pub async fn open(
    database_url: Option<&str>,
    data_dir: &Path,
) -> Result<Arc<dyn GameStore>, StoreError> {
    let url = database_url.map(str::trim).filter(|url| !url.is_empty());
    match url {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            Ok(Arc::new(PostgresStore::connect(url).await?))
        }
        Some(url) if url.starts_with("sqlite:") => Ok(Arc::new(SqliteStore::connect(url).await?)),
        Some(url) => {
            let scheme = url.split_once(':').map_or(url, |(scheme, _)| scheme);
            Err(StoreError::Config(format!(
                "DATABASE_URL has the unsupported scheme `{scheme}`: use postgres://…, \
                 sqlite://…, or leave it unset for the SQLite file in the data directory"
            )))
        }
        None => {
            // A directory the server may not write fails here, with its path and the word
            // "permission", not in SQLite with `unable to open database file`.
            prepare_data_dir(data_dir).map_err(|error| StoreError::Config(error.to_string()))?;
            let path = data_dir.join(SQLITE_FILE_NAME);
            let store = SqliteStore::open_file(&path).await?;
            // SQLite creates its file (and then its `-wal` and `-shm` files) with the process's
            // umask; the data directory is owner-only (`private`).
            prepare_data_dir(data_dir).map_err(|error| StoreError::Config(error.to_string()))?;
            Ok(Arc::new(store))
        }
    }
}
