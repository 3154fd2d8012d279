//! The `aeroplane` command never prints a hostile name raw (issue 20, point 11): a record whose
//! names hold escape sequences, control and bidi characters (as an older server could store)
//! is listed and replayed with those characters escaped.

use std::process::Command;
use std::sync::Arc;

use aeroplane_protocol::record::GameRecord;
use aeroplane_server::Config;
use aeroplane_store::{GameStore, MemoryStore};
use clap::Parser as _;

const CLEAR_SCREEN: &str = "\u{1b}[2J\u{1b}[HAnn";
const WINDOW_TITLE: &str = "\u{1b}]0;owned\u{7}Bob\u{202e}\u{9b}";

/// A finished game record (no moves) between two hostile names.
fn hostile_record() -> GameRecord {
    serde_json::from_value(serde_json::json!({
        "id": "7f8e0a4e-0b1c-4a7e-9d2f-3c4b5a697887",
        "ruleset": "plyyard",
        "mode": "online",
        "created_at": "2026-01-01T00:00:00Z",
        "started_at": "2026-01-01T00:00:01Z",
        "ended_at": "2026-01-01T00:00:02Z",
        "players": {
            "red": { "name": CLEAR_SCREEN, "kind": "human" },
            "yellow": { "name": WINDOW_TITLE, "kind": "human" }
        },
        "result": { "winner": "red", "reason": "resigned" },
        "rolls": 0,
        "moves": 0,
        "actions": [],
        "fairness": {
            "scheme": "v1",
            "commitment": "00",
            "server_seed": "00",
            "red_seed": "",
            "yellow_seed": ""
        }
    }))
    .expect("a record")
}

/// Asserts that `output` holds no character a terminal would act on, and shows the names
/// escaped.
#[track_caller]
fn assert_escaped(output: &[u8]) {
    let text = String::from_utf8(output.to_vec()).expect("UTF-8 output");
    let raw: Vec<char> = text
        .chars()
        .filter(|c| *c != '\n' && aeroplane_protocol::name::forbidden_in_names(*c))
        .collect();
    assert!(raw.is_empty(), "raw characters {raw:?} in: {text}");
    assert!(text.contains("\\u{1b}[2J\\u{1b}[HAnn"), "{text}");
    assert!(
        text.contains("\\u{1b}]0;owned\\u{7}Bob\\u{202e}\\u{9b}"),
        "{text}"
    );
}

fn aeroplane(args: &[&str]) -> Vec<u8> {
    let output = Command::new(env!("CARGO_BIN_EXE_aeroplane"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("aeroplane runs");
    assert!(output.status.success(), "{output:?}");
    output.stdout
}

#[test]
fn replay_escapes_the_names_of_a_record_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.json");
    std::fs::write(&path, serde_json::to_vec(&hostile_record()).unwrap()).unwrap();
    assert_escaped(&aeroplane(&["replay", "--all", path.to_str().unwrap()]));
}

#[tokio::test]
async fn games_escapes_the_names_the_server_lists() {
    let data = tempfile::tempdir().unwrap();
    let config = Config::try_parse_from([
        "aeroplane-server",
        "--listen",
        "127.0.0.1:0",
        "--data-dir",
        data.path().to_str().unwrap(),
    ])
    .unwrap();
    let store = Arc::new(MemoryStore::new());
    store.save(&hostile_record()).await.unwrap();
    let server = aeroplane_server::serve(config, store).await.unwrap();
    let url = format!("http://{}", server.addr());
    let stdout = tokio::task::spawn_blocking(move || aeroplane(&["--server", &url, "games"]))
        .await
        .unwrap();
    assert_escaped(&stdout);
}
