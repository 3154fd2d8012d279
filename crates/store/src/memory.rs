//! A store that keeps records in memory: for tests and for running without any database.

use std::collections::HashMap;
use std::sync::Mutex;

use aeroplane_protocol::record::GameRecord;
use futures_util::future::{BoxFuture, FutureExt};
use uuid::Uuid;

use crate::{GameQuery, GameStore, Saved, StoreError};

/// Records in a map, lost when the process ends.
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Mutex<HashMap<Uuid, GameRecord>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// How many records are stored.
    pub fn len(&self) -> usize {
        self.records.lock().expect("store lock poisoned").len()
    }

    /// Whether no record is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl GameStore for MemoryStore {
    fn save<'a>(&'a self, record: &'a GameRecord) -> BoxFuture<'a, Result<Saved, StoreError>> {
        let mut records = self.records.lock().expect("store lock poisoned");
        let saved = if records.contains_key(&record.id) {
            Saved::AlreadyStored
        } else {
            records.insert(record.id, record.clone());
            Saved::Inserted
        };
        futures_util::future::ready(Ok(saved)).boxed()
    }

    fn get(&self, id: Uuid) -> BoxFuture<'_, Result<Option<GameRecord>, StoreError>> {
        let record = self.records.lock().expect("store lock poisoned").get(&id).cloned();
        futures_util::future::ready(Ok(record)).boxed()
    }

    fn list<'a>(&'a self, query: &'a GameQuery) -> BoxFuture<'a, Result<Vec<GameRecord>, StoreError>> {
        let records = self.records.lock().expect("store lock poisoned");
        let mut found: Vec<GameRecord> = records
            .values()
            .filter(|record| {
                query.player.as_ref().is_none_or(|name| {
                    record.players.red.name == *name || record.players.yellow.name == *name
                })
            })
            .cloned()
            .collect();
        found.sort_by(|a, b| b.ended_at.cmp(&a.ended_at).then(b.id.cmp(&a.id)));
        found.truncate(query.limit as usize);
        futures_util::future::ready(Ok(found)).boxed()
    }
}
