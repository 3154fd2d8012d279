//! Computer rooms: a person against the server's bot, over real WebSockets.
//!
//! Also the helpers the other single-player suites (`hint`, `undo`, `local`) share: creating a
//! room of any mode, and playing the colours a client controls (each roll, then the first legal
//! plane) until a wanted moment.

use aeroplane_protocol::api::{ApiError, RoomCreated};
use aeroplane_protocol::record::{Mode, PlayerKind};
use aeroplane_protocol::server::{GameOver, ServerMessage};
use aeroplane_protocol::snapshot::RoomPhase;
use aeroplane_rules::{EndReason, Side};

use crate::support::{Client, TestApp, TurnView, spawn_app_with};

/// A server whose bot acts at once (no pace).
pub(crate) async fn fast_app() -> TestApp {
    spawn_app_with(|config| config.bot_pace_ms = 0).await
}

/// `POST /api/rooms` with `body`, expecting 201.
pub(crate) async fn create(app: &TestApp, body: serde_json::Value) -> RoomCreated {
    create_at(&app.http, app.url("/api/rooms"), body).await
}

/// `POST` of `body` to a server's `/api/rooms` at `url`, expecting 201.
pub(crate) async fn create_at(
    http: &reqwest::Client,
    url: String,
    body: serde_json::Value,
) -> RoomCreated {
    let response = http.post(url).json(&body).send().await.unwrap();
    assert_eq!(response.status(), 201, "creating a room from {body}");
    response.json().await.unwrap()
}

/// `POST /api/rooms` with `body`, expecting 400; answers the error.
pub(crate) async fn refused(app: &TestApp, body: &serde_json::Value) -> ApiError {
    let response = app
        .http
        .post(app.url("/api/rooms"))
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400, "{body}");
    response.json().await.unwrap()
}

/// Creates a computer room, seats the human in it and waits for the game to start.
pub(crate) async fn computer_game(app: &TestApp, body: serde_json::Value) -> (RoomCreated, Client) {
    let room = create(app, body).await;
    let mut human = app.connect(room.id).await;
    let welcome = human.join_player("Ann", None).await;
    assert_eq!(
        welcome.colour, room.colour,
        "the human gets the colour asked for"
    );
    assert_eq!(welcome.colours, Vec::from_iter(room.colour));
    human
        .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;
    (room, human)
}

/// How [`drive`] ended.
#[derive(Debug)]
pub(crate) enum Stop {
    /// `wanted` held: the game waits for the client.
    Wanted,
    /// The game ended.
    Over(GameOver),
}

/// Plays the colours `mine` says the client controls (roll, then the first legal plane) and
/// reads everything else, until the game is settled in a state `wanted` accepts, or over.
pub(crate) async fn drive(
    client: &mut Client,
    turn: &mut TurnView,
    mine: impl Fn(Side) -> bool,
    wanted: impl Fn(&TurnView) -> bool,
) -> Stop {
    loop {
        if turn.settled() && wanted(turn) {
            return Stop::Wanted;
        }
        if turn.settled() && mine(turn.actor()) {
            match turn.pending() {
                None => client.roll().await,
                Some(legal) => client.move_plane(legal.iter().next().unwrap()).await,
            }
            turn.sent();
        }
        let message = client.recv().await;
        match &message {
            ServerMessage::Error(error) => panic!("unexpected error: {error:?}"),
            ServerMessage::GameOver(over) => return Stop::Over(over.clone()),
            _ => turn.follow(&message),
        }
    }
}

/// Plays a whole computer game at `level` with the human as `human`, and checks the record.
async fn a_complete_game_at(level: &str, human: Side) {
    let app = fast_app().await;
    let body = serde_json::json!({ "mode": "computer", "colour": human, "level": level });
    let (room, mut client) = computer_game(&app, body).await;
    assert_eq!(room.mode, Mode::Computer);
    assert_eq!(room.level.as_deref(), Some(level));
    let mut turn = TurnView::of(&client);
    let Stop::Over(over) = drive(&mut client, &mut turn, |c| c == human, |_| false).await else {
        unreachable!("only the end of the game stops this drive")
    };
    assert_eq!(over.result.reason, EndReason::Finished);

    let record = app.stored_record(room.id).await;
    assert_eq!(record.mode, Mode::Computer);
    let (person, computer) = (
        record.players.seat(human).unwrap(),
        record.players.seat(human.opposite()).unwrap(),
    );
    assert_eq!(
        (person.kind, person.level.as_deref()),
        (PlayerKind::Human, None)
    );
    assert_eq!(person.name, "Ann");
    assert_eq!(
        (computer.kind, computer.level.as_deref()),
        (PlayerKind::Computer, Some(level))
    );
    assert_eq!(record.result.winner, over.result.winner);
    let replayed = record.replay().expect("the record replays");
    assert_eq!(
        replayed.outcome().map(|o| o.winner),
        Some(over.result.plyyard_winner())
    );
    assert!(
        record.fairness.red_seed.len() == 32 || record.fairness.yellow_seed.len() == 32,
        "the computer's client seed is drawn by the server: {:?}",
        record.fairness
    );
}

