//! The load generator against a real server, started in-process on a free port with an
//! in-memory store.

use std::sync::Arc;
use std::time::Duration;

use aeroplane_bot::Level;
use aeroplane_loadtest::{self as loadtest, LoadConfig, Progress, Target, Turns};
use aeroplane_rules::Rules;
use aeroplane_server::{Config, RunningServer};
use aeroplane_store::MemoryStore;
use clap::Parser as _;

struct TestServer {
    _running: RunningServer,
    url: String,
    _data: tempfile::TempDir,
}

/// A server on a free port with its own data directory, an in-memory store and its abuse
/// limits lifted, as for a load test: the bots here act as fast as the server answers.
async fn spawn_server() -> TestServer {
    let data = tempfile::tempdir().unwrap();
    let unlimited = "1000000";
    #[rustfmt::skip]
    let config = Config::try_parse_from([
        "aeroplane-server", "--listen", "127.0.0.1:0", "--data-dir", data.path().to_str().unwrap(),
        "--ws-rate-per-sec", unlimited, "--ws-burst", unlimited,
        "--max-connections-per-address", unlimited, "--rooms-per-address-per-minute", unlimited,
    ])
    .unwrap();
    let running = aeroplane_server::serve(config, Arc::new(MemoryStore::new()))
        .await
        .unwrap();
    let url = format!("http://{}", running.addr());
    TestServer {
        _running: running,
        url,
        _data: data,
    }
}

/// Runs the `aeroplane-loadtest` binary without blocking the runtime the server runs on.
async fn run_cli(args: &[&str]) -> std::process::Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_aeroplane-loadtest"))
        .args(args)
        .output()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_bounded_load_test_finishes_every_game_without_errors() {
    let server = spawn_server().await;
    let config = LoadConfig {
        server: server.url.clone(),
        target: Target::Aeroplane,
        rooms: 3,
        games: Some(6),
        duration: None,
        rate: None,
        level: aeroplane_bot::Level::Easy,
        turns: Turns::Alternate,
        rules: Rules::PLYYARD,
        players: 2,
        source_addrs: vec!["127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap()],
        action_timeout: Duration::from_secs(10),
        warmup: Duration::ZERO,
        ws_via: None,
    };
    let progress = Arc::new(Progress::default());
    let report = loadtest::run(config, progress.clone()).await;
    assert_eq!(report.errors, Default::default());
    assert_eq!((report.games, report.failed_games), (6, 0));
    assert!(report.actions > 6 * 20, "{} actions", report.actions);
    assert_eq!(report.round_trip_us.len(), report.actions);
    assert_eq!(progress.games.load(std::sync::atomic::Ordering::Relaxed), 6);
}

#[tokio::test]
async fn three_bots_a_room_play_three_player_classic_games_to_the_end_without_errors() {
    let server = spawn_server().await;
    let config = LoadConfig {
        server: server.url.clone(),
        target: Target::Aeroplane,
        rooms: 2,
        games: Some(4),
        duration: None,
        rate: None,
        level: Level::Random,
        turns: Turns::Alternate,
        rules: Rules::CLASSIC,
        players: 3,
        source_addrs: Vec::new(),
        action_timeout: Duration::from_secs(10),
        warmup: Duration::ZERO,
        ws_via: None,
    };
    let report = loadtest::run(config, Arc::new(Progress::default())).await;
    assert_eq!(report.errors, Default::default());
    assert_eq!((report.games, report.failed_games), (4, 0));
    // A classic game of three lasts until two have finished: far more than 20 actions.
    assert!(report.actions > 4 * 20, "{} actions", report.actions);
    assert_eq!(report.round_trip_us.len(), report.actions);
}

#[tokio::test]
async fn the_loadtest_command_plays_four_player_flights_rooms_and_names_them_in_its_report() {
    let server = spawn_server().await;
    #[rustfmt::skip]
    let output = run_cli(&[
        "--server", &server.url, "--rooms", "2", "--games", "2", "--ruleset", "flights",
        "--players", "4", "--json",
    ])
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (&summary["ruleset"], &summary["players"]),
        (&serde_json::json!("flights"), &serde_json::json!(4))
    );
    assert_eq!(
        (&summary["games"], &summary["failed_games"]),
        (&serde_json::json!(2), &serde_json::json!(0))
    );
    assert_eq!(summary["errors"], serde_json::json!({}));
    // Plyyard seats two: a larger count is refused before anything is sent.
    let refused = run_cli(&["--server", &server.url, "--games", "1", "--players", "3"]).await;
    assert_eq!(refused.status.code(), Some(2));
}

#[tokio::test]
async fn an_open_loop_run_sends_at_its_rate_and_stops_at_the_deadline_without_errors() {
    let server = spawn_server().await;
    let config = LoadConfig {
        server: server.url.clone(),
        target: Target::Aeroplane,
        rooms: 2,
        games: None,
        duration: Some(Duration::from_millis(1500)),
        rate: Some(100.0),
        level: Level::Random,
        turns: Turns::Alternate,
        rules: Rules::PLYYARD,
        players: 2,
        source_addrs: Vec::new(),
        action_timeout: Duration::from_secs(10),
        warmup: Duration::ZERO,
        ws_via: None,
    };
    let report = loadtest::run(config, Arc::new(Progress::default())).await;
    assert_eq!(report.errors, Default::default());
    assert_eq!(report.failed_games, 0);
    // 100 actions/s for 1.5 s, less the time it takes to open the rooms: about 150, never more
    // (fewer when a loaded machine answers slowly).
    assert!(
        (20..=160).contains(&report.actions),
        "{} actions",
        report.actions
    );
    assert_eq!(report.round_trip_us.len(), report.actions);
}

#[tokio::test]
async fn the_loadtest_command_reports_a_clean_bounded_run_as_json() {
    let server = spawn_server().await;
    let output = run_cli(&[
        "--server",
        &server.url,
        "--rooms",
        "2",
        "--games",
        "3",
        "--json",
    ])
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["games"], 3);
    assert_eq!(summary["failed_games"], 0);
    assert_eq!(summary["errors"], serde_json::json!({}));
    assert!(summary["round_trip_ms"]["p99"].as_f64().unwrap() > 0.0);
    // The server runs inside this test process, which listens on the port: its memory is found.
    assert!(summary["server_peak_kib"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn the_loadtest_command_refuses_an_order_of_turns_for_a_room_that_keeps_its_own() {
    // Refused before anything connects, so no server is needed.
    let output = run_cli(&[
        "--server",
        "http://127.0.0.1:9",
        "--target",
        "aeroplane",
        "--turns",
        "game",
        "--games",
        "1",
    ])
    .await;
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--turns orders the seats of the echo and broadcast targets only"),
        "{stderr}"
    );
}
