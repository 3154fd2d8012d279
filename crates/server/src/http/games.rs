//! Finished games, read from the [`GameStore`](aeroplane_store::GameStore):
//! `GET /api/games/{id}`, `GET /api/games?player=&result=&ruleset=&players=&limit=&before=`
//! (`player` a display name, or a player id to list an identified player's games) and
//! `GET /api/games/{id}/replay` (every position in order, recomputed by the rules crate: a
//! two-player `plyyard` game through its `Game`, every other game through a `Table`).
//!
//! A read the store does not answer within [`STORE_READ_TIMEOUT`] (the database is down or
//! slow) is 503 `store_unavailable` at once: the games played meanwhile wait in the outbox.
//!
//! The list is newest first; a full page carries `next_before`, the cursor to pass as `before`
//! for the next page (`null` when the page is not full). A page after the last one is empty.

use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use aeroplane_protocol::api::{GameList, GameSummary, Replay, ReplayStep};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::record::GameRecord;
use aeroplane_rules::{Game, Table};
use aeroplane_store::{Cursor, GameQuery, StoreError};
use axum::extract::{Path, Query, State};
use axum::routing::get;
use axum::{Json, Router};
use uuid::Uuid;

use crate::error::HttpError;
use crate::state::AppState;

/// The page size when none is given.
const DEFAULT_LIMIT: u32 = 20;
/// The largest page size.
const MAX_LIMIT: u32 = 100;
/// How long a read waits for the store before answering 503 `store_unavailable`.
pub(crate) const STORE_READ_TIMEOUT: Duration = Duration::from_millis(1_500);

/// The game routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/games", get(list))
        .route("/api/games/{id}", get(one))
        .route("/api/games/{id}/replay", get(replay))
}

fn parse_game_id(text: &str) -> Result<Uuid, HttpError> {
    Uuid::parse_str(text).map_err(|_| {
        HttpError::bad_request(ErrorCode::BadField, format!("`{text}` is not a game id"))
    })
}

