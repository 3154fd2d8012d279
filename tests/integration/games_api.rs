//! The HTTP API: room status, finished games, replays, and JSON errors with stable codes.

use aeroplane_protocol::api::{ApiError, GameList, Replay, RoomStatus};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::record::GameRecord;
use aeroplane_protocol::snapshot::RoomPhase;
use aeroplane_rules::Side;

use crate::support::{TestApp, spawn_app};

async fn api_error(app: &TestApp, path: &str, status: u16) -> ApiError {
    let response = app.http.get(app.url(path)).send().await.unwrap();
    assert_eq!(response.status(), status, "{path}");
    response.json().await.unwrap()
}

#[tokio::test]
async fn a_rooms_public_status_shows_its_seats_and_phase() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (_red, _yellow) = app.start_game(&room).await;
    let status: RoomStatus = app
        .get_json(&format!("/api/rooms/{}", room.invite_code))
        .await;
    assert_eq!(status.id, room.id);
    assert_eq!(status.phase, RoomPhase::Playing);
    assert_eq!(
        status.seats.get(Side::Red).map(|seat| seat.name.as_str()),
        Some("Ann")
    );
    assert!(status.seats.get(Side::Yellow).unwrap().connected);

    let unknown = api_error(&app, &format!("/api/rooms/{}", uuid::Uuid::new_v4()), 404).await;
    assert_eq!(unknown.code, ErrorCode::RoomNotFound);
    assert_eq!(
        api_error(&app, "/api/rooms/not-a-uuid", 400).await.code,
        ErrorCode::BadField
    );
}

#[tokio::test]
async fn an_unknown_mode_or_a_bad_body_is_a_bad_field() {
    let app = spawn_app().await;
    let response = app
        .http
        .post(app.url("/api/rooms"))
        .json(&serde_json::json!({ "mode": "tournament" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    assert_eq!(
        response.json::<ApiError>().await.unwrap().code,
        ErrorCode::BadField
    );
    let response = app
        .http
        .post(app.url("/api/rooms"))
        .header("content-type", "application/json")
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    assert_eq!(
        response.json::<ApiError>().await.unwrap().code,
        ErrorCode::BadField
    );
}

#[tokio::test]
async fn a_finished_game_can_be_read_listed_and_replayed() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    red.roll().await;
    // The room answers `sync` after every event of the roll, so Red is then up to date.
    red.sync().await;
    yellow.catch_up(red.seen()).await;
    yellow.resign().await;
    red.recv_until(|m| matches!(m, aeroplane_protocol::server::ServerMessage::GameOver(_)))
        .await;
    let stored = app.stored_record(room.id).await;

    let record: GameRecord = app.get_json(&format!("/api/games/{}", room.id)).await;
    assert_eq!(record, stored);

    let list: GameList = app.get_json("/api/games?player=Ann&limit=5").await;
    assert_eq!(list.games.len(), 1);
    assert_eq!(list.games[0].id, room.id);
    let none: GameList = app.get_json("/api/games?player=Nobody").await;
    assert!(none.games.is_empty());

    let replay: Replay = app
        .get_json(&format!("/api/games/{}/replay", room.id))
        .await;
    assert_eq!(replay.steps.len(), record.actions.len() + 1);
    assert_eq!(
        replay.steps[0].notation.as_deref(),
        Some("b,b,b,b b,b,b,b red - 0")
    );
    assert!(replay.steps.last().unwrap().game.unwrap().is_over());

    let missing = api_error(&app, &format!("/api/games/{}", uuid::Uuid::new_v4()), 404).await;
    assert_eq!(missing.code, ErrorCode::GameNotFound);
    assert_eq!(
        api_error(&app, "/api/games/123", 400).await.code,
        ErrorCode::BadField
    );
    assert_eq!(
        api_error(&app, "/api/games?limit=0", 400).await.code,
        ErrorCode::BadField
    );
    assert_eq!(
        api_error(&app, "/api/games?result=purple", 400).await.code,
        ErrorCode::BadField
    );
}
