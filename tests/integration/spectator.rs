//! Spectators see every event and cannot act.

use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::server::ServerMessage;

use crate::support::{play_to_end, spawn_app};

#[tokio::test]
async fn a_spectator_sees_every_event_and_cannot_act() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let mut spectator = app.connect(room.id).await;
    let welcome = spectator.join_spectator("Eve").await;
    assert_eq!((welcome.colour, welcome.token), (None, None));
    let (mut red, mut yellow) = app.start_game(&room).await;
    spectator.catch_up(red.seen()).await;

    spectator.roll().await;
    spectator.expect_error(ErrorCode::SpectatorCannotAct).await;
    spectator.offer_draw().await;
    spectator.expect_error(ErrorCode::SpectatorCannotAct).await;

    let mut red_saw = Vec::new();
    play_to_end(&mut red, &mut yellow, |message| {
        red_saw.push(message.clone())
    })
    .await;
    let mut spectator_saw = Vec::new();
    loop {
        let message = spectator.recv().await;
        spectator_saw.push(message.clone());
        if matches!(message, ServerMessage::GameOver(_)) {
            break;
        }
    }
    assert_eq!(spectator_saw, red_saw);
    assert_eq!(spectator.seen(), red.seen());
}
