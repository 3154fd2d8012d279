//! The SQLite store: the embedded default, one file in the data directory.
//!
//! All of its SQL is in this file. The statements are plain lowercase SQL run with
//! `sqlx::query` at run time, not with the `query!` macros (see the crate docs for why); the
//! contract suite in `tests/store` runs every one of them, and every filter combination of the
//! list, against a real SQLite file.
//!
//! Times are stored as integer microseconds since the Unix epoch and ids as 16-byte blobs, so
//! the order `(ended_at desc, id desc)` is the same as PostgreSQL's.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use aeroplane_protocol::record::GameRecord;
use futures_util::future::{BoxFuture, FutureExt};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{QueryBuilder, Row, Sqlite};
use uuid::Uuid;

use crate::players::{changes, rated_pair};
use crate::query::{ResultFilter, from_unix_micros, leaderboard_limit, unix_micros};
use crate::rating::{Rating, Standing};
use crate::row::{GameRow, SeatColumns, outcomes};
use crate::{GameQuery, GameStore, NewPlayer, Saved, StoreError, StoredPlayer};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations/sqlite");

/// The columns of `games` in `GameRow` order.
const COLUMNS: &str = "id, ruleset, mode, created_at, started_at, ended_at, \
     red_name, red_kind, red_level, yellow_name, yellow_kind, yellow_level, \
     winner, reason, rolls, moves, actions, \
     scheme, commitment, server_seed, red_seed, yellow_seed, \
     red_player, yellow_player, rated, players, house_rules, \
     blue_name, blue_kind, blue_level, blue_player, blue_seed, \
     green_name, green_kind, green_level, green_player, green_seed, \
     red_place, yellow_place, blue_place, green_place";

/// The columns of `players` that `read_player` reads.
const PLAYER_COLUMNS: &str = "id, name, secret_hash, created_at, rating, deviation, volatility, \
     rated_at, rated_games, games, wins, losses, draws";

/// Counts one stored game for one player and, for a rated game, sets the new rating.
const UPDATE_PLAYER: &str = "update players set games = games + 1, \
         wins = wins + ?2, losses = losses + ?3, draws = draws + ?4, \
         rating = coalesce(?5, rating), deviation = coalesce(?6, deviation), \
         volatility = coalesce(?7, volatility), rated_at = coalesce(?8, rated_at), \
         rated_games = rated_games + ?9 \
     where id = ?1";

/// Inserts one game unless its id is stored already.
const INSERT: &str = "insert into games (id, ruleset, mode, created_at, started_at, ended_at, \
         red_name, red_kind, red_level, yellow_name, yellow_kind, yellow_level, \
         winner, reason, rolls, moves, actions, \
         scheme, commitment, server_seed, red_seed, yellow_seed, \
         red_player, yellow_player, rated, players, house_rules, \
         blue_name, blue_kind, blue_level, blue_player, blue_seed, \
         green_name, green_kind, green_level, green_player, green_seed, \
         red_place, yellow_place, blue_place, green_place) \
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, \
         ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
     on conflict (id) do nothing";

