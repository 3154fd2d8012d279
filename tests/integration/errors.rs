//! Bad requests get an `error` with a stable code and change nothing.

use aeroplane_protocol::client::{ClientMessage, Join, Role};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::{Plane, Side};

use crate::support::{Client, player_join, seed_where, spawn_app};

fn plane(number: u8) -> Plane {
    Plane::new(number).unwrap()
}

/// Checks that the room's state and event number are what `before` says.
async fn assert_unchanged(client: &mut Client, before: &aeroplane_protocol::snapshot::Snapshot) {
    let after = client.sync().await;
    assert_eq!(after.game, before.game);
    assert_eq!(after.event, before.event);
}

#[tokio::test]
async fn acting_out_of_turn_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    let before = red.sync().await;
    yellow.roll().await;
    let error = yellow
        .expect_error(ErrorCode::Rule(aeroplane_rules::RuleError::NotYourTurn))
        .await;
    assert!(error.id.is_some(), "the error names the request it answers");
    yellow.move_plane(plane(0)).await;
    yellow
        .expect_error(ErrorCode::Rule(aeroplane_rules::RuleError::NotYourTurn))
        .await;
    assert_unchanged(&mut red, &before).await;
    // Red, whose turn it is, can still roll.
    red.roll().await;
    red.recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
        .await;
}

#[tokio::test]
async fn an_illegal_plane_and_a_roll_while_a_choice_is_pending_are_refused() {
    // Red rolls a six (deploys plane 0), then a non-six: only plane 0 may move.
    let seed = seed_where(2, |rolls| rolls[0] == 6 && rolls[1] != 6);
    let app = spawn_app().await;
    let room = app.create_room_with_seed(&seed).await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    red.roll().await;
    red.recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
        .await;
    red.move_plane(plane(0)).await;
    red.recv_until(|m| matches!(m, ServerMessage::Moved(_)))
        .await;
    red.roll().await;
    let ServerMessage::Rolled(rolled) = red.recv().await else {
        panic!("expected the roll")
    };
    assert_eq!(rolled.legal.iter().collect::<Vec<_>>(), [plane(0)]);
    yellow.catch_up(red.seen()).await;
    let before = red.sync().await;

    red.move_plane(plane(1)).await;
    red.expect_error(ErrorCode::Rule(aeroplane_rules::RuleError::IllegalPlane))
        .await;
    red.roll().await;
    red.expect_error(ErrorCode::Rule(aeroplane_rules::RuleError::MoveFirst))
        .await;
    yellow.move_plane(plane(0)).await;
    yellow
        .expect_error(ErrorCode::Rule(aeroplane_rules::RuleError::NotYourTurn))
        .await;
    assert_unchanged(&mut red, &before).await;

    red.move_plane(plane(0)).await;
    let moved = red
        .recv_until(|m| matches!(m, ServerMessage::Moved(_)))
        .await;
    let ServerMessage::Moved(moved) = moved else {
        unreachable!()
    };
    assert_eq!(
        moved.to,
        aeroplane_rules::Position::Route(rolled.value.value())
    );
}

#[tokio::test]
async fn a_stale_or_duplicate_action_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    let seen_at_start = red.seen();
    red.roll().await;
    red.recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
        .await;
    let first = red.sync().await;

    // The same roll again, as a client that missed the first one's answer would send it.
    red.send(&ClientMessage::Roll(aeroplane_protocol::client::Act {
        id: Some(99),
        seen: seen_at_start,
    }))
    .await;
    let error = red.expect_error(ErrorCode::Stale).await;
    assert_eq!(error.id, Some(99));
    // An event number from the future is stale too.
    red.send(&ClientMessage::Resign(aeroplane_protocol::client::Act {
        id: Some(100),
        seen: red.seen() + 5,
    }))
    .await;
    red.expect_error(ErrorCode::Stale).await;
    assert_unchanged(&mut red, &first).await;
    yellow.catch_up(red.seen()).await;
}

