//! Resigning, on one's own turn and on the opponent's.

use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::{EndReason, Side};

use crate::support::spawn_app;

#[tokio::test]
async fn a_player_may_resign_on_its_own_turn() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    red.resign().await;
    for client in [&mut red, &mut yellow] {
        let ServerMessage::GameOver(over) = client.recv().await else {
            panic!("no game over")
        };
        assert_eq!(
            (over.result.winner, over.result.reason),
            (Some(Side::Yellow), EndReason::Resigned)
        );
    }
    let record = app.stored_record(room.id).await;
    assert_eq!(record.result.winner, Some(Side::Yellow));
}

#[tokio::test]
async fn a_player_may_resign_on_the_opponents_turn() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    // It is Red's turn; Yellow resigns.
    yellow.resign().await;
    let ServerMessage::GameOver(over) = red.recv().await else {
        panic!("no game over")
    };
    assert_eq!(
        (over.result.winner, over.result.reason),
        (Some(Side::Red), EndReason::Resigned)
    );
    let snapshot = yellow.sync().await;
    assert_eq!(
        snapshot.result.map(|result| result.winner),
        Some(Some(Side::Red))
    );
}
