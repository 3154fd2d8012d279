//! Each limit holds, and the room beside it is unharmed: a game in the same server plays on.

use std::time::Duration;

use aeroplane_protocol::api::ApiError;
use aeroplane_protocol::client::Role;
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::Side;
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use crate::support::{Client, TestApp, TurnView, play_to_end, spawn_app_with};

/// Plays the game of `red` and `yellow` to its end and checks that its record was kept.
async fn game_plays_on(app: &TestApp, room: uuid::Uuid, red: &mut Client, yellow: &mut Client) {
    let over = play_to_end(red, yellow, |_| {}).await;
    assert_eq!(app.stored_record(room).await.result, over.result);
}

/// The status and the stable code of a WebSocket refused before the upgrade.
fn refusal(error: WsError) -> (u16, ErrorCode) {
    let WsError::Http(response) = error else {
        panic!("expected an HTTP refusal, got {error:?}");
    };
    let body = response.body().as_deref().expect("a JSON body");
    let body: ApiError = serde_json::from_slice(body).expect("an API error");
    (response.status().as_u16(), body.code)
}

fn ws_url(app: &TestApp, room: uuid::Uuid) -> String {
    format!("ws://{}/ws/rooms/{room}", app.addr)
}

// The server's token bucket reads tokio's clock, paused here: the refill happens only when the
// test lets time pass, so the flood's count does not depend on the machine's speed.
#[tokio::test(start_paused = true)]
async fn a_flood_is_refused_with_rate_limited_then_closed_with_1008_and_the_room_plays_on() {
    let app = spawn_app_with(|config| {
        config.ws_rate_per_sec = 20.0;
        config.ws_burst = 20.0;
        config.ws_rate_tolerance = 10.0;
    })
    .await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    let mut flooder = app.connect(room.id).await;
    flooder.join_spectator("Flood").await;

    // Just over the burst: the excess is refused, the socket stays open, and after a pause the
    // bucket has refilled.
    for id in 0..25 {
        flooder
            .send_raw(format!(r#"{{"type":"ping","id":{id}}}"#))
            .await;
    }
    let mut answers = Vec::new();
    for _ in 0..25 {
        answers.push(flooder.recv().await);
    }
    let refused = answers
        .iter()
        .filter(|m| matches!(m, ServerMessage::Error(e) if e.code == ErrorCode::RateLimited))
        .count();
    // At most the 6 over the burst (the join took a token), fewer if the bucket refilled while
    // they were sent.
    assert!(
        (1..=6).contains(&refused),
        "{refused} of 25 refused: {answers:?}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    flooder.send_raw(r#"{"type":"ping","id":99}"#).await;
    assert!(matches!(flooder.recv().await, ServerMessage::Pong(_)));

    // Persistent excess closes the socket with a policy-violation code.
    for id in 0..200 {
        flooder
            .send_raw(format!(r#"{{"type":"ping","id":{id}}}"#))
            .await;
    }
    let frame = flooder.closed().await.expect("a close frame");
    assert_eq!(u16::from(frame.code), 1008);
    assert_eq!(frame.reason.as_str(), "rate_limited");

    // The players, well under the rate, finish a few turns and the game.
    let mut turn = TurnView::of(&red);
    for _ in 0..10 {
        let actor = if turn.actor() == Side::Red {
            &mut red
        } else {
            &mut yellow
        };
        match turn.pending() {
            None => actor.roll().await,
            Some(legal) => actor.move_plane(legal.iter().next().unwrap()).await,
        }
        turn.sent();
        while !turn.settled() {
            turn.follow(&red.recv().await);
        }
        yellow.catch_up(red.seen()).await;
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    red.resign().await;
    let over = red
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    let ServerMessage::GameOver(over) = over else {
        unreachable!()
    };
    assert_eq!(over.result.winner, Some(Side::Yellow));
    assert_eq!(app.stored_record(room.id).await.result, over.result);
}

#[tokio::test]
async fn connections_per_address_and_in_total_are_refused_before_the_upgrade() {
    let app = spawn_app_with(|config| {
        config.max_connections_per_address = 3;
        config.max_connections = 4;
    })
    .await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    let watcher = app.connect(room.id).await;

    let error = tokio_tungstenite::connect_async(ws_url(&app, room.id))
        .await
        .expect_err("a fourth connection from one address");
    assert_eq!(refusal(error), (429, ErrorCode::TooManyConnections));

    // Another address still gets in, up to the server's total.
    let (other, _) = connect_from("127.0.0.2", &app, room.id)
        .await
        .expect("another address connects");
    let error = connect_from("127.0.0.3", &app, room.id)
        .await
        .expect_err("a fifth connection in all");
    assert_eq!(refusal(error), (503, ErrorCode::TooManyConnections));

    // A closed connection gives its place back.
    drop(watcher);
    drop(other);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        match tokio_tungstenite::connect_async(ws_url(&app, room.id)).await {
            Ok(_) => break,
            Err(_) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(error) => panic!("the places were not given back: {error:?}"),
        }
    }
    game_plays_on(&app, room.id, &mut red, &mut yellow).await;
}

/// Opens a WebSocket from a chosen loopback address.
async fn connect_from(
    local: &str,
    app: &TestApp,
    room: uuid::Uuid,
) -> Result<
    (
        tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>,
        tokio_tungstenite::tungstenite::handshake::client::Response,
    ),
    WsError,
> {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(format!("{local}:0").parse().unwrap())
        .expect("every 127.0.0.0/8 address is loopback");
    let stream = socket.connect(app.addr).await.unwrap();
    tokio_tungstenite::client_async(ws_url(app, room), stream).await
}

#[tokio::test]
async fn rooms_created_per_address_per_minute_are_limited() {
    let app = spawn_app_with(|config| config.rooms_per_address_per_minute = 3).await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    app.create_room().await;
    app.create_room().await;
    let response = app
        .http
        .post(app.url("/api/rooms"))
        .json(&serde_json::json!({ "mode": "online" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    let body: ApiError = response.json().await.unwrap();
    assert_eq!(body.code, ErrorCode::RateLimited);
    game_plays_on(&app, room.id, &mut red, &mut yellow).await;
}

#[tokio::test]
async fn a_room_admits_its_spectators_and_refuses_more() {
    let app = spawn_app_with(|config| config.max_spectators = 2).await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    let mut first = app.connect(room.id).await;
    first.join_spectator("One").await;
    let mut second = app.connect(room.id).await;
    second.join_spectator("Two").await;
    let mut third = app.connect(room.id).await;
    let join = aeroplane_protocol::client::Join {
        id: Some(3),
        role: Role::Spectator,
        name: "Three".into(),
        colour: None,
        names: Vec::new(),
        token: None,
        client_seed: None,
        player: None,
    };
    let ServerMessage::Error(error) = third.join(join.clone()).await else {
        panic!("a third spectator was admitted");
    };
    assert_eq!(
        (error.code, error.id),
        (ErrorCode::TooManySpectators, Some(3))
    );
    // A player may still come back to its seat, and a spectator's place frees when it leaves.
    drop(second);
    // Real time: this waits for the server to read the close, not for one of its timers.
    tokio::time::sleep(Duration::from_millis(200)).await;
    third.join(join).await;
    game_plays_on(&app, room.id, &mut red, &mut yellow).await;
    first
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
}

#[tokio::test]
async fn the_upgrade_never_negotiates_compression() {
    let app = spawn_app_with(|_| {}).await;
    let room = app.create_room().await;
    let mut request = ws_url(&app, room.id).into_client_request().unwrap();
    request.headers_mut().insert(
        "sec-websocket-extensions",
        "permessage-deflate; client_max_window_bits, x-webkit-deflate-frame"
            .parse()
            .unwrap(),
    );
    let (mut ws, response) = tokio_tungstenite::connect_async(request)
        .await
        .expect("the upgrade succeeds without compression");
    assert_eq!(response.status(), 101);
    assert!(
        response.headers().get("sec-websocket-extensions").is_none(),
        "{:?}",
        response.headers()
    );
    // The socket works uncompressed.
    ws.send(Message::text(r#"{"type":"ping","id":1}"#))
        .await
        .unwrap();
    let answer = ws.next().await.unwrap().unwrap();
    assert_eq!(
        answer.into_text().unwrap().as_str(),
        r#"{"type":"pong","id":1}"#
    );
}

#[tokio::test]
async fn an_oversized_frame_or_fragmented_message_closes_only_its_own_socket() {
    let app = spawn_app_with(|config| config.max_frame_bytes = 1024).await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;

    // One frame far over the WebSocket layer's own limit (64 KiB).
    let (mut big, _) = tokio_tungstenite::connect_async(ws_url(&app, room.id))
        .await
        .unwrap();
    let _ = big.send(Message::text("x".repeat(200 * 1024))).await;
    assert_raw_closed_as_too_big(&mut big).await;

    // A message of many small frames, each under the frame limit, adding up to far more.
    let (mut fragments, _) = tokio_tungstenite::connect_async(ws_url(&app, room.id))
        .await
        .unwrap();
    let chunk = "y".repeat(1000);
    let mut opcode = OpCode::Data(Data::Text);
    for _ in 0..200 {
        let frame = Frame::message(chunk.clone(), opcode, false);
        if fragments.send(Message::Frame(frame)).await.is_err() {
            break;
        }
        opcode = OpCode::Data(Data::Continue);
    }
    assert_raw_closed_as_too_big(&mut fragments).await;

    // Just over `--max-frame-bytes` but under the layer's limit: read, then refused with 1009.
    let mut over = app.connect(room.id).await;
    over.send_raw(format!(r#"{{"type":"ping","pad":"{}"}}"#, "z".repeat(1100)))
        .await;
    assert_closed_as_too_big(&mut over).await;

    game_plays_on(&app, room.id, &mut red, &mut yellow).await;
}

/// Reads a raw socket until it closes; a close frame, if one arrives, says 1009.
async fn assert_raw_closed_as_too_big(
    ws: &mut tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
) {
    loop {
        let frame = tokio::time::timeout(crate::support::TIMEOUT, ws.next())
            .await
            .expect("closed in time");
        match frame {
            Some(Ok(Message::Close(Some(frame)))) => {
                assert_eq!(u16::from(frame.code), 1009);
                return;
            }
            Some(Ok(_)) => continue,
            Some(Err(_)) | None => return,
        }
    }
}

async fn assert_closed_as_too_big(client: &mut Client) {
    // The server closes with 1009; should the close frame be lost with the connection, the
    // socket must at least be gone.
    if let Some(frame) = client.closed().await {
        assert_eq!(u16::from(frame.code), 1009);
    }
}

#[tokio::test]
async fn a_reader_that_falls_behind_is_dropped_with_4002_and_the_room_never_waits() {
    let app = spawn_app_with(|config| config.outgoing_queue = 8).await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    let (mut slow, _) = tokio_tungstenite::connect_async(ws_url(&app, room.id))
        .await
        .unwrap();
    slow.send(Message::text(
        r#"{"type":"join","role":"spectator","name":"Slow"}"#,
    ))
    .await
    .unwrap();
    // It asks for snapshot after snapshot and reads none of them, until the socket buffers and
    // its queue are full and the room drops it (its status then counts no spectator).
    let status_url = app.url(&format!("/api/rooms/{}", room.id));
    let spectators = || async {
        let status: serde_json::Value = app
            .http
            .get(&status_url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        status["spectators"].as_u64().unwrap()
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    'flood: loop {
        for _ in 0..500 {
            let sync = slow.send(Message::text(r#"{"type":"sync"}"#));
            if !matches!(
                tokio::time::timeout(Duration::from_millis(200), sync).await,
                Ok(Ok(()))
            ) {
                break 'flood;
            }
        }
        if spectators().await == 0 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "never dropped");
    }
    while spectators().await != 0 {
        assert!(tokio::time::Instant::now() < deadline, "never dropped");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The room did not wait for it: the game plays to its end while the slow socket is unread.
    game_plays_on(&app, room.id, &mut red, &mut yellow).await;
    // When it finally reads, what it gets ends with 4002.
    let code = loop {
        match tokio::time::timeout(crate::support::TIMEOUT, slow.next()).await {
            Ok(Some(Ok(Message::Close(frame)))) => break frame.map(|frame| u16::from(frame.code)),
            Ok(Some(Ok(_))) => continue,
            Ok(Some(Err(_)) | None) => break None,
            Err(_) => panic!("the slow socket was never closed"),
        }
    };
    assert_eq!(code, Some(4002));
}