/// How long a statement waits for another connection's write lock before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Games kept in a SQLite file.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
    /// Opens (creating it if missing) the SQLite file at `path` and applies the migrations.
    pub async fn open_file(path: &Path) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_with(SqliteConnectOptions::new().filename(path)).await
    }

    /// Opens the database of a `sqlite://…` URL (created if missing) and applies the migrations.
    pub async fn connect(url: &str) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::from_str(url)
            .map_err(|error| StoreError::Config(format!("DATABASE_URL: {error}")))?;
        SqliteStore::open_with(options).await
    }

    async fn open_with(options: SqliteConnectOptions) -> Result<SqliteStore, StoreError> {
        let options = options
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // With WAL, `normal` never corrupts the file; a power cut may lose the last writes,
            // which the outbox covers: it deletes its copy only after the store answered.
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT);
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .acquire_timeout(BUSY_TIMEOUT)
            .connect_with(options)
            .await
            .map_err(unavailable)?;
        MIGRATOR
            .run(&pool)
            .await
            .map_err(|error| StoreError::Unavailable(format!("migrations failed: {error}")))?;
        Ok(SqliteStore { pool })
    }

    /// Closes every connection of the pool; later operations fail.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    async fn insert(&self, records: &[GameRecord]) -> Result<Vec<Saved>, StoreError> {
        let rows = records
            .iter()
            .map(GameRow::from_record)
            .collect::<Result<Vec<_>, _>>()?;
        let mut inserted = std::collections::HashSet::new();
        let mut transaction = self.pool.begin().await.map_err(unavailable)?;
        for (row, record) in rows.into_iter().zip(records) {
            let done = sqlx::query(INSERT)
                .bind(row.id)
                .bind(row.ruleset)
                .bind(row.mode)
                .bind(unix_micros(row.created_at))
                .bind(unix_micros(row.started_at))
                .bind(unix_micros(row.ended_at))
                .bind(row.red_name)
                .bind(row.red_kind)
                .bind(row.red_level)
                .bind(row.yellow_name)
                .bind(row.yellow_kind)
                .bind(row.yellow_level)
                .bind(row.winner)
                .bind(row.reason)
                .bind(row.rolls)
                .bind(row.moves)
                .bind(row.actions)
                .bind(row.scheme)
                .bind(row.commitment)
                .bind(row.server_seed)
                .bind(row.red_seed)
                .bind(row.yellow_seed)
                .bind(row.red_player)
                .bind(row.yellow_player)
                .bind(row.rated)
                .bind(row.players)
                .bind(row.house_rules)
                .bind(row.blue.name)
                .bind(row.blue.kind)
                .bind(row.blue.level)
                .bind(row.blue.player)
                .bind(row.blue.seed)
                .bind(row.green.name)
                .bind(row.green.kind)
                .bind(row.green.level)
                .bind(row.green.player)
                .bind(row.green.seed)
                .bind(row.red_place)
                .bind(row.yellow_place)
                .bind(row.blue_place)
                .bind(row.green_place)
                .execute(&mut *transaction)
                .await
                .map_err(classify)?;
            if done.rows_affected() == 1 {
                inserted.insert(row.id);
                update_players(&mut transaction, record).await?;
            }
        }
        transaction.commit().await.map_err(unavailable)?;
        Ok(outcomes(records, |id| inserted.contains(&id)))
    }

    async fn list_games(&self, query: &GameQuery) -> Result<Vec<GameRecord>, StoreError> {
        let query = query.validate()?;
        let mut sql = QueryBuilder::<Sqlite>::new(format!("select {COLUMNS} from games where 1"));
        if let Some(player) = query.player {
            sql.push(" and (red_name = ").push_bind(player.clone());
            sql.push(" or yellow_name = ").push_bind(player.clone());
            sql.push(" or blue_name = ").push_bind(player.clone());
            sql.push(" or green_name = ").push_bind(player).push(")");
        }
        if let Some(id) = query.player_id {
            sql.push(" and (red_player = ").push_bind(id);
            sql.push(" or yellow_player = ").push_bind(id);
            sql.push(" or blue_player = ").push_bind(id);
            sql.push(" or green_player = ").push_bind(id).push(")");
        }
        match query.result {
            None => {}
            Some(ResultFilter::Draw) => {
                sql.push(" and winner is null");
            }
            Some(ResultFilter::Winner(side)) => {
                sql.push(" and winner = ").push_bind(side.as_str());
            }
        }
        if let Some(ruleset) = query.ruleset {
            sql.push(" and ruleset = ").push_bind(ruleset.as_str());
        }
        if let Some(players) = query.players {
            sql.push(" and players = ").push_bind(i16::from(players));
        }
        if let Some(cursor) = query.before {
            sql.push(" and (ended_at, id) < (")
                .push_bind(cursor.ended_at_us);
            sql.push(", ").push_bind(cursor.id).push(")");
        }
        sql.push(" order by ended_at desc, id desc limit ")
            .push_bind(i64::from(query.limit));
        let rows = sql
            .build()
            .fetch_all(&self.pool)
            .await
            .map_err(unavailable)?;
        rows.iter().map(read_row).collect()
    }
}

impl GameStore for SqliteStore {
    fn save<'a>(&'a self, record: &'a GameRecord) -> BoxFuture<'a, Result<Saved, StoreError>> {
        async move {
            let saved = self.insert(std::slice::from_ref(record)).await?;
            Ok(saved[0])
        }
        .boxed()
    }

