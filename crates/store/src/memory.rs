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

use crate::players::{changes, rated_pair};
use crate::query::{leaderboard_limit, stored_time};
use crate::rating::{Rating, Standing};
use crate::{Cursor, GameQuery, GameStore, NewPlayer, Saved, StoreError, StoredPlayer};

/// Records and players in maps, lost when the process ends.
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Mutex<HashMap<Uuid, GameRecord>>,
    /// Locked after `records` whenever both are held.
    players: Mutex<HashMap<Uuid, StoredPlayer>>,
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
                let stored = vacant.insert(stored_form(record));
                let mut players = self.players.lock().expect("store lock poisoned");
                update_players(&mut players, stored);
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

    fn create_player<'a>(&'a self, player: &'a NewPlayer) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut players = self.players.lock().expect("store lock poisoned");
        let created = match players.entry(player.id) {
            Entry::Occupied(_) => Err(StoreError::Rejected(format!(
                "player {} exists already",
                player.id
            ))),
            Entry::Vacant(vacant) => {
                vacant.insert(StoredPlayer {
                    id: player.id,
                    name: player.name.clone(),
                    secret_hash: player.secret_hash,
                    created_at: stored_time(player.created_at),
                    standing: Standing {
                        rating: Rating::START,
                        rated_at: None,
                    },
                    rated_games: 0,
                    games: 0,
                    wins: 0,
                    losses: 0,
                    draws: 0,
                });
                Ok(())
            }
        };
        futures_util::future::ready(created).boxed()
    }

    fn player(&self, id: Uuid) -> BoxFuture<'_, Result<Option<StoredPlayer>, StoreError>> {
        let player = self
            .players
            .lock()
            .expect("store lock poisoned")
            .get(&id)
            .cloned();
        futures_util::future::ready(Ok(player)).boxed()
    }

    fn rename_player<'a>(
        &'a self,
        id: Uuid,
        name: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut players = self.players.lock().expect("store lock poisoned");
        let renamed = players
            .get_mut(&id)
            .map(|player| player.name = name.to_owned());
        futures_util::future::ready(Ok(renamed.is_some())).boxed()
    }

    fn leaderboard(&self, limit: u32) -> BoxFuture<'_, Result<Vec<StoredPlayer>, StoreError>> {
        let found = leaderboard_limit(limit).map(|limit| {
            let players = self.players.lock().expect("store lock poisoned");
            let mut rated: Vec<StoredPlayer> = players
                .values()
                .filter(|player| player.rated_games > 0)
                .cloned()
                .collect();
            rated.sort_by(|a, b| {
                b.standing
                    .rating
                    .rating
                    .total_cmp(&a.standing.rating.rating)
                    .then(a.id.cmp(&b.id))
            });
            rated.truncate(limit as usize);
            rated
        });
        futures_util::future::ready(found).boxed()
    }
}

/// Applies what storing `record` changes for its players, as the databases do.
fn update_players(players: &mut HashMap<Uuid, StoredPlayer>, record: &GameRecord) {
    let standings = rated_pair(record).and_then(|(red, yellow)| {
        let standing = |id| {
            players
                .get(&id)
                .map(|player: &StoredPlayer| player.standing)
        };
        standing(red).zip(standing(yellow))
    });
    for change in changes(record, standings) {
        let Some(player) = players.get_mut(&change.id) else {
            continue;
        };
        let add = |count: &mut u64, delta: i64| *count += u64::try_from(delta).unwrap_or(0);
        player.games += 1;
        add(&mut player.wins, change.wins);
        add(&mut player.losses, change.losses);
        add(&mut player.draws, change.draws);
        if let Some((rating, at)) = change.rated {
            player.standing = Standing {
                rating,
                rated_at: Some(at),
            };
            player.rated_games += 1;
        }
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
