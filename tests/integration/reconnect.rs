//! Disconnects: the grace period, reconnecting with the token, replacement and abandonment.

use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::RoomPhase;
use aeroplane_rules::{EndReason, Side};

use crate::support::{spawn_app, spawn_app_with};

#[tokio::test]
async fn a_player_who_reconnects_with_its_token_within_the_grace_period_gets_a_snapshot_and_plays_on()
 {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (red, mut yellow) = app.start_game(&room).await;
    let token = red.token.clone().unwrap();
    drop(red);
    let ServerMessage::PlayerDisconnected(gone) = yellow.recv().await else {
        panic!("not told")
    };
    assert_eq!((gone.colour, gone.grace_ms), (Side::Red, 60_000));

    let mut red = app.connect(room.id).await;
    let welcome = red.join_with_token(&token).await;
    assert_eq!(welcome.colour, Some(Side::Red));
    assert_eq!(welcome.snapshot.phase, RoomPhase::Playing);
    assert_eq!(welcome.snapshot.event, yellow.seen());
    assert!(welcome.snapshot.notation.as_deref() == Some("b,b,b,b b,b,b,b red - 0"));
    let back = yellow.recv().await;
    assert!(
        matches!(back, ServerMessage::PlayerConnected(ref c) if c.colour == Side::Red),
        "{back:?}"
    );
    red.catch_up(yellow.seen()).await;
    assert!(red.sync().await.seats.red.unwrap().connected);
    red.roll().await;
    yellow
        .recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
        .await;
}

#[tokio::test]
async fn a_new_connection_with_the_token_replaces_the_old_one() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    let token = red.token.clone().unwrap();
    let mut second = app.connect(room.id).await;
    let welcome = second.join_with_token(&token).await;
    assert_eq!(welcome.colour, Some(Side::Red));
    let frame = red.closed().await.expect("a close frame");
    assert_eq!(
        (u16::from(frame.code), frame.reason.as_str()),
        (4001, "replaced")
    );
    second.roll().await;
    let rolled = yellow.recv().await;
    assert!(
        matches!(rolled, ServerMessage::Rolled(_)),
        "no disconnect event, only the roll: {rolled:?}"
    );
}

#[tokio::test]
async fn a_player_absent_past_the_grace_period_abandons_the_game() {
    let app = spawn_app_with(|config| config.grace_ms = 300).await;
    let room = app.create_room().await;
    let (red, mut yellow) = app.start_game(&room).await;
    drop(red);
    let ServerMessage::PlayerDisconnected(gone) = yellow.recv().await else {
        panic!("not told")
    };
    assert_eq!(gone.grace_ms, 300);
    let ServerMessage::GameOver(over) = yellow.recv().await else {
        panic!("no game over")
    };
    assert_eq!(
        (over.result.winner, over.result.reason),
        (Some(Side::Yellow), EndReason::Abandoned)
    );
    let record = app.stored_record(room.id).await;
    assert_eq!(record.result.reason, EndReason::Abandoned);
    assert!(matches!(
        record.actions.last().unwrap().action,
        aeroplane_rules::TableAction::Forfeit {
            colour: Side::Red,
            ..
        }
    ));
}

#[tokio::test(start_paused = true)]
async fn a_peer_that_stops_answering_pings_is_closed_with_4003() {
    let app = spawn_app_with(|config| config.ping_interval_ms = 100).await;
    let room = app.create_room().await;
    let mut silent = app.connect(room.id).await;
    // Not reading means not answering the server's pings: to the server this peer is dead.
    tokio::time::sleep(std::time::Duration::from_millis(1_000)).await;
    let frame = silent.closed().await.expect("a close frame");
    assert_eq!(
        (u16::from(frame.code), frame.reason.as_str()),
        (4003, "timeout")
    );
}

#[tokio::test(start_paused = true)]
async fn a_peer_that_answers_pings_stays_open_past_many_silence_windows() {
    let app = spawn_app_with(|config| config.ping_interval_ms = 100).await;
    let room = app.create_room().await;
    let mut peer = app.connect(room.id).await;
    peer.join_player("Ann", None).await;
    // Reading answers the server's pings (every 100 ms): ten windows of silence (200 ms) go by,
    // and the socket stays open.
    let (_, ended) = peer
        .frames_within(std::time::Duration::from_millis(2_000))
        .await;
    assert!(ended.is_none(), "closed while answering pings: {ended:?}");
    // Then it stops reading, so it stops answering: closed with 4003.
    tokio::time::sleep(std::time::Duration::from_millis(1_000)).await;
    let frame = peer.closed().await.expect("a close frame");
    assert_eq!(u16::from(frame.code), 4003);
}