    fn save_batch<'a>(
        &'a self,
        records: &'a [GameRecord],
    ) -> BoxFuture<'a, Result<Vec<Saved>, StoreError>> {
        self.insert(records).boxed()
    }

    fn get(&self, id: Uuid) -> BoxFuture<'_, Result<Option<GameRecord>, StoreError>> {
        async move {
            let row = sqlx::query(&format!("select {COLUMNS} from games where id = ?"))
                .bind(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(unavailable)?;
            row.as_ref().map(read_row).transpose()
        }
        .boxed()
    }

    fn list<'a>(
        &'a self,
        query: &'a GameQuery,
    ) -> BoxFuture<'a, Result<Vec<GameRecord>, StoreError>> {
        self.list_games(query).boxed()
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        async move {
            sqlx::query("select 1")
                .execute(&self.pool)
                .await
                .map_err(unavailable)?;
            Ok(())
        }
        .boxed()
    }

    fn create_player<'a>(&'a self, player: &'a NewPlayer) -> BoxFuture<'a, Result<(), StoreError>> {
        async move {
            sqlx::query(
                "insert into players (id, name, secret_hash, created_at) values (?, ?, ?, ?)",
            )
            .bind(player.id)
            .bind(&player.name)
            .bind(player.secret_hash.as_slice())
            .bind(unix_micros(player.created_at))
            .execute(&self.pool)
            .await
            .map_err(classify)?;
            Ok(())
        }
        .boxed()
    }

    fn player(&self, id: Uuid) -> BoxFuture<'_, Result<Option<StoredPlayer>, StoreError>> {
        async move {
            let row = sqlx::query(&format!(
                "select {PLAYER_COLUMNS} from players where id = ?"
            ))
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(unavailable)?;
            row.as_ref().map(read_player).transpose()
        }
        .boxed()
    }

    fn rename_player<'a>(
        &'a self,
        id: Uuid,
        name: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        async move {
            let done = sqlx::query("update players set name = ?2 where id = ?1")
                .bind(id)
                .bind(name)
                .execute(&self.pool)
                .await
                .map_err(classify)?;
            Ok(done.rows_affected() == 1)
        }
        .boxed()
    }

    fn leaderboard(&self, limit: u32) -> BoxFuture<'_, Result<Vec<StoredPlayer>, StoreError>> {
        async move {
            let limit = leaderboard_limit(limit)?;
            let rows = sqlx::query(&format!(
                "select {PLAYER_COLUMNS} from players where rated_games > 0 \
                 order by rating desc, id limit ?"
            ))
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await
            .map_err(unavailable)?;
            rows.iter().map(read_player).collect()
        }
        .boxed()
    }
}

/// Applies what storing `record` changes for its players, in the insert's transaction (which
/// holds SQLite's one write lock, so the ratings read are the ratings replaced).
async fn update_players(
    transaction: &mut sqlx::Transaction<'_, Sqlite>,
    record: &GameRecord,
) -> Result<(), StoreError> {
    let standings = match rated_pair(record) {
        None => None,
        Some((red, yellow)) => {
            let mut standing = async |id: Uuid| -> Result<Option<Standing>, StoreError> {
                let row = sqlx::query(
                    "select rating, deviation, volatility, rated_at from players where id = ?",
                )
                .bind(id)
                .fetch_optional(&mut **transaction)
                .await
                .map_err(unavailable)?;
                row.as_ref().map(read_standing).transpose()
            };
            let red = standing(red).await?;
            let yellow = standing(yellow).await?;
            red.zip(yellow)
        }
    };
    for change in changes(record, standings) {
        let rating = change.rated.map(|(rating, _)| rating);
        sqlx::query(UPDATE_PLAYER)
            .bind(change.id)
            .bind(change.wins)
            .bind(change.losses)
            .bind(change.draws)
            .bind(rating.map(|rating| rating.rating))
            .bind(rating.map(|rating| rating.deviation))
            .bind(rating.map(|rating| rating.volatility))
            .bind(change.rated.map(|(_, at)| unix_micros(at)))
            .bind(i64::from(change.rated.is_some()))
            .execute(&mut **transaction)
            .await
            .map_err(classify)?;
    }
    Ok(())
}

fn read_standing(row: &SqliteRow) -> Result<Standing, StoreError> {
    let rated_at: Option<i64> = row.try_get("rated_at").map_err(corrupt)?;
    Ok(Standing {
        rating: Rating {
            rating: row.try_get("rating").map_err(corrupt)?,
            deviation: row.try_get("deviation").map_err(corrupt)?,
            volatility: row.try_get("volatility").map_err(corrupt)?,
        },
        rated_at: rated_at
            .map(from_unix_micros)
            .transpose()
            .map_err(|error| StoreError::Corrupt(format!("rated_at: {error}")))?,
    })
}

