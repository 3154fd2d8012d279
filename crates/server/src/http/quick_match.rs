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
//!
//! A single node pairs its own waiters ([`pair_here`]). In cluster mode (`--nats-url`) the
//! request waits in the cluster's one pool instead, run by whichever node holds the matchmaker's
//! key (`crate::cluster::quick_match`), with the same rules; the client sees no difference (its
//! room may live on another node, and every node serves it by forwarding).

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

use crate::error::HttpError;
use crate::limits::ClientAddr;
use crate::matchmaking::{Queue, Waiter, Wanted, open_room};
use crate::room::NotJournaled;
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
    let wanted = Wanted {
        queue,
        name,
        client_seed,
        player: player.map(|player| player.id),
        rating,
        arrived,
        window_end: arrived + window,
        deadline: arrived + state.config.quick_match_wait(),
    };
    let matched = match &state.cluster {
        Some(cluster) => cluster
            .quick_matches()
            .wait(wanted)
            .await
            .map_err(not_opened)?,
        None => pair_here(&state, wanted).await?,
    };
    matched.map(Json).ok_or(HttpError::NoMatch)
}

/// Waits in this node's pool (a single node): the seat taken, or `None` at the deadline.
async fn pair_here(state: &AppState, wanted: Wanted) -> Result<Option<QuickMatched>, HttpError> {
    let matchmaker = &state.matchmaker;
    let ticket = matchmaker.ticket();
    let (reply, mut answer) = oneshot::channel();
    let (arrived, window_end, deadline) = (wanted.arrived, wanted.window_end, wanted.deadline);
    let me = Waiter {
        ticket,
        queue: wanted.queue,
        name: wanted.name,
        client_seed: wanted.client_seed,
        player: wanted.player,
        rating: wanted.rating,
        due: window_end,
        reply,
    };
    if let Some(pair) = matchmaker.arrive(me, arrived) {
        open_room(&state.room_context(), pair)
            .await
            .map_err(not_opened)?;
    }
    tokio::select! {
        matched = &mut answer => return matched.map(Some).map_err(|_| dropped()),
        () = tokio::time::sleep_until(window_end) => {}
    }
    if let Some(pair) = matchmaker.due(ticket) {
        open_room(&state.room_context(), pair)
            .await
            .map_err(not_opened)?;
    }
    match tokio::time::timeout_at(deadline, &mut answer).await {
        Ok(matched) => matched.map(Some).map_err(|_| dropped()),
        Err(_) if matchmaker.cancel(ticket) => Ok(None),
        Err(_) => answer.await.map(Some).map_err(|_| dropped()),
    }
}

/// Why the room this request paired could not be opened: its journal could not be written
/// (503 `journal_unavailable`), or something else failed inside (500).
fn not_opened(error: anyhow::Error) -> HttpError {
    if error.is::<NotJournaled>() {
        HttpError::JournalUnavailable
    } else {
        HttpError::Internal(error)
    }
}

/// A waiter's answer was dropped: the room it was paired into could not be opened (see
/// [`open_room`]). Its journal that could not be written is the one cause seen in practice (the
/// others are a failed draw of randomness), so the answer is 503 `journal_unavailable`.
fn dropped() -> HttpError {
    tracing::warn!("the quick-match room this request was paired into could not be opened");
    HttpError::JournalUnavailable
}