#[tokio::test]
async fn a_complete_game_against_the_random_computer_is_stored() {
    a_complete_game_at("random", Side::Red).await;
}

#[tokio::test]
async fn a_complete_game_against_the_easy_computer_is_stored() {
    a_complete_game_at("easy", Side::Yellow).await;
}

#[tokio::test]
async fn a_complete_game_against_the_normal_computer_is_stored() {
    a_complete_game_at("normal", Side::Red).await;
}

#[tokio::test]
async fn a_complete_game_against_the_hard_computer_is_stored() {
    a_complete_game_at("hard", Side::Yellow).await;
}

#[tokio::test]
async fn a_human_playing_yellow_lets_the_computer_roll_first_as_red() {
    let app = fast_app().await;
    let body = serde_json::json!({ "mode": "computer", "colour": "yellow", "level": "easy" });
    let (room, mut human) = computer_game(&app, body).await;
    assert_eq!(room.colour, Some(Side::Yellow));
    let first = human
        .recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
        .await;
    let ServerMessage::Rolled(rolled) = first else {
        unreachable!()
    };
    assert_eq!(rolled.colour, Side::Red, "the computer rolls first");

    let snapshot = human.sync().await;
    assert_eq!(snapshot.mode, Mode::Computer);
    assert_eq!(snapshot.phase, RoomPhase::Playing);
    let computer = snapshot
        .computer
        .expect("a computer room names its computer");
    assert_eq!(
        (computer.colour, computer.level.as_str()),
        (Side::Red, "easy")
    );
    assert!(
        snapshot
            .seats
            .red
            .as_ref()
            .is_some_and(|seat| seat.connected)
    );
}

#[tokio::test]
async fn computer_rooms_default_to_a_human_red_against_a_normal_computer() {
    let app = fast_app().await;
    let room = create(&app, serde_json::json!({ "mode": "computer" })).await;
    assert_eq!(
        (room.colour, room.level.as_deref()),
        (Some(Side::Red), Some("normal"))
    );
}

#[tokio::test]
async fn the_human_cannot_take_the_computers_seat() {
    let app = fast_app().await;
    let room = create(
        &app,
        serde_json::json!({ "mode": "computer", "colour": "red" }),
    )
    .await;
    let mut client = app.connect(room.id).await;
    let answer = client
        .join(crate::support::player_join(
            "Ann",
            Some(Side::Yellow),
            None,
            None,
        ))
        .await;
    let ServerMessage::Error(error) = answer else {
        panic!("joined the computer's seat: {answer:?}")
    };
    assert_eq!(error.code, aeroplane_protocol::error::ErrorCode::SeatTaken);
}

#[tokio::test]
async fn a_bad_level_or_a_colour_outside_computer_rooms_is_a_bad_field() {
    let app = fast_app().await;
    for body in [
        serde_json::json!({ "mode": "computer", "level": "grandmaster" }),
        serde_json::json!({ "mode": "online", "colour": "yellow" }),
        serde_json::json!({ "mode": "local", "level": "easy" }),
    ] {
        let error = refused(&app, &body).await;
        assert_eq!(error.code.as_str(), "bad_field", "{body}");
    }
}

#[tokio::test]
async fn draw_offers_are_refused_in_computer_rooms() {
    let app = fast_app().await;
    let (_room, mut human) = computer_game(&app, serde_json::json!({ "mode": "computer" })).await;
    human.offer_draw().await;
    human
        .expect_error(aeroplane_protocol::error::ErrorCode::DrawsUnavailable)
        .await;
}
