//! `undo`: taking plane choices back in computer and local rooms, never online.

use aeroplane_dice::{ClientSeed, DieStream, GameKey, ServerSeed};
use aeroplane_protocol::client::{Act, ClientMessage};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::record::GameRecord;
use aeroplane_protocol::server::{Moved, ServerMessage, Undone};
use aeroplane_protocol::snapshot::Snapshot;
use aeroplane_rules::{EndReason, Side};

use crate::computer::{Stop, computer_game, drive, fast_app};
use crate::support::{Client, TurnView};

/// Sends `undo` with the last event seen.
pub(crate) async fn send_undo(client: &mut Client) {
    let act = Act {
        id: Some(client.request_id()),
        seen: client.seen(),
    };
    client.send(&ClientMessage::Undo(act)).await;
}

/// Sends `undo` and expects the `undone` event.
pub(crate) async fn undo(client: &mut Client) -> Undone {
    send_undo(client).await;
    match client.recv().await {
        ServerMessage::Undone(undone) => undone,
        other => panic!("expected `undone`, got {other:?}"),
    }
}

/// Asserts that `undone` put the game back exactly where `before` was.
pub(crate) fn assert_restored(undone: &Undone, before: &Snapshot) {
    assert_eq!(undone.snapshot.game, before.game, "the same position");
    assert_eq!(
        undone.snapshot.notation, before.notation,
        "the same notation"
    );
    assert!(before.notation.as_deref().unwrap().split(' ').nth(3) != Some("-"));
    assert_eq!(undone.snapshot.event, undone.event);
    assert_eq!(undone.colour, before.board().to_act());
}

/// Every roll the record's seeds give, in order, as many as the record holds.
fn stream_of(record: &GameRecord) -> Vec<u8> {
    let seed: [u8; 32] = (0..32)
        .map(|i| u8::from_str_radix(&record.fairness.server_seed[2 * i..2 * i + 2], 16).unwrap())
        .collect::<Vec<_>>()
        .try_into()
        .unwrap();
    let key = GameKey::derive(
        &ServerSeed::from_bytes(seed),
        &ClientSeed::new(record.fairness.red_seed.clone()).unwrap(),
        &ClientSeed::new(record.fairness.yellow_seed.clone()).unwrap(),
    );
    let mut stream = DieStream::new(key);
    (0..record.roll_values().len())
        .map(|_| stream.next_die().value())
        .collect()
}

#[tokio::test]
async fn undo_restores_the_exact_earlier_position_and_repeated_undo_goes_further_back() {
    let app = fast_app().await;
    let (room, mut human) = computer_game(&app, serde_json::json!({ "mode": "computer" })).await;
    let red = |colour: Side| colour == Side::Red;
    let choice = |turn: &TurnView| turn.actor() == Side::Red && turn.pending().is_some();
    let mut turn = TurnView::of(&human);

    // Two plane choices of the human, the position before each kept.
    let Stop::Wanted = drive(&mut human, &mut turn, red, choice).await else {
        panic!("the game ended early")
    };
    let first = human.sync().await;
    human
        .move_plane(turn.pending().unwrap().iter().next().unwrap())
        .await;
    turn.sent();
    let Stop::Wanted = drive(&mut human, &mut turn, red, choice).await else {
        panic!("the game ended early")
    };
    let second = human.sync().await;
    human
        .move_plane(turn.pending().unwrap().iter().next().unwrap())
        .await;
    turn.sent();
    // Play on (the computer too) until the human must act again.
    let Stop::Wanted = drive(&mut human, &mut turn, red, |turn| turn.actor() == Side::Red).await
    else {
        panic!("the game ended early")
    };

    let undone = undo(&mut human).await;
    assert_restored(&undone, &second);
    assert!(undone.actions >= 1);
    assert_eq!(human.sync().await.game, second.game, "the room agrees");
    let undone = undo(&mut human).await;
    assert_restored(&undone, &first);
    send_undo(&mut human).await;
    human.expect_error(ErrorCode::NothingToUndo).await;

    // The game goes on from there: the same roll is pending, and the die is not rewound.
    turn = TurnView::of(&human);
    let Stop::Wanted = drive(&mut human, &mut turn, red, |turn| {
        turn.actor() == Side::Red && turn.pending().is_none()
    })
    .await
    else {
        panic!("the game ended early")
    };
    human.resign().await;
    human
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    send_undo(&mut human).await;
    human
        .expect_error(ErrorCode::Rule(aeroplane_rules::RuleError::GameOver))
        .await;

    let record = app.stored_record(room.id).await;
    assert_eq!(record.result.reason, EndReason::Resigned);
    assert!(
        record.actions.iter().any(|logged| logged.undone),
        "undone actions stay in the record, marked"
    );
    let values: Vec<u8> = record.roll_values().iter().map(|die| die.value()).collect();
    assert_eq!(
        values,
        stream_of(&record),
        "every roll, undone or not, is the next die value"
    );
    assert_eq!(
        record.replay().unwrap().outcome().unwrap().reason,
        EndReason::Resigned
    );
}

