//! Complete games between two real WebSocket clients.

use aeroplane_protocol::record::Mode;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::RoomPhase;
use aeroplane_rules::{EndReason, Side};

use crate::support::{play_to_end, spawn_app};

#[tokio::test]
async fn two_players_join_both_seats_and_play_to_a_win() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let mut red = app.connect(room.id).await;
    let welcome = red.join_player("Ann", None).await;
    assert_eq!(
        welcome.colour,
        Some(Side::Red),
        "the first free seat is Red"
    );
    assert_eq!(welcome.protocol, aeroplane_protocol::PROTOCOL_VERSION);
    assert_eq!(welcome.snapshot.phase, RoomPhase::Waiting);
    assert_eq!(welcome.snapshot.fairness.commitment, room.commitment);
    assert_eq!(welcome.snapshot.mode, Mode::Online);
    assert!(
        welcome
            .token
            .as_ref()
            .is_some_and(|token| token.len() >= 32)
    );

    let mut yellow = app.connect(room.id).await;
    let welcome = yellow.join_player("Bob", None).await;
    assert_eq!(welcome.colour, Some(Side::Yellow));
    let started = yellow
        .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;
    red.recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;
    let ServerMessage::GameStarted(started) = started else {
        unreachable!()
    };
    assert_eq!(started.commitment, room.commitment);

    let mut moves = 0;
    let over = play_to_end(&mut red, &mut yellow, |message| {
        if matches!(message, ServerMessage::Moved(_)) {
            moves += 1;
        }
    })
    .await;
    assert_eq!(over.result.reason, EndReason::Finished);
    let winner = over
        .result
        .plyyard_winner()
        .expect("a finished game has a winner");
    assert!(
        moves >= 16,
        "at least four planes of the winner travelled: {moves} moves"
    );

    let snapshot = red.sync().await;
    assert_eq!(snapshot.phase, RoomPhase::Over);
    assert!(
        snapshot
            .game()
            .planes(winner)
            .iter()
            .all(|p| *p == aeroplane_rules::Position::Finished)
    );
    assert_eq!(
        snapshot.fairness.server_seed.as_deref(),
        Some(over.server_seed.as_str())
    );

    let record = app.stored_record(room.id).await;
    assert_eq!(record.result.plyyard_winner(), Some(winner));
    assert_eq!(
        (
            record.players.red.name.as_str(),
            record.players.yellow.name.as_str()
        ),
        ("Ann", "Bob")
    );
    assert_eq!(
        record
            .replay()
            .expect("the record replays")
            .outcome()
            .unwrap()
            .winner,
        Some(winner)
    );
    assert_eq!(record.moves as usize, moves);
}
