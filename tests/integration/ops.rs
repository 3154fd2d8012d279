//! Operating the server: liveness, readiness, metrics, allowed origins and draining.

use aeroplane_protocol::server::ServerMessage;

use crate::support::{StoreKind, spawn_app, spawn_app_on, spawn_app_with};

#[tokio::test]
async fn healthz_and_readyz_answer_when_the_store_is_reachable() {
    let app = spawn_app_on(StoreKind::Sqlite, |_| {}).await.unwrap();
    for path in ["/healthz", "/readyz"] {
        let response = app.http.get(app.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
    }
}

#[tokio::test]
async fn metrics_are_prometheus_text_with_the_documented_families() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    red.roll().await;
    red.send_raw("{\"type\":\"nonsense\"}").await;
    red.recv_until(|m| matches!(m, ServerMessage::Error(_)))
        .await;
    yellow.catch_up(red.seen()).await;
    yellow.resign().await;
    red.recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    app.stored_record(room.id).await;
    let response = app.http.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(content_type.starts_with("text/plain"), "{content_type}");
    let text = response.text().await.unwrap();
    for family in [
        "aeroplane_connections{role=\"player\"}",
        "aeroplane_rooms{state=",
        "aeroplane_games_started_total{mode=\"online\"}",
        "aeroplane_games_finished_total{mode=\"online\",reason=\"resigned\"}",
        "aeroplane_actions_total{kind=\"roll\"}",
        "aeroplane_protocol_errors_total{code=\"unknown_type\"}",
        "aeroplane_store_write_seconds_bucket",
        "aeroplane_outbox_depth",
        "aeroplane_room_inbox_queued{stat=\"max\"}",
        "# TYPE aeroplane_actions_total counter",
    ] {
        assert!(text.contains(family), "/metrics lacks {family}:\n{text}");
    }
}

#[tokio::test]
async fn a_websocket_from_a_foreign_origin_is_refused_before_the_upgrade() {
    let app = spawn_app_with(|config| {
        config.allowed_origins = vec!["https://play.example.org".to_owned()];
    })
    .await;
    let room = app.create_room().await;
    let url = format!("ws://{}/ws/rooms/{}", app.addr, room.id);
    let request = |origin: &str| {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut request = url.as_str().into_client_request().unwrap();
        request
            .headers_mut()
            .insert("origin", origin.parse().unwrap());
        request
    };
    let refused = tokio_tungstenite::connect_async(request("https://evil.example")).await;
    match refused {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 403);
            let body = String::from_utf8_lossy(response.body().as_deref().unwrap_or_default());
            assert!(body.contains("\"origin_not_allowed\""), "{body}");
        }
        other => panic!("expected a 403, got {other:?}"),
    }
    tokio_tungstenite::connect_async(request("https://play.example.org"))
        .await
        .expect("an allowed origin connects");
    // No Origin header (a native client or a bot): allowed.
    app.connect(room.id).await;
}

#[tokio::test]
async fn a_graceful_shutdown_closes_sockets_with_1001_and_keeps_the_game_journaled() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    red.roll().await;
    red.sync().await;
    let http = app.http.clone();
    let url = app.url("/readyz");
    assert!(
        crate::journals::journal_of(app.data_dir(), room.id).is_some(),
        "a live game is journaled"
    );
    let shutdown = tokio::spawn(app.shutdown());
    for client in [&mut red, &mut yellow] {
        let frame = client.closed().await.expect("a close frame");
        assert_eq!(u16::from(frame.code), 1001);
        assert_eq!(frame.reason.as_str(), "shutting_down");
    }
    let data = shutdown.await.unwrap();
    assert!(
        http.get(url).send().await.is_err(),
        "the listener is closed"
    );
    let entries = crate::journals::journal_of(data.path(), room.id).unwrap();
    assert!(entries.len() >= 2, "setup and the roll: {entries:?}");
}
