//! The `aeroplane` command in table rooms (`docs/protocol.md` §12) against a real server,
//! started in-process on a free port with an in-memory store: `play` against three computers in
//! a four-player `flights` room to the end, and `watch` of a three-player `classic` game.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use aeroplane_bot::Level;
use aeroplane_client::{Api, Client, ClientError, Turn, room_url};
use aeroplane_protocol::api::CreateRoom;
use aeroplane_protocol::record::Mode;
use aeroplane_rules::Side;
use aeroplane_server::{Config, RunningServer};
use aeroplane_store::MemoryStore;
use clap::Parser as _;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

struct TestServer {
    running: RunningServer,
    url: String,
    _data: tempfile::TempDir,
}

/// A server on a free port with its own data directory and an in-memory store, its abuse limits
/// lifted and its computers playing at once (`--bot-pace-ms 0`).
async fn spawn_server() -> TestServer {
    let data = tempfile::tempdir().unwrap();
    let unlimited = "1000000";
    #[rustfmt::skip]
    let config = Config::try_parse_from([
        "aeroplane-server", "--listen", "127.0.0.1:0", "--data-dir", data.path().to_str().unwrap(),
        "--ws-rate-per-sec", unlimited, "--ws-burst", unlimited,
        "--max-connections-per-address", unlimited, "--rooms-per-address-per-minute", unlimited,
        "--bot-pace-ms", "0",
    ])
    .unwrap();
    let running = aeroplane_server::serve(config, Arc::new(MemoryStore::new()))
        .await
        .unwrap();
    let url = format!("http://{}", running.addr());
    TestServer {
        running,
        url,
        _data: data,
    }
}

/// Starts the `aeroplane` binary with piped standard streams, an identity file of its own and
/// no colour.
fn spawn_cli(args: &[&str], identity: &std::path::Path) -> tokio::process::Child {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_aeroplane"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("AEROPLANE_IDENTITY", identity.join("identity.json"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

/// Plays one seat of a table room with random legal planes until the game ends.
async fn play_table(mut client: Client, seed: u64) -> Result<Turn, ClientError> {
    let mut step = seed * 100_000;
    loop {
        match client.wait_my_turn().await? {
            Turn::Roll => {
                client.roll()?;
            }
            Turn::Move { legal, .. } => {
                step += 1;
                let aeroplane_protocol::board::Board::Table(table) = client.board() else {
                    panic!("a table room has a table");
                };
                let decision = aeroplane_bot::choose_table(Level::Random, table, step).unwrap();
                assert!(legal.contains(decision.plane));
                client.move_plane(decision.plane)?;
            }
            over @ Turn::Over(_) => return Ok(over),
        }
    }
}

#[tokio::test]
async fn play_against_three_computers_in_a_four_player_flights_room_to_the_end() {
    let server = spawn_server().await;
    let identity = tempfile::tempdir().unwrap();
    #[rustfmt::skip]
    let mut child = spawn_cli(&[
        "--server", &server.url, "play", "--ruleset", "flights", "--players", "4",
        "--levels", "random,easy,random", "--colour", "green", "--name", "Ann",
    ], identity.path());
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut transcript = String::new();
    let (mut rolls, mut moves) = (0, 0);
    let read = tokio::time::timeout(Duration::from_secs(120), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            transcript.push_str(&line);
            transcript.push('\n');
            // Type only once the prompt shows, as a person would: the action then carries the
            // event number of the position on the screen.
            if line.starts_with("your turn: press Enter to roll") {
                rolls += 1;
                stdin.write_all(b"\n").await.unwrap();
            } else if let Some(rest) = line.strip_prefix("you rolled a ") {
                let choices = &rest[rest.find('(').unwrap() + 1..rest.find(')').unwrap()];
                let first = choices.split(", ").next().unwrap();
                moves += 1;
                stdin
                    .write_all(format!("{first}\n").as_bytes())
                    .await
                    .unwrap();
            }
        }
    })
    .await;
    let status = child.wait().await.unwrap();
    let mut stderr = String::new();
    use tokio::io::AsyncReadExt as _;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .await
        .unwrap();
    assert!(read.is_ok(), "the CLI hung:\n{transcript}\n{stderr}");
    assert!(status.success(), "{transcript}\n{stderr}");

    assert!(transcript.contains("you play Green"), "{transcript}");
    assert!(
        transcript.contains("(flights: Red, Green, Yellow, Blue)"),
        "{transcript}"
    );
    assert!(rolls > 5 && moves > 0, "{rolls} rolls, {moves} moves");
    // Every colour is on the board and in the log, and the game ends with the places.
    for letter in ["R1", "G1", "Y1", "B1"] {
        assert!(transcript.contains(letter), "{letter}: {transcript}");
    }
    assert!(transcript.contains("Green launches plane"), "{transcript}");
    assert!(transcript.contains("Green walks plane"), "{transcript}");
    assert!(transcript.contains("game over: "), "{transcript}");
    let end = transcript
        .lines()
        .find(|line| line.starts_with("you ") && line.contains(" (finished); places: 1 "))
        .unwrap_or_else(|| panic!("no outcome: {transcript}"));
    // Flights ends at the first finisher: the others have no place.
    assert!(end.ends_with("(no place)"), "{end}");
    assert!(
        transcript.contains("fairness: every roll and move verified"),
        "{transcript}"
    );
    server.running.shutdown().await.unwrap();
}

