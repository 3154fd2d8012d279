//! Sustained finished-game writes per second into PostgreSQL or the embedded SQLite store, one
//! at a time and in batches.
//!
//! ```text
//! cargo run --release -p aeroplane-store --example write_bench -- \
//!     postgres://postgres@127.0.0.1:5432/postgres [games] [batch size]
//! cargo run --release -p aeroplane-store --example write_bench -- sqlite [games] [batch size]
//! ```
//!
//! With a PostgreSQL URL it creates a scratch database next to the one the URL names and drops
//! it again at the end; with `sqlite` it writes a SQLite file in a temporary directory, as the
//! server's default store does in its data directory. It writes `games` (default 20,000)
//! records of real played games (each a whole game's action log, distinct ids). Records are
//! made before the clock starts.
#![allow(unreachable_pub, missing_docs)]

#[path = "../tests/store/support/game.rs"]
mod game;

use std::time::Instant;

use aeroplane_protocol::record::GameRecord;
use aeroplane_store::{GameStore, PostgresStore, SqliteStore};
use sqlx::{Connection, PgConnection};

use game::{Ending, play};

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let admin_url = args
        .next()
        .or_else(|| std::env::var("TEST_DATABASE_URL").ok())
        .expect("usage: write_bench <postgres url | sqlite> [games] [batch size]");
    let games: usize = args
        .next()
        .map_or(20_000, |n| n.parse().expect("a number of games"));
    let batch: usize = args
        .next()
        .map_or(100, |n| n.parse().expect("a batch size"));

    // Distinct real games, most played to the finish; the written records reuse their logs
    // under fresh ids.
    let played: Vec<GameRecord> = (0..200)
        .map(|seed| match seed % 10 {
            0 => play(seed, Ending::Resigns(aeroplane_rules::Colour::Yellow, 150)),
            1 => play(seed, Ending::Agreed(200)),
            _ => play(seed, Ending::Finished),
        })
        .collect();
    let records: Vec<GameRecord> = (0..games)
        .map(|n| {
            let mut record = played[n % played.len()].clone();
            record.id = uuid::Uuid::new_v4();
            record.ended_at += time::Duration::milliseconds(n as i64);
            record
        })
        .collect();
    let actions = played
        .iter()
        .map(|record| record.actions.len())
        .sum::<usize>()
        / played.len();
    let bytes = played
        .iter()
        .map(|record| serde_json::to_vec(record).unwrap().len())
        .sum::<usize>()
        / played.len();
    println!("records: {games}, mean {actions} actions, mean {bytes} bytes of JSON each");

    if admin_url == "sqlite" {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = SqliteStore::open_file(&dir.path().join("games.sqlite3"))
            .await
            .expect("the store opens");
        measure(&store, &records, batch).await;
        store.close().await;
        return;
    }
    let name = format!("aeroplane_bench_{}", uuid::Uuid::new_v4().simple());
    let mut admin = PgConnection::connect(&admin_url)
        .await
        .expect("the URL connects");
    sqlx::query(&format!("create database {name}"))
        .execute(&mut admin)
        .await
        .unwrap();
    let url = match admin_url.rsplit_once('/') {
        Some((base, _)) => format!("{base}/{name}"),
        None => panic!("the URL names a database"),
    };
    let store = PostgresStore::connect(&url).await.expect("the store opens");
    measure(&store, &records, batch).await;
    store.close().await;
    sqlx::query(&format!("drop database {name} with (force)"))
        .execute(&mut admin)
        .await
        .unwrap();
}

/// Writes the records: a tenth (at most 2,000) one at a time, the rest in batches, then the
/// batches again (all stored already), reporting games per second for each.
async fn measure(store: &dyn GameStore, records: &[GameRecord], batch: usize) {
    let games = records.len();
    // One at a time, as a single room would: a tenth of the records, at most 2,000.
    let single = (games / 10).clamp(1, 2_000);
    let started = Instant::now();
    for record in &records[..single] {
        store.save(record).await.unwrap();
    }
    report("one at a time, 1 writer", single, started);

    // Batches from one writer, as the outbox sends them.
    let rest = &records[single..];
    let started = Instant::now();
    for chunk in rest.chunks(batch) {
        store.save_batch(chunk).await.unwrap();
    }
    report(
        &format!("batches of {batch}, 1 writer"),
        rest.len(),
        started,
    );

    // Duplicates cost a lookup, not a write: the whole batched set again.
    let started = Instant::now();
    for chunk in rest.chunks(batch) {
        store.save_batch(chunk).await.unwrap();
    }
    report(
        &format!("batches of {batch}, all already stored"),
        rest.len(),
        started,
    );
}

fn report(what: &str, games: usize, started: Instant) {
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{what}: {games} games in {seconds:.2} s = {:.0} games/s",
        games as f64 / seconds
    );
}
