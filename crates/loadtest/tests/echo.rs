//! The load generator's echo and broadcast targets against the benchmark's echo server
//! (`bench/echo`), started in-process on a free port.

use std::sync::Arc;
use std::time::Duration;

use aeroplane_loadtest::{self as loadtest, LoadConfig, Progress, Target, Turns};
use aeroplane_rules::Rules;

/// Starts the echo server in-process on a free port; answers its base URL.
async fn echo_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(aeroplane_bench_echo::serve(listener));
    url
}

/// Three games in two rooms of `target` at `server`, the seats taking `turns`.
fn three_games(server: String, target: Target, turns: Turns) -> LoadConfig {
    LoadConfig {
        server,
        target,
        rooms: 2,
        games: Some(3),
        duration: None,
        rate: None,
        level: aeroplane_bot::Level::Random,
        turns,
        rules: Rules::PLYYARD,
        players: 2,
        source_addrs: Vec::new(),
        action_timeout: Duration::from_secs(10),
        warmup: Duration::ZERO,
        ws_via: None,
    }
}

#[tokio::test]
async fn a_bounded_echo_run_plays_every_game_without_errors() {
    let mut config = three_games(echo_server().await, Target::Echo, Turns::Alternate);
    config.source_addrs = vec!["127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap()];
    let progress = Arc::new(Progress::default());
    let report = loadtest::run(config, progress.clone()).await;
    assert_eq!(report.errors, Default::default());
    assert_eq!((report.games, report.failed_games), (3, 0));
    // Every game of the echo target is 300 actions.
    assert_eq!(report.actions, 3 * 300);
    assert_eq!(report.round_trip_us.len(), report.actions);
}

#[tokio::test]
async fn a_bounded_broadcast_run_plays_every_game_and_every_message_reaches_both_players() {
    let config = three_games(echo_server().await, Target::Broadcast, Turns::Alternate);
    let report = loadtest::run(config, Arc::new(Progress::default())).await;
    // A player waits for every copy of the opponent's messages before acting, so a message that
    // reached only its sender would stall the game into a timeout here.
    assert_eq!(report.errors, Default::default());
    assert_eq!((report.games, report.failed_games), (3, 0));
    assert_eq!(report.actions, 3 * 300);
}

#[tokio::test]
async fn a_broadcast_run_in_a_real_games_order_of_turns_plays_every_game() {
    let config = three_games(echo_server().await, Target::Broadcast, Turns::Game);
    let report = loadtest::run(config, Arc::new(Progress::default())).await;
    // A seat that waits through several of the opponent's actions reads every copy of them
    // before it acts, so a lost or misordered copy would stall the game into a timeout here.
    assert_eq!(report.errors, Default::default());
    assert_eq!((report.games, report.failed_games), (3, 0));
    // Real games, each of its own length (no game of two random bots is as short as 20).
    assert!(
        report.actions >= 3 * 20 && report.actions != 3 * 300,
        "{}",
        report.actions
    );
}
