//! Stable error codes: what a client can match on when the server refuses something.
//!
//! A code never changes once released; the human message beside it may. The rules crate's
//! [`RuleError`] codes are part of this set, so a refused move says exactly why.

use std::fmt;

use aeroplane_rules::RuleError;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why the server refused a request, as a stable machine-readable code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// The frame is not a JSON object with a string `type` (or is not text at all).
    Malformed,
    /// The `type` is not a message this protocol version knows.
    UnknownType,
    /// A field is missing, has the wrong type, or has a value out of range.
    BadField,
    /// The action's `seen` is not the room's current state: the client missed something, or it
    /// sent the same action twice.
    Stale,
    /// An action from a connection that has not joined yet.
    NotJoined,
    /// A second `join` on a connection that already joined.
    AlreadyJoined,
    /// A game action from a spectator.
    SpectatorCannotAct,
    /// The seat token matches no seat of this room.
    BadToken,
    /// The asked-for colour is held by another player.
    SeatTaken,
    /// Both seats are taken; join as a spectator instead.
    RoomFull,
    /// A client seed longer than 64 bytes (`fairness.md`); seeds are never truncated.
    SeedTooLong,
    /// A game action before both seats are taken.
    NotStarted,
    /// No room has this id.
    RoomNotFound,
    /// No finished game has this id.
    GameNotFound,
    /// A room mode this server does not offer (yet).
    UnsupportedMode,
    /// A test-only field sent to a server built without test hooks.
    TestHooksDisabled,
    /// Nobody else asked for a quick match in time.
    NoMatch,
    /// A `hint` outside a computer room (online and local rooms have no hints).
    HintsUnavailable,
    /// An `undo` in an online room (only computer and local rooms allow it).
    UndoUnavailable,
    /// An `undo` with no earlier plane choice left to take back.
    NothingToUndo,
    /// A draw action in a computer or local room (draw offers are online only, `rules.md` §5).
    DrawsUnavailable,
    /// The server could not complete the request; details are in its log.
    Internal,
    /// Too many messages on this connection, or too many rooms created from this address; slow
    /// down.
    RateLimited,
    /// HTTP: too many WebSockets open from this address (429) or on the server (503).
    TooManyConnections,
    /// The room admits no more spectators.
    TooManySpectators,
    /// HTTP: the server has `--max-rooms` rooms open, or `--max-waiting-rooms` rooms waiting for
    /// players (503); try again later, or join a waiting room.
    TooManyRooms,
    /// HTTP: the server is shutting down and opens no new rooms or connections (503).
    Draining,
    /// HTTP: a browser page from an origin not in `--allowed-origins` (403, before the upgrade).
    OriginNotAllowed,
    /// HTTP: no route has this path (404).
    NotFound,
    /// HTTP: the path exists but not with this method (405).
    MethodNotAllowed,
    /// HTTP: the request body (413) or request head (431) is larger than the server accepts.
    TooLarge,
    /// HTTP: a `POST` body that is not `Content-Type: application/json` (415).
    UnsupportedMediaType,
    /// HTTP: the request body did not arrive in time (408).
    RequestTimeout,
    /// HTTP: the database does not answer; play goes on, finished games wait (503).
    StoreUnavailable,
    /// A `rematch` before the game is over.
    NotOver,
    /// A `say` or `rematch` in a computer or local room (they are for two people online).
    OnlineOnly,
    /// The player credentials (`Authorization: Bearer <id>.<secret>`, or `join`'s `player`)
    /// are malformed or name no player with that secret (HTTP 401).
    BadIdentity,
    /// No player has this id (HTTP 404).
    PlayerNotFound,
    /// HTTP, cluster mode: another node holds the room's lease and serves it (409); the
    /// message and the `Aeroplane-Room-Owner` header name that node.
    RoomElsewhere,
    /// A room or quick match asked for a `ruleset` or a house rule this server does not play
    /// (`plyyard`, `flights`, `classic`; `jump-after-shortcut` in `classic` only).
    UnknownRuleset,
    /// A room or quick match asked for more or fewer players than its edition seats
    /// (`plyyard`: 2; `flights` and `classic`: 2 to 4), or a computer room's levels do not fit.
    BadPlayerCount,
    /// HTTP, cluster mode: the NATS broker did not acknowledge a new room's journal, so no room
    /// was opened; or it does not answer a request for a room this node does not serve (503).
    /// Try again later.
    JournalUnavailable,
    /// The rules refused the action (e.g. `not_your_turn`, `illegal_plane`).
    Rule(RuleError),
}

impl ErrorCode {
    /// Every protocol code that is not a rules code, for documentation and tests.
    pub const PROTOCOL: [ErrorCode; 42] = [
        ErrorCode::Malformed,
        ErrorCode::UnknownType,
        ErrorCode::BadField,
        ErrorCode::Stale,
        ErrorCode::NotJoined,
        ErrorCode::AlreadyJoined,
        ErrorCode::SpectatorCannotAct,
        ErrorCode::BadToken,
        ErrorCode::SeatTaken,
        ErrorCode::RoomFull,
        ErrorCode::SeedTooLong,
        ErrorCode::NotStarted,
        ErrorCode::RoomNotFound,
        ErrorCode::GameNotFound,
        ErrorCode::UnsupportedMode,
        ErrorCode::TestHooksDisabled,
        ErrorCode::NoMatch,
        ErrorCode::Internal,
        ErrorCode::HintsUnavailable,
        ErrorCode::UndoUnavailable,
        ErrorCode::NothingToUndo,
        ErrorCode::DrawsUnavailable,
        ErrorCode::RateLimited,
        ErrorCode::TooManyConnections,
        ErrorCode::TooManySpectators,
        ErrorCode::TooManyRooms,
        ErrorCode::Draining,
        ErrorCode::OriginNotAllowed,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::TooLarge,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::RequestTimeout,
        ErrorCode::StoreUnavailable,
        ErrorCode::NotOver,
        ErrorCode::OnlineOnly,
        ErrorCode::BadIdentity,
        ErrorCode::PlayerNotFound,
        ErrorCode::RoomElsewhere,
        ErrorCode::UnknownRuleset,
        ErrorCode::BadPlayerCount,
        ErrorCode::JournalUnavailable,
    ];

