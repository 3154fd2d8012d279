//! `hint`: the computer's suggestion, in computer rooms only.

use aeroplane_protocol::client::{ClientMessage, Request};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::{RuleError, Side};

use crate::computer::{Stop, computer_game, create, drive, fast_app};
use crate::support::{Client, TurnView, spawn_app_with};

async fn ask_hint(client: &mut Client) -> u64 {
    let id = client.request_id();
    client
        .send(&ClientMessage::Hint(Request { id: Some(id) }))
        .await;
    id
}

#[tokio::test]
async fn a_hint_names_a_legal_plane_with_its_reason_at_the_rooms_level() {
    let app = fast_app().await;
    let body = serde_json::json!({ "mode": "computer", "level": "hard" });
    let (_room, mut human) = computer_game(&app, body).await;
    let mut turn = TurnView::of(&human);
    let wanted = |turn: &TurnView| turn.actor() == Side::Red && turn.pending().is_some();
    let Stop::Wanted = drive(&mut human, &mut turn, |c| c == Side::Red, wanted).await else {
        panic!("the game ended before the human had a choice")
    };
    let before = human.sync().await;
    let id = ask_hint(&mut human).await;
    let ServerMessage::Hint(hint) = human.recv().await else {
        panic!("expected a hint")
    };
    assert_eq!(hint.id, Some(id));
    assert_eq!(hint.level, "hard");
    assert!(turn.pending().unwrap().contains(hint.plane), "{hint:?}");
    assert!(!hint.explanation.is_empty());
    let after = human.sync().await;
    assert_eq!(after.event, before.event, "a hint is not a room event");
    assert_eq!(after.game, before.game, "a hint changes nothing");
}

#[tokio::test]
async fn a_hint_before_rolling_or_on_the_computers_turn_is_refused() {
    // The computer waits a minute before acting, so its turn lasts.
    let app = spawn_app_with(|config| config.bot_pace_ms = 60_000).await;
    let body = serde_json::json!({ "mode": "computer", "colour": "yellow" });
    let (_room, mut human) = computer_game(&app, body).await;
    ask_hint(&mut human).await;
    human
        .expect_error(ErrorCode::Rule(RuleError::NotYourTurn))
        .await;

    let app = fast_app().await;
    let (_room, mut human) = computer_game(&app, serde_json::json!({ "mode": "computer" })).await;
    ask_hint(&mut human).await;
    human
        .expect_error(ErrorCode::Rule(RuleError::RollFirst))
        .await;
}

#[tokio::test]
async fn online_and_local_rooms_have_no_hints() {
    let app = fast_app().await;
    let room = app.create_room().await;
    let (mut red, _yellow) = app.start_game(&room).await;
    ask_hint(&mut red).await;
    red.expect_error(ErrorCode::HintsUnavailable).await;

    let room = create(&app, serde_json::json!({ "mode": "local" })).await;
    let mut both = app.connect(room.id).await;
    both.join_player("Ann", None).await;
    both.recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;
    ask_hint(&mut both).await;
    both.expect_error(ErrorCode::HintsUnavailable).await;
}

#[tokio::test]
async fn spectators_get_no_hints() {
    let app = fast_app().await;
    let (room, _human) = computer_game(&app, serde_json::json!({ "mode": "computer" })).await;
    let mut eve = app.connect(room.id).await;
    eve.join_spectator("Eve").await;
    ask_hint(&mut eve).await;
    eve.expect_error(ErrorCode::SpectatorCannotAct).await;
}
