//! The native client library (`aeroplane-client`) against a real server: two typed clients play
//! a whole game, agree on its end, and the stored record verifies with the client's verifier.

use aeroplane_client::{Api, Client, Level, Turn, room_url, verify_record, ws_url};
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::Colour;

use crate::support::spawn_app;

/// Plays one seat (first legal plane) until the game ends; returns the result it saw.
async fn play(mut client: Client) -> Turn {
    loop {
        match client
            .wait_my_turn()
            .await
            .expect("the connection stays up")
        {
            Turn::Roll => {
                client.roll().expect("a roll is sent");
            }
            Turn::Move { legal, .. } => {
                let plane = legal
                    .iter()
                    .next()
                    .expect("a pending choice has a legal plane");
                client.move_plane(plane).expect("a move is sent");
            }
            over @ Turn::Over(_) => return over,
        }
    }
}

#[tokio::test]
async fn two_library_clients_play_a_full_game_whose_record_verifies() {
    let app = spawn_app().await;
    let server = format!("http://{}", app.addr);
    let room = Api::new(&server).unwrap().create_room().await.unwrap();
    let url = room_url(&server, room.id);
    let mut red = Client::connect(&url).await.unwrap();
    red.join_player("Ann", None, Some("ann's seed"))
        .await
        .unwrap();
    let mut yellow = Client::connect(&url).await.unwrap();
    yellow.join_player("Bob", None, None).await.unwrap();

    let (red_saw, yellow_saw) = tokio::join!(play(red), play(yellow));
    assert_eq!(red_saw, yellow_saw, "both clients see the same ending");

    let record = app.stored_record(room.id).await;
    let Turn::Over(result) = red_saw else {
        unreachable!("play returns only at the end")
    };
    assert_eq!(record.result, result);
    assert_eq!(record.fairness.red_seed, "ann's seed");
    verify_record(&record).expect("the stored record verifies");
}

#[tokio::test]
async fn the_library_asks_the_computer_for_a_tip_and_takes_a_move_back() {
    let app = crate::computer::fast_app().await;
    let server = format!("http://{}", app.addr);
    let room = Api::new(&server)
        .unwrap()
        .create_computer_room(Colour::Red.into(), Level::Easy)
        .await
        .unwrap();
    let mut human = Client::connect(&ws_url(&server, &room.ws_path))
        .await
        .unwrap();
    human.join_player("Ann", room.colour, None).await.unwrap();

    // Play (first legal plane) until a choice between planes is pending.
    let (roll, legal) = loop {
        match human.wait_my_turn().await.unwrap() {
            Turn::Roll => {
                human.roll().unwrap();
            }
            Turn::Move { roll, legal } if legal.len() > 1 => break (roll, legal),
            Turn::Move { legal, .. } => {
                human.move_plane(legal.iter().next().unwrap()).unwrap();
            }
            Turn::Over(_) => panic!("the game ended before a choice"),
        }
    };
    let before = *human.game().unwrap();

    let asked = human.hint().unwrap();
    let tip = loop {
        match human.next_message().await.unwrap() {
            ServerMessage::Hint(hint) if hint.id == Some(asked) => break hint,
            ServerMessage::Error(error) => panic!("the hint was refused: {error:?}"),
            _ => {}
        }
    };
    assert!(legal.contains(tip.plane), "the tip is a legal plane");
    assert!(!tip.explanation.is_empty());
    assert_eq!(
        human.my_turn(),
        Some(Turn::Move { roll, legal }),
        "a tip changes nothing"
    );

    human.move_plane(tip.plane).unwrap();
    // The computer plays on until the human is to act again. The first choice between planes
    // comes early (neither side can have finished three planes, let alone four), so the game
    // cannot end before the human acts again: an end here is a failure, not a pass.
    let again = human.wait_my_turn().await.unwrap();
    assert!(
        !matches!(again, Turn::Over(_)),
        "the game ended before the undo could be tried"
    );
    assert_ne!(*human.game().unwrap(), before);
    human.undo().unwrap();
    loop {
        match human.next_message().await.unwrap() {
            ServerMessage::Undone(_) => break,
            ServerMessage::Error(error) => panic!("the undo was refused: {error:?}"),
            _ => {}
        }
    }
    assert_eq!(
        *human.game().unwrap(),
        before,
        "the client adopts the earlier position"
    );
    assert_eq!(
        human.my_turn(),
        Some(Turn::Move { roll, legal }),
        "the same roll is pending again"
    );
    human.resign().unwrap();
    assert!(matches!(human.wait_my_turn().await.unwrap(), Turn::Over(_)));
}
