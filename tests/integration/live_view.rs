//! What the browser client shows beside the board, over real WebSockets: the clock's time left
//! and the strikes in every snapshot, the seat's grace period, the spectator count, the first clock of a quick match
//! waiting for Red to connect, preset quick messages and the rematch.

use std::time::Duration;

use aeroplane_protocol::api::{QuickMatched, RoomCreated};
use aeroplane_protocol::client::{ClientMessage, Phrase, RematchRequest, Say};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::Side;

use crate::support::{Client, TestApp, spawn_app_with};

async fn room_with_clock(app: &TestApp, clock_ms: u64) -> RoomCreated {
    app.http
        .post(app.url("/api/rooms"))
        .json(&serde_json::json!({ "mode": "online", "turn_clock_ms": clock_ms }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn quick_match(app: &TestApp) -> (QuickMatched, QuickMatched) {
    let (first, second) = crate::quick_match::ann_and_bob_ask(app).await;
    if first.colour == Side::Red {
        (first, second)
    } else {
        (second, first)
    }
}

async fn say(client: &mut Client, phrase: Phrase) {
    let id = Some(client.request_id());
    client.send(&ClientMessage::Say(Say { id, phrase })).await;
}

async fn ask_rematch(client: &mut Client, seed: &str) {
    let id = Some(client.request_id());
    let request = RematchRequest {
        id,
        client_seed: Some(seed.to_owned()),
    };
    client.send(&ClientMessage::Rematch(request)).await;
}

#[tokio::test]
async fn a_snapshot_carries_the_clocks_time_left_and_the_strikes() {
    let app = spawn_app_with(|_| {}).await;
    let room = room_with_clock(&app, 400).await;
    let (mut red, mut yellow) = app.start_game(&room).await;

    let clock = red
        .sync()
        .await
        .clock
        .expect("a room with a clock shows it");
    assert_eq!(clock.per_decision_ms, 400);
    assert_eq!(clock.max_strikes, 3);
    assert_eq!((clock.strikes.red, clock.strikes.yellow), (0, 0));
    let left = clock.remaining_ms.expect("Red's clock runs");
    assert!(left <= 400, "{left} ms left of 400");

    // Red lets the clock run out: the server rolls for Red and counts a strike.
    let rolled = red
        .recv_until(|m| matches!(m, ServerMessage::Rolled(r) if r.colour == Side::Red))
        .await;
    assert!(
        matches!(rolled, ServerMessage::Rolled(r) if r.by_clock),
        "marked as the clock's"
    );
    let snapshot = yellow.sync().await;
    let clock = snapshot.clock.unwrap();
    assert_eq!((clock.strikes.red, clock.strikes.yellow), (1, 0));

    // A room without a clock shows none.
    let plain = app.create_room().await;
    let (mut ann, _bob) = app.start_game(&plain).await;
    assert_eq!(ann.sync().await.clock, None);
}

#[tokio::test]
async fn a_snapshot_says_how_long_a_disconnected_seat_is_held() {
    let app = spawn_app_with(|config| config.grace_ms = 60_000).await;
    let room = app.create_room().await;
    let (mut red, yellow) = app.start_game(&room).await;
    assert_eq!(red.sync().await.seats.yellow.unwrap().grace_ms, None);
    drop(yellow);
    red.recv_until(|m| matches!(m, ServerMessage::PlayerDisconnected(_)))
        .await;
    let seat = red.sync().await.seats.yellow.unwrap();
    assert!(!seat.connected);
    let held = seat.grace_ms.expect("the held seat's time left");
    assert!(held > 0 && held <= 60_000, "{held} ms");
}

#[tokio::test(start_paused = true)]
async fn the_first_clock_of_a_quick_match_waits_until_red_is_there() {
    let app = spawn_app_with(|config| config.quick_match_turn_clock_ms = 300).await;
    let (red_match, yellow_match) = quick_match(&app).await;

    // Yellow connects first: the game has started, but Red's clock waits for Red.
    let mut yellow = app.connect(yellow_match.room_id).await;
    let welcome = yellow.join_with_token(&yellow_match.token).await;
    let clock = welcome.snapshot.clock.expect("quick matches have a clock");
    assert_eq!(
        clock.remaining_ms, None,
        "no clock runs before Red connects"
    );
    // Twice the clock's length goes by; had it run, the server would have rolled for Red.
    tokio::time::sleep(Duration::from_millis(600)).await;

    let mut red = app.connect(red_match.room_id).await;
    let welcome = red.join_with_token(&red_match.token).await;
    let clock = welcome.snapshot.clock.unwrap();
    assert_eq!(clock.strikes.red, 0);
    assert!(matches!(
        welcome.snapshot.game().phase(),
        aeroplane_rules::Phase::AwaitingRoll
    ));
    // Nothing was played for Red meanwhile: Yellow hears Red arrive, with Red's clock.
    let connected = loop {
        match yellow.recv().await {
            ServerMessage::PlayerConnected(c) if c.colour == Side::Red => break c,
            ServerMessage::PlayerConnected(_) => {}
            other => panic!("expected Red to connect first, got {other:?}"),
        }
    };
    assert_eq!(connected.deadline_ms, Some(300));
    // From now on Red's clock runs as usual.
    red.recv_until(|m| matches!(m, ServerMessage::Rolled(r) if r.colour == Side::Red))
        .await;
}

#[tokio::test]
async fn quick_messages_reach_the_room_and_are_rate_limited() {
    let app = spawn_app_with(|_| {}).await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    let mut eve = app.connect(room.id).await;
    eve.join_spectator("Eve").await;
    assert_eq!(
        red.sync().await.spectators,
        1,
        "the snapshot counts spectators"
    );

    say(&mut red, Phrase::GoodLuck).await;
    for client in [&mut yellow, &mut eve] {
        let said = client
            .recv_until(|m| matches!(m, ServerMessage::Said(_)))
            .await;
        let ServerMessage::Said(said) = said else {
            unreachable!()
        };
        assert_eq!((said.colour, said.phrase), (Side::Red, Phrase::GoodLuck));
    }
    red.recv_until(|m| matches!(m, ServerMessage::Said(_)))
        .await;
    say(&mut red, Phrase::Oops).await;
    red.expect_error(ErrorCode::RateLimited).await;
    // Free text is no phrase at all.
    red.send_raw(r#"{"type":"say","phrase":"hello there"}"#)
        .await;
    red.expect_error(ErrorCode::BadField).await;
    // Quick messages do not count as game events: Red may still roll with what it saw.
    red.roll().await;
    red.recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
        .await;
}

#[tokio::test]
async fn a_rematch_opens_a_new_room_with_colours_swapped_once_both_ask() {
    let app = spawn_app_with(|_| {}).await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    ask_rematch(&mut red, "too soon").await;
    red.expect_error(ErrorCode::NotOver).await;
    red.resign().await;
    for client in [&mut red, &mut yellow] {
        client
            .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
            .await;
    }

    ask_rematch(&mut red, "ann again").await;
    let offered = yellow
        .recv_until(|m| matches!(m, ServerMessage::RematchOffered(_)))
        .await;
    assert!(matches!(offered, ServerMessage::RematchOffered(o) if o.by == Side::Red));
    ask_rematch(&mut yellow, "bob again").await;
    let mut ready = Vec::new();
    for client in [&mut red, &mut yellow] {
        match client
            .recv_until(|m| matches!(m, ServerMessage::RematchReady(_)))
            .await
        {
            ServerMessage::RematchReady(answer) => ready.push(answer),
            _ => unreachable!(),
        }
    }
    let (ann, bob) = (&ready[0], &ready[1]);
    assert_eq!(ann.room_id, bob.room_id);
    assert_ne!(ann.room_id, room.id);
    assert_eq!(
        (ann.colour, bob.colour),
        (Some(Side::Yellow), Some(Side::Red))
    );

    let mut new_bob = app.connect(bob.room_id).await;
    let welcome = new_bob.join_with_token(bob.token.as_deref().unwrap()).await;
    assert_eq!(welcome.colour, Some(Side::Red));
    let snapshot = welcome.snapshot;
    assert_eq!(snapshot.seats.red.unwrap().name, "Bob");
    assert_eq!(snapshot.seats.yellow.unwrap().name, "Ann");
    assert_eq!(snapshot.fairness.red_seed.as_deref(), Some("bob again"));
    assert_ne!(snapshot.fairness.commitment, room.commitment);
    let mut new_ann = app.connect(ann.room_id).await;
    new_ann.join_with_token(ann.token.as_deref().unwrap()).await;
    new_bob.catch_up(new_ann.seen()).await;
    new_bob.roll().await;
    new_ann
        .recv_until(|m| matches!(m, ServerMessage::Rolled(r) if r.colour == Side::Red))
        .await;
}
