//! Local rooms: two people on one device, one connection controlling both colours.

use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::record::{Mode, PlayerKind};
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::RoomPhase;
use aeroplane_rules::{EndReason, Side};

use crate::computer::{Stop, create, drive, fast_app};
use crate::support::{Client, TestApp, TurnView};
use crate::undo::{assert_restored, undo};

/// Creates a local room and joins its one player.
async fn local_game(app: &TestApp) -> (uuid::Uuid, Client) {
    let room = create(app, serde_json::json!({ "mode": "local" })).await;
    assert_eq!(room.mode, Mode::Local);
    assert_eq!((room.colour, room.level), (None, None));
    let mut client = app.connect(room.id).await;
    let welcome = client.join_player("Ann", None).await;
    assert_eq!(
        welcome.colour, None,
        "the local player has no single colour"
    );
    assert_eq!(welcome.colours, vec![Side::Red, Side::Yellow]);
    client
        .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;
    (room.id, client)
}

#[tokio::test]
async fn one_connection_plays_a_local_game_to_the_end() {
    let app = fast_app().await;
    let (id, mut client) = local_game(&app).await;
    let mut turn = TurnView::of(&client);
    let Stop::Over(over) = drive(&mut client, &mut turn, |_| true, |_| false).await else {
        unreachable!()
    };
    assert_eq!(over.result.reason, EndReason::Finished);
    let record = app.stored_record(id).await;
    assert_eq!(record.mode, Mode::Local);
    for colour in [Side::Red, Side::Yellow] {
        let player = record.players.seat(colour).unwrap();
        assert_eq!(
            (player.kind, player.name.as_str()),
            (PlayerKind::Human, "Ann")
        );
    }
    assert_eq!(record.result.winner, over.result.winner);
}

#[tokio::test]
async fn a_second_player_cannot_join_a_local_room_but_the_token_reclaims_both_colours() {
    let app = fast_app().await;
    let (id, client) = local_game(&app).await;
    let mut other = app.connect(id).await;
    let answer = other
        .join(crate::support::player_join("Bob", None, None, None))
        .await;
    let ServerMessage::Error(error) = answer else {
        panic!("a second player joined: {answer:?}")
    };
    assert_eq!(error.code, ErrorCode::RoomFull);

    let token = client.token.clone().unwrap();
    let welcome = other.join_with_token(&token).await;
    assert_eq!(welcome.colours, vec![Side::Red, Side::Yellow]);
    assert_eq!(welcome.snapshot.phase, RoomPhase::Playing);
    other.roll().await;
    other
        .recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
        .await;
}

#[tokio::test]
async fn resigning_in_a_local_room_resigns_the_colour_to_act() {
    let app = fast_app().await;
    let (_id, mut client) = local_game(&app).await;
    client.resign().await;
    let ServerMessage::GameOver(over) = client
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await
    else {
        unreachable!()
    };
    assert_eq!(over.result.reason, EndReason::Resigned);
    assert_eq!(over.result.winner, Some(Side::Yellow), "Red was to act");
}

#[tokio::test]
async fn draw_offers_are_refused_in_local_rooms() {
    let app = fast_app().await;
    let (_id, mut client) = local_game(&app).await;
    client.offer_draw().await;
    client.expect_error(ErrorCode::DrawsUnavailable).await;
}

#[tokio::test]
async fn undo_in_a_local_room_takes_back_either_colours_choice() {
    let app = fast_app().await;
    let (_id, mut client) = local_game(&app).await;
    let mut turn = TurnView::of(&client);
    let mut before = Vec::new();
    // Plane choices until both colours have made one.
    let mut movers = Vec::new();
    while !(movers.contains(&Side::Red) && movers.contains(&Side::Yellow)) {
        let Stop::Wanted = drive(&mut client, &mut turn, |_| true, |t| t.pending().is_some()).await
        else {
            panic!("the game ended early")
        };
        before.push(client.sync().await);
        movers.push(turn.actor());
        client
            .move_plane(turn.pending().unwrap().iter().next().unwrap())
            .await;
        turn.sent();
    }
    let Stop::Wanted = drive(&mut client, &mut turn, |_| true, |_| true).await else {
        panic!("the game ended early")
    };
    for earlier in before.iter().rev() {
        let undone = undo(&mut client).await;
        assert_restored(&undone, earlier);
    }
}
