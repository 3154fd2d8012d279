//! Handshake and idle timeouts: a client that sends only part of its request head (slowloris), or
//! nothing, is disconnected within a bounded time; a WebSocket that never joins is closed.

use std::time::Duration;

use aeroplane_protocol::server::ServerMessage;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::support::{play_to_end, spawn_app_with};

/// Reads until the server closes the connection; returns how long that took from `since`.
async fn closed_by_server(stream: &mut TcpStream, since: Instant) -> Duration {
    let mut buffer = [0u8; 1024];
    loop {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer))
            .await
            .expect("the server closes the connection within 10 s");
        match read {
            Ok(0) | Err(_) => return since.elapsed(),
            Ok(_) => continue,
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_partial_request_head_or_silence_is_disconnected_and_the_game_plays_on() {
    let app = spawn_app_with(|config| config.header_read_timeout_ms = 500).await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;

    let mut slow = TcpStream::connect(app.addr).await.unwrap();
    let start = Instant::now();
    slow.write_all(b"GET /ws/rooms/").await.unwrap();
    // Keep dribbling bytes of the header, as slowloris does; the deadline is for the whole head.
    let dribble = async {
        for piece in [
            &b"x HTTP/1.1\r\n"[..],
            b"Host: a\r\n",
            b"X-a: b\r\n",
            b"X-c: d\r\n",
        ] {
            tokio::time::sleep(Duration::from_millis(150)).await;
            if slow.write_all(piece).await.is_err() {
                break;
            }
        }
    };
    dribble.await;
    let took = closed_by_server(&mut slow, start).await;
    assert!(took < Duration::from_secs(3), "closed after {took:?}");

    let mut silent = TcpStream::connect(app.addr).await.unwrap();
    let took = closed_by_server(&mut silent, Instant::now()).await;
    assert!(
        took >= Duration::from_millis(400) && took < Duration::from_secs(3),
        "{took:?}"
    );

    // Ordinary requests and the game are unaffected.
    let health = app.http.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    let over = play_to_end(&mut red, &mut yellow, |_| {}).await;
    assert_eq!(app.stored_record(room.id).await.result, over.result);
}

#[tokio::test(start_paused = true)]
async fn a_websocket_that_never_joins_is_closed_and_one_that_joined_is_not() {
    let app = spawn_app_with(|config| config.join_timeout_ms = 300).await;
    let room = app.create_room().await;
    let mut idle = app.connect(room.id).await;
    let mut watcher = app.connect(room.id).await;
    watcher.join_spectator("Eve").await;
    let start = Instant::now();
    let frame = idle.closed().await.expect("a close frame");
    assert_eq!(u16::from(frame.code), 4003);
    assert!(start.elapsed() < Duration::from_secs(3));
    tokio::time::sleep(Duration::from_millis(400)).await;
    watcher.send_raw(r#"{"type":"ping","id":7}"#).await;
    assert!(matches!(watcher.recv().await, ServerMessage::Pong(_)));
}
