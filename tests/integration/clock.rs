//! The turn clock: when it runs out the server plays for the player to act and counts a strike;
//! enough strikes forfeit the game (`timeout`). A disconnected player's turns are played while the
//! seat is held.

use aeroplane_protocol::api::RoomCreated;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::{EndReason, Side};

use crate::support::{Client, TestApp, TurnView, spawn_app_with};

const CLOCK_MS: u64 = 300;

async fn create_room_with_clock(app: &TestApp, clock_ms: u64) -> reqwest::Response {
    app.http
        .post(app.url("/api/rooms"))
        .json(&serde_json::json!({ "mode": "online", "turn_clock_ms": clock_ms }))
        .send()
        .await
        .unwrap()
}

/// The clock's length on a turn event; `None` for other messages.
fn deadline(message: &ServerMessage) -> Option<Option<u64>> {
    match message {
        ServerMessage::GameStarted(m) => Some(m.deadline_ms),
        ServerMessage::Rolled(m) => Some(m.deadline_ms),
        ServerMessage::Moved(m) => Some(m.deadline_ms),
        ServerMessage::TurnPassed(m) => Some(m.deadline_ms),
        _ => None,
    }
}

/// Yellow plays its own turns at once; Red never acts. Returns what `red` saw up to game over.
async fn yellow_plays_red_waits(red: &mut Client, yellow: &mut Client) -> Vec<ServerMessage> {
    let mut turn = TurnView::of(red);
    red_waits_until(red, yellow, &mut turn, |message| {
        matches!(message, ServerMessage::GameOver(_))
    })
    .await
}

/// Yellow plays its turns at once, Red never acts, until `stop` accepts a message Red received
/// (which is returned with everything before it).
pub(crate) async fn red_waits_until(
    red: &mut Client,
    yellow: &mut Client,
    turn: &mut TurnView,
    stop: impl Fn(&ServerMessage) -> bool,
) -> Vec<ServerMessage> {
    let mut seen = Vec::new();
    loop {
        let message = red.recv().await;
        turn.follow(&message);
        let done = stop(&message);
        seen.push(message);
        if done {
            return seen;
        }
        if turn.settled() && turn.actor() == Side::Yellow {
            yellow.catch_up(red.seen()).await;
            match turn.pending() {
                None => yellow.roll().await,
                Some(legal) => yellow.move_plane(legal.iter().next().unwrap()).await,
            }
            turn.sent();
        }
    }
}

#[tokio::test]
async fn a_player_who_lets_the_clock_run_out_is_played_for_then_forfeits() {
    let app = spawn_app_with(|config| config.max_strikes = 2).await;
    assert_eq!(create_room_with_clock(&app, 5).await.status(), 400);
    let response = create_room_with_clock(&app, CLOCK_MS).await;
    assert_eq!(response.status(), 201);
    let room: RoomCreated = response.json().await.unwrap();
    let mut red = app.connect(room.id).await;
    red.join_player("Ann", Some(Side::Red)).await;
    let mut yellow = app.connect(room.id).await;
    yellow.join_player("Bob", Some(Side::Yellow)).await;
    yellow
        .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;

    let seen = yellow_plays_red_waits(&mut red, &mut yellow).await;
    let Some(ServerMessage::GameOver(over)) = seen.last() else {
        unreachable!()
    };
    assert_eq!(over.result.winner, Some(Side::Yellow));
    assert_eq!(over.result.reason, EndReason::Timeout);
    // The server rolled for Red at least once before the second strike forfeited.
    let red_rolls = seen
        .iter()
        .filter(|m| matches!(m, ServerMessage::Rolled(r) if r.colour == Side::Red))
        .count();
    assert!(red_rolls >= 1, "{seen:?}");
    // Every turn event carries the deadline.
    for message in &seen {
        if let Some(deadline) = deadline(message) {
            assert_eq!(deadline, Some(CLOCK_MS), "{message:?}");
        }
    }
    assert_eq!(app.stored_record(room.id).await.result, over.result);
}

#[tokio::test]
async fn a_disconnected_players_turns_are_played_while_the_seat_is_held() {
    let app = spawn_app_with(|config| config.max_strikes = 1000).await;
    let room: RoomCreated = create_room_with_clock(&app, CLOCK_MS)
        .await
        .json()
        .await
        .unwrap();
    let (red, mut yellow) = app.start_game(&room).await;
    let token = red.token.clone().unwrap();
    drop(red);
    // Yellow plays on; the server plays Red's turns whenever the clock runs out.
    let mut turn = TurnView::of(&yellow);
    let mut red_moves = 0;
    while red_moves < 3 {
        let message = yellow.recv().await;
        turn.follow(&message);
        match &message {
            ServerMessage::Rolled(rolled) if rolled.colour == Side::Red => red_moves += 1,
            ServerMessage::GameOver(over) => panic!("the game ended: {over:?}"),
            _ => {}
        }
        if turn.settled() && turn.actor() == Side::Yellow {
            match turn.pending() {
                None => yellow.roll().await,
                Some(legal) => yellow.move_plane(legal.iter().next().unwrap()).await,
            }
            turn.sent();
        }
    }
    // Red comes back to a live game within the grace period.
    let mut red = app.connect(room.id).await;
    let welcome = red.join_with_token(&token).await;
    assert_eq!(
        welcome.snapshot.phase,
        aeroplane_protocol::snapshot::RoomPhase::Playing
    );
}
