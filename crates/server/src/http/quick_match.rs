//! `POST /api/quick-match`: pairs waiting players into a new room, by rating.
//!
//! A request waits (long poll) until it is paired, or answers 409 `no_match` after the
//! configured wait (not 408: browsers re-send a request answered 408 by themselves). A client
//! cancels by closing its request: the waiter's answer channel closes and nobody is paired with
//! it. Who is paired with whom is the pool's business (`crate::matchmaking`): an identified
//! player's request collects others for the matching window, then takes the closest rating; an
//! anonymous one has no rating to match and is paired at once, as before. A request with
//! `Authorization: Bearer <player id>.<secret>` waits with that player's rating and its seat is
//! tied to the player, so a game between two identified players is rated. The matchmaker takes
//! both seats on the players' behalf, so each answer carries a seat token; the players then join
//! the room's WebSocket with it. The waiter whose window ended first plays Red.
//!
//! `ruleset` and `players` choose the queue (two-player `plyyard` when absent): the other
//! editions' and player counts' queues are not rated and form a game of their oldest waiters as
//! soon as they hold enough (`crate::matchmaking`), seated in the order they came (Red first);
//! a waiter of a queue that does not fill within the wait is answered 409 `no_match`.

use aeroplane_dice::ClientSeed;
use aeroplane_protocol::api::{QuickMatchRequest, QuickMatched};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::name::PlayerName;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use axum::{Json, Router};
use time::OffsetDateTime;
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::cluster::quick_match::Wanted;
use crate::error::HttpError;
use crate::limits::ClientAddr;
use crate::matchmaking::{Queue, Waiter, open_room};
use crate::state::AppState;

/// The quick-match routes.
pub fn router() -> Router<AppState> {
    Router::new().route("/api/quick-match", post(quick_match))
}

/// Every request counts as a room opened by its address (`--rooms-per-address-per-minute`),
/// paired or not, and is refused while the server has `--max-rooms` open: each pair opens one.
async fn quick_match(
    State(state): State<AppState>,
    ClientAddr(address): ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<QuickMatched>, HttpError> {
    let request: QuickMatchRequest = serde_json::from_slice(&body).map_err(|error| {
        HttpError::bad_request(ErrorCode::BadField, format!("bad request body: {error}"))
    })?;
    let name = PlayerName::parse(&request.name)
        .map_err(|error| HttpError::bad_request(ErrorCode::BadField, error.to_string()))?;
    let client_seed = ClientSeed::new(request.client_seed.unwrap_or_default())
        .map_err(|error| HttpError::bad_request(ErrorCode::SeedTooLong, error.to_string()))?;
    let board = super::rooms::board_of(request.ruleset.as_deref(), request.players, &[])?;
    let queue = Queue {
        rules: board.rules(),
        players: board.players(),
    };
    let player = super::players::identify(&state, &headers).await?;
    if let Err(refused) = state.limits.admit_room(&state.registry, address, false) {
        tracing::info!(address = ?address, %refused, "refused a quick match");
        return Err(refused.into());
    }
    let now = OffsetDateTime::now_utc();
    let rating = player.as_ref().map(|player| {
        let standing = player.standing;
        standing.rating.as_of(standing.rated_at, now).rating
    });
    let arrived = Instant::now();
    // Only an identified player in the rated queue has a rating to match: any other is due at
    // once.
    let window = match player {
        Some(_) if queue == Queue::PLYYARD => state.config.quick_match_window(),
        _ => std::time::Duration::ZERO,
    };
    let window_end = arrived + window;
    let deadline = arrived + state.config.quick_match_wait();
    if let Some(cluster) = &state.cluster {
        let wanted = Wanted {
            queue,
            name,
            client_seed,
            player: player.map(|player| player.id),
            rating,
            window_end,
            deadline,
        };
        return match cluster.quick_matches().wait(wanted).await {
            Ok(Some(matched)) => Ok(Json(matched)),
            Ok(None) => Err(HttpError::NoMatch),
            Err(error) => Err(HttpError::Internal(error)),
        };
    }
    let matchmaker = &state.matchmaker;
    let ticket = matchmaker.ticket();
    let (reply, mut answer) = oneshot::channel();
    let me = Waiter {
        ticket,
        queue,
        name,
        client_seed,
        player: player.map(|player| player.id),
        rating,
        due: window_end,
        reply,
    };
    if let Some(pair) = matchmaker.arrive(me, arrived) {
        open_room(&state.room_context(), pair)
            .await
            .map_err(HttpError::Internal)?;
    }
    tokio::select! {
        matched = &mut answer => return matched.map(Json).map_err(|_| dropped()),
        () = tokio::time::sleep_until(window_end) => {}
    }
    if let Some(pair) = matchmaker.due(ticket) {
        open_room(&state.room_context(), pair)
            .await
            .map_err(HttpError::Internal)?;
    }
    match tokio::time::timeout_at(deadline, &mut answer).await {
        Ok(matched) => matched.map(Json).map_err(|_| dropped()),
        Err(_) if matchmaker.cancel(ticket) => Err(HttpError::NoMatch),
        Err(_) => answer.await.map(Json).map_err(|_| dropped()),
    }
}

fn dropped() -> HttpError {
    HttpError::Internal(anyhow::anyhow!("the matchmaker dropped a waiter"))
}
