//! Liveness, readiness and the database (issue 20, points 7 and 8), against the real binary.
//!
//! With the database down (refusing connections) or hanging (accepting them and never
//! answering), the server listens at once, liveness (`/healthz`, the container healthcheck)
//! passes because the outbox keeps play going, readiness (`/readyz`) fails well within the
//! probe's timeout, and the games API answers a quick 503 `store_unavailable`.

use std::process::Command;
use std::time::{Duration, Instant};

use aeroplane_protocol::api::ApiError;
use aeroplane_protocol::error::ErrorCode;

use crate::child::{ServerProcess, server_binary};

/// What `aeroplane-server probe <url>` says, with its default timeout.
fn probe(url: &str) -> (bool, String) {
    let output = Command::new(server_binary())
        .args(["probe", url])
        .output()
        .expect("the probe runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn with_the_database_down_or_hanging_the_server_is_live_and_answers_quickly() {
    // A port nobody listens on (connections refused), and a listener that accepts nothing (the
    // kernel completes the handshake; no byte ever comes back): a database down, and one hung.
    let refused_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let hanging = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    for (what, database) in [
        ("down", refused_port),
        ("hanging", hanging.local_addr().unwrap()),
    ] {
        let data = tempfile::tempdir().unwrap();
        let url = format!("postgres://postgres@{database}/postgres");
        let started = Instant::now();
        let server = ServerProcess::start(data.path(), Some(&url), &[]);
        let listening = started.elapsed();
        assert!(
            listening < Duration::from_secs(3),
            "{what}: listening after {listening:?}"
        );
        let http = reqwest::Client::new();

        let live = http.get(server.url("/healthz")).send().await.unwrap();
        assert_eq!(live.status(), 200, "{what}: liveness");

        let asked = Instant::now();
        let ready = http.get(server.url("/readyz")).send().await.unwrap();
        assert_eq!(ready.status(), 503, "{what}: readiness");
        assert!(
            asked.elapsed() < Duration::from_millis(1_800),
            "{what}: /readyz took {:?}",
            asked.elapsed()
        );

        for path in [
            "/api/games".to_owned(),
            format!("/api/games/{}", uuid::Uuid::new_v4()),
        ] {
            let asked = Instant::now();
            let response = http.get(server.url(&path)).send().await.unwrap();
            assert_eq!(response.status(), 503, "{what}: {path}");
            let error: ApiError = response.json().await.unwrap();
            assert_eq!(error.code, ErrorCode::StoreUnavailable, "{what}: {path}");
            assert!(
                asked.elapsed() < Duration::from_millis(2_500),
                "{what}: {path} took {:?}",
                asked.elapsed()
            );
        }

        let (healthy, said) = probe(&server.url("/healthz"));
        assert!(healthy, "{what}: the container healthcheck passes: {said}");
        let (ready, said) = probe(&server.url("/readyz"));
        assert!(!ready, "{what}: readiness fails");
        assert!(
            said.contains("answered 503"),
            "{what}: the probe had room for the answer: {said}"
        );

        let created = http
            .post(server.url("/api/rooms"))
            .json(&serde_json::json!({ "mode": "online" }))
            .send()
            .await
            .unwrap();
        assert_eq!(created.status(), 201, "{what}: play goes on");
    }
    drop(hanging);
}
