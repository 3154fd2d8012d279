//! The HTTP API's one error type, mapped to a status and a JSON body with a stable code.
//!
//! Every error response carries its [`ErrorCode`] as a response extension too, so the edge
//! (`crate::http::observe`) counts refusals by code without parsing bodies.

use aeroplane_protocol::api::ApiError;
use aeroplane_protocol::error::ErrorCode;
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// A refused or failed HTTP request.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The request itself is wrong (400).
    #[error("{message}")]
    BadRequest {
        /// The stable code.
        code: ErrorCode,
        /// What was wrong.
        message: String,
    },
    /// Nothing has this id (404).
    #[error("{message}")]
    NotFound {
        /// `room_not_found` or `game_not_found`.
        code: ErrorCode,
        /// What was not found.
        message: String,
    },
    /// Nobody else asked for a quick match in time (409: not 408, which browsers re-send on
    /// their own, so a lone player would wait twice as long with no word).
    #[error("no opponent was found in time")]
    NoMatch,
    /// The server is shutting down and opens no new rooms or connections (503).
    #[error("the server is restarting; try again in a moment")]
    Draining,
    /// A browser page from an origin that is not allowed (403).
    #[error("pages from this origin may not create rooms or open WebSockets here")]
    OriginNotAllowed,
    /// This address created too many rooms in the last minute (429 `rate_limited`).
    #[error("too many rooms created from this address; try again in a minute")]
    RateLimited,
    /// The server has too many rooms open or waiting (503 `too_many_rooms`).
    #[error("{0}")]
    TooManyRooms(crate::limits::RoomRefused),
    /// Too many WebSockets open from this address (429) or on the server (503).
    #[error("{0}")]
    TooManyConnections(crate::limits::ConnectionRefused),
    /// No route has this path (404 `not_found`).
    #[error("no such path")]
    NoRoute,
    /// The request body is larger than `--max-body-bytes` (413 `too_large`).
    #[error("the request body is larger than {0} bytes")]
    BodyTooLarge(usize),
    /// The request head has too many or too long header fields (431 `too_large`).
    #[error("the request head is too large")]
    HeadersTooLarge,
    /// The request body did not arrive within `--body-read-timeout-ms` (408).
    #[error("the request body did not arrive in time")]
    BodyTimeout,
    /// A `POST` body that is not JSON (415).
    #[error("the request body must be `Content-Type: application/json`")]
    NotJson,
    /// Missing, malformed or unknown player credentials (401 `bad_identity`).
    #[error("{0}")]
    BadIdentity(crate::identity::IdentityError),
    /// The database does not answer (503 `store_unavailable`).
    #[error("finished games cannot be read right now; play goes on, try again later")]
    StoreUnavailable,
    /// Cluster mode: a new room's journal was not acknowledged, so the room was not opened, or
    /// the journals' broker does not answer a look for a room (503 `journal_unavailable`).
    #[error("the room's journal cannot be reached right now; try again later")]
    JournalUnavailable,
    /// Cluster mode: the room's lease names a node that cannot be forwarded to (409
    /// `room_elsewhere`, the node in the message and in the `Aeroplane-Room-Owner` header): this
    /// very node's name, held by another process under the same `--node-id` or by a room
    /// closing here.
    #[error("room {room} is served by node {node}; connect to that node")]
    RoomElsewhere {
        /// The room.
        room: uuid::Uuid,
        /// The node that owns it.
        node: String,
    },
    /// Something failed inside the server (500); the details go to the log only.
    #[error("internal error: {0:#}")]
    Internal(anyhow::Error),
}

/// The header of a 409 `room_elsewhere` that names the node owning the room.
pub const OWNER_HEADER: &str = "aeroplane-room-owner";

impl HttpError {
    /// A 400 with `code`.
    pub fn bad_request(code: ErrorCode, message: impl Into<String>) -> HttpError {
        HttpError::BadRequest {
            code,
            message: message.into(),
        }
    }
}

impl From<crate::limits::RoomRefused> for HttpError {
    fn from(refused: crate::limits::RoomRefused) -> Self {
        match refused {
            crate::limits::RoomRefused::PerAddress => HttpError::RateLimited,
            refused => HttpError::TooManyRooms(refused),
        }
    }
}

