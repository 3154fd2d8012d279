//! The browser client (`web/` at the workspace root), served at `/`.
//!
//! The files are plain HTML, CSS and ES modules with no build step. Release builds embed them in
//! the binary (`rust-embed`), so a deployed server needs nothing beside it; debug builds read
//! them from `web/` on each request, so editing the client needs no rebuild. Only `*.html`,
//! `*.css` and `*.js` outside `tests/` and `node_modules/` are served.

use axum::Router;
use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rust_embed::RustEmbed;

use crate::error::HttpError;
use crate::state::AppState;

/// The client's files.
#[derive(RustEmbed)]
#[folder = "../../web/"]
#[include = "*.html"]
#[include = "*.css"]
#[include = "*.js"]
#[exclude = "tests/*"]
#[exclude = "node_modules/*"]
struct Assets;

/// `GET /` (the client's page) and `GET /<file>` for every client file.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/", get(|| async { asset("index.html") }))
        .route(
            "/{*path}",
            get(|Path(path): Path<String>| async move { asset(&path) }),
        )
}

fn asset(path: &str) -> Response {
    let Some(file) = Assets::get(path) else {
        return HttpError::NoRoute.into_response();
    };
    let content_type = file.metadata.mimetype().to_owned();
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache".to_owned()),
        ],
        file.data,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;

    #[test]
    fn the_page_its_modules_and_styles_are_embedded_but_not_tests_or_packages() {
        let files: Vec<String> = Assets::iter().map(|name| name.into_owned()).collect();
        for expected in ["index.html", "style.css", "js/app.js", "js/fairness.js"] {
            assert!(
                files.iter().any(|f| f == expected),
                "{expected} missing from {files:?}"
            );
        }
        assert!(
            files
                .iter()
                .all(|f| !f.starts_with("tests/") && !f.starts_with("node_modules/"))
        );
        assert!(
            files
                .iter()
                .all(|f| !f.ends_with(".json") && !f.ends_with(".md"))
        );
    }

    #[test]
    fn files_are_served_with_their_content_type() {
        let response = asset("js/app.js");
        assert_eq!(response.status(), StatusCode::OK);
        let content_type = response.headers()[header::CONTENT_TYPE].to_str().unwrap();
        assert!(content_type.contains("javascript"), "{content_type}");
        assert_eq!(asset("package.json").status(), StatusCode::NOT_FOUND);
    }
}