#[tokio::test]
async fn malformed_unknown_and_ill_typed_frames_get_their_codes() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, _yellow) = app.start_game(&room).await;
    let before = red.sync().await;
    red.send_raw("{this is not json").await;
    red.expect_error(ErrorCode::Malformed).await;
    red.send_raw(r#"{"id": 3}"#).await;
    red.expect_error(ErrorCode::Malformed).await;
    red.send_raw(r#"{"type": "teleport", "id": 4}"#).await;
    assert_eq!(red.expect_error(ErrorCode::UnknownType).await.id, Some(4));
    red.send_raw(r#"{"type": "move", "id": 5, "seen": 1, "plane": "first"}"#)
        .await;
    assert_eq!(red.expect_error(ErrorCode::BadField).await.id, Some(5));
    red.send_raw(r#"{"type": "roll", "id": 6}"#).await;
    red.expect_error(ErrorCode::BadField).await;
    assert_unchanged(&mut red, &before).await;
}

#[tokio::test]
async fn a_wrong_token_a_taken_seat_and_a_full_room_are_refused() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let mut red = app.connect(room.id).await;
    red.join_player("Ann", Some(Side::Red)).await;

    let mut intruder = app.connect(room.id).await;
    let join = player_join("Mallory", None, Some("0".repeat(64)), None);
    let ServerMessage::Error(error) = intruder.join(join).await else {
        panic!("wrong token accepted")
    };
    assert_eq!(error.code, ErrorCode::BadToken);
    let ServerMessage::Error(error) = intruder
        .join(player_join("Mallory", Some(Side::Red), None, None))
        .await
    else {
        panic!("a taken seat was given away")
    };
    assert_eq!(error.code, ErrorCode::SeatTaken);
    let long_seed = Some("x".repeat(65));
    let ServerMessage::Error(error) = intruder
        .join(player_join("Mallory", None, None, long_seed))
        .await
    else {
        panic!("an overlong seed was accepted")
    };
    assert_eq!(error.code, ErrorCode::SeedTooLong);

    let mut yellow = app.connect(room.id).await;
    yellow.join_player("Bob", None).await;
    let ServerMessage::Error(error) = intruder
        .join(player_join("Mallory", None, None, None))
        .await
    else {
        panic!("a third player was seated")
    };
    assert_eq!(error.code, ErrorCode::RoomFull);
    // Actions before joining are refused too.
    intruder.roll().await;
    intruder.expect_error(ErrorCode::NotJoined).await;
    red.recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;
    assert_eq!(red.sync().await.event, red.seen());
}

#[tokio::test]
async fn a_second_join_on_one_connection_is_refused() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let mut red = app.connect(room.id).await;
    red.join_player("Ann", None).await;
    let join = Join {
        id: Some(8),
        role: Role::Spectator,
        name: "Ann".into(),
        colour: None,
        names: Vec::new(),
        token: None,
        client_seed: None,
        player: None,
    };
    let ServerMessage::Error(error) = red.join(join).await else {
        panic!("joined twice")
    };
    assert_eq!((error.code, error.id), (ErrorCode::AlreadyJoined, Some(8)));
}

#[tokio::test]
async fn persistent_garbage_closes_the_socket_with_4000() {
    let app = spawn_app_with_bad_frames(3).await;
    let room = app.create_room().await;
    let mut client = app.connect(room.id).await;
    for _ in 0..3 {
        client.send_raw("garbage").await;
    }
    let frame = client.closed().await.expect("a close frame");
    assert_eq!(u16::from(frame.code), 4000);
    assert_eq!(frame.reason.as_str(), "protocol_violation");
}

#[tokio::test]
async fn a_frame_many_times_the_read_buffer_arrives_whole() {
    // The server reads a socket 128 bytes at a time (`crates/server/src/ws/mod.rs`): a frame
    // just under `--max-frame-bytes` (4096) takes over thirty reads and is still one message.
    let app = spawn_app().await;
    let room = app.create_room().await;
    let mut client = app.connect(room.id).await;
    let padding = " ".repeat(4_000);
    client
        .send_raw(format!(r#"{{"type":"ping",{padding}"id":41}}"#))
        .await;
    let ServerMessage::Pong(pong) = client.recv().await else {
        panic!("a pong")
    };
    assert_eq!(pong.id, Some(41));
}

#[tokio::test]
async fn an_oversized_frame_closes_the_socket_with_1009() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let mut client = app.connect(room.id).await;
    let name = "n".repeat(10_000);
    client
        .send_raw(format!(
            r#"{{"type":"join","role":"spectator","name":"{name}"}}"#
        ))
        .await;
    let frame = client.closed().await.expect("a close frame");
    assert_eq!(u16::from(frame.code), 1009);
}

#[tokio::test]
async fn a_socket_to_an_unknown_room_is_refused_before_upgrading() {
    let app = spawn_app().await;
    let url = format!("ws://{}/ws/rooms/{}", app.addr, uuid::Uuid::new_v4());
    let error = tokio_tungstenite::connect_async(url)
        .await
        .expect_err("no such room");
    let tokio_tungstenite::tungstenite::Error::Http(response) = error else {
        panic!("{error:?}")
    };
    assert_eq!(response.status(), 404);
}

async fn spawn_app_with_bad_frames(limit: u32) -> crate::support::TestApp {
    crate::support::spawn_app_with(|config| config.max_bad_frames = limit).await
}
