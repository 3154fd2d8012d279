//! Rooms are bounded (issue 20, points 2 and 4): every way of opening a room counts against the
//! client's address, the server caps its open and waiting rooms, waiting rooms close long before
//! started ones would, and live games' journals hold no file descriptors.

use std::process::Command;
use std::time::Duration;

use aeroplane_protocol::api::ApiError;
use aeroplane_protocol::error::{CloseCode, ErrorCode};
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::Side;

use crate::child::ServerProcess;
use crate::restart::{create_room, seat_both};
use crate::support::{TestApp, spawn_app_with};

/// POSTs `body` to `path` and answers the status and, for a refusal, its code.
async fn post(app: &TestApp, path: &str, body: serde_json::Value) -> (u16, Option<ErrorCode>) {
    let response = app
        .http
        .post(app.url(path))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let code = if status >= 400 {
        Some(response.json::<ApiError>().await.unwrap().code)
    } else {
        None
    };
    (status, code)
}

async fn open(app: &TestApp, mode: &str) -> (u16, Option<ErrorCode>) {
    post(app, "/api/rooms", serde_json::json!({ "mode": mode })).await
}

async fn quick_match(app: &TestApp, name: &str) -> (u16, Option<ErrorCode>) {
    post(app, "/api/quick-match", serde_json::json!({ "name": name })).await
}

#[tokio::test]
async fn every_way_of_opening_a_room_counts_against_the_address() {
    let app = spawn_app_with(|config| {
        config.rooms_per_address_per_minute = 5;
        config.quick_match_wait_ms = 100;
    })
    .await;
    for mode in ["online", "computer", "local"] {
        assert_eq!(open(&app, mode).await.0, 201, "{mode}");
    }
    // Two quick-match requests pair into one room; each counts.
    let (first, second) = tokio::join!(quick_match(&app, "Ann"), quick_match(&app, "Bob"));
    assert_eq!((first.0, second.0), (200, 200));

    let refused = (429, Some(ErrorCode::RateLimited));
    for mode in ["online", "computer", "local"] {
        assert_eq!(open(&app, mode).await, refused, "{mode}");
    }
    assert_eq!(quick_match(&app, "Cy").await, refused, "quick match");
}

#[tokio::test]
async fn the_server_caps_its_waiting_rooms_and_its_open_rooms() {
    let app = spawn_app_with(|config| {
        config.max_waiting_rooms = 2;
        config.max_rooms = 3;
        config.quick_match_wait_ms = 100;
    })
    .await;
    let first = app.create_room().await;
    assert_eq!(open(&app, "computer").await.0, 201);
    let too_many = (503, Some(ErrorCode::TooManyRooms));
    assert_eq!(open(&app, "online").await, too_many, "a third waiting room");
    assert_eq!(open(&app, "local").await, too_many, "a third waiting room");

    // Once a game starts, its room waits no more: one more waiting room fits, up to the cap
    // on open rooms.
    let (_red, _yellow) = app.start_game(&first).await;
    assert_eq!(open(&app, "online").await.0, 201);
    assert_eq!(open(&app, "online").await, too_many, "a fourth room");
    assert_eq!(
        quick_match(&app, "Ann").await,
        too_many,
        "quick match opens a room too"
    );
}

#[tokio::test(start_paused = true)]
async fn a_waiting_room_closes_after_its_ttl_even_with_a_player_in_it_but_a_game_does_not() {
    let app = spawn_app_with(|config| config.waiting_room_ttl_ms = 300).await;
    let waiting = app.create_room().await;
    let mut lonely = app.connect(waiting.id).await;
    lonely.join_player("Ann", Some(Side::Red)).await;
    let playing = app.create_room().await;
    let (mut red, _yellow) = app.start_game(&playing).await;

    let frame = lonely.closed().await.expect("a close frame");
    assert_eq!(u16::from(frame.code), CloseCode::RoomClosed.code());
    let status = |id| app.http.get(app.url(&format!("/api/rooms/{id}"))).send();
    assert_eq!(status(waiting.id).await.unwrap().status(), 404);

    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(status(playing.id).await.unwrap().status(), 200);
    red.roll().await;
    red.recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
        .await;
}

/// The file descriptors of process `pid` open on files in `dir` (not on `dir` itself, which
/// the server holds open to sync the journals).
fn descriptors_in(pid: u32, dir: &std::path::Path) -> usize {
    let dir = dir.canonicalize().unwrap();
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter(|target| target.starts_with(&dir) && *target != dir)
        .count()
}

#[tokio::test]
async fn every_live_games_journal_shares_one_file_descriptor() {
    // Issue 20 made every journal open its file per write, and later at most
    // `--journal-open-files` playing rooms kept theirs open; since the journal log (issue 18)
    // every journal writes to the one segment being written. The setting is still accepted.
    let data = tempfile::tempdir().unwrap();
    let server = ServerProcess::start(data.path(), None, &["--journal-open-files", "3"]);
    let http = reqwest::Client::new();
    let mut games = Vec::new();
    for _ in 0..8 {
        let room = create_room(&http, &server).await;
        let (mut red, yellow) = seat_both(&server, room.id).await;
        red.roll().await;
        red.recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
            .await;
        games.push((red, yellow));
    }
    let rooms = data.path().join("rooms");
    let journals = crate::journals::live(data.path()).len();
    assert_eq!(journals, 8, "every live game has its journal");
    assert_eq!(
        descriptors_in(server.pid(), &rooms),
        1,
        "the journals share the open segment's descriptor"
    );
}

/// Asks for a quick match twice at once at `server`, so the two requests pair into a new room
/// whose game starts at once (and is journaled); answers the room id.
async fn quick_pair(http: &reqwest::Client, server: &ServerProcess) -> uuid::Uuid {
    let ask = |name: &str| {
        http.post(server.url("/api/quick-match"))
            .json(&serde_json::json!({ "name": name }))
            .send()
    };
    let (first, second) = tokio::join!(ask("Ann"), ask("Bob"));
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_eq!(
        (first.status().as_u16(), second.status().as_u16()),
        (200, 200)
    );
    let matched: aeroplane_protocol::api::QuickMatched = first.json().await.unwrap();
    matched.room_id
}

#[tokio::test]
async fn many_live_games_never_bring_the_server_to_its_descriptor_limit() {
    // Issue 20: with `ulimit -n 1024`, 1,200 quick-match rooms held a journal descriptor each;
    // accepting failed with `Too many open files` and journals could not be written. Here the
    // limit is 128 and one client (whose room limit is lifted) starts 200 games.
    let data = tempfile::tempdir().unwrap();
    let server = ServerProcess::start(
        data.path(),
        None,
        &["--rooms-per-address-per-minute", "100000"],
    );
    let limited = Command::new("prlimit")
        .args(["--nofile=128:128", "--pid", &server.pid().to_string()])
        .status()
        .expect("prlimit runs");
    assert!(limited.success());
    let http = reqwest::Client::new();
    for _ in 0..200 {
        quick_pair(&http, &server).await;
    }
    let journals = crate::journals::live(data.path()).len();
    assert_eq!(journals, 200, "every live game is journaled");

    // The server still takes new connections and plays.
    let room = create_room(&http, &server).await;
    let (mut red, _yellow) = seat_both(&server, room.id).await;
    red.roll().await;
    red.recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
        .await;
}
