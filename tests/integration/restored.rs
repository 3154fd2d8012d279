//! Every kind of room survives a restart, with the real server binary as a child process:
//! computer and local rooms after SIGTERM and SIGKILL (same position, the seat token reconnects,
//! undo goes back as far as before, the computer plays on, the game ends and is stored), the
//! turn clock running again with its strikes, a version-1 journal, and the metrics counting a
//! restored game as restored rather than as started again.

use std::path::Path;
use std::time::{Duration, Instant};

use aeroplane_protocol::api::RoomCreated;
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::record::{Mode, PlayerKind};
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::{RoomPhase, Snapshot};
use aeroplane_rules::{EndReason, Side, TableAction};
use uuid::Uuid;

use crate::child::ServerProcess;
use crate::clock::red_waits_until;
use crate::computer::{Stop, drive};
use crate::restart::{
    DEADLINE_MS, check_record, create_room, play_some, record_from, rejoin, seat_both,
};
use crate::support::{
    Client, TIMEOUT, TurnView, connect_to, play_to_end_from, player_join, welcome,
};
use crate::undo::{assert_restored, send_undo, undo};

/// A server whose computer acts at once, holding seats for a minute.
const FAST: [&str; 6] = [
    "--shutdown-deadline-ms",
    DEADLINE_MS,
    "--grace-ms",
    "60000",
    "--bot-pace-ms",
    "0",
];

/// `POST /api/rooms` with `body`, expecting 201.
async fn create(
    http: &reqwest::Client,
    server: &ServerProcess,
    body: serde_json::Value,
) -> RoomCreated {
    crate::computer::create_at(http, server.url("/api/rooms"), body).await
}

/// Joins the one person of a computer or local room and waits for the game to start.
async fn join_alone(server: &ServerProcess, room: &RoomCreated) -> Client {
    let mut client = connect_to(server.addr, room.id).await;
    let join = player_join("Ann", None, None, Some("ann".into()));
    welcome(client.join(join).await);
    client
        .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;
    client
}

/// How many action lines the room's journal holds.
fn journaled_actions(data: &Path, room: Uuid) -> usize {
    crate::journals::actions_in(data, room)
}

/// Stops the server: SIGTERM (and the client sees 1001 `shutting_down`) or SIGKILL.
async fn stop(server: &mut ServerProcess, client: &mut Client, graceful: bool) {
    if graceful {
        let status = server.terminate(Duration::from_secs(10));
        assert!(status.success(), "SIGTERM exits 0: {status:?}");
        let frame = client.closed().await.expect("a close frame");
        assert_eq!(u16::from(frame.code), 1001);
        assert_eq!(frame.reason.as_str(), "shutting_down");
    } else {
        server.kill();
    }
}

/// Reads until the computer's seat is connected again (its bot rejoins on its own).
async fn computer_rejoined(client: &mut Client, snapshot: &Snapshot, computer: Side) {
    let connected = snapshot
        .seats
        .get(computer)
        .is_some_and(|seat| seat.connected);
    if !connected {
        client
            .recv_until(|m| matches!(m, ServerMessage::PlayerConnected(c) if c.colour == computer))
            .await;
    }
}

