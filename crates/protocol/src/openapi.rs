//! The OpenAPI 3.1 document of the HTTP API (`GET /api/openapi.json`), generated from the wire
//! types of this crate with `utoipa`, so it cannot drift from what the server sends.
//!
//! The routes are declared here on documentation-only functions (the handlers live in the
//! server, which should not need to know OpenAPI); the bodies are the types of [`crate::api`]
//! and [`crate::record`]. The rules crate stays free of OpenAPI: its few types that appear in
//! bodies have stand-ins here ([`ColourName`], [`EndReasonName`]), a replay's `game` is an
//! object (`docs/state-json.md`), and a logged action's schema is written out by hand.
//!
//! Every route may also answer the errors every request can meet at the edge (413, 415, 429, …);
//! [`document`] adds those to every operation, each with the [`ApiError`] body.
//!
//! Over 500 lines only with its tests (the document itself is about 470): one declarative list
//! of routes and schema stand-ins, kept in one place so the document is read top to bottom.

use std::borrow::Cow;

use utoipa::openapi::path::Operation;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{RefOr, ResponseBuilder};
use utoipa::{OpenApi, PartialSchema, ToSchema};

use crate::api::{
    ApiError, CreatePlayer, CreateRoom, GameList, Leaderboard, LiveRooms, PlayerCreated,
    PlayerProfile, QuickMatchRequest, QuickMatched, RenamePlayer, Replay, RoomCreated, RoomStatus,
};
use crate::error::ErrorCode;
use crate::record::{GameRecord, LoggedAction};
use aeroplane_rules::{RuleError, TableAction};

/// A colour on the wire (the rules crate's `Colour` and `Side`): a two-player `plyyard` game
/// seats Red and Yellow only; a table of three seats Blue too, and of four Green as well.
#[derive(ToSchema)]
#[schema(as = Colour)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum ColourName {
    /// Red (rolls first).
    Red,
    /// Green (tables of four).
    Green,
    /// Yellow.
    Yellow,
    /// Blue (tables of three or four).
    Blue,
}

/// Why a game ended (the rules crate's `EndReason`).
#[derive(ToSchema)]
#[schema(as = EndReason)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum EndReasonName {
    /// All four planes of the winner finished.
    Finished,
    /// The loser resigned.
    Resigned,
    /// A draw offer was accepted.
    Agreed,
    /// The loser stayed disconnected past the grace period.
    Abandoned,
    /// The loser let the turn clock run out too often.
    Timeout,
}

impl PartialSchema for ErrorCode {
    fn schema() -> RefOr<Schema> {
        let codes = ErrorCode::PROTOCOL
            .into_iter()
            .chain(RuleError::ALL.map(ErrorCode::Rule))
            .map(ErrorCode::as_str);
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(codes))
            .description(Some("A stable error code (docs/protocol.md §5)."))
            .into()
    }
}

impl ToSchema for ErrorCode {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("ErrorCode")
    }
}

impl PartialSchema for LoggedAction {
    fn schema() -> RefOr<Schema> {
        let integer = || {
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(0))
        };
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(
                "One action of the log with the room event number it produced: `action` names \
                 it, `colour` acts; a roll has `value` (1..6), a move `plane` (0..3), a forfeit \
                 `reason`.",
            ))
            .property("event", integer())
            .required("event")
            .property(
                "action",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(TableAction::NAMES)),
            )
            .required("action")
            .property("colour", ColourName::schema())
            .required("colour")
            .property("value", integer().minimum(Some(1)).maximum(Some(6)))
            .property("plane", integer().maximum(Some(3)))
            .property("reason", ObjectBuilder::new().schema_type(Type::String))
            .property("undone", ObjectBuilder::new().schema_type(Type::Boolean))
            .into()
    }
}

impl ToSchema for LoggedAction {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("LoggedAction")
    }
}

/// The `result` filter of `GET /api/games`: the winner's colour, or a draw.
#[derive(ToSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum GameResult {
    /// Red won.
    Red,
    /// Green won.
    Green,
    /// Yellow won.
    Yellow,
    /// Blue won.
    Blue,
    /// A draw.
    Draw,
}

