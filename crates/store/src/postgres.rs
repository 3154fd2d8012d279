//! The PostgreSQL store: the deployment store.
//!
//! All of its SQL is in this file. The statements are plain lowercase SQL run with
//! `sqlx::query` at run time, not with the `query!` macros (see the crate docs for why); the
//! contract suite in `tests/store` runs every one of them, and every filter combination of the
//! list, against a real PostgreSQL.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use aeroplane_protocol::record::GameRecord;
use futures_util::future::{BoxFuture, FutureExt};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgRow};
use sqlx::{Postgres, QueryBuilder, Row};
use tokio::sync::OnceCell;
use uuid::Uuid;

use crate::players::{changes, rated_pair};
use crate::query::{ResultFilter, from_unix_micros, leaderboard_limit, stored_time};
use crate::rating::{Rating, Standing};
use crate::row::{GameRow, SeatColumns, outcomes};
use crate::{GameQuery, GameStore, NewPlayer, Saved, StoreError, StoredPlayer};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations/postgres");

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
         wins = wins + $2, losses = losses + $3, draws = draws + $4, \
         rating = coalesce($5, rating), deviation = coalesce($6, deviation), \
         volatility = coalesce($7, volatility), rated_at = coalesce($8, rated_at), \
         rated_games = rated_games + $9 \
     where id = $1";

/// How long an operation waits for a free connection before it fails as unavailable.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// Inserts many games in one statement: each array holds one column, `unnest` zips them into
/// rows, and the games already stored are skipped. It answers the ids it inserted.
const INSERT: &str = "insert into games (id, ruleset, mode, created_at, started_at, ended_at, \
         red_name, red_kind, red_level, yellow_name, yellow_kind, yellow_level, \
         winner, reason, rolls, moves, actions, \
         scheme, commitment, server_seed, red_seed, yellow_seed, \
         red_player, yellow_player, rated, players, house_rules, \
         blue_name, blue_kind, blue_level, blue_player, blue_seed, \
         green_name, green_kind, green_level, green_player, green_seed, \
         red_place, yellow_place, blue_place, green_place) \
     select * from unnest($1::uuid[], $2::text[], $3::text[], \
         $4::timestamptz[], $5::timestamptz[], $6::timestamptz[], \
         $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], \
         $13::text[], $14::text[], $15::bigint[], $16::bigint[], $17::text[], \
         $18::text[], $19::text[], $20::text[], $21::bytea[], $22::bytea[], \
         $23::uuid[], $24::uuid[], $25::boolean[], $26::smallint[], $27::text[], \
         $28::text[], $29::text[], $30::text[], $31::uuid[], $32::bytea[], \
         $33::text[], $34::text[], $35::text[], $36::uuid[], $37::bytea[], \
         $38::smallint[], $39::smallint[], $40::smallint[], $41::smallint[]) \
     on conflict (id) do nothing \
     returning id";

/// Games kept in PostgreSQL, through a small connection pool.
#[derive(Clone, Debug)]
pub struct PostgresStore {
    pool: PgPool,
    /// Set once the migrations have been applied.
    migrated: Arc<OnceCell<()>>,
}

