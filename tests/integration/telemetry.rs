//! What an operator sees (issue 20, points 13 and 14): the process, build, HTTP, refusal and
//! close metrics, every counter present at zero from the first scrape, `/metrics` on a listen
//! address of its own, and JSON log lines with the room and the client at the top level and one
//! line per burst of refusals.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use aeroplane_server::Config;
use aeroplane_store::MemoryStore;
use serde_json::Value;

use crate::support::{TIMEOUT, spawn_app};

/// The value of the sample named exactly `series` (name and labels) in Prometheus text.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| line.strip_prefix(series)?.trim().parse().ok())
}

#[tokio::test]
async fn every_counter_is_there_at_zero_and_requests_refusals_and_closes_are_counted() {
    let app = spawn_app().await;
    let scrape = || async {
        let response = app.http.get(app.url("/metrics")).send().await.unwrap();
        response.text().await.unwrap()
    };
    let before = scrape().await;
    // Known series are present before anything happened to them (the recorder is shared by
    // every server of this test process, so values may be above zero).
    for series in [
        "aeroplane_http_refusals_total{code=\"unsupported_media_type\"}",
        "aeroplane_http_refusals_total{code=\"too_many_connections\"}",
        "aeroplane_ws_closes_total{reason=\"replaced\"}",
        "aeroplane_ws_closes_total{reason=\"client\"}",
        "aeroplane_store_rejected_total",
        "aeroplane_journal_write_failures_total",
        "aeroplane_http_requests_total{route=\"/api/games/{id}/replay\",status=\"503\"}",
        "aeroplane_games_finished_total{mode=\"local\",reason=\"timeout\"}",
        "aeroplane_protocol_errors_total{code=\"offer_too_soon\"}",
        "aeroplane_actions_total{kind=\"withdraw_draw\"}",
        "process_resident_memory_bytes",
        "process_open_fds",
        "process_max_fds",
        "process_cpu_seconds_total",
        "process_start_time_seconds",
    ] {
        assert!(
            sample(&before, series).is_some(),
            "/metrics lacks {series}:\n{before}"
        );
    }
    assert!(before.contains(&format!(
        "aeroplane_build_info{{version=\"{}\"}} 1",
        env!("CARGO_PKG_VERSION")
    )));
    assert!(sample(&before, "process_resident_memory_bytes").unwrap() > 1e6);

    let not_json = app
        .http
        .post(app.url("/api/rooms"))
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(not_json.status(), 415);
    let missing = app.http.get(app.url("/api/nope")).send().await.unwrap();
    assert_eq!(missing.status(), 404);
    let room = app.create_room().await;
    let client = app.connect(room.id).await;
    drop(client);

    let grew = |series: &str, after: &str| {
        sample(after, series).unwrap_or(0.0) > sample(&before, series).unwrap_or(0.0)
    };
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let after = scrape().await;
        let all = [
            "aeroplane_http_refusals_total{code=\"unsupported_media_type\"}",
            "aeroplane_http_requests_total{route=\"/{*path}\",status=\"404\"}",
            "aeroplane_http_requests_total{route=\"/api/rooms\",status=\"201\"}",
            "aeroplane_http_requests_total{route=\"/api/rooms\",status=\"415\"}",
            "aeroplane_ws_closes_total{reason=\"client\"}",
        ];
        if all.iter().all(|series| grew(series, &after)) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not every series grew:\n{after}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn metrics_can_be_served_on_an_address_of_their_own() {
    let data = tempfile::tempdir().unwrap();
    let mut config = Config::defaults();
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.metrics_listen = Some("127.0.0.1:0".parse().unwrap());
    config.data_dir = data.path().to_owned();
    let server = aeroplane_server::serve(config, Arc::new(MemoryStore::new()))
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let public = http
        .get(format!("http://{}/metrics", server.addr()))
        .send()
        .await
        .unwrap();
    assert_eq!(public.status(), 404, "not on the public port");
    let metrics_addr = server.metrics_addr().expect("a metrics address");
    let private = http
        .get(format!("http://{metrics_addr}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(private.status(), 200);
    assert!(
        private
            .text()
            .await
            .unwrap()
            .contains("aeroplane_build_info")
    );
    let elsewhere = http
        .get(format!("http://{metrics_addr}/api/games"))
        .send()
        .await
        .unwrap();
    assert_eq!(elsewhere.status(), 404, "only /metrics there");
    server.shutdown().await.unwrap();
}

/// A server process that is killed if the test fails before stopping it.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn json_logs_carry_the_room_and_the_client_and_one_line_per_refused_burst() {
    let data = tempfile::tempdir().unwrap();
    let mut child = Command::new(crate::child::server_binary())
        .env_clear()
        .env("AEROPLANE_LISTEN", "127.0.0.1:0")
        .env("AEROPLANE_DATA_DIR", data.path())
        .env("AEROPLANE_LOG_FORMAT", "json")
        .env("AEROPLANE_LOG_LEVEL", "info,aeroplane_server=debug")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let child = KillOnDrop(child);
    let addr = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| {
            line.strip_prefix("aeroplane-server listening on http://")
                .map(str::to_owned)
        })
        .expect("the address line");
    let url = |path: &str| format!("http://{addr}{path}");
    let http = reqwest::Client::new();
    let room: aeroplane_protocol::api::RoomCreated = http
        .post(url("/api/rooms"))
        .json(&serde_json::json!({ "mode": "online" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let (mut socket, _) =
        tokio_tungstenite::connect_async(format!("ws://{addr}/ws/rooms/{}", room.id))
            .await
            .unwrap();
    use futures_util::SinkExt;
    socket
        .send(tokio_tungstenite::tungstenite::Message::text(
            r#"{"type":"join","role":"player","name":"Ann"}"#,
        ))
        .await
        .unwrap();
    for _ in 0..25 {
        let refused = http
            .post(url("/api/rooms"))
            .header("origin", "https://evil.example")
            .json(&serde_json::json!({ "mode": "online" }))
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 403);
    }
    // Real sleeps: the server is a child process, whose clock a paused tokio clock cannot move.
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(socket);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let _ = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status();
    let logged: Vec<Value> = lines
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_str(&line).ok())
        .collect();
    drop(child);
    let room_id = room.id.to_string();
    let in_room: Vec<&Value> = logged
        .iter()
        .filter(|line| line["span"] == "conn" || line["span"] == "room")
        .collect();
    assert!(!in_room.is_empty(), "no room lines in {logged:#?}");
    for line in &in_room {
        assert_eq!(line["room_id"], room_id.as_str(), "{line}");
    }
    let connected = logged
        .iter()
        .find(|line| line["message"] == "connected")
        .unwrap_or_else(|| panic!("no connection line in {logged:#?}"));
    assert_eq!(connected["client"], "127.0.0.1", "{connected}");
    let refusals: Vec<&Value> = logged
        .iter()
        .filter(|line| line["code"] == "origin_not_allowed")
        .collect();
    assert_eq!(refusals.len(), 1, "one line for the burst: {refusals:#?}");
    assert_eq!(refusals[0]["client"], "127.0.0.1");
}
