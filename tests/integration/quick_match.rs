//! Quick match pairs the next two waiting players into a new room.

use aeroplane_protocol::api::{ApiError, QuickMatched};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::Side;

use crate::support::{TestApp, spawn_app, spawn_app_with};

/// Ann asks for a quick match, then Bob does; both answers, Ann's first.
pub(crate) async fn ann_and_bob_ask(app: &TestApp) -> (QuickMatched, QuickMatched) {
    let ask = |name: &'static str| {
        let request = app
            .http
            .post(app.url("/api/quick-match"))
            .json(&serde_json::json!({ "name": name }));
        async move {
            request
                .send()
                .await
                .unwrap()
                .json::<QuickMatched>()
                .await
                .unwrap()
        }
    };
    let first = tokio::spawn(ask("Ann"));
    let second = ask("Bob").await;
    (first.await.unwrap(), second)
}

#[tokio::test]
async fn quick_match_pairs_two_clients_into_one_room_and_they_can_play() {
    let app = spawn_app().await;
    let (first, second) = ann_and_bob_ask(&app).await;
    assert_eq!(first.room_id, second.room_id);
    let mut colours = [first.colour, second.colour];
    colours.sort();
    assert_eq!(colours, [Side::Red, Side::Yellow]);
    assert_ne!(first.token, second.token);

    let (red_match, yellow_match) = if first.colour == Side::Red {
        (first, second)
    } else {
        (second, first)
    };
    let mut red = app.connect(red_match.room_id).await;
    let welcome = red.join_with_token(&red_match.token).await;
    assert_eq!(welcome.colour, Some(Side::Red));
    let mut yellow = app.connect(yellow_match.room_id).await;
    yellow.join_with_token(&yellow_match.token).await;
    red.catch_up(yellow.seen()).await;
    red.roll().await;
    yellow
        .recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
        .await;
}

#[tokio::test]
async fn a_lone_quick_match_request_times_out_with_no_match() {
    let app = spawn_app_with(|config| config.quick_match_wait_ms = 100).await;
    let response = app
        .http
        .post(app.url("/api/quick-match"))
        .json(&serde_json::json!({ "name": "Ann" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 409, "not 408, which browsers re-send");
    assert_eq!(
        response.json::<ApiError>().await.unwrap().code,
        ErrorCode::NoMatch
    );
}
