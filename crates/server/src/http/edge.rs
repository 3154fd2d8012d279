//! What every request passes before a handler sees it: the browser origin, the body's media type,
//! and a body read whole within a size and a time bound.
//!
//! hyper reads a body only as a handler pulls it, with no deadline: a client that sends a head
//! announcing a body and then nothing (or a byte a minute) would hold its connection and a task
//! for ever. So the body is read here, up front, within `--body-read-timeout-ms` and at most
//! `--max-body-bytes`, and the handler gets it whole; a slow body is answered 408, a large one
//! 413, both with the JSON error body and `Connection: close`.
//!
//! A request head of more than [`MAX_HEADERS`] fields or [`MAX_HEADER_BYTES`] bytes is 431
//! `too_large` with the JSON body (hyper's own, larger limit answers with an empty body).
//!
//! A `POST` must be `application/json` (an empty body may come without a `Content-Type`), so a
//! page elsewhere cannot send one as a form or `text/plain` without a CORS preflight, which this
//! server never grants. A `POST` or WebSocket upgrade whose `Origin` header is present must
//! come from this server's own pages or an origin listed in `--allowed-origins`.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};

use crate::config::Config;
use crate::error::HttpError;
use crate::state::AppState;

/// The most header fields a request may have.
pub const MAX_HEADERS: usize = 100;
/// The most bytes of header names and values a request may have.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// Checks the head's size, the origin and the media type, then reads the body within its bounds.
pub(crate) async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let config = &state.config;
    let head_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if request.headers().len() > MAX_HEADERS || head_bytes > MAX_HEADER_BYTES {
        return HttpError::HeadersTooLarge.into_response();
    }
    let opens_something =
        request.method() == Method::POST || request.uri().path().starts_with("/ws/");
    if opens_something && !origin_allowed(config, request.headers()) {
        return HttpError::OriginNotAllowed.into_response();
    }
    if request.method() == Method::POST && !json_or_empty(request.headers()) {
        return HttpError::NotJson.into_response();
    }
    match read_body(config, request).await {
        Ok(request) => next.run(request).await,
        Err(error) => {
            let mut response = error.into_response();
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            response
        }
    }
}

/// Whether the request's `Origin`, if any, may act here.
fn origin_allowed(config: &Config, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let host = headers
        .get(header::HOST)
        .and_then(|host| host.to_str().ok());
    let allowed = origin
        .to_str()
        .is_ok_and(|origin| config.origin_allowed(origin, host));
    if !allowed {
        tracing::debug!(?origin, ?host, "refused a request from a foreign origin");
    }
    allowed
}

/// Whether a `POST` says its body is JSON, or has neither a body nor a `Content-Type`.
fn json_or_empty(headers: &HeaderMap) -> bool {
    match headers.get(header::CONTENT_TYPE) {
        Some(value) => value.to_str().is_ok_and(|value| {
            let essence = value.split(';').next().unwrap_or_default().trim();
            essence.eq_ignore_ascii_case("application/json")
        }),
        None => {
            let length = headers
                .get(header::CONTENT_LENGTH)
                .and_then(|length| length.to_str().ok());
            let chunked = headers.contains_key(header::TRANSFER_ENCODING);
            !chunked && length.is_none_or(|length| length.trim() == "0")
        }
    }
}

/// Reads the whole body within `--body-read-timeout-ms` and `--max-body-bytes`.
async fn read_body(config: &Config, request: Request) -> Result<Request, HttpError> {
    let limit = config.max_body_bytes;
    let announced = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|length| length.to_str().ok()?.trim().parse::<u64>().ok());
    if announced.is_some_and(|length| length > limit as u64) {
        return Err(HttpError::BodyTooLarge(limit));
    }
    let (parts, body) = request.into_parts();
    let reading = Limited::new(body, limit).collect();
    let collected = match tokio::time::timeout(config.body_read_timeout(), reading).await {
        Err(_) => return Err(HttpError::BodyTimeout),
        Ok(Err(error)) if error.is::<LengthLimitError>() => {
            return Err(HttpError::BodyTooLarge(limit));
        }
        Ok(Err(error)) => {
            tracing::debug!(%error, "the request body broke off");
            return Err(HttpError::bad_request(
                aeroplane_protocol::error::ErrorCode::BadField,
                "the request body broke off",
            ));
        }
        Ok(Ok(collected)) => collected,
    };
    Ok(Request::from_parts(parts, Body::from(collected.to_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| {
                (
                    header::HeaderName::from_static(name),
                    HeaderValue::from_static(value),
                )
            })
            .collect()
    }

    #[test]
    fn json_bodies_and_empty_bodies_pass_and_others_do_not() {
        assert!(json_or_empty(&headers(&[(
            "content-type",
            "application/json; charset=utf-8"
        )])));
        assert!(json_or_empty(&headers(&[(
            "content-type",
            "Application/JSON"
        )])));
        assert!(json_or_empty(&headers(&[])));
        assert!(json_or_empty(&headers(&[("content-length", "0")])));
        assert!(!json_or_empty(&headers(&[("content-length", "2")])));
        assert!(!json_or_empty(&headers(&[(
            "transfer-encoding",
            "chunked"
        )])));
        assert!(!json_or_empty(&headers(&[("content-type", "text/plain")])));
        assert!(!json_or_empty(&headers(&[(
            "content-type",
            "application/x-www-form-urlencoded"
        )])));
    }
}