#[tokio::test]
async fn undo_with_nothing_to_take_back_or_a_stale_seen_is_refused() {
    let app = fast_app().await;
    let (_room, mut human) = computer_game(&app, serde_json::json!({ "mode": "computer" })).await;
    send_undo(&mut human).await;
    human.expect_error(ErrorCode::NothingToUndo).await;
    let act = Act { id: None, seen: 0 };
    human.send(&ClientMessage::Undo(act)).await;
    human.expect_error(ErrorCode::Stale).await;
}

#[tokio::test]
async fn online_games_cannot_be_undone() {
    let app = fast_app().await;
    let room = app.create_room().await;
    let (mut red, _yellow) = app.start_game(&room).await;
    send_undo(&mut red).await;
    red.expect_error(ErrorCode::UndoUnavailable).await;
}

#[tokio::test(start_paused = true)]
async fn the_computer_does_not_act_on_a_position_that_an_undo_took_back() {
    // The computer waits a little before each action, long enough to undo in between.
    let app = crate::support::spawn_app_with(|config| config.bot_pace_ms = 400).await;
    let (_room, mut human) = computer_game(&app, serde_json::json!({ "mode": "computer" })).await;
    let red = |colour: Side| colour == Side::Red;
    let choice = |turn: &TurnView| turn.actor() == Side::Red && turn.pending().is_some();
    let mut turn = TurnView::of(&human);
    // A choice for a roll other than six whose move hands the turn to the computer. A move that
    // captures or finishes earns another roll instead: then play on until one that does not.
    let before = loop {
        let Stop::Wanted = drive(&mut human, &mut turn, red, choice).await else {
            panic!("the game ended before a move handed the turn over")
        };
        let snapshot = human.sync().await;
        human
            .move_plane(turn.pending().unwrap().iter().next().unwrap())
            .await;
        turn.sent();
        if snapshot.notation.as_deref().unwrap().contains(" red 6 ") {
            continue;
        }
        let message = loop {
            let message = human.recv().await;
            if let ServerMessage::Error(error) = &message {
                panic!("unexpected error: {error:?}");
            }
            turn.follow(&message);
            if matches!(
                message,
                ServerMessage::TurnPassed(_)
                    | ServerMessage::Moved(Moved {
                        extra_roll: true,
                        ..
                    })
            ) {
                break message;
            }
        };
        if matches!(message, ServerMessage::TurnPassed(_)) {
            break snapshot;
        }
    };
    let undone = undo(&mut human).await;
    assert_restored(&undone, &before);
    tokio::time::sleep(std::time::Duration::from_millis(1_000)).await;
    let now = human.sync().await;
    assert_eq!(
        now.event, undone.event,
        "the computer did not act after the undo"
    );
    assert_eq!(now.game, before.game);
}