/// The `ruleset` filter of `GET /api/games`: an edition (`docs/rules/README.md`).
#[derive(ToSchema)]
#[schema(as = Ruleset)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum RulesetName {
    /// The two-player edition of `rules.md`.
    Plyyard,
    /// `flights.md`.
    Flights,
    /// `classic.md`.
    Classic,
}

/// The statuses any request may meet at the edge, before its route's own answers.
const EDGE_ERRORS: [(&str, &str); 8] = [
    (
        "400",
        "A bad request: a body, id or parameter (`bad_field`).",
    ),
    (
        "403",
        "A browser page of a foreign origin (`origin_not_allowed`).",
    ),
    ("404", "No such route (`not_found`)."),
    (
        "408",
        "The body did not arrive in time (`request_timeout`).",
    ),
    ("413", "The body is too large (`too_large`)."),
    ("415", "A `POST` body that is not `application/json`."),
    ("429", "Too many connections or rooms from this address."),
    (
        "503",
        "Draining, or the database (`store_unavailable`) or the rooms' journal \
         (`journal_unavailable`) does not answer.",
    ),
];

/// The document served at `GET /api/openapi.json`.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut document = ApiDoc::openapi();
    document.info.version = env!("CARGO_PKG_VERSION").to_owned();
    let components = document.components.get_or_insert_with(Default::default);
    let mut bearer = Http::new(HttpAuthScheme::Bearer);
    bearer.description = Some(
        "A player's credentials from `POST /api/players`: `Bearer <player id>.<secret>`.".into(),
    );
    components.add_security_scheme("player", SecurityScheme::Http(bearer));
    for item in document.paths.paths.values_mut() {
        let operations = [
            &mut item.get,
            &mut item.post,
            &mut item.put,
            &mut item.patch,
            &mut item.delete,
        ];
        for operation in operations.into_iter().flatten() {
            add_edge_errors(operation);
        }
    }
    document
}

fn add_edge_errors(operation: &mut Operation) {
    for (status, description) in EDGE_ERRORS {
        let response = ResponseBuilder::new()
            .description(description)
            .content(
                "application/json",
                utoipa::openapi::ContentBuilder::new()
                    .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
                        "ApiError",
                    ))))
                    .build(),
            )
            .build();
        operation
            .responses
            .responses
            .entry(status.to_owned())
            .or_insert(RefOr::T(response));
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Aeroplane Chess server",
        description = "The HTTP API of aeroplane-server (docs/protocol.md §1). Rooms are played \
                       over their WebSocket (`ws_path`), described in docs/protocol.md §2-§7.",
        license(name = "MIT OR Apache-2.0")
    ),
    paths(
        create_room,
        room_status,
        quick_match,
        create_player,
        my_profile,
        rename_me,
        my_live_rooms,
        player_profile,
        leaderboard,
        list_games,
        get_game,
        replay_game,
        websocket,
        healthz,
        readyz,
        openapi_json
    ),
    components(schemas(
        ApiError,
        ErrorCode,
        LoggedAction,
        ColourName,
        EndReasonName,
        GameResult,
        RulesetName
    ))
)]
struct ApiDoc;

/// Creates a room (an empty body means `{"mode": "online"}`). Player credentials, if sent, are
/// checked; the player's seat is tied to them when they join with `player`.
#[utoipa::path(
    post,
    path = "/api/rooms",
    security((), ("player" = [])),
    request_body(content = Option<CreateRoom>, content_type = "application/json"),
    responses(
        (status = 201, description = "The room is open.", body = RoomCreated),
        (status = 401, description = "Wrong credentials (`bad_identity`).", body = ApiError),
        (status = 500, description = "The server failed.", body = ApiError),
    )
)]
#[allow(dead_code)]
fn create_room() {}

/// A room's public status.
#[utoipa::path(
    get,
    path = "/api/rooms/{id}",
    params(("id" = uuid::Uuid, Path, description = "The room id (a UUID, hyphenated or not).")),
    responses(
        (status = 200, description = "The room.", body = RoomStatus),
        (status = 500, description = "The room did not answer.", body = ApiError),
    )
)]
#[allow(dead_code)]
fn room_status() {}

