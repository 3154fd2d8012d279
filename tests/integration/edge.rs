//! The HTTP edge (issue 20, points 3, 9 and 10): every error is the JSON body of
//! `docs/protocol.md` §1, request bodies are read within a size and a time bound, `POST` bodies
//! are JSON, a page from a foreign origin cannot create rooms or open WebSockets, and one
//! address cannot hold more than its share of plain HTTP connections.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use aeroplane_protocol::api::ApiError;
use aeroplane_protocol::error::ErrorCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{TIMEOUT, spawn_app, spawn_app_with};

/// An answer read off a raw socket.
pub(crate) struct RawAnswer {
    pub(crate) status: u16,
    pub(crate) head: String,
    pub(crate) body: String,
}

impl RawAnswer {
    /// The JSON error body; fails the test if the answer is not one.
    pub(crate) fn error(&self) -> ApiError {
        assert!(
            self.head
                .to_ascii_lowercase()
                .contains("content-type: application/json"),
            "not JSON: {}",
            self.head
        );
        serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("not the JSON error body ({error}): {}", self.body))
    }
}

/// Reads one HTTP/1.1 answer (the head, then `content-length` bytes or up to the close).
pub(crate) async fn read_answer(stream: &mut TcpStream) -> RawAnswer {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    let read = async {
        loop {
            if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
                let length = head.lines().find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                });
                if length.is_some_and(|length| bytes.len() >= end + 4 + length) {
                    break;
                }
            }
            let n = stream.read(&mut buffer).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&buffer[..n]);
        }
    };
    tokio::time::timeout(TIMEOUT, read)
        .await
        .expect("an answer in time");
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a whole HTTP head");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {head}"));
    RawAnswer {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
    }
}

/// Sends `request` as it is on a fresh connection and reads the answer.
pub(crate) async fn raw(addr: SocketAddr, request: &[u8]) -> RawAnswer {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    read_answer(&mut stream).await
}

fn post(path: &str, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[tokio::test]
async fn every_http_error_is_the_json_body_with_a_stable_code() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let many_headers: String = (0..150).map(|i| format!("x-h{i}: v\r\n")).collect();
    let get = |path: &str, extra: &str| {
        format!("GET {path} HTTP/1.1\r\nhost: x\r\n{extra}connection: close\r\n\r\n").into_bytes()
    };
    let json = "content-type: application/json\r\n";
    let cases: Vec<(&str, Vec<u8>, u16, ErrorCode)> = vec![
        (
            "unknown API path",
            get("/api/nope", ""),
            404,
            ErrorCode::NotFound,
        ),
        (
            "unknown file",
            get("/nope.html", ""),
            404,
            ErrorCode::NotFound,
        ),
        (
            "wrong method",
            b"DELETE /api/rooms HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n".to_vec(),
            405,
            ErrorCode::MethodNotAllowed,
        ),
        (
            "body over the limit",
            post("/api/rooms", json, &" ".repeat(20_000)),
            413,
            ErrorCode::TooLarge,
        ),
        (
            "too many header fields",
            get("/api/games", &many_headers),
            431,
            ErrorCode::TooLarge,
        ),
        (
            "a WebSocket path with a bad id, no upgrade",
            get("/ws/rooms/not-an-id", ""),
            400,
            ErrorCode::BadField,
        ),
        (
            "a WebSocket path with a good id, no upgrade",
            get(&format!("/ws/rooms/{}", room.id), ""),
            400,
            ErrorCode::BadField,
        ),
        (
            "a body that is not JSON",
            post("/api/rooms", json, "{\"mode\":"),
            400,
            ErrorCode::BadField,
        ),
    ];
    for (what, request, status, code) in cases {
        let answer = raw(app.addr, &request).await;
        assert_eq!(answer.status, status, "{what}: {}", answer.head);
        assert_eq!(answer.error().code, code, "{what}");
    }
}

#[tokio::test]
async fn a_post_body_must_be_json_and_an_empty_one_may_have_no_type() {
    let app = spawn_app().await;
    let body = "{\"mode\":\"online\"}";
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/xml",
    ] {
        let headers = format!("content-type: {content_type}\r\n");
        let answer = raw(app.addr, &post("/api/rooms", &headers, body)).await;
        assert_eq!(answer.status, 415, "{content_type}");
        assert_eq!(answer.error().code, ErrorCode::UnsupportedMediaType);
    }
    let answer = raw(app.addr, &post("/api/rooms", "", body)).await;
    assert_eq!(answer.status, 415, "a body without a type");
    let answer = raw(app.addr, &post("/api/rooms", "", "")).await;
    assert_eq!(answer.status, 201, "an empty body: {}", answer.body);
    let headers = "content-type: application/json; charset=utf-8\r\n";
    let answer = raw(app.addr, &post("/api/rooms", headers, body)).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
}

