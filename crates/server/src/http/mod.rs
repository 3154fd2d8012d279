//! The HTTP API. Each route module owns its `router()`.

pub mod edge;
pub mod games;
pub mod health;
pub mod observe;
pub mod players;
pub mod quick_match;
pub mod rooms;
pub mod web;

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;

use crate::state::AppState;

/// Every HTTP API route.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/openapi.json", get(openapi))
        .merge(rooms::router())
        .merge(quick_match::router())
        .merge(games::router())
        .merge(players::router())
        .merge(health::router())
        .merge(web::router())
}

/// Parses a JSON body into `T`; an empty body is `T::default()`. Errors are `bad_field`.
pub(crate) fn json_body<T>(body: &[u8]) -> Result<T, crate::error::HttpError>
where
    T: serde::de::DeserializeOwned + Default,
{
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(body).map_err(|error| {
        crate::error::HttpError::bad_request(
            aeroplane_protocol::error::ErrorCode::BadField,
            format!("bad request body: {error}"),
        )
    })
}

/// `GET /api/openapi.json`: the OpenAPI document of this API, rendered once.
async fn openapi() -> impl IntoResponse {
    static DOCUMENT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let document = DOCUMENT.get_or_init(|| {
        serde_json::to_string(&aeroplane_protocol::openapi::document())
            .expect("the OpenAPI document serializes")
    });
    (
        [(header::CONTENT_TYPE, "application/json")],
        document.as_str(),
    )
}