/// A computer or local room (`body`) survives a restart: the person makes three plane choices,
/// the server stops, and after the restart the seat token reconnects to the same position, undo
/// takes back exactly those three choices and no more, and the game is played to its end (the
/// computer moving by itself) and stored with every roll verifiable.
async fn a_single_player_room_survives(body: serde_json::Value, graceful: bool) {
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    let mut server = ServerProcess::start(data.path(), None, &FAST);
    let room = create(&http, &server, body).await;
    let mut client = join_alone(&server, &room).await;
    let token = client.token.clone().unwrap();
    // In a computer room the person plays one colour; in a local room both.
    let person = room.colour;
    let mine = move |colour: Side| person.is_none_or(|person| person == colour);
    let choice = move |turn: &TurnView| mine(turn.actor()) && turn.pending().is_some();

    let mut turn = TurnView::of(&client);
    let mut choices = Vec::new();
    while choices.len() < 3 {
        let Stop::Wanted = drive(&mut client, &mut turn, mine, choice).await else {
            panic!("the game ended early")
        };
        choices.push(client.sync().await);
        client
            .move_plane(turn.pending().unwrap().iter().next().unwrap())
            .await;
        turn.sent();
    }
    // On to a moment where the person must act (the computer waits for them).
    let Stop::Wanted = drive(&mut client, &mut turn, mine, |turn| mine(turn.actor())).await else {
        panic!("the game ended early")
    };
    let before = client.sync().await;
    let actions_before = journaled_actions(data.path(), room.id);
    stop(&mut server, &mut client, graceful).await;
    drop(client);

    let server = ServerProcess::start(data.path(), None, &FAST);
    let mut client = connect_to(server.addr, room.id).await;
    let again = client.join_with_token(&token).await;
    assert_eq!(again.colour, person);
    assert_eq!(
        again.colours,
        person.map_or(vec![Side::Red, Side::Yellow], |c| vec![c])
    );
    let after = &again.snapshot;
    assert_eq!(after.phase, RoomPhase::Playing);
    assert_eq!(after.mode, before.mode);
    assert_eq!(after.game, before.game, "same position, same pending roll");
    assert_eq!(after.notation, before.notation);
    assert_eq!(after.fairness, before.fairness, "same commitment and seeds");
    assert_eq!(
        after.computer, before.computer,
        "same computer colour and level"
    );
    // Past the seat's own `player_connected`, and the computer's once its bot is back.
    let now = client.sync().await;
    if let Some(person) = person {
        computer_rejoined(&mut client, &now, person.opposite()).await;
    }

    // Undo goes back through the three choices made before the restart, and no further.
    let mut undone = None;
    for earlier in choices.iter().rev() {
        let back = undo(&mut client).await;
        assert_restored(&back, earlier);
        undone = Some(back);
    }
    send_undo(&mut client).await;
    client.expect_error(ErrorCode::NothingToUndo).await;

    assert!(undone.is_some(), "undo went back");
    let mut turn = TurnView::of(&client);
    let Stop::Over(over) = drive(&mut client, &mut turn, mine, |_| false).await else {
        unreachable!("only the end of the game stops this drive")
    };
    assert_eq!(over.result.reason, EndReason::Finished);
    let record = record_from(&http, &server, room.id).await;
    assert_eq!(record.mode, before.mode);
    assert_eq!(record.result.winner, over.result.winner);
    check_record(&record, &before, actions_before);
    if let Some(person) = person {
        let computer = record.players.seat(person.opposite()).unwrap();
        assert_eq!(computer.kind, PlayerKind::Computer);
        assert_eq!(computer.level, room.level);
        let computer_rolls_after = record.actions[actions_before..]
            .iter()
            .filter(|logged| {
                !logged.undone
                    && matches!(logged.action, TableAction::Roll { colour, .. } if colour != person)
            })
            .count();
        assert!(
            computer_rolls_after > 0,
            "the computer played on after the restart"
        );
    }
}

#[tokio::test]
async fn a_computer_room_survives_sigterm_and_undo_still_goes_back() {
    let body = serde_json::json!({ "mode": "computer", "colour": "red", "level": "easy" });
    a_single_player_room_survives(body, true).await;
}

#[tokio::test]
async fn a_computer_room_survives_sigkill_and_undo_still_goes_back() {
    let body = serde_json::json!({ "mode": "computer", "colour": "yellow", "level": "normal" });
    a_single_player_room_survives(body, false).await;
}

#[tokio::test]
async fn a_local_room_survives_sigterm_and_undo_still_goes_back() {
    a_single_player_room_survives(serde_json::json!({ "mode": "local" }), true).await;
}

#[tokio::test]
async fn a_local_room_survives_sigkill_and_undo_still_goes_back() {
    a_single_player_room_survives(serde_json::json!({ "mode": "local" }), false).await;
}

