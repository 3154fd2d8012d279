//! A store that keeps records in memory: for tests and for running without any database.
//!
//! It keeps the records as the databases would give them back (times in UTC, to the
//! microsecond) and answers lists with the same filters, order and cursor.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Mutex;

use aeroplane_protocol::record::GameRecord;
use futures_util::future::{BoxFuture, FutureExt};
use uuid::Uuid;

use crate::query::stored_time;
use crate::{Cursor, GameQuery, GameStore, Saved, StoreError};

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
        // The same records as the databases are refused, so the stores stay interchangeable.
        if let Err(error) = crate::row::check_storable(record) {
            return futures_util::future::ready(Err(error)).boxed();
        }
        let mut records = self.records.lock().expect("store lock poisoned");
        let saved = match records.entry(record.id) {
            Entry::Occupied(_) => Saved::AlreadyStored,
            Entry::Vacant(vacant) => {
                vacant.insert(stored_form(record));
                Saved::Inserted
            }
        };
        futures_util::future::ready(Ok(saved)).boxed()
    }

    fn get(&self, id: Uuid) -> BoxFuture<'_, Result<Option<GameRecord>, StoreError>> {
        let record = self
            .records
            .lock()
            .expect("store lock poisoned")
            .get(&id)
            .cloned();
        futures_util::future::ready(Ok(record)).boxed()
    }

    fn list<'a>(
        &'a self,
        query: &'a GameQuery,
    ) -> BoxFuture<'a, Result<Vec<GameRecord>, StoreError>> {
        let found = query.validate().map(|query| {
            let records = self.records.lock().expect("store lock poisoned");
            let mut found: Vec<GameRecord> = records
                .values()
                .filter(|record| query.matches(record))
                .cloned()
                .collect();
            found.sort_by_key(|record| std::cmp::Reverse(Cursor::after(record)));
            found.truncate(query.limit as usize);
            found
        });
        futures_util::future::ready(found).boxed()
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        futures_util::future::ready(Ok(())).boxed()
    }
}

/// The record as the databases give it back: times in UTC, to the microsecond.
fn stored_form(record: &GameRecord) -> GameRecord {
    GameRecord {
        created_at: stored_time(record.created_at),
        started_at: stored_time(record.started_at),
        ended_at: stored_time(record.ended_at),
        ..record.clone()
    }
}