    /// The stable code, e.g. `stale` or `not_your_turn`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Malformed => "malformed",
            ErrorCode::UnknownType => "unknown_type",
            ErrorCode::BadField => "bad_field",
            ErrorCode::Stale => "stale",
            ErrorCode::NotJoined => "not_joined",
            ErrorCode::AlreadyJoined => "already_joined",
            ErrorCode::SpectatorCannotAct => "spectator_cannot_act",
            ErrorCode::BadToken => "bad_token",
            ErrorCode::SeatTaken => "seat_taken",
            ErrorCode::RoomFull => "room_full",
            ErrorCode::SeedTooLong => "seed_too_long",
            ErrorCode::NotStarted => "not_started",
            ErrorCode::RoomNotFound => "room_not_found",
            ErrorCode::GameNotFound => "game_not_found",
            ErrorCode::UnsupportedMode => "unsupported_mode",
            ErrorCode::TestHooksDisabled => "test_hooks_disabled",
            ErrorCode::NoMatch => "no_match",
            ErrorCode::Internal => "internal",
            ErrorCode::HintsUnavailable => "hints_unavailable",
            ErrorCode::UndoUnavailable => "undo_unavailable",
            ErrorCode::NothingToUndo => "nothing_to_undo",
            ErrorCode::DrawsUnavailable => "draws_unavailable",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::TooManyConnections => "too_many_connections",
            ErrorCode::TooManySpectators => "too_many_spectators",
            ErrorCode::TooManyRooms => "too_many_rooms",
            ErrorCode::Draining => "draining",
            ErrorCode::OriginNotAllowed => "origin_not_allowed",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::StoreUnavailable => "store_unavailable",
            ErrorCode::NotOver => "not_over",
            ErrorCode::OnlineOnly => "online_only",
            ErrorCode::BadIdentity => "bad_identity",
            ErrorCode::PlayerNotFound => "player_not_found",
            ErrorCode::RoomElsewhere => "room_elsewhere",
            ErrorCode::UnknownRuleset => "unknown_ruleset",
            ErrorCode::BadPlayerCount => "bad_player_count",
            ErrorCode::JournalUnavailable => "journal_unavailable",
            ErrorCode::Rule(error) => error.code(),
        }
    }

    /// The code with this name, if there is one.
    pub fn from_code(code: &str) -> Option<ErrorCode> {
        ErrorCode::PROTOCOL
            .into_iter()
            .chain(RuleError::ALL.into_iter().map(ErrorCode::Rule))
            .find(|candidate| candidate.as_str() == code)
    }
}

impl From<RuleError> for ErrorCode {
    fn from(error: RuleError) -> Self {
        ErrorCode::Rule(error)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = String::deserialize(deserializer)?;
        ErrorCode::from_code(&code)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown error code `{code}`")))
    }
}

/// WebSocket close codes the server uses, with the reason text it sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CloseCode {
    /// 1000: the room closed normally (the game ended and the room was retired).
    RoomClosed,
    /// 1009: a frame larger than the server accepts.
    TooBig,
    /// 4000: too many bad frames in a row (malformed, unknown or ill-typed messages).
    ProtocolViolation,
    /// 4001: another connection presented this seat's token and took the seat over.
    Replaced,
    /// 4002: the client fell behind; its outgoing queue overflowed. Reconnect to resync.
    TooSlow,
    /// 4003: no frame (not even a pong) arrived for two ping intervals.
    Timeout,
    /// 1001: the server is shutting down.
    ShuttingDown,
    /// 1008 (policy violation): the client kept sending faster than its rate limit.
    RateLimited,
}

impl CloseCode {
    /// The numeric WebSocket close code.
    pub const fn code(self) -> u16 {
        match self {
            CloseCode::RoomClosed => 1000,
            CloseCode::ShuttingDown => 1001,
            CloseCode::TooBig => 1009,
            CloseCode::ProtocolViolation => 4000,
            CloseCode::Replaced => 4001,
            CloseCode::TooSlow => 4002,
            CloseCode::Timeout => 4003,
            CloseCode::RateLimited => 1008,
        }
    }

    /// The stable reason text sent in the close frame.
    pub const fn reason(self) -> &'static str {
        match self {
            CloseCode::RoomClosed => "room_closed",
            CloseCode::ShuttingDown => "shutting_down",
            CloseCode::TooBig => "too_big",
            CloseCode::ProtocolViolation => "protocol_violation",
            CloseCode::Replaced => "replaced",
            CloseCode::TooSlow => "too_slow",
            CloseCode::Timeout => "timeout",
            CloseCode::RateLimited => "rate_limited",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_through_its_name() {
        for code in ErrorCode::PROTOCOL
            .into_iter()
            .chain(RuleError::ALL.map(ErrorCode::Rule))
        {
            assert_eq!(ErrorCode::from_code(code.as_str()), Some(code));
        }
    }

    #[test]
    fn codes_are_unique() {
        let mut names: Vec<&str> = ErrorCode::PROTOCOL
            .iter()
            .map(|code| code.as_str())
            .collect();
        names.extend(RuleError::ALL.iter().map(|error| error.code()));
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count);
    }
}
