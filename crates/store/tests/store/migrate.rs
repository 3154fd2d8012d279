//! Migrations keep what earlier versions stored: a game written under the first schema (client
//! seeds as text) reads back the same after `0002_seeds_as_bytes` turned them into bytes, and
//! as a record of format 1 (rows were written before records carried a format); a game written
//! under `0003_players` reads back the same after `0004_tables` (SQLite rebuilds the table
//! there), as a two-player `plyyard` game, beside which a table game can then be stored; and
//! SQLite's `0005_cheap_actions_check` rewrites the `games` table's check on `actions` in place,
//! keeping every stored game and a check that still refuses a list that is not one, which a
//! connection open through the upgrade applies too.

use std::path::{Path, PathBuf};

use aeroplane_rules::Side;
use aeroplane_store::{GameQuery, GameStore, PostgresStore, SqliteStore};
use sqlx::Connection;
use sqlx::migrate::Migrator;
use uuid::Uuid;

use crate::support::table::{TableEnding, play_table};

/// A directory holding only the first migration of `database` (`postgres` or `sqlite`).
fn first_migration_only(database: &str) -> tempfile::TempDir {
    migrations_before(database, "0002")
}

/// A directory holding the migrations of `database` numbered before `number`.
fn migrations_before(database: &str, number: &str) -> tempfile::TempDir {
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
    for entry in std::fs::read_dir(&source).unwrap() {
        let name = entry.unwrap().file_name();
        if name.to_str().unwrap() < number {
            std::fs::copy(source.join(&name), dir.path().join(&name)).unwrap();
        }
    }
    dir
}

/// Checks a game stored under `0003_players` as read after `0004_tables`, then stores a game
/// of four beside it.
async fn assert_reads_as_plyyard_and_tables_fit(store: &dyn GameStore, id: Uuid, player: Uuid) {
    let record = store.get(id).await.unwrap().expect("the old game");
    assert_eq!(record.format, 1, "a two-player plyyard game");
    assert_eq!(record.players.count(), 2);
    assert_eq!(record.players.red.player_id, Some(player));
    assert!(record.rated);
    assert_eq!(record.result.places, None);
    assert_eq!(
        (
            record.fairness.blue_seed.as_deref(),
            record.house_rules.len()
        ),
        (None, 0)
    );
    assert_eq!(record.fairness.red_seed, "a\u{0}b");
    let old = GameQuery {
        players: Some(2),
        ruleset: Some("plyyard".to_owned()),
        ..GameQuery::default()
    };
    assert_eq!(store.list(&old).await.unwrap(), [record]);

    let table = play_table(
        9,
        aeroplane_rules::Rules::CLASSIC,
        4,
        TableEnding::Resigns(Side::Green, 30),
    );
    store.save(&table).await.unwrap();
    assert_eq!(store.get(table.id).await.unwrap(), Some(table));
}

#[tokio::test]
async fn postgres_games_stored_before_tables_read_back_after_the_tables_migration() {
    let Some(admin) = aeroplane_store::testing::postgres_url() else {
        return;
    };
    let database = aeroplane_store::testing::TestDatabase::create(&admin).await;
    let pool = sqlx::PgPool::connect(&database.url).await.unwrap();
    let old = migrations_before("postgres", "0004");
    old_migrator(old.path()).await.run(&pool).await.unwrap();
    let (id, player) = (Uuid::new_v4(), Uuid::new_v4());
    sqlx::query(
        "insert into games (id, ruleset, mode, created_at, started_at, ended_at, \
         red_name, red_kind, yellow_name, yellow_kind, winner, reason, rolls, moves, actions, \
         scheme, commitment, server_seed, red_seed, yellow_seed, red_player, rated) \
         values ($1, 'plyyard', 'online', now(), now(), now(), 'Ann', 'human', 'Bob', 'human', \
         'yellow', 'resigned', 0, 0, '[]', 'v1', 'c', 's', '\\x610062'::bytea, ''::bytea, $2, true)",
    )
    .bind(id)
    .bind(player)
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;

    let store = PostgresStore::connect(&database.url).await.unwrap();
    assert_reads_as_plyyard_and_tables_fit(&store, id, player).await;
    store.close().await;
}

