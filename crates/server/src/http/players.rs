//! Players: `POST /api/players` (a guest identity), `GET`/`PATCH /api/players/me`,
//! `GET /api/players/me/live`, `GET /api/players/{id}` and `GET /api/leaderboard`.
//!
//! A player presents `Authorization: Bearer <player id>.<secret>` (see `crate::identity`);
//! credentials that are malformed or unknown are 401 `bad_identity`. Profiles show the rating as
//! of now: the deviation grows with the days since the player's last rated game.

use std::collections::HashMap;
use std::time::Duration;

use aeroplane_protocol::api::{
    CreatePlayer, Leaderboard, LeaderboardEntry, LiveRoom, LiveRooms, PlayerCreated, PlayerProfile,
    RatingView, RenamePlayer,
};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::name::PlayerName;
use aeroplane_store::{NewPlayer, StoredPlayer};
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::routing::{get, post};
use axum::{Json, Router};
use time::OffsetDateTime;
use uuid::Uuid;

use super::games::read;
use crate::error::HttpError;
use crate::identity::{self, Credentials, IdentityError};
use crate::limits::ClientAddr;
use crate::state::AppState;

/// The leaderboard's length when none is asked for.
const DEFAULT_LEADERBOARD: u32 = 50;

/// How long the live-rooms answer waits for each room's phase.
const ROOM_TIMEOUT: Duration = Duration::from_secs(2);

/// The player routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/players", post(create))
        .route("/api/players/me", get(me).patch(rename))
        .route("/api/players/me/live", get(live))
        .route("/api/players/{id}", get(profile))
        .route("/api/leaderboard", get(leaderboard))
}

impl From<IdentityError> for HttpError {
    fn from(error: IdentityError) -> Self {
        match error {
            IdentityError::Store(error) => {
                tracing::debug!(%error, "cannot check player credentials");
                HttpError::StoreUnavailable
            }
            error => HttpError::BadIdentity(error),
        }
    }
}

/// The player a request's `Authorization` header names: `None` without the header, 401
/// `bad_identity` when it is there and wrong.
pub(crate) async fn identify(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<Option<StoredPlayer>, HttpError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value.to_str().map_err(|_| IdentityError::Malformed)?;
    let credentials = Credentials::from_authorization(value)?;
    let player = tokio::time::timeout(
        super::games::STORE_READ_TIMEOUT,
        identity::authenticate(&*state.store, &credentials),
    )
    .await
    .map_err(|_| HttpError::StoreUnavailable)??;
    Ok(Some(player))
}

/// The player a request's `Authorization` header names; 401 without one.
async fn require(state: &AppState, headers: &HeaderMap) -> Result<StoredPlayer, HttpError> {
    identify(state, headers)
        .await?
        .ok_or(HttpError::BadIdentity(IdentityError::Missing))
}

async fn create(
    State(state): State<AppState>,
    ClientAddr(address): ClientAddr,
    body: Bytes,
) -> Result<(StatusCode, Json<PlayerCreated>), HttpError> {
    let request: CreatePlayer = super::json_body(&body)?;
    let internal = |error: getrandom::Error| HttpError::Internal(anyhow::Error::new(error));
    let name = match request.name {
        Some(name) => parse_name(&name)?,
        None => identity::guest_name().map_err(internal)?,
    };
    state.limits.admit_player(address)?;
    let (secret, secret_hash) = identity::new_secret().map_err(internal)?;
    let player = NewPlayer {
        id: Uuid::new_v4(),
        name,
        secret_hash,
        created_at: OffsetDateTime::now_utc(),
    };
    read("creating a player", state.store.create_player(&player)).await?;
    tracing::info!(player_id = %player.id, "player created");
    let created = PlayerCreated {
        id: player.id,
        secret,
        name: player.name,
    };
    Ok((StatusCode::CREATED, Json(created)))
}