/// Runs a store read within [`STORE_READ_TIMEOUT`]; an unreachable store is 503.
pub(crate) async fn read<T>(
    what: impl std::fmt::Display,
    reading: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, HttpError> {
    match tokio::time::timeout(STORE_READ_TIMEOUT, reading).await {
        Err(_) => Err(HttpError::StoreUnavailable),
        Ok(Err(StoreError::Unavailable(error))) => {
            tracing::debug!(%error, "{what}: the store is unavailable");
            Err(HttpError::StoreUnavailable)
        }
        Ok(Err(error @ (StoreError::BadQuery(_) | StoreError::BadCursor))) => Err(
            HttpError::bad_request(ErrorCode::BadField, error.to_string()),
        ),
        Ok(Err(error)) => Err(HttpError::Internal(anyhow::anyhow!("{what}: {error}"))),
        Ok(Ok(value)) => Ok(value),
    }
}

async fn fetch(state: &AppState, id: &str) -> Result<GameRecord, HttpError> {
    let id = parse_game_id(id)?;
    let record = read(format!("reading game {id}"), state.store.get(id)).await?;
    record.ok_or_else(|| HttpError::game_not_found(id))
}

async fn one(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<GameRecord>, HttpError> {
    fetch(&state, &id).await.map(Json)
}

/// The parameters `GET /api/games` takes.
const PARAMETERS: [&str; 6] = ["player", "result", "ruleset", "players", "limit", "before"];

/// The values of the `result` filter: a winner of any colour, or `draw`.
const RESULTS: [&str; 5] = ["red", "green", "yellow", "blue", "draw"];

/// The values of the `ruleset` filter.
const RULESETS: [&str; 3] = ["plyyard", "flights", "classic"];

/// Checks the list parameters and turns them into a store query.
fn query_from(params: &HashMap<String, String>) -> Result<GameQuery, HttpError> {
    let bad = |message: String| HttpError::bad_request(ErrorCode::BadField, message);
    if let Some(unknown) = params
        .keys()
        .find(|key| !PARAMETERS.contains(&key.as_str()))
    {
        return Err(bad(format!("unknown parameter `{unknown}`")));
    }
    let limit = match params.get("limit") {
        None => DEFAULT_LIMIT,
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|limit| (1..=MAX_LIMIT).contains(limit))
            .ok_or_else(|| bad(format!("limit is a number from 1 to {MAX_LIMIT}")))?,
    };
    let result = params.get("result").cloned();
    if result
        .as_ref()
        .is_some_and(|result| !RESULTS.contains(&result.as_str()))
    {
        return Err(bad(
            "result is `red`, `green`, `yellow`, `blue` or `draw`".to_owned()
        ));
    }
    let ruleset = params.get("ruleset").cloned();
    if ruleset
        .as_ref()
        .is_some_and(|ruleset| !RULESETS.contains(&ruleset.as_str()))
    {
        return Err(bad(
            "ruleset is `plyyard`, `flights` or `classic`".to_owned()
        ));
    }
    let players = match params.get("players") {
        None => None,
        Some(text) => Some(
            text.parse::<u32>()
                .ok()
                .filter(|players| (2..=4).contains(players))
                .ok_or_else(|| bad("players is a number from 2 to 4".to_owned()))?,
        ),
    };
    // A player id (a UUID) filters by identified player; anything else is a display name.
    let mut player = params.get("player").cloned();
    if player.as_ref().is_some_and(|name| name.trim().is_empty()) {
        return Err(bad("player is a non-empty name".to_owned()));
    }
    let player_id = player
        .as_deref()
        .and_then(|text| Uuid::try_parse(text.trim()).ok());
    if player_id.is_some() {
        player = None;
    }
    let before = params.get("before").cloned();
    if before.as_ref().is_some_and(|cursor| cursor.is_empty()) {
        return Err(bad("before is a cursor from a previous page".to_owned()));
    }
    Ok(GameQuery {
        player,
        player_id,
        result,
        ruleset,
        players,
        limit,
        before,
    })
}

async fn list(
    State(state): State<AppState>,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Json<GameList>, HttpError> {
    let query = query_from(&params)?;
    let records = read("listing games", state.store.list(&query)).await?;
    // A full page may have a next one: it starts after this page's last game.
    let next_before = (records.len() == query.limit as usize)
        .then(|| records.last().map(|last| Cursor::after(last).to_string()))
        .flatten();
    let games = records
        .into_iter()
        .map(|record| GameSummary {
            id: record.id,
            ruleset: record.ruleset,
            house_rules: record.house_rules,
            mode: record.mode,
            players: record.players,
            rated: record.rated,
            result: record.result,
            started_at: record.started_at,
            ended_at: record.ended_at,
            rolls: record.rolls,
            moves: record.moves,
        })
        .collect();
    Ok(Json(GameList { games, next_before }))
}

async fn replay(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Replay>, HttpError> {
    let record = fetch(&state, &id).await?;
    let steps = if record.is_plyyard() {
        plyyard_steps(&record)
    } else {
        table_steps(&record)
    }
    .map_err(|error| {
        HttpError::Internal(anyhow::anyhow!(
            "stored game {} does not replay: {error}",
            record.id
        ))
    })?;
    Ok(Json(Replay {
        id: record.id,
        steps,
    }))
}

/// The steps of a two-player `plyyard` game: each position as its `Game` and notation, as this
/// endpoint has always served them.
fn plyyard_steps(record: &GameRecord) -> Result<Vec<ReplayStep>, String> {
    let mut game = Game::new();
    let mut steps = vec![ReplayStep {
        action: None,
        game: Some(game),
        notation: Some(game.to_string()),
        table: None,
    }];
    for logged in record.actions.iter().filter(|logged| !logged.undone) {
        let action = logged
            .action
            .to_plyyard()
            .ok_or_else(|| format!("{:?} is not an action of plyyard", logged.action))?;
        game.apply(action).map_err(|error| error.to_string())?;
        let notation = (!game.is_over()).then(|| game.to_string());
        steps.push(ReplayStep {
            action: Some(*logged),
            game: Some(game),
            notation,
            table: None,
        });
    }
    Ok(steps)
}

/// The steps of any other game, applied to a [`Table`] of its edition and seats: each position
/// in the editions' notation (`table`, also at game over; `notation` while it is live).
fn table_steps(record: &GameRecord) -> Result<Vec<ReplayStep>, String> {
    let rules = record.rules().map_err(|error| error.to_string())?;
    let mut table = Table::new(rules, record.players.count()).map_err(|error| error.to_string())?;
    let step = |action, table: &Table| ReplayStep {
        action,
        game: None,
        notation: (!table.is_over()).then(|| table.notation()),
        table: Some(table.notation()),
    };
    let mut steps = vec![step(None, &table)];
    for logged in record.actions.iter().filter(|logged| !logged.undone) {
        table
            .apply(logged.action)
            .map_err(|error| format!("{:?}: {error}", logged.action))?;
        steps.push(step(Some(*logged), &table));
    }
    Ok(steps)
}