/// A SQLite file at `path` holding the migrations numbered before `number` and one rated
/// two-player game written under them; answers the game's id and Red's player id.
async fn sqlite_game_stored_before(path: &Path, number: &str) -> (Uuid, Uuid) {
    let pool = sqlx::SqlitePool::connect_with(sqlite_options(path))
        .await
        .unwrap();
    let old = migrations_before("sqlite", number);
    old_migrator(old.path()).await.run(&pool).await.unwrap();
    let (id, player) = (Uuid::new_v4(), Uuid::new_v4());
    sqlx::query(
        "insert into games (id, ruleset, mode, created_at, started_at, ended_at, \
         red_name, red_kind, yellow_name, yellow_kind, winner, reason, rolls, moves, actions, \
         scheme, commitment, server_seed, red_seed, yellow_seed, red_player, rated) \
         values (?, 'plyyard', 'online', 0, 1, 2, 'Ann', 'human', 'Bob', 'human', \
         'yellow', 'resigned', 0, 0, '[]', 'v1', 'c', 's', x'610062', x'', ?, 1)",
    )
    .bind(id)
    .bind(player)
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;
    (id, player)
}

/// Options that open the SQLite file at `path`, creating it if missing.
fn sqlite_options(path: &Path) -> sqlx::sqlite::SqliteConnectOptions {
    sqlx::sqlite::SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
}

/// Inserts a game whose `actions` column is `actions`, straight into SQLite's `games`.
async fn insert_with_actions<'c>(
    executor: impl sqlx::SqliteExecutor<'c>,
    actions: &str,
) -> Result<sqlx::sqlite::SqliteQueryResult, sqlx::Error> {
    sqlx::query(
        "insert into games (id, ruleset, mode, created_at, started_at, ended_at, \
         red_name, red_kind, yellow_name, yellow_kind, winner, reason, rolls, moves, actions, \
         scheme, commitment, server_seed, red_seed, yellow_seed) \
         values (randomblob(16), 'plyyard', 'online', 0, 1, 2, 'Ann', 'human', 'Bob', 'human', \
         'red', 'resigned', 0, 0, ?, 'v1', 'c', 's', x'', x'')",
    )
    .bind(actions)
    .execute(executor)
    .await
}

#[tokio::test]
async fn sqlite_games_stored_before_tables_read_back_after_the_tables_migration() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.sqlite3");
    let (id, player) = sqlite_game_stored_before(&path, "0004").await;
    let store = SqliteStore::open_file(&path).await.unwrap();
    assert_reads_as_plyyard_and_tables_fit(&store, id, player).await;
}

#[tokio::test]
async fn sqlite_games_stored_before_the_cheap_actions_check_read_back_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.sqlite3");
    let (id, player) = sqlite_game_stored_before(&path, "0005").await;
    // A connection open through the upgrade, which has read the old definition already.
    let mut early = sqlx::SqliteConnection::connect_with(&sqlite_options(&path))
        .await
        .unwrap();
    let count: i64 = sqlx::query_scalar("select count(*) from games")
        .fetch_one(&mut early)
        .await
        .unwrap();
    assert_eq!(count, 1);
    let store = SqliteStore::open_file(&path).await.unwrap();
    assert_reads_as_plyyard_and_tables_fit(&store, id, player).await;
    store.close().await;

    // It checks by the new definition now: a list that is not JSON was refused by the old one
    // ("malformed JSON") and passes the first-byte test.
    insert_with_actions(&mut early, "[not json")
        .await
        .expect("the connection reads the new definition");
    early.close().await.unwrap();

    let pool = sqlx::SqlitePool::connect_with(sqlite_options(&path))
        .await
        .unwrap();
    let definition: String =
        sqlx::query_scalar("select sql from sqlite_schema where type = 'table' and name = 'games'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(
        definition.contains("check (substr(actions, 1, 1) = '[')")
            && !definition.contains("json_type(actions)"),
        "the new check in place of the old: {definition}"
    );
    let checked: String = sqlx::query_scalar("pragma integrity_check")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(checked, "ok");
    let refused = insert_with_actions(&pool, "{}")
        .await
        .expect_err("actions that are not a list");
    assert!(
        refused.to_string().contains("CHECK constraint failed"),
        "{refused}"
    );
    pool.close().await;
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
    let pool = sqlx::SqlitePool::connect_with(sqlite_options(&path))
        .await
        .unwrap();
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
