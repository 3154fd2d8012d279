//! A store that can be switched off, to play a database outage.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use aeroplane_protocol::record::GameRecord;
use aeroplane_store::{GameQuery, GameStore, Saved, StoreError};
use futures_util::future::{BoxFuture, FutureExt};
use uuid::Uuid;

/// Wraps a real store. While off, every call fails as unavailable; while `hang` is set, saves
/// never answer. A record whose Red player is named [`POISON`] is rejected for good.
pub struct Switch {
    inner: Arc<dyn GameStore>,
    up: AtomicBool,
    hang: AtomicBool,
    /// Save calls that reached the inner store.
    pub attempts: AtomicUsize,
    /// Save calls refused while off.
    pub refused: AtomicUsize,
    /// Records the inner store answered `Inserted` for.
    pub inserted: AtomicUsize,
}

/// The name that makes [`Switch`] reject a record.
pub const POISON: &str = "poison";

impl Switch {
    pub fn new(inner: Arc<dyn GameStore>, up: bool) -> Arc<Switch> {
        Arc::new(Switch {
            inner,
            up: AtomicBool::new(up),
            hang: AtomicBool::new(false),
            attempts: AtomicUsize::new(0),
            refused: AtomicUsize::new(0),
            inserted: AtomicUsize::new(0),
        })
    }

    pub fn set_up(&self, up: bool) {
        self.up.store(up, Ordering::SeqCst);
    }

    pub fn set_hang(&self, hang: bool) {
        self.hang.store(hang, Ordering::SeqCst);
    }

    fn check(&self) -> Result<(), StoreError> {
        if self.up.load(Ordering::SeqCst) {
            Ok(())
        } else {
            self.refused.fetch_add(1, Ordering::SeqCst);
            Err(StoreError::Unavailable("switched off".into()))
        }
    }
}

impl GameStore for Switch {
    fn save<'a>(&'a self, record: &'a GameRecord) -> BoxFuture<'a, Result<Saved, StoreError>> {
        self.save_batch(std::slice::from_ref(record))
            .map(|saved| saved.map(|saved| saved[0]))
            .boxed()
    }

    fn save_batch<'a>(
        &'a self,
        records: &'a [GameRecord],
    ) -> BoxFuture<'a, Result<Vec<Saved>, StoreError>> {
        async move {
            if self.hang.load(Ordering::SeqCst) {
                futures_util::future::pending::<()>().await;
            }
            self.check()?;
            if records
                .iter()
                .any(|record| record.players.red.name == POISON)
            {
                return Err(StoreError::Rejected("poisoned".into()));
            }
            self.attempts.fetch_add(1, Ordering::SeqCst);
            let saved = self.inner.save_batch(records).await?;
            let inserted = saved
                .iter()
                .filter(|saved| **saved == Saved::Inserted)
                .count();
            self.inserted.fetch_add(inserted, Ordering::SeqCst);
            Ok(saved)
        }
        .boxed()
    }

    fn get(&self, id: Uuid) -> BoxFuture<'_, Result<Option<GameRecord>, StoreError>> {
        self.inner.get(id)
    }

    fn list<'a>(
        &'a self,
        query: &'a GameQuery,
    ) -> BoxFuture<'a, Result<Vec<GameRecord>, StoreError>> {
        self.inner.list(query)
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        async move { self.check() }.boxed()
    }
    fn create_player<'a>(
        &'a self,
        player: &'a aeroplane_store::NewPlayer,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.inner.create_player(player)
    }

    fn player(
        &self,
        id: Uuid,
    ) -> BoxFuture<'_, Result<Option<aeroplane_store::StoredPlayer>, StoreError>> {
        self.inner.player(id)
    }

    fn rename_player<'a>(
        &'a self,
        id: Uuid,
        name: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.inner.rename_player(id, name)
    }

    fn leaderboard(
        &self,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<aeroplane_store::StoredPlayer>, StoreError>> {
        self.inner.leaderboard(limit)
    }
}