async fn me(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<PlayerProfile>, HttpError> {
    let player = require(&state, &headers).await?;
    Ok(Json(profile_of(&player)))
}

async fn rename(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<PlayerProfile>, HttpError> {
    let mut player = require(&state, &headers).await?;
    let request: RenamePlayer = serde_json::from_slice(&body).map_err(|error| {
        HttpError::bad_request(ErrorCode::BadField, format!("bad request body: {error}"))
    })?;
    let name = parse_name(&request.name)?;
    let renamed = read(
        "renaming a player",
        state.store.rename_player(player.id, &name),
    )
    .await?;
    if !renamed {
        return Err(HttpError::player_not_found(player.id));
    }
    player.name = name;
    Ok(Json(profile_of(&player)))
}

async fn live(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<LiveRooms>, HttpError> {
    let player = require(&state, &headers).await?;
    let mut rooms = Vec::new();
    for seat in state.registry.seats_of(player.id) {
        let Some(room) = state.registry.get(seat.room_id) else {
            continue;
        };
        let Ok(status) = room.status(ROOM_TIMEOUT).await else {
            continue;
        };
        rooms.push(LiveRoom {
            room_id: seat.room_id,
            ws_path: format!("/ws/rooms/{}", seat.room_id),
            colour: seat.colour,
            token: seat.token.as_str().to_owned(),
            mode: seat.mode,
            phase: status.phase,
        });
    }
    Ok(Json(LiveRooms { rooms }))
}

async fn profile(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<PlayerProfile>, HttpError> {
    let id = Uuid::try_parse(&id).map_err(|_| {
        HttpError::bad_request(ErrorCode::BadField, format!("`{id}` is not a player id"))
    })?;
    let player = read(format!("reading player {id}"), state.store.player(id)).await?;
    let player = player.ok_or_else(|| HttpError::player_not_found(id))?;
    Ok(Json(profile_of(&player)))
}

async fn leaderboard(
    State(state): State<AppState>,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Json<Leaderboard>, HttpError> {
    let bad = |message: String| HttpError::bad_request(ErrorCode::BadField, message);
    if let Some(unknown) = params.keys().find(|key| key.as_str() != "limit") {
        return Err(bad(format!("unknown parameter `{unknown}`")));
    }
    let max = aeroplane_store::MAX_LEADERBOARD;
    let limit = match params.get("limit") {
        None => DEFAULT_LEADERBOARD,
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|limit| (1..=max).contains(limit))
            .ok_or_else(|| bad(format!("limit is a number from 1 to {max}")))?,
    };
    let players = read("reading the leaderboard", state.store.leaderboard(limit)).await?;
    let now = OffsetDateTime::now_utc();
    let players = players
        .iter()
        .zip(1..)
        .map(|(player, rank)| {
            let rating = rating_of(player, now);
            LeaderboardEntry {
                rank,
                id: player.id,
                name: player.name.clone(),
                rating: rating.rating,
                deviation: rating.deviation,
                provisional: rating.provisional,
                games: player.rated_games,
            }
        })
        .collect();
    Ok(Json(Leaderboard { players }))
}

fn parse_name(text: &str) -> Result<String, HttpError> {
    PlayerName::parse(text)
        .map(PlayerName::into_string)
        .map_err(|error| HttpError::bad_request(ErrorCode::BadField, error.to_string()))
}

/// A player's rating as of `now`.
fn rating_of(player: &StoredPlayer, now: OffsetDateTime) -> RatingView {
    let rating = player.standing.rating.as_of(player.standing.rated_at, now);
    RatingView {
        rating: rating.rating,
        deviation: rating.deviation,
        provisional: rating.is_provisional(),
    }
}

fn profile_of(player: &StoredPlayer) -> PlayerProfile {
    PlayerProfile {
        id: player.id,
        name: player.name.clone(),
        rating: rating_of(player, OffsetDateTime::now_utc()),
        games: player.games,
        wins: player.wins,
        losses: player.losses,
        draws: player.draws,
    }
}