/// The turn clock of a restored room runs again, with a full decision time from the restore and
/// the strikes counted before the restart: Red lets the clock run out once before SIGKILL, and
/// with two strikes to forfeit, the first time it runs out after the restart ends the game.
#[tokio::test]
async fn the_turn_clock_runs_again_after_a_restart_and_keeps_its_strikes() {
    const CLOCK_MS: u64 = 1_000;
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    let args = ["--max-strikes", "2", "--grace-ms", "60000"];
    let mut server = ServerProcess::start(data.path(), None, &args);
    let room = create(
        &http,
        &server,
        serde_json::json!({ "mode": "online", "turn_clock_ms": CLOCK_MS }),
    )
    .await;
    let (mut red, mut yellow) = seat_both(&server, room.id).await;
    let tokens = (red.token.clone().unwrap(), yellow.token.clone().unwrap());
    let mut turn = TurnView::of(&red);
    // The server rolls for Red when its clock runs out: Red's first strike.
    red_waits_until(
        &mut red,
        &mut yellow,
        &mut turn,
        |m| matches!(m, ServerMessage::Rolled(rolled) if rolled.colour == Side::Red),
    )
    .await;
    server.kill();
    drop((red, yellow));

    let server = ServerProcess::start(data.path(), None, &args);
    let restored_at = Instant::now();
    let mut red = connect_to(server.addr, room.id).await;
    red.join_with_token(&tokens.0).await;
    let mut yellow = connect_to(server.addr, room.id).await;
    yellow.join_with_token(&tokens.1).await;
    red.catch_up(yellow.seen()).await;
    let mut turn = TurnView::of(&red);
    let seen = red_waits_until(&mut red, &mut yellow, &mut turn, |m| {
        matches!(m, ServerMessage::GameOver(_))
    })
    .await;
    let Some(ServerMessage::GameOver(over)) = seen.last() else {
        unreachable!()
    };
    assert_eq!(
        (over.result.winner, over.result.reason),
        (Some(Side::Yellow), EndReason::Timeout),
        "the clock ran out after the restart"
    );
    assert!(
        !seen
            .iter()
            .any(|m| matches!(m, ServerMessage::Rolled(rolled) if rolled.colour == Side::Red)),
        "the strike before the restart counted: the second forfeits at once: {seen:?}"
    );
    assert!(
        restored_at.elapsed() >= Duration::from_millis(CLOCK_MS - 200),
        "the player to act had a full decision time from the restore"
    );
    let record = record_from(&http, &server, room.id).await;
    assert_eq!(record.result.reason, EndReason::Timeout);
}

/// Moves the turn clock played for a player are not theirs to take back, before a restart or
/// after: in a local room with a clock, the player makes one plane choice, then lets the clock
/// play until it has moved a plane for them; after SIGKILL and a restart, undo goes back to the
/// player's own choice, and no further.
#[tokio::test]
async fn undo_after_a_restart_skips_the_moves_the_turn_clock_played() {
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    let args = ["--max-strikes", "1000", "--grace-ms", "60000"];
    let mut server = ServerProcess::start(data.path(), None, &args);
    let body = serde_json::json!({ "mode": "local", "turn_clock_ms": 1_000 });
    let room = create(&http, &server, body).await;
    let mut client = join_alone(&server, &room).await;
    let token = client.token.clone().unwrap();
    let mut turn = TurnView::of(&client);
    let Stop::Wanted = drive(&mut client, &mut turn, |_| true, |t| t.pending().is_some()).await
    else {
        panic!("the game ended early")
    };
    let choice = client.sync().await;
    client
        .move_plane(turn.pending().unwrap().iter().next().unwrap())
        .await;
    client
        .recv_until(|m| matches!(m, ServerMessage::Moved(_)))
        .await;
    // Nobody acts now: the clock rolls (and moves, when it can) until it has moved a plane.
    client
        .recv_until(|m| matches!(m, ServerMessage::Moved(_)))
        .await;
    server.kill();
    drop(client);

    let server = ServerProcess::start(data.path(), None, &args);
    let mut client = connect_to(server.addr, room.id).await;
    client.join_with_token(&token).await;
    client.sync().await;
    let undone = undo(&mut client).await;
    assert_restored(&undone, &choice);
    send_undo(&mut client).await;
    client.expect_error(ErrorCode::NothingToUndo).await;
}

/// A journal of the first format (online rooms, no clock or computer fields) still restores.
#[tokio::test]
async fn a_version_1_journal_of_an_online_room_still_restores() {
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    let mut server = ServerProcess::start(data.path(), None, &FAST);
    let room = create_room(&http, &server).await;
    let (mut red, mut yellow) = seat_both(&server, room.id).await;
    let tokens = (red.token.clone().unwrap(), yellow.token.clone().unwrap());
    let turn = play_some(&mut red, &mut yellow, 10).await;
    let before = red.sync().await;
    server.kill();
    drop((red, yellow));

    // As a server before the journal log and before version 2 wrote it: a file of its own.
    let path = crate::journals::as_one_file(data.path(), room.id, |text| {
        assert!(text.starts_with("{\"setup\":{\"version\":3,"), "{text}");
        assert!(!text.contains("turn_clock_ms") && !text.contains("computer"));
        text.replacen("\"version\":3", "\"version\":1", 1)
    });

    let server = ServerProcess::start(data.path(), None, &FAST);
    let (mut red, mut yellow) = rejoin(&server, room.id, &tokens.0, &tokens.1, &before).await;
    let rewritten = crate::journals::journal_of(data.path(), room.id).unwrap();
    assert!(
        rewritten[0].starts_with("{\"setup\":{\"version\":3,"),
        "a restored journal is rewritten in the current format"
    );
    assert!(!path.exists(), "and moved into the log");
    let over = play_to_end_from(turn, &mut red, &mut yellow, |_| {}).await;
    let record = record_from(&http, &server, room.id).await;
    assert_eq!(record.result.winner, over.result.winner);
}

