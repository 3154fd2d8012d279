//! Fresh stores for one test: SQLite always, PostgreSQL whenever `TEST_DATABASE_URL` is set.
//!
//! Each PostgreSQL test gets its own database with a random name, dropped when the test ends.
//! Without `TEST_DATABASE_URL` the PostgreSQL tests print a loud skip line and pass, except
//! under `CI`, where they fail: CI must never skip them silently.

pub(crate) use aeroplane_store::testing::TestDatabase;

/// Which store a test runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StoreKind {
    /// The embedded SQLite file in the server's data directory (the default store).
    Sqlite,
    /// A fresh PostgreSQL database.
    Postgres,
}
