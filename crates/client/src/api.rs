//! The server's HTTP API: stored games (and, with the protocol, rooms).

use aeroplane_protocol::record::GameRecord;
use uuid::Uuid;

/// Why an HTTP request to the server failed.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The server could not be reached or the answer could not be read.
    #[error("request to {url} failed: {source}")]
    Transport {
        /// The URL asked for.
        url: String,
        /// The underlying error.
        source: reqwest::Error,
    },
    /// The server answered with an error status.
    #[error("{url} answered {status}: {body}")]
    Status {
        /// The URL asked for.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The answer's body (the server's error code and message, as JSON).
        body: String,
    },
    /// The server's URL is not an `http://` or `https://` URL.
    #[error("`{0}` is not an http:// or https:// URL")]
    BadServerUrl(String),
}

/// A handle on one server's HTTP API, e.g. `Api::new("http://127.0.0.1:8080")`.
#[derive(Clone, Debug)]
pub struct Api {
    base: String,
    http: reqwest::Client,
}

impl Api {
    /// An API handle for the server at `base` (`http://host:port`, no path).
    pub fn new(base: &str) -> Result<Api, ApiError> {
        let base = base.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(ApiError::BadServerUrl(base.to_owned()));
        }
        Ok(Api {
            base: base.to_owned(),
            http: reqwest::Client::new(),
        })
    }

    /// The server's base URL, without a trailing slash.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The stored record of the finished game `id` (`GET /api/games/{id}`).
    pub async fn game(&self, id: Uuid) -> Result<GameRecord, ApiError> {
        self.get_json(&format!("/api/games/{id}")).await
    }

    pub(crate) async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
    ) -> Result<T, ApiError> {
        let url = format!("{}{path}", self.base);
        let transport = |source| ApiError::Transport {
            url: url.clone(),
            source,
        };
        let response = self.http.get(&url).send().await.map_err(transport)?;
        let status = response.status();
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            return Err(ApiError::Status {
                url,
                status: status.as_u16(),
                body,
            });
        }
        response.json().await.map_err(transport)
    }
}