/// Waits for another player (the closest rating among those waiting) and answers with a seat in
/// a new room; with player credentials the seat is the player's and the game is rated.
#[utoipa::path(
    post,
    path = "/api/quick-match",
    security((), ("player" = [])),
    request_body(content = QuickMatchRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "Matched: a seat taken for you.", body = QuickMatched),
        (status = 401, description = "Wrong credentials (`bad_identity`).", body = ApiError),
        (status = 409, description = "Nobody else asked in time (`no_match`); ask again.", body = ApiError),
    )
)]
#[allow(dead_code)]
fn quick_match() {}

/// Creates a guest identity: a player id and its secret (kept only as a hash).
#[utoipa::path(
    post,
    path = "/api/players",
    request_body(content = Option<CreatePlayer>, content_type = "application/json"),
    responses(
        (status = 201, description = "The player, with its secret (shown this once).", body = PlayerCreated),
    )
)]
#[allow(dead_code)]
fn create_player() {}

/// The caller's profile.
#[utoipa::path(
    get,
    path = "/api/players/me",
    security(("player" = [])),
    responses(
        (status = 200, description = "The profile.", body = PlayerProfile),
        (status = 401, description = "Missing or wrong credentials (`bad_identity`).", body = ApiError),
    )
)]
#[allow(dead_code)]
fn my_profile() {}

/// Renames the caller.
#[utoipa::path(
    patch,
    path = "/api/players/me",
    security(("player" = [])),
    request_body(content = RenamePlayer, content_type = "application/json"),
    responses(
        (status = 200, description = "The renamed profile.", body = PlayerProfile),
        (status = 401, description = "Missing or wrong credentials (`bad_identity`).", body = ApiError),
    )
)]
#[allow(dead_code)]
fn rename_me() {}

/// The open rooms where the caller holds a seat, with the seat tokens.
#[utoipa::path(
    get,
    path = "/api/players/me/live",
    security(("player" = [])),
    responses(
        (status = 200, description = "The rooms.", body = LiveRooms),
        (status = 401, description = "Missing or wrong credentials (`bad_identity`).", body = ApiError),
    )
)]
#[allow(dead_code)]
fn my_live_rooms() {}

/// A player's public profile: name, rating and results.
#[utoipa::path(
    get,
    path = "/api/players/{id}",
    params(("id" = uuid::Uuid, Path, description = "The player id.")),
    responses((status = 200, description = "The profile.", body = PlayerProfile))
)]
#[allow(dead_code)]
fn player_profile() {}

/// The players with at least one rated game, highest rating first.
#[utoipa::path(
    get,
    path = "/api/leaderboard",
    params(
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "1 to 200 (default 50)."),
    ),
    responses((status = 200, description = "The leaderboard.", body = Leaderboard))
)]
#[allow(dead_code)]
fn leaderboard() {}

/// Finished games, newest first, a page at a time.
#[utoipa::path(
    get,
    path = "/api/games",
    params(
        ("player" = Option<String>, Query, description = "Only games a player of this name sat in; a player id (a UUID) lists that identified player's games."),
        ("result" = Option<GameResult>, Query, description = "The winner's colour (`red`, `green`, `yellow`, `blue`) or `draw`."),
        ("ruleset" = Option<RulesetName>, Query, description = "Only games of this edition, whatever house rules were on."),
        ("players" = Option<u32>, Query, minimum = 2, maximum = 4, description = "Only games of this many players."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "1 to 100 (default 20)."),
        ("before" = Option<String>, Query, description = "`next_before` of a previous page."),
    ),
    responses((status = 200, description = "A page of games.", body = GameList))
)]
#[allow(dead_code)]
fn list_games() {}

/// One finished game's record.
#[utoipa::path(
    get,
    path = "/api/games/{id}",
    params(("id" = uuid::Uuid, Path, description = "The game id.")),
    responses((status = 200, description = "The record.", body = GameRecord))
)]
#[allow(dead_code)]
fn get_game() {}

/// Every position of a finished game, recomputed by the rules crate.
#[utoipa::path(
    get,
    path = "/api/games/{id}/replay",
    params(("id" = uuid::Uuid, Path, description = "The game id.")),
    responses(
        (status = 200, description = "The positions.", body = Replay),
        (status = 500, description = "The stored game does not replay.", body = ApiError),
    )
)]
#[allow(dead_code)]
fn replay_game() {}