fn read_player(row: &SqliteRow) -> Result<StoredPlayer, StoreError> {
    let hash: Vec<u8> = row.try_get("secret_hash").map_err(corrupt)?;
    let count = |column: &str| -> Result<u64, StoreError> {
        let count: i64 = row.try_get(column).map_err(corrupt)?;
        u64::try_from(count).map_err(|error| StoreError::Corrupt(format!("{column}: {error}")))
    };
    let created_at: i64 = row.try_get("created_at").map_err(corrupt)?;
    Ok(StoredPlayer {
        id: row.try_get("id").map_err(corrupt)?,
        name: row.try_get("name").map_err(corrupt)?,
        secret_hash: hash
            .try_into()
            .map_err(|_| StoreError::Corrupt("secret_hash is not 32 bytes".into()))?,
        created_at: from_unix_micros(created_at)
            .map_err(|error| StoreError::Corrupt(format!("created_at: {error}")))?,
        standing: read_standing(row)?,
        rated_games: count("rated_games")?,
        games: count("games")?,
        wins: count("wins")?,
        losses: count("losses")?,
        draws: count("draws")?,
    })
}

fn read_row(row: &SqliteRow) -> Result<GameRecord, StoreError> {
    let time = |column: &str| -> Result<_, StoreError> {
        let micros: i64 = row.try_get(column).map_err(corrupt)?;
        from_unix_micros(micros)
            .map_err(|error| StoreError::Corrupt(format!("column {column}: {error}")))
    };
    let game = GameRow {
        id: row.try_get("id").map_err(corrupt)?,
        ruleset: row.try_get("ruleset").map_err(corrupt)?,
        mode: row.try_get("mode").map_err(corrupt)?,
        created_at: time("created_at")?,
        started_at: time("started_at")?,
        ended_at: time("ended_at")?,
        red_name: row.try_get("red_name").map_err(corrupt)?,
        red_kind: row.try_get("red_kind").map_err(corrupt)?,
        red_level: row.try_get("red_level").map_err(corrupt)?,
        yellow_name: row.try_get("yellow_name").map_err(corrupt)?,
        yellow_kind: row.try_get("yellow_kind").map_err(corrupt)?,
        yellow_level: row.try_get("yellow_level").map_err(corrupt)?,
        winner: row.try_get("winner").map_err(corrupt)?,
        reason: row.try_get("reason").map_err(corrupt)?,
        rolls: row.try_get("rolls").map_err(corrupt)?,
        moves: row.try_get("moves").map_err(corrupt)?,
        actions: row.try_get("actions").map_err(corrupt)?,
        scheme: row.try_get("scheme").map_err(corrupt)?,
        commitment: row.try_get("commitment").map_err(corrupt)?,
        server_seed: row.try_get("server_seed").map_err(corrupt)?,
        red_seed: row.try_get("red_seed").map_err(corrupt)?,
        yellow_seed: row.try_get("yellow_seed").map_err(corrupt)?,
        red_player: row.try_get("red_player").map_err(corrupt)?,
        yellow_player: row.try_get("yellow_player").map_err(corrupt)?,
        rated: row.try_get("rated").map_err(corrupt)?,
        players: row.try_get("players").map_err(corrupt)?,
        house_rules: row.try_get("house_rules").map_err(corrupt)?,
        blue: seat_columns(row, "blue")?,
        green: seat_columns(row, "green")?,
        red_place: row.try_get("red_place").map_err(corrupt)?,
        yellow_place: row.try_get("yellow_place").map_err(corrupt)?,
        blue_place: row.try_get("blue_place").map_err(corrupt)?,
        green_place: row.try_get("green_place").map_err(corrupt)?,
    };
    game.into_record()
}

/// The columns of the optional seat of `colour` (`blue` or `green`).
fn seat_columns(row: &SqliteRow, colour: &str) -> Result<SeatColumns, StoreError> {
    let column = |name: &str| format!("{colour}_{name}");
    Ok(SeatColumns {
        name: row.try_get(column("name").as_str()).map_err(corrupt)?,
        kind: row.try_get(column("kind").as_str()).map_err(corrupt)?,
        level: row.try_get(column("level").as_str()).map_err(corrupt)?,
        player: row.try_get(column("player").as_str()).map_err(corrupt)?,
        seed: row.try_get(column("seed").as_str()).map_err(corrupt)?,
    })
}

fn unavailable(error: sqlx::Error) -> StoreError {
    StoreError::Unavailable(error.to_string())
}

fn corrupt(error: sqlx::Error) -> StoreError {
    StoreError::Corrupt(error.to_string())
}

/// Sorts a failed write: a constraint the record breaks is `Rejected` for good; the rest (a
/// locked or unreachable file) may pass later.
fn classify(error: sqlx::Error) -> StoreError {
    match &error {
        sqlx::Error::Database(database) if database.kind() != sqlx::error::ErrorKind::Other => {
            StoreError::Rejected(database.message().to_owned())
        }
        _ => unavailable(error),
    }
}