impl IntoResponse for HttpError {
    /// One arm per error: its status, stable code and message. A table more than logic, so it
    /// stays one match (about 90 lines) where every code can be read side by side.
    fn into_response(self) -> Response {
        let (status, code, message) = match self {
            HttpError::BadRequest { code, message } => (StatusCode::BAD_REQUEST, code, message),
            HttpError::NotFound { code, message } => (StatusCode::NOT_FOUND, code, message),
            HttpError::NoMatch => (StatusCode::CONFLICT, ErrorCode::NoMatch, self.to_string()),
            HttpError::Draining => (
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::Draining,
                self.to_string(),
            ),
            HttpError::OriginNotAllowed => (
                StatusCode::FORBIDDEN,
                ErrorCode::OriginNotAllowed,
                self.to_string(),
            ),
            HttpError::RateLimited => (
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimited,
                self.to_string(),
            ),
            HttpError::TooManyRooms(_) => (
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::TooManyRooms,
                self.to_string(),
            ),
            HttpError::TooManyConnections(refused) => {
                let status = match refused {
                    crate::limits::ConnectionRefused::PerAddress => StatusCode::TOO_MANY_REQUESTS,
                    crate::limits::ConnectionRefused::Total => StatusCode::SERVICE_UNAVAILABLE,
                };
                (status, ErrorCode::TooManyConnections, self.to_string())
            }
            HttpError::NoRoute => (StatusCode::NOT_FOUND, ErrorCode::NotFound, self.to_string()),
            HttpError::BodyTooLarge(_) => (
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::TooLarge,
                self.to_string(),
            ),
            HttpError::HeadersTooLarge => (
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                ErrorCode::TooLarge,
                self.to_string(),
            ),
            HttpError::BodyTimeout => (
                StatusCode::REQUEST_TIMEOUT,
                ErrorCode::RequestTimeout,
                self.to_string(),
            ),
            HttpError::NotJson => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ErrorCode::UnsupportedMediaType,
                self.to_string(),
            ),
            HttpError::BadIdentity(_) => (
                StatusCode::UNAUTHORIZED,
                ErrorCode::BadIdentity,
                self.to_string(),
            ),
            HttpError::StoreUnavailable => (
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::StoreUnavailable,
                self.to_string(),
            ),
            HttpError::JournalUnavailable => (
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::JournalUnavailable,
                self.to_string(),
            ),
            HttpError::RoomElsewhere { ref node, .. } => {
                let owner = axum::http::HeaderValue::from_str(node).ok();
                let mut response = error_response(
                    StatusCode::CONFLICT,
                    ErrorCode::RoomElsewhere,
                    self.to_string(),
                );
                if let Some(owner) = owner {
                    response.headers_mut().insert(OWNER_HEADER, owner);
                }
                return response;
            }
            HttpError::Internal(error) => {
                tracing::error!(error = %format!("{error:#}"), "request failed");
                let message = "the server could not complete the request".to_owned();
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    ErrorCode::Internal,
                    message,
                )
            }
        };
        error_response(status, code, message)
    }
}

/// The JSON error body of §1 of `docs/protocol.md`, tagged with its code for the edge.
pub fn error_response(status: StatusCode, code: ErrorCode, message: String) -> Response {
    let mut response = (status, Json(ApiError { code, message })).into_response();
    response.extensions_mut().insert(code);
    response
}

impl HttpError {
    /// Parses a room id from a path (the UUID, hyphenated or in its short form); 400 `bad_field`
    /// when it is not one.
    pub fn parse_room_id(text: &str) -> Result<uuid::Uuid, HttpError> {
        uuid::Uuid::parse_str(text).map_err(|_| {
            HttpError::bad_request(ErrorCode::BadField, format!("`{text}` is not a room id"))
        })
    }

    /// A 404 for a room id that is not open.
    pub fn room_not_found(id: uuid::Uuid) -> HttpError {
        HttpError::NotFound {
            code: ErrorCode::RoomNotFound,
            message: format!("no open room {id}"),
        }
    }

    /// A 404 for a player id that is not stored.
    pub fn player_not_found(id: uuid::Uuid) -> HttpError {
        HttpError::NotFound {
            code: ErrorCode::PlayerNotFound,
            message: format!("no player {id}"),
        }
    }

    /// A 404 for a game id that is not stored.
    pub fn game_not_found(id: uuid::Uuid) -> HttpError {
        HttpError::NotFound {
            code: ErrorCode::GameNotFound,
            message: format!("no game {id}"),
        }
    }
}
