//! Migrations keep what earlier versions stored: a game written under the first schema (client
//! seeds as text) reads back the same after `0002_seeds_as_bytes` turned them into bytes, and
//! as a record of format 1 (rows were written before records carried a format).

use std::path::{Path, PathBuf};

use aeroplane_store::{GameStore, PostgresStore, SqliteStore};
use sqlx::migrate::Migrator;
use uuid::Uuid;

/// A directory holding only the first migration of `database` (`postgres` or `sqlite`).
fn first_migration_only(database: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let source: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "migrations",
        database,
    ]
    .iter()
    .collect();
    let first = "0001_games.sql";
    std::fs::copy(source.join(first), dir.path().join(first)).unwrap();
    dir
}

async fn old_migrator(dir: &Path) -> Migrator {
    Migrator::new(dir).await.expect("the first migration")
}

#[tokio::test]
async fn postgres_seeds_written_as_text_read_back_after_the_bytes_migration() {
    let Some(admin) = aeroplane_store::testing::postgres_url() else {
        return;
    };
    let database = aeroplane_store::testing::TestDatabase::create(&admin).await;
    let pool = sqlx::PgPool::connect(&database.url).await.unwrap();
    let old = first_migration_only("postgres");
    old_migrator(old.path()).await.run(&pool).await.unwrap();
    let id = Uuid::new_v4();
    sqlx::query(
        "insert into games (id, ruleset, mode, created_at, started_at, ended_at, \
         red_name, red_kind, yellow_name, yellow_kind, winner, reason, rolls, moves, actions, \
         scheme, commitment, server_seed, red_seed, yellow_seed) \
         values ($1, 'plyyard', 'online', now(), now(), now(), 'Ann', 'human', 'Bob', 'human', \
         'red', 'resigned', 0, 0, '[]', 'v1', 'c', 's', 'ann 飞', '')",
    )
    .bind(id)
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;

    let store = PostgresStore::connect(&database.url).await.unwrap();
    let record = store.get(id).await.unwrap().expect("the old game");
    assert_eq!(record.fairness.red_seed, "ann 飞");
    assert_eq!(record.fairness.yellow_seed, "");
    assert_eq!(
        record.format, 1,
        "a row written before records carried a format"
    );
    assert_eq!(
        (
            record.players.red.player_id,
            record.players.yellow.player_id,
            record.rated
        ),
        (None, None, false),
        "a row written before players existed has anonymous seats and is unrated (0003)"
    );
    store.close().await;
}

#[tokio::test]
async fn sqlite_seeds_written_as_text_read_back_after_the_bytes_migration() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.sqlite3");
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&path)
        .create_if_missing(true);
    let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
    let old = first_migration_only("sqlite");
    old_migrator(old.path()).await.run(&pool).await.unwrap();
    let id = Uuid::new_v4();
    sqlx::query(
        "insert into games (id, ruleset, mode, created_at, started_at, ended_at, \
         red_name, red_kind, yellow_name, yellow_kind, winner, reason, rolls, moves, actions, \
         scheme, commitment, server_seed, red_seed, yellow_seed) \
         values (?, 'plyyard', 'online', 0, 1, 2, 'Ann', 'human', 'Bob', 'human', \
         'red', 'resigned', 0, 0, '[]', 'v1', 'c', 's', 'ann 飞', '')",
    )
    .bind(id)
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;

    let store = SqliteStore::open_file(&path).await.unwrap();
    let record = store.get(id).await.unwrap().expect("the old game");
    assert_eq!(record.fairness.red_seed, "ann 飞");
    assert_eq!(record.fairness.yellow_seed, "");
    assert_eq!(
        record.format, 1,
        "a row written before records carried a format"
    );
    assert_eq!(
        (
            record.players.red.player_id,
            record.players.yellow.player_id,
            record.rated
        ),
        (None, None, false),
        "a row written before players existed has anonymous seats and is unrated (0003)"
    );
}
