//! The outermost layer of every response: every error in the JSON shape `docs/protocol.md` §1
//! promises, a count by route and status, refusals counted and logged once per burst, and a
//! `response failed` line (method, path, status, code) for every 5xx that is not a refusal.
//!
//! Handlers answer errors through [`HttpError`](crate::error::HttpError), which tags the
//! response with its code. What reaches this layer untagged (axum's own rejections: a 405, a
//! malformed path, a JSON extractor's text) is rewritten here into the same JSON shape, with
//! the code the status implies and the original text as the message.

use std::net::SocketAddr;

use aeroplane_protocol::error::ErrorCode;
use axum::body::to_bytes;
use axum::extract::{ConnectInfo, MatchedPath, Request};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use crate::error::error_response;
use crate::telemetry;

/// The most of an untagged error body kept as the JSON error's message.
const MESSAGE_BYTES: usize = 1024;

/// Observes one request (see the module documentation).
pub(crate) async fn observe(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .and_then(|matched| {
            telemetry::ROUTES
                .into_iter()
                .find(|route| *route == matched.as_str())
        })
        .unwrap_or(telemetry::UNMATCHED);
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(address)| address.ip().to_canonical());
    let mut response = next.run(request).await;
    let status = response.status();
    telemetry::http_request(route, status.as_u16());
    if status.is_client_error() || status.is_server_error() {
        let code = match response.extensions().get::<ErrorCode>() {
            Some(code) => *code,
            None => {
                let code = code_of(status);
                response = into_json(response, code).await;
                code
            }
        };
        if telemetry::REFUSAL_STATUSES.contains(&status.as_u16()) {
            telemetry::refused(code, client);
        } else if status.is_server_error() {
            log_failure(&method, &path, status, code);
        }
    }
    response
}

fn log_failure(method: &Method, path: &str, status: StatusCode, code: ErrorCode) {
    tracing::warn!(
        %method,
        path,
        status = status.as_u16(),
        code = code.as_str(),
        "response failed"
    );
}

/// The code an untagged error status stands for.
fn code_of(status: StatusCode) -> ErrorCode {
    match status {
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::REQUEST_TIMEOUT => ErrorCode::RequestTimeout,
        StatusCode::PAYLOAD_TOO_LARGE | StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => {
            ErrorCode::TooLarge
        }
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
        StatusCode::TOO_MANY_REQUESTS => ErrorCode::RateLimited,
        status if status.is_client_error() => ErrorCode::BadField,
        _ => ErrorCode::Internal,
    }
}

/// The same status and headers (but the body's), with the JSON error body.
async fn into_json(response: Response, code: ErrorCode) -> Response {
    let (parts, body) = response.into_parts();
    let text = to_bytes(body, MESSAGE_BYTES)
        .await
        .ok()
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_owned())
        .filter(|text| !text.is_empty());
    let message = text.unwrap_or_else(|| {
        parts
            .status
            .canonical_reason()
            .unwrap_or("error")
            .to_lowercase()
    });
    let mut json = error_response(parts.status, code, message);
    for (name, value) in &parts.headers {
        if name != axum::http::header::CONTENT_TYPE && name != axum::http::header::CONTENT_LENGTH {
            json.headers_mut().insert(name.clone(), value.clone());
        }
    }
    json
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use axum::Router;
    use axum::body::Body;
    use axum::routing::get;
    use tower::ServiceExt;

    use super::*;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn a_failed_response_is_json_and_its_line_names_method_path_and_code() {
        let buffer = Buffer::default();
        let writer = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        let _logs = tracing::subscriber::set_default(subscriber);
        let app = Router::new()
            .route(
                "/boom",
                get(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "it broke") }),
            )
            .layer(axum::middleware::from_fn(observe));
        let request = Request::post("/boom").body(Body::empty()).unwrap();
        let response = app.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        let request = Request::get("/boom?x=1").body(Body::empty()).unwrap();
        let response = app.oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let body = to_bytes(response.into_body(), 1024).await.unwrap();
        let error: aeroplane_protocol::api::ApiError = serde_json::from_slice(&body).unwrap();
        assert_eq!(error.code, ErrorCode::Internal);
        assert_eq!(error.message, "it broke");
        let logs = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
        let line = logs
            .lines()
            .find(|line| line.contains("response failed"))
            .unwrap_or_else(|| panic!("no `response failed` line in {logs}"));
        for field in [
            "method=GET",
            "path=\"/boom\"",
            "status=500",
            "code=\"internal\"",
        ] {
            assert!(line.contains(field), "{field} missing from {line}");
        }
        assert_eq!(logs.matches("response failed").count(), 1, "{logs}");
    }
}