/// A room's WebSocket (docs/protocol.md §2); without a WebSocket upgrade the answer is 400.
#[utoipa::path(
    get,
    path = "/ws/rooms/{id}",
    params(("id" = uuid::Uuid, Path, description = "The room id.")),
    responses((status = 101, description = "Switched to the WebSocket protocol."))
)]
#[allow(dead_code)]
fn websocket() {}

/// Liveness: `ok` while the process serves.
#[utoipa::path(
    get,
    path = "/healthz",
    responses((status = 200, description = "Live.", body = String, content_type = "text/plain"))
)]
#[allow(dead_code)]
fn healthz() {}

/// Readiness: the store answers and the server is not draining.
#[utoipa::path(
    get,
    path = "/readyz",
    responses(
        (status = 200, description = "Ready.", body = String, content_type = "text/plain"),
        (status = 503, description = "Not ready.", body = String, content_type = "text/plain"),
    )
)]
#[allow(dead_code)]
fn readyz() {}

/// This document.
#[utoipa::path(
    get,
    path = "/api/openapi.json",
    responses((status = 200, description = "The OpenAPI document.", body = Object))
)]
#[allow(dead_code)]
fn openapi_json() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_names_every_route_and_every_error_code() {
        let json = serde_json::to_value(document()).unwrap();
        assert!(json["openapi"].as_str().unwrap().starts_with("3.1"));
        for path in [
            "/api/rooms",
            "/api/rooms/{id}",
            "/api/quick-match",
            "/api/games",
            "/api/games/{id}",
            "/api/games/{id}/replay",
            "/api/players",
            "/api/players/me",
            "/api/players/me/live",
            "/api/players/{id}",
            "/api/leaderboard",
        ] {
            assert!(json["paths"][path].is_object(), "{path} missing");
        }
        let codes = &json["components"]["schemas"]["ErrorCode"]["enum"];
        assert!(
            codes
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c == "store_unavailable")
        );
        assert!(
            codes
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c == "not_your_turn")
        );
        let created = &json["paths"]["/api/rooms"]["post"]["responses"];
        assert!(created["201"].is_object() && created["415"].is_object());
    }

    /// Every `$ref` under `value`.
    fn refs(value: &serde_json::Value, found: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(target)) = map.get("$ref") {
                    found.push(target.clone());
                }
                map.values().for_each(|value| refs(value, found));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|value| refs(value, found)),
            _ => {}
        }
    }

    #[test]
    fn every_schema_the_document_refers_to_is_in_it() {
        let json = serde_json::to_value(document()).unwrap();
        let mut found = Vec::new();
        refs(&json, &mut found);
        assert!(!found.is_empty());
        for target in found {
            let name = target
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("{target} is not a schema"));
            assert!(
                json["components"]["schemas"][name].is_object(),
                "{target} is missing"
            );
        }
    }

    #[test]
    fn the_game_list_filters_by_edition_and_players_and_knows_every_colour() {
        let json = serde_json::to_value(document()).unwrap();
        let params = json["paths"]["/api/games"]["get"]["parameters"]
            .as_array()
            .unwrap();
        let names: Vec<&str> = params
            .iter()
            .map(|param| param["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["player", "result", "ruleset", "players", "limit", "before"]
        );
        let colours = &json["components"]["schemas"]["Colour"]["enum"];
        assert_eq!(
            *colours,
            serde_json::json!(["red", "green", "yellow", "blue"])
        );
        let schema = |name: &str| {
            let param = params.iter().find(|param| param["name"] == name).unwrap();
            let schema = &param["schema"];
            match schema["$ref"].as_str() {
                Some(path) => {
                    let name = path.rsplit('/').next().unwrap();
                    json["components"]["schemas"][name].clone()
                }
                None => schema.clone(),
            }
        };
        assert_eq!(
            schema("ruleset")["enum"],
            serde_json::json!(["plyyard", "flights", "classic"])
        );
        assert_eq!(
            schema("result")["enum"],
            serde_json::json!(["red", "green", "yellow", "blue", "draw"])
        );
    }
}
