//! `POST /api/quick-match`: pairs the next two waiting players into a new room.
//!
//! A request waits (long poll) until another one arrives, or answers 409 `no_match` after the
//! configured wait (not 408: browsers re-send a request answered 408 by themselves). A client
//! cancels by closing its request: the waiter's answer channel closes and nobody is paired with
//! it. The matchmaker takes both seats on the players' behalf, so each answer carries
//! a seat token; the players then join the room's WebSocket with it. The first waiter plays Red.

use aeroplane_dice::{ClientSeed, ServerSeed};
use aeroplane_protocol::api::{QuickMatchRequest, QuickMatched};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::name::PlayerName;
use aeroplane_protocol::record::Mode;
use aeroplane_rules::Colour;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use tokio::sync::oneshot;
use uuid::Uuid;

use crate::error::HttpError;
use crate::limits::ClientAddr;
use crate::matchmaking::Waiter;
use crate::room::{self, SeatSetup};
use crate::state::AppState;
use crate::token::SeatToken;

/// The quick-match routes.
pub fn router() -> Router<AppState> {
    Router::new().route("/api/quick-match", post(quick_match))
}

/// Every request counts as a room opened by its address (`--rooms-per-address-per-minute`),
/// paired or not, and is refused while the server has `--max-rooms` open: each pair opens one.
async fn quick_match(
    State(state): State<AppState>,
    ClientAddr(address): ClientAddr,
    body: Bytes,
) -> Result<Json<QuickMatched>, HttpError> {
    let request: QuickMatchRequest = serde_json::from_slice(&body).map_err(|error| {
        HttpError::bad_request(ErrorCode::BadField, format!("bad request body: {error}"))
    })?;
    let name = PlayerName::parse(&request.name)
        .map_err(|error| HttpError::bad_request(ErrorCode::BadField, error.to_string()))?;
    let client_seed = ClientSeed::new(request.client_seed.unwrap_or_default())
        .map_err(|error| HttpError::bad_request(ErrorCode::SeedTooLong, error.to_string()))?;
    if let Err(refused) = state.limits.admit_room(&state.registry, address, false) {
        tracing::info!(address = ?address, %refused, "refused a quick match");
        return Err(refused.into());
    }
    let matchmaker = &state.matchmaker;
    let ticket = matchmaker.ticket();
    let (reply, mut answer) = oneshot::channel();
    let me = Waiter {
        ticket,
        name,
        client_seed,
        reply,
    };
    if let Some((first, second)) = matchmaker.pair_or_wait(me) {
        let (red, yellow) = open_room(
            &state,
            first.name,
            first.client_seed,
            second.name,
            second.client_seed,
        )
        .await?;
        if first.reply.send(red).is_err() {
            tracing::info!("the first quick-match player left just as it was paired");
        }
        return Ok(Json(yellow));
    }
    match tokio::time::timeout(state.config.quick_match_wait(), &mut answer).await {
        Ok(Ok(matched)) => Ok(Json(matched)),
        Ok(Err(_)) => Err(HttpError::Internal(anyhow::anyhow!(
            "the matchmaker dropped a waiter"
        ))),
        Err(_) if matchmaker.cancel(ticket) => Err(HttpError::NoMatch),
        Err(_) => answer
            .await
            .map(Json)
            .map_err(|_| HttpError::Internal(anyhow::anyhow!("the matchmaker dropped a waiter"))),
    }
}

/// Opens a room with both seats taken; returns the answers for Red and Yellow.
async fn open_room(
    state: &AppState,
    red_name: PlayerName,
    red_seed: ClientSeed,
    yellow_name: PlayerName,
    yellow_seed: ClientSeed,
) -> Result<(QuickMatched, QuickMatched), HttpError> {
    let internal = |error: getrandom::Error| HttpError::Internal(anyhow::Error::new(error));
    let server_seed = ServerSeed::generate().map_err(internal)?;
    let red_token = SeatToken::generate().map_err(internal)?;
    let yellow_token = SeatToken::generate().map_err(internal)?;
    let id = Uuid::new_v4();
    let answer = |colour, token: &SeatToken| QuickMatched {
        room_id: id,
        colour,
        token: token.as_str().to_owned(),
        ws_path: format!("/ws/rooms/{id}"),
    };
    let answers = (
        answer(Colour::Red, &red_token),
        answer(Colour::Yellow, &yellow_token),
    );
    let seats = vec![
        SeatSetup {
            colour: Colour::Red,
            name: red_name,
            client_seed: red_seed,
            token: red_token,
        },
        SeatSetup {
            colour: Colour::Yellow,
            name: yellow_name,
            client_seed: yellow_seed,
            token: yellow_token,
        },
    ];
    let setup = room::RoomSetup {
        id,
        mode: Mode::Online,
        server_seed,
        seats,
        turn_clock: state.config.quick_match_turn_clock(),
        computer: None,
    };
    room::open_journaled(setup, state.room_context()).await;
    tracing::info!(room_id = %id, "quick match paired two players");
    Ok(answers)
}
