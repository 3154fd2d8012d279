//! Restarts lose no game, with the real server binary as a child process: SIGTERM (graceful),
//! SIGKILL (no chance to save), and finished games waiting in the outbox while the database is
//! down.

use std::time::Duration;

use aeroplane_protocol::api::{GameList, RoomCreated};
use aeroplane_protocol::record::GameRecord;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::{RoomPhase, Snapshot};
use aeroplane_rules::Side;
use uuid::Uuid;

use crate::child::ServerProcess;
use crate::db::TestDatabase;
use crate::support::{
    Client, TIMEOUT, TurnView, connect_to, play_to_end_from, player_join, welcome,
};

/// How long a graceful shutdown may take in these tests.
pub(crate) const DEADLINE_MS: &str = "3000";

pub(crate) async fn create_room(http: &reqwest::Client, server: &ServerProcess) -> RoomCreated {
    let response = http
        .post(server.url("/api/rooms"))
        .json(&serde_json::json!({ "mode": "online" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    response.json().await.unwrap()
}

/// Seats Red and Yellow (with client seeds) and waits for the start.
pub(crate) async fn seat_both(server: &ServerProcess, room: Uuid) -> (Client, Client) {
    let mut red = connect_to(server.addr, room).await;
    welcome(
        red.join(player_join(
            "Ann",
            Some(Side::Red),
            None,
            Some("ann".into()),
        ))
        .await,
    );
    let mut yellow = connect_to(server.addr, room).await;
    welcome(
        yellow
            .join(player_join(
                "Bob",
                Some(Side::Yellow),
                None,
                Some("bob".into()),
            ))
            .await,
    );
    for client in [&mut red, &mut yellow] {
        client
            .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
            .await;
    }
    (red, yellow)
}

/// Plays at least `actions` actions (each roll, then the first legal plane) and stops with a
/// roll pending a plane choice, when one comes within a while. Answers the turn to go on from.
pub(crate) async fn play_some(red: &mut Client, yellow: &mut Client, actions: usize) -> TurnView {
    let mut turn = TurnView::of(red);
    let mut done = 0;
    while done < actions || (turn.pending().is_none() && done < actions + 60) {
        let actor = if turn.actor() == Side::Red {
            &mut *red
        } else {
            &mut *yellow
        };
        match turn.pending() {
            None => actor.roll().await,
            Some(legal) => actor.move_plane(legal.iter().next().unwrap()).await,
        }
        done += 1;
        turn.sent();
        while !turn.settled() {
            let message = red.recv().await;
            assert!(
                !matches!(
                    message,
                    ServerMessage::Error(_) | ServerMessage::GameOver(_)
                ),
                "{message:?}"
            );
            turn.follow(&message);
        }
        yellow.catch_up(red.seen()).await;
    }
    turn
}

/// Rejoins both seats with their tokens and checks that the game is where it was.
pub(crate) async fn rejoin(
    server: &ServerProcess,
    room: Uuid,
    red_token: &str,
    yellow_token: &str,
    before: &Snapshot,
) -> (Client, Client) {
    let mut red = connect_to(server.addr, room).await;
    let red_welcome = red.join_with_token(red_token).await;
    let mut yellow = connect_to(server.addr, room).await;
    let yellow_welcome = yellow.join_with_token(yellow_token).await;
    assert_eq!(red_welcome.colour, Some(Side::Red));
    assert_eq!(yellow_welcome.colour, Some(Side::Yellow));
    for after in [&red_welcome.snapshot, &yellow_welcome.snapshot] {
        assert_eq!(after.phase, RoomPhase::Playing);
        assert_eq!(after.game, before.game, "same position, same pending roll");
        assert_eq!(after.notation, before.notation);
        assert_eq!(
            after.fairness, before.fairness,
            "same commitment and client seeds"
        );
    }
    // Red's own welcome came before Yellow joined: catch up with Yellow's arrival.
    red.catch_up(yellow.seen()).await;
    (red, yellow)
}

pub(crate) async fn record_from(
    http: &reqwest::Client,
    server: &ServerProcess,
    id: Uuid,
) -> GameRecord {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let response = http
            .get(server.url(&format!("/api/games/{id}")))
            .send()
            .await
            .unwrap();
        if response.status() == 200 {
            return response.json().await.unwrap();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "game {id} was not stored"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The record replays to its result and its seeds reproduce every roll (so the die stream went
/// on after the restart where it had stopped), and it passes `aeroplane verify`'s checks.
pub(crate) fn check_record(record: &GameRecord, before: &Snapshot, actions_before: usize) {
    aeroplane_client::verify_record(record)
        .expect("the record verifies as `aeroplane verify` does");
    let game = record.replay().expect("the record replays");
    let outcome = game.outcome().expect("over");
    assert_eq!(
        (outcome.winner, outcome.reason),
        (record.result.plyyard_winner(), record.result.reason)
    );
    let (prefix, _) = aeroplane_rules::Game::replay(
        record.actions[..actions_before]
            .iter()
            .map(|logged| logged.action.to_plyyard().unwrap()),
    )
    .unwrap();
    assert_eq!(
        prefix,
        before.game(),
        "the actions before the restart are all in the record"
    );
    let fairness = &record.fairness;
    assert_eq!(Some(&fairness.red_seed), before.fairness.red_seed.as_ref());
    assert_eq!(fairness.commitment, before.fairness.commitment);
    crate::support::assert_dice_verify(record);
}

async fn a_live_game_survives(graceful: bool) {
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    let args = ["--shutdown-deadline-ms", DEADLINE_MS, "--grace-ms", "60000"];
    let mut server = ServerProcess::start(data.path(), None, &args);
    let room = create_room(&http, &server).await;
    let (mut red, mut yellow) = seat_both(&server, room.id).await;
    let (red_token, yellow_token) = (red.token.clone().unwrap(), yellow.token.clone().unwrap());
    let turn = play_some(&mut red, &mut yellow, 12).await;
    let before = red.sync().await;
    let actions_before = crate::journals::actions_in(data.path(), room.id);

    if graceful {
        let status = server.terminate(Duration::from_secs(10));
        assert!(status.success(), "SIGTERM exits 0: {status:?}");
        for client in [&mut red, &mut yellow] {
            let frame = client.closed().await.expect("a close frame");
            assert_eq!(u16::from(frame.code), 1001);
            assert_eq!(frame.reason.as_str(), "shutting_down");
        }
    } else {
        server.kill();
        drop((red, yellow));
    }

    let server = ServerProcess::start(data.path(), None, &args);
    let (mut red, mut yellow) = rejoin(&server, room.id, &red_token, &yellow_token, &before).await;
    let over = play_to_end_from(turn, &mut red, &mut yellow, |_| {}).await;
    let record = record_from(&http, &server, room.id).await;
    assert_eq!(record.result.winner, over.result.winner);
    check_record(&record, &before, actions_before);
    let list: GameList = server.get_json("/api/games?player=Ann").await;
    assert_eq!(
        list.games.iter().filter(|game| game.id == room.id).count(),
        1
    );
}

#[tokio::test]
async fn after_sigterm_players_reconnect_and_finish_the_same_game() {
    a_live_game_survives(true).await;
}

#[tokio::test]
async fn after_sigkill_players_reconnect_and_finish_the_same_game() {
    a_live_game_survives(false).await;
}

#[tokio::test]
async fn sigterm_drains_refuses_new_rooms_and_exits_within_the_deadline() {
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    // A database nobody listens on keeps the outbox from emptying, so shutdown uses its deadline.
    let mut server = ServerProcess::start(
        data.path(),
        Some("postgres://postgres@127.0.0.1:1/nothing"),
        &["--shutdown-deadline-ms", "1500"],
    );
    let room = create_room(&http, &server).await;
    let (mut red, _yellow) = seat_both(&server, room.id).await;
    red.resign().await;
    red.recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    let started = std::time::Instant::now();
    let status = server.terminate(Duration::from_secs(10));
    assert!(status.success(), "{status:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    let outbox: Vec<_> = std::fs::read_dir(data.path().join("outbox"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(outbox.len(), 1, "the unflushed game waits in the outbox");
}

/// Plays `count` short games (Red resigns) on `server` and answers their ids.
pub(crate) async fn finish_games(server: &ServerProcess, count: usize) -> Vec<Uuid> {
    let http = reqwest::Client::new();
    let mut ids = Vec::new();
    for _ in 0..count {
        let room = create_room(&http, server).await;
        let (mut red, mut yellow) = seat_both(server, room.id).await;
        red.resign().await;
        yellow
            .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
            .await;
        ids.push(room.id);
    }
    ids
}

pub(crate) async fn wait_for_outbox(dir: &std::path::Path, count: usize) {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let files = std::fs::read_dir(dir.join("outbox"))
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
                    .count()
            })
            .unwrap_or(0);
        if files == count {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{files} of {count} games in the outbox"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every id is stored exactly once, and nothing else is.
async fn stored_exactly_once(server: &ServerProcess, ids: &[Uuid]) {
    let http = reqwest::Client::new();
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let response = http
            .get(server.url("/api/games?limit=100"))
            .send()
            .await
            .unwrap();
        if response.status() == 200 {
            let list: GameList = response.json().await.unwrap();
            let listed: Vec<Uuid> = list.games.iter().map(|game| game.id).collect();
            if listed.len() >= ids.len() {
                let mut sorted = listed.clone();
                sorted.sort();
                sorted.dedup();
                assert_eq!(sorted.len(), listed.len(), "no game twice: {listed:?}");
                for id in ids {
                    assert!(listed.contains(id), "{id} is stored");
                }
                assert_eq!(listed.len(), ids.len());
                return;
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the games never all arrived"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn games_survive_a_database_outage(graceful: bool) {
    let Some(database) = TestDatabase::from_env().await else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let down = "postgres://postgres@127.0.0.1:1/down";
    let mut server =
        ServerProcess::start(data.path(), Some(down), &["--shutdown-deadline-ms", "1000"]);
    let http = reqwest::Client::new();
    let ready = http.get(server.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 503, "not ready while the database is down");
    let ids = finish_games(&server, 3).await;
    wait_for_outbox(data.path(), 3).await;
    if graceful {
        assert!(server.terminate(Duration::from_secs(10)).success());
    } else {
        server.kill();
    }
    wait_for_outbox(data.path(), 3).await;

    let server = ServerProcess::start(data.path(), Some(&database.url), &[]);
    stored_exactly_once(&server, &ids).await;
    wait_for_outbox(data.path(), 0).await;
    let ready = http.get(server.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);
    drop(server);
    // And a further restart stores nothing twice.
    let server = ServerProcess::start(data.path(), Some(&database.url), &[]);
    stored_exactly_once(&server, &ids).await;
}

#[tokio::test]
async fn games_finished_while_the_database_is_down_are_stored_once_after_a_restart() {
    games_survive_a_database_outage(true).await;
}

#[tokio::test]
async fn games_in_the_outbox_survive_sigkill_and_are_stored_once() {
    games_survive_a_database_outage(false).await;
}