/// The value of one series in Prometheus text (0 when absent).
fn metric(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .map_or(0.0, |value| value.trim().parse().expect("a number"))
}

async fn scrape(http: &reqwest::Client, server: &ServerProcess) -> String {
    let response = http.get(server.url("/metrics")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

/// Scrapes until `settled` holds: a room updates its metrics right after the command that sent
/// its events, so a client may hear of a change a moment before `/metrics` shows it.
async fn scrape_until(
    http: &reqwest::Client,
    server: &ServerProcess,
    settled: impl Fn(&str) -> bool,
) -> String {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let text = scrape(http, server).await;
        if settled(&text) || Instant::now() > deadline {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn started(mode: Mode) -> String {
    format!(
        "aeroplane_games_started_total{{mode=\"{}\"}}",
        mode.as_str()
    )
}

fn restored(mode: Mode) -> String {
    format!(
        "aeroplane_rooms_restored_total{{mode=\"{}\"}}",
        mode.as_str()
    )
}

/// A game restored after a restart is not counted as started again (nor are its actions), but
/// as a restored room; the games played on after the restart are counted as usual.
#[tokio::test]
async fn restored_games_are_counted_as_restored_not_as_started() {
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    let mut server = ServerProcess::start(data.path(), None, &FAST);
    let online = create_room(&http, &server).await;
    let (mut red, mut yellow) = seat_both(&server, online.id).await;
    let tokens = (red.token.clone().unwrap(), yellow.token.clone().unwrap());
    play_some(&mut red, &mut yellow, 4).await;
    let before = red.sync().await;
    let computer = create(&http, &server, serde_json::json!({ "mode": "computer" })).await;
    let mut person = join_alone(&server, &computer).await;
    let local = create(&http, &server, serde_json::json!({ "mode": "local" })).await;
    let _alone = join_alone(&server, &local).await;

    let modes = [Mode::Online, Mode::Computer, Mode::Local];
    let text = scrape_until(&http, &server, |text| {
        modes
            .iter()
            .all(|mode| metric(text, &started(*mode)) == 1.0)
    })
    .await;
    for mode in modes {
        assert_eq!(metric(&text, &started(mode)), 1.0, "{mode:?}:\n{text}");
    }
    assert!(metric(&text, "aeroplane_actions_total{kind=\"roll\"}") >= 2.0);
    stop(&mut server, &mut person, true).await;
    drop((red, yellow));

    let server = ServerProcess::start(data.path(), None, &FAST);
    let text = scrape(&http, &server).await;
    for mode in [Mode::Online, Mode::Computer, Mode::Local] {
        assert_eq!(metric(&text, &started(mode)), 0.0, "{mode:?}:\n{text}");
        assert_eq!(metric(&text, &restored(mode)), 1.0, "{mode:?}:\n{text}");
    }
    assert_eq!(
        metric(&text, "aeroplane_rooms{state=\"playing\"}"),
        3.0,
        "{text}"
    );
    assert_eq!(
        metric(&text, "aeroplane_actions_total{kind=\"roll\"}"),
        0.0,
        "{text}"
    );

    // Play goes on and is counted; the restored game is still not started again.
    let (mut red, mut yellow) = rejoin(&server, online.id, &tokens.0, &tokens.1, &before).await;
    red.resign().await;
    yellow
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    record_from(&http, &server, online.id).await;
    let resigned = "aeroplane_actions_total{kind=\"resign\"}";
    let text = scrape_until(&http, &server, |text| metric(text, resigned) == 1.0).await;
    assert_eq!(metric(&text, &started(Mode::Online)), 0.0, "{text}");
    assert_eq!(
        metric(
            &text,
            "aeroplane_games_finished_total{mode=\"online\",reason=\"resigned\"}"
        ),
        1.0,
        "{text}"
    );
    assert_eq!(metric(&text, resigned), 1.0, "{text}");
}
