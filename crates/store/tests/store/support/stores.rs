//! A fresh store of each kind for one test.
//!
//! PostgreSQL tests run when `TEST_DATABASE_URL` names a server whose user may create databases
//! (e.g. `postgres://postgres@127.0.0.1:5432/postgres`): each test gets its own database with a
//! random name, dropped when the test ends. Without the variable they print a loud skip line and
//! pass, except under `CI`, where they fail: CI must never skip them silently.

use std::sync::Arc;

pub use aeroplane_store::testing::{TestDatabase, postgres_url};
use aeroplane_store::{GameStore, MemoryStore, PostgresStore};
use tempfile::TempDir;

/// A store and whatever keeps its database alive until the test ends.
pub struct TestStore {
    pub store: Arc<dyn GameStore>,
    _dir: Option<TempDir>,
    _database: Option<TestDatabase>,
}

pub fn memory() -> TestStore {
    TestStore {
        store: Arc::new(MemoryStore::new()),
        _dir: None,
        _database: None,
    }
}

pub async fn sqlite() -> TestStore {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = aeroplane_store::open(None, dir.path())
        .await
        .expect("the SQLite store opens");
    assert!(dir.path().join(aeroplane_store::SQLITE_FILE_NAME).is_file());
    TestStore {
        store,
        _dir: Some(dir),
        _database: None,
    }
}

/// A fresh PostgreSQL database with the store's migrations applied, or `None` (after saying so
/// loudly) when `TEST_DATABASE_URL` is unset outside CI.
pub async fn postgres() -> Option<TestStore> {
    let admin_url = postgres_url()?;
    let database = TestDatabase::create(&admin_url).await;
    let store = PostgresStore::connect(&database.url)
        .await
        .expect("the PostgreSQL store opens");
    Some(TestStore {
        store: Arc::new(store),
        _dir: None,
        _database: Some(database),
    })
}
