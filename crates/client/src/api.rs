//! The server's HTTP API: rooms (online, against the computer, of every edition and player
//! count), quick match in every queue, stored games, players. An [`Api`] given an identity ([`Api::with_identity`]) sends it with every request as
//! `Authorization: Bearer <player id>.<secret>`.

use std::net::IpAddr;
use std::time::Duration;

use aeroplane_bot::Level;
use aeroplane_protocol::api::{
    CreatePlayer, CreateRoom, GameList, Leaderboard, LiveRooms, PlayerCreated, PlayerProfile,
    QuickMatchRequest, QuickMatched, Replay, RoomCreated, RoomStatus,
};
use aeroplane_protocol::record::{GameRecord, Mode};
use aeroplane_rules::Side;
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
    /// `<player id>.<secret>`, sent as a bearer credential.
    identity: Option<String>,
}

/// How long an idle HTTP connection is kept for the next request: well under the server's
/// default keep-alive of 10 s (`--header-read-timeout-ms`). With reqwest's default of 90 s a
/// request could go out on a connection the server was closing at that very moment, and fail
/// with an incomplete message (a load run saw one room creation in about 1,400 fail so).
const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(4);

impl Api {
    /// An API handle for the server at `base` (`http://host:port`, no path).
    pub fn new(base: &str) -> Result<Api, ApiError> {
        Api::with_local_address(base, None)
    }

    /// An API handle whose connections leave from `local` (one of several loopback addresses).
    pub fn with_local_address(base: &str, local: Option<IpAddr>) -> Result<Api, ApiError> {
        let base = base.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(ApiError::BadServerUrl(base.to_owned()));
        }
        let http = reqwest::Client::builder()
            .local_address(local)
            .pool_idle_timeout(POOL_IDLE_TIMEOUT)
            .build()
            .map_err(|source| ApiError::Transport {
                url: base.to_owned(),
                source,
            })?;
        Ok(Api {
            base: base.to_owned(),
            http,
            identity: None,
        })
    }

    /// This handle, sending `credentials` (`<player id>.<secret>`) with every request.
    pub fn with_identity(mut self, credentials: impl Into<String>) -> Api {
        self.identity = Some(credentials.into());
        self
    }

    /// Creates a guest identity (`POST /api/players`); `name` absent for a generated one.
    pub async fn create_player(&self, name: Option<&str>) -> Result<PlayerCreated, ApiError> {
        let request = CreatePlayer {
            name: name.map(str::to_owned),
        };
        self.post_json("/api/players", &request).await
    }

    /// This handle's player's profile (`GET /api/players/me`).
    pub async fn me(&self) -> Result<PlayerProfile, ApiError> {
        self.get_json("/api/players/me").await
    }

    /// The open rooms where this handle's player holds a seat (`GET /api/players/me/live`).
    pub async fn live(&self) -> Result<LiveRooms, ApiError> {
        self.get_json("/api/players/me/live").await
    }

    /// A player's profile (`GET /api/players/{id}`).
    pub async fn player(&self, id: Uuid) -> Result<PlayerProfile, ApiError> {
        self.get_json(&format!("/api/players/{id}")).await
    }

    /// The rated players, highest first (`GET /api/leaderboard`).
    pub async fn leaderboard(&self, limit: u32) -> Result<Leaderboard, ApiError> {
        self.get_json(&format!("/api/leaderboard?limit={limit}"))
            .await
    }

    /// The server's base URL, without a trailing slash.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Opens a new online room (`POST /api/rooms`).
    pub async fn create_room(&self) -> Result<RoomCreated, ApiError> {
        self.post_json("/api/rooms", &CreateRoom::default()).await
    }

    /// Opens a room against the server's computer (`POST /api/rooms` with `mode: computer`):
    /// the human plays `colour` (join without a colour to take it), the server's bot the other
    /// seat at `level`.
    pub async fn create_computer_room(
        &self,
        colour: Side,
        level: Level,
    ) -> Result<RoomCreated, ApiError> {
        let request = CreateRoom {
            mode: Mode::Computer,
            colour: Some(colour),
            level: Some(level.as_str().to_owned()),
            ..CreateRoom::default()
        };
        self.post_json("/api/rooms", &request).await
    }

    /// Opens a room of any kind, edition and player count (`POST /api/rooms` with `request` as
    /// its body), e.g. a four-player `flights` room against three computers, or a three-player
    /// `classic` room to wait for friends in (a *table room*, `docs/protocol.md` §12).
    pub async fn create_room_with(&self, request: &CreateRoom) -> Result<RoomCreated, ApiError> {
        self.post_json("/api/rooms", request).await
    }

    /// A room's public status (`GET /api/rooms/{id}`).
    pub async fn room(&self, id: Uuid) -> Result<RoomStatus, ApiError> {
        self.get_json(&format!("/api/rooms/{id}")).await
    }

    /// Waits for the next other player and returns a seat in a new room (`POST /api/quick-match`).
    pub async fn quick_match(
        &self,
        name: &str,
        client_seed: Option<&str>,
    ) -> Result<QuickMatched, ApiError> {
        self.quick_match_in(name, client_seed, None, None).await
    }

    /// Waits in the quick-match queue of `ruleset` (`plyyard` when `None`) and `players` (2
    /// when `None`) until the game it seats is full, and returns a seat in the new room
    /// (`POST /api/quick-match`).
    pub async fn quick_match_in(
        &self,
        name: &str,
        client_seed: Option<&str>,
        ruleset: Option<&str>,
        players: Option<u8>,
    ) -> Result<QuickMatched, ApiError> {
        let request = QuickMatchRequest {
            name: name.to_owned(),
            client_seed: client_seed.map(str::to_owned),
            ruleset: ruleset.map(str::to_owned),
            players,
        };
        self.post_json("/api/quick-match", &request).await
    }

    /// The stored record of the finished game `id` (`GET /api/games/{id}`).
    pub async fn game(&self, id: Uuid) -> Result<GameRecord, ApiError> {
        self.get_json(&format!("/api/games/{id}")).await
    }

    /// Finished games, newest first (`GET /api/games`); `query` pairs are among `player`,
    /// `result`, `limit` and `before`.
    pub async fn games(&self, query: &[(&str, String)]) -> Result<GameList, ApiError> {
        let url = format!("{}/api/games", self.base);
        let request = self.authorized(self.http.get(&url)).query(query);
        Self::answer(url, request).await
    }

    /// Every position of a finished game (`GET /api/games/{id}/replay`).
    pub async fn replay(&self, id: Uuid) -> Result<Replay, ApiError> {
        self.get_json(&format!("/api/games/{id}/replay")).await
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<T, ApiError> {
        let url = format!("{}{path}", self.base);
        let request = self.authorized(self.http.get(&url));
        Self::answer(url, request).await
    }

    async fn post_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        body: &impl serde::Serialize,
    ) -> Result<T, ApiError> {
        let url = format!("{}{path}", self.base);
        let request = self.authorized(self.http.post(&url)).json(body);
        Self::answer(url, request).await
    }

    fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.identity {
            Some(credentials) => request.bearer_auth(credentials),
            None => request,
        }
    }

    async fn answer<T: serde::de::DeserializeOwned>(
        url: String,
        request: reqwest::RequestBuilder,
    ) -> Result<T, ApiError> {
        let transport = |source| ApiError::Transport {
            url: url.clone(),
            source,
        };
        let response = request.send().await.map_err(transport)?;
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
