//! The native client library (`aeroplane-client`) against a real server: two typed clients play
//! a whole game, agree on its end, and the stored record verifies with the client's verifier.

use aeroplane_client::{Api, Client, Turn, room_url, verify_record};

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