#[tokio::test]
async fn by_default_only_the_servers_own_pages_create_rooms_and_open_websockets() {
    let app = spawn_app().await;
    let create = |origin: String| {
        app.http
            .post(app.url("/api/rooms"))
            .header("origin", origin)
            .json(&serde_json::json!({ "mode": "online" }))
            .send()
    };
    let refused = create("https://evil.example".to_owned()).await.unwrap();
    assert_eq!(refused.status(), 403);
    let error: ApiError = refused.json().await.unwrap();
    assert_eq!(error.code, ErrorCode::OriginNotAllowed);
    let own = create(format!("http://{}", app.addr)).await.unwrap();
    assert_eq!(own.status(), 201, "the page the server itself serves");
    let room: aeroplane_protocol::api::RoomCreated = own.json().await.unwrap();

    let url = format!("ws://{}/ws/rooms/{}", app.addr, room.id);
    let request = |origin: String| {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut request = url.as_str().into_client_request().unwrap();
        request
            .headers_mut()
            .insert("origin", origin.parse().unwrap());
        request
    };
    match tokio_tungstenite::connect_async(request("https://evil.example".to_owned())).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 403)
        }
        other => panic!("expected a 403, got {other:?}"),
    }
    tokio_tungstenite::connect_async(request(format!("http://{}", app.addr)))
        .await
        .expect("the same origin connects");
    // Native clients send no Origin: allowed.
    app.create_room().await;
}

#[tokio::test]
async fn a_listed_origin_may_create_rooms_from_its_pages() {
    let app = spawn_app_with(|config| {
        config.allowed_origins = vec!["https://play.example.org".to_owned()];
    })
    .await;
    let response = app
        .http
        .post(app.url("/api/rooms"))
        .header("origin", "https://play.example.org")
        .json(&serde_json::json!({ "mode": "online" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
}

#[tokio::test]
async fn a_silent_request_body_is_answered_408_and_the_connection_closed() {
    let app = spawn_app_with(|config| config.body_read_timeout_ms = 300).await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    let head = "POST /api/rooms HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
                content-length: 40\r\n\r\n{\"mo";
    stream.write_all(head.as_bytes()).await.unwrap();
    let started = Instant::now();
    let answer = read_answer(&mut stream).await;
    assert_eq!(answer.status, 408, "{}", answer.head);
    assert_eq!(answer.error().code, ErrorCode::RequestTimeout);
    assert!(started.elapsed() < Duration::from_secs(5));
    let mut rest = [0u8; 16];
    let closed = tokio::time::timeout(TIMEOUT, stream.read(&mut rest)).await;
    assert!(
        matches!(closed, Ok(Ok(0)) | Ok(Err(_))),
        "the connection is closed"
    );
}

#[tokio::test]
async fn a_body_announced_over_the_limit_is_refused_before_it_is_sent() {
    let app = spawn_app().await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    let head = "POST /api/rooms HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
                content-length: 1000000000\r\n\r\n";
    stream.write_all(head.as_bytes()).await.unwrap();
    let answer = read_answer(&mut stream).await;
    assert_eq!(answer.status, 413);
    assert_eq!(answer.error().code, ErrorCode::TooLarge);
}

#[tokio::test]
async fn plain_http_connections_are_capped_per_address_and_places_come_back() {
    let app = spawn_app_with(|config| config.max_http_connections_per_address = 8).await;
    let mut silent = Vec::new();
    for _ in 0..8 {
        silent.push(TcpStream::connect(app.addr).await.unwrap());
    }
    let mut ninth = TcpStream::connect(app.addr).await.unwrap();
    let answer = read_answer(&mut ninth).await;
    assert_eq!(answer.status, 429, "{}", answer.head);
    assert_eq!(answer.error().code, ErrorCode::TooManyConnections);
    drop(silent.pop());
    // The server sees the close on its next read; a place comes back soon after.
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let answer = raw(
            app.addr,
            b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
        )
        .await;
        if answer.status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "no place came back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