impl PostgresStore {
    /// Connects to `url` (`postgres://…`) and applies the migrations; fails if the database
    /// cannot be reached now.
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let store = PostgresStore::connect_lazy(url)?;
        store.ready().await?;
        Ok(store)
    }

    /// A store for `url` that connects only when first used and applies the migrations then,
    /// so a server can start while the database is down (its outbox keeps the games meanwhile).
    /// Until the database answers, every operation fails as [`StoreError::Unavailable`] after
    /// at most a few seconds.
    pub fn connect_lazy(url: &str) -> Result<PostgresStore, StoreError> {
        let options = PgConnectOptions::from_str(url)
            .map_err(|error| StoreError::Config(format!("DATABASE_URL: {error}")))?;
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_lazy_with(options);
        Ok(PostgresStore {
            pool,
            migrated: Arc::new(OnceCell::new()),
        })
    }

    /// Applies the migrations unless done already.
    async fn ready(&self) -> Result<(), StoreError> {
        let migrate = || async {
            MIGRATOR.run(&self.pool).await.map_err(|error| match error {
                sqlx::migrate::MigrateError::Execute(error) => unavailable(error),
                error => StoreError::Unavailable(format!("migrations failed: {error}")),
            })
        };
        self.migrated.get_or_try_init(migrate).await.map(|_| ())
    }

    /// Closes every connection of the pool; later operations fail.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    async fn insert(&self, records: &[GameRecord]) -> Result<Vec<Saved>, StoreError> {
        self.ready().await?;
        let rows = records
            .iter()
            .map(GameRow::from_record)
            .collect::<Result<Vec<_>, _>>()?;
        let column = |pick: fn(&GameRow) -> String| rows.iter().map(pick).collect::<Vec<_>>();
        let optional =
            |pick: fn(&GameRow) -> Option<String>| rows.iter().map(pick).collect::<Vec<_>>();
        let bytes =
            |pick: fn(&GameRow) -> Option<Vec<u8>>| rows.iter().map(pick).collect::<Vec<_>>();
        let places = |pick: fn(&GameRow) -> Option<i16>| rows.iter().map(pick).collect::<Vec<_>>();
        let mut transaction = self.pool.begin().await.map_err(unavailable)?;
        let inserted: Vec<Uuid> = sqlx::query_scalar(INSERT)
            .bind(rows.iter().map(|row| row.id).collect::<Vec<_>>())
            .bind(column(|row| row.ruleset.clone()))
            .bind(column(|row| row.mode.clone()))
            .bind(rows.iter().map(|row| row.created_at).collect::<Vec<_>>())
            .bind(rows.iter().map(|row| row.started_at).collect::<Vec<_>>())
            .bind(rows.iter().map(|row| row.ended_at).collect::<Vec<_>>())
            .bind(column(|row| row.red_name.clone()))
            .bind(column(|row| row.red_kind.clone()))
            .bind(optional(|row| row.red_level.clone()))
            .bind(column(|row| row.yellow_name.clone()))
            .bind(column(|row| row.yellow_kind.clone()))
            .bind(optional(|row| row.yellow_level.clone()))
            .bind(optional(|row| row.winner.clone()))
            .bind(column(|row| row.reason.clone()))
            .bind(rows.iter().map(|row| row.rolls).collect::<Vec<_>>())
            .bind(rows.iter().map(|row| row.moves).collect::<Vec<_>>())
            .bind(column(|row| row.actions.clone()))
            .bind(column(|row| row.scheme.clone()))
            .bind(column(|row| row.commitment.clone()))
            .bind(column(|row| row.server_seed.clone()))
            .bind(
                rows.iter()
                    .map(|row| row.red_seed.clone())
                    .collect::<Vec<_>>(),
            )
            .bind(
                rows.iter()
                    .map(|row| row.yellow_seed.clone())
                    .collect::<Vec<_>>(),
            )
            .bind(rows.iter().map(|row| row.red_player).collect::<Vec<_>>())
            .bind(rows.iter().map(|row| row.yellow_player).collect::<Vec<_>>())
            .bind(rows.iter().map(|row| row.rated).collect::<Vec<_>>())
            .bind(rows.iter().map(|row| row.players).collect::<Vec<_>>())
            .bind(column(|row| row.house_rules.clone()))
            .bind(optional(|row| row.blue.name.clone()))
            .bind(optional(|row| row.blue.kind.clone()))
            .bind(optional(|row| row.blue.level.clone()))
            .bind(rows.iter().map(|row| row.blue.player).collect::<Vec<_>>())
            .bind(bytes(|row| row.blue.seed.clone()))
            .bind(optional(|row| row.green.name.clone()))
            .bind(optional(|row| row.green.kind.clone()))
            .bind(optional(|row| row.green.level.clone()))
            .bind(rows.iter().map(|row| row.green.player).collect::<Vec<_>>())
            .bind(bytes(|row| row.green.seed.clone()))
            .bind(places(|row| row.red_place))
            .bind(places(|row| row.yellow_place))
            .bind(places(|row| row.blue_place))
            .bind(places(|row| row.green_place))
            .fetch_all(&mut *transaction)
            .await
            .map_err(classify)?;
        let saved = outcomes(records, |id| inserted.contains(&id));
        for (record, saved) in records.iter().zip(&saved) {
            if *saved == Saved::Inserted {
                update_players(&mut transaction, record).await?;
            }
        }
        transaction.commit().await.map_err(unavailable)?;
        Ok(saved)
    }

    async fn list_games(&self, query: &GameQuery) -> Result<Vec<GameRecord>, StoreError> {
        let query = query.validate()?;
        self.ready().await?;
        let mut sql =
            QueryBuilder::<Postgres>::new(format!("select {COLUMNS} from games where true"));
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
            let ended_at =
                from_unix_micros(cursor.ended_at_us).map_err(|_| StoreError::BadCursor)?;
            sql.push(" and (ended_at, id) < (").push_bind(ended_at);
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

impl GameStore for PostgresStore {
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
            self.ready().await?;
            let row = sqlx::query(&format!("select {COLUMNS} from games where id = $1"))
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
            self.ready().await?;
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
            self.ready().await?;
            sqlx::query(
                "insert into players (id, name, secret_hash, created_at) values ($1, $2, $3, $4)",
            )
            .bind(player.id)
            .bind(&player.name)
            .bind(player.secret_hash.as_slice())
            .bind(stored_time(player.created_at))
            .execute(&self.pool)
            .await
            .map_err(classify)?;
            Ok(())
        }
        .boxed()
    }

    fn player(&self, id: Uuid) -> BoxFuture<'_, Result<Option<StoredPlayer>, StoreError>> {
        async move {
            self.ready().await?;
            let row = sqlx::query(&format!(
                "select {PLAYER_COLUMNS} from players where id = $1"
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
            self.ready().await?;
            let done = sqlx::query("update players set name = $2 where id = $1")
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
            self.ready().await?;
            let rows = sqlx::query(&format!(
                "select {PLAYER_COLUMNS} from players where rated_games > 0 \
                 order by rating desc, id limit $1"
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

/// Applies what storing `record` changes for its players, in the insert's transaction. The two
/// rated players' rows are locked (in id order) while their new ratings are worked out.
async fn update_players(
    transaction: &mut sqlx::Transaction<'_, Postgres>,
    record: &GameRecord,
) -> Result<(), StoreError> {
    let standings = match rated_pair(record) {
        None => None,
        Some((red, yellow)) => {
            let rows = sqlx::query(
                "select id, rating, deviation, volatility, rated_at from players \
                 where id = any($1) order by id for update",
            )
            .bind(vec![red, yellow])
            .fetch_all(&mut **transaction)
            .await
            .map_err(unavailable)?;
            let standing = |id: Uuid| -> Result<Option<Standing>, StoreError> {
                rows.iter()
                    .find(|row| row.try_get::<Uuid, _>("id").is_ok_and(|found| found == id))
                    .map(read_standing)
                    .transpose()
            };
            standing(red)?.zip(standing(yellow)?)
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
            .bind(change.rated.map(|(_, at)| stored_time(at)))
            .bind(i64::from(change.rated.is_some()))
            .execute(&mut **transaction)
            .await
            .map_err(classify)?;
    }
    Ok(())
}

fn read_standing(row: &PgRow) -> Result<Standing, StoreError> {
    Ok(Standing {
        rating: Rating {
            rating: row.try_get("rating").map_err(corrupt)?,
            deviation: row.try_get("deviation").map_err(corrupt)?,
            volatility: row.try_get("volatility").map_err(corrupt)?,
        },
        rated_at: row.try_get("rated_at").map_err(corrupt)?,
    })
}

fn read_player(row: &PgRow) -> Result<StoredPlayer, StoreError> {
    let hash: Vec<u8> = row.try_get("secret_hash").map_err(corrupt)?;
    let count = |column: &str| -> Result<u64, StoreError> {
        let count: i64 = row.try_get(column).map_err(corrupt)?;
        u64::try_from(count).map_err(|error| StoreError::Corrupt(format!("{column}: {error}")))
    };
    Ok(StoredPlayer {
        id: row.try_get("id").map_err(corrupt)?,
        name: row.try_get("name").map_err(corrupt)?,
        secret_hash: hash
            .try_into()
            .map_err(|_| StoreError::Corrupt("secret_hash is not 32 bytes".into()))?,
        created_at: row.try_get("created_at").map_err(corrupt)?,
        standing: read_standing(row)?,
        rated_games: count("rated_games")?,
        games: count("games")?,
        wins: count("wins")?,
        losses: count("losses")?,
        draws: count("draws")?,
    })
}

fn read_row(row: &PgRow) -> Result<GameRecord, StoreError> {
    let game = GameRow {
        id: row.try_get("id").map_err(corrupt)?,
        ruleset: row.try_get("ruleset").map_err(corrupt)?,
        mode: row.try_get("mode").map_err(corrupt)?,
        created_at: row.try_get("created_at").map_err(corrupt)?,
        started_at: row.try_get("started_at").map_err(corrupt)?,
        ended_at: row.try_get("ended_at").map_err(corrupt)?,
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
fn seat_columns(row: &PgRow, colour: &str) -> Result<SeatColumns, StoreError> {
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

/// Sorts a failed write: data the database refuses for good (SQLSTATE class 22, data
/// exception, or 23, integrity constraint violation) is `Rejected`; the rest may pass later.
fn classify(error: sqlx::Error) -> StoreError {
    match &error {
        sqlx::Error::Database(database)
            if database
                .code()
                .is_some_and(|code| code.starts_with("22") || code.starts_with("23")) =>
        {
            StoreError::Rejected(database.message().to_owned())
        }
        _ => unavailable(error),
    }
}