#[tokio::test]
async fn watch_follows_a_three_player_classic_game_step_by_step_to_its_ranking() {
    let server = spawn_server().await;
    let api = Api::new(&server.url).unwrap();
    let room = api
        .create_room_with(&CreateRoom {
            mode: Mode::Online,
            ruleset: Some("classic".to_owned()),
            players: Some(3),
            ..CreateRoom::default()
        })
        .await
        .unwrap();
    let identity = tempfile::tempdir().unwrap();
    let id = room.id.to_string();
    let child = spawn_cli(
        &["--server", &server.url, "watch", &id, "--name", "Eve"],
        identity.path(),
    );
    // The game starts only once the spectator is in, so it sees every event.
    for _ in 0..200 {
        if api.room(room.id).await.unwrap().spectators == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let url = room_url(&server.url, room.id);
    let mut players = Vec::new();
    for (seed, (name, colour)) in [
        ("Ann", Side::Red),
        ("Bob", Side::Yellow),
        ("Cid", Side::Blue),
    ]
    .into_iter()
    .enumerate()
    {
        let mut client = Client::connect(&url).await.unwrap();
        client.join_player(name, Some(colour), None).await.unwrap();
        players.push(tokio::spawn(play_table(client, seed as u64)));
    }
    for player in players {
        assert!(matches!(player.await.unwrap().unwrap(), Turn::Over(_)));
    }
    let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("watch hung")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    for words in [
        "Ann sits down as Red",
        "Cid sits down as Blue",
        "launches plane",
        "walks plane",
        "'s turn",
        "is out of play in place 1",
        "is out of play in place 2",
        "game over: ",
        "; places: 1 ",
        "check the game with: aeroplane verify",
    ] {
        assert!(stdout.contains(words), "{words}: {stdout}");
    }
    // Three colours play: Blue is drawn, Green is not.
    assert!(stdout.contains("B1"), "{stdout}");
    assert!(!stdout.contains("G1"), "{stdout}");
    server.running.shutdown().await.unwrap();
}

/// Runs the `aeroplane` binary with its standard input closed (it stops once seated, as a person
/// who closed the terminal) and returns what it printed.
async fn run_seated_then_closed(args: &[&str]) -> String {
    let identity = tempfile::tempdir().unwrap();
    let mut child = spawn_cli(args, identity.path());
    drop(child.stdin.take());
    let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("the CLI hung")
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test]
async fn play_opens_a_classic_room_of_three_with_a_house_rule_for_friends_to_join() {
    let server = spawn_server().await;
    #[rustfmt::skip]
    let stdout = run_seated_then_closed(&[
        "--server", &server.url, "play", "--ruleset", "classic", "--players", "3",
        "--house-rule", "jump-after-shortcut", "--colour", "blue", "--name", "Cid",
    ])
    .await;
    assert!(
        stdout.contains(
            "(classic+jump-after-shortcut: Red, Yellow, Blue); each of your 2 opponents runs:"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("you play Blue"), "{stdout}");
    let id = stdout
        .split_whitespace()
        .nth(1)
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("no room id in: {stdout}"));
    let status = Api::new(&server.url).unwrap().room(id).await.unwrap();
    let table = status.table.expect("a table room");
    assert_eq!(table.rules.to_string(), "classic+jump-after-shortcut");
    assert_eq!(table.seats, [Side::Red, Side::Yellow, Side::Blue]);
    assert_eq!(status.seats.blue.expect("Cid's seat").name, "Cid");
    server.running.shutdown().await.unwrap();
}

#[tokio::test]
async fn play_quick_waits_in_the_queue_of_its_edition_and_player_count() {
    let server = spawn_server().await;
    let api = Api::new(&server.url).unwrap();
    #[rustfmt::skip]
    let args = [
        "--server", &server.url, "play", "--quick", "--ruleset", "classic", "--players", "3",
        "--name", "Ann", "--anonymous",
    ];
    let cli = run_seated_then_closed(&args);
    let others = async {
        // The queue of three fills with the command and these two, whoever asks first.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let bob = api.quick_match_in("Bob", None, Some("classic"), Some(3));
        let cid = api.quick_match_in("Cid", None, Some("classic"), Some(3));
        let (bob, cid) = tokio::join!(bob, cid);
        (bob.unwrap(), cid.unwrap())
    };
    let (stdout, (bob, cid)) = tokio::join!(cli, others);
    assert!(
        stdout.contains("waiting in the quick-match queue of classic for 3"),
        "{stdout}"
    );
    assert!(stdout.contains("you play "), "{stdout}");
    assert_eq!(bob.room_id, cid.room_id);
    let status = api.room(bob.room_id).await.unwrap();
    let table = status.table.expect("a table room");
    assert_eq!(table.rules.to_string(), "classic");
    assert_eq!(table.seats.len(), 3);
    let seats = [status.seats.red, status.seats.yellow, status.seats.blue];
    let names: Vec<String> = seats.into_iter().flatten().map(|seat| seat.name).collect();
    assert!(names.contains(&"Ann".to_owned()), "{names:?}");
    server.running.shutdown().await.unwrap();
}
