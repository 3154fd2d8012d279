//! What the server never reveals: another seat's token, ever; the server seed and the dice key,
//! before the game is over. Every outbound frame of a whole game is captured and searched.

use aeroplane_dice::{ClientSeed, GameKey, ServerSeed};
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::Side;

use crate::support::{Client, play_to_end, player_join, spawn_app, welcome};

#[tokio::test]
async fn no_frame_carries_another_seats_token_or_the_seeds_before_game_over() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let mut watcher = app.connect(room.id).await;
    watcher.join_spectator("Eve").await;
    let mut red = app.connect(room.id).await;
    let join = player_join("Ann", Some(Side::Red), None, Some("red's seed".into()));
    welcome(red.join(join).await);
    let mut first_yellow = app.connect(room.id).await;
    let join = player_join(
        "Bob",
        Some(Side::Yellow),
        None,
        Some("yellow's seed".into()),
    );
    welcome(first_yellow.join(join).await);
    for client in [&mut red, &mut first_yellow] {
        client
            .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
            .await;
    }
    let red_token = red.token.clone().unwrap();
    let yellow_token = first_yellow.token.clone().unwrap();
    for token in [&red_token, &yellow_token] {
        assert_eq!(token.len(), 64, "256 bits");
        assert!(token.bytes().all(|byte| byte.is_ascii_hexdigit()));
    }
    assert_ne!(red_token, yellow_token);
    // Yellow comes back on a new connection mid-game (a welcome with a snapshot), and everyone
    // asks for a snapshot: those carry the most state.
    let mut yellow = app.connect(room.id).await;
    yellow.join_with_token(&yellow_token).await;
    red.sync().await;
    yellow.sync().await;
    watcher.sync().await;
    let status = app
        .http
        .get(app.url(&format!("/api/rooms/{}", room.id)))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();

    let over = play_to_end(&mut red, &mut yellow, |_| {}).await;
    watcher.catch_up(over.event).await;
    let record = app
        .http
        .get(app.url(&format!("/api/games/{}", room.id)))
        .send()
        .await
        .unwrap();
    let record = if record.status() == 404 {
        // The record reaches the store without the room waiting; wait for it too.
        app.stored_record(room.id).await;
        app.http
            .get(app.url(&format!("/api/games/{}", room.id)))
            .send()
            .await
            .unwrap()
    } else {
        record
    };
    let record = record.text().await.unwrap();

    let server_seed: ServerSeed = over.server_seed.parse().expect("the revealed seed");
    assert_eq!(server_seed.commitment().to_string(), room.commitment);
    let key = GameKey::derive(
        &server_seed,
        &ClientSeed::new("red's seed").unwrap(),
        &ClientSeed::new("yellow's seed").unwrap(),
    )
    .to_hex();
    let seed = server_seed.to_hex();

    let secrets = Secrets {
        red_token: &red_token,
        yellow_token: &yellow_token,
        seed: &seed,
        key: &key,
    };
    secrets.check("red", &red, Some(&red_token));
    secrets.check("yellow", &yellow, Some(&yellow_token));
    secrets.check(
        "yellow's first connection",
        &first_yellow,
        Some(&yellow_token),
    );
    secrets.check("the spectator", &watcher, None);
    for (what, text) in [("the room status", &status), ("the game record", &record)] {
        assert!(
            !text.contains(&red_token) && !text.contains(&yellow_token),
            "{what}"
        );
        assert!(!text.contains(&key), "{what} carries the dice key");
    }
    assert!(
        !status.contains(&seed),
        "the room status carries the server seed"
    );
    assert!(red.transcript.len() > 20, "a whole game was captured");
}

struct Secrets<'a> {
    red_token: &'a str,
    yellow_token: &'a str,
    seed: &'a str,
    key: &'a str,
}

impl Secrets<'_> {
    /// Checks every frame `client` received: only its own token, never the key, and the seed only
    /// from `game_over` on.
    fn check(&self, who: &str, client: &Client, own: Option<&str>) {
        let over_at = client
            .transcript
            .iter()
            .position(|frame| frame.contains(r#""type":"game_over""#))
            .unwrap_or(client.transcript.len());
        for (n, frame) in client.transcript.iter().enumerate() {
            let frame = frame.to_ascii_lowercase();
            for token in [self.red_token, self.yellow_token] {
                if Some(token) != own {
                    assert!(
                        !frame.contains(token),
                        "{who} saw another seat's token: {frame}"
                    );
                }
            }
            assert!(!frame.contains(self.key), "{who} saw the dice key: {frame}");
            if n < over_at {
                assert!(
                    !frame.contains(self.seed),
                    "{who} saw the server seed before game over: {frame}"
                );
            }
        }
        if let Some(own) = own {
            let welcomes = client.transcript.iter().filter(|f| f.contains(own)).count();
            assert!(welcomes <= 1, "{who}'s token was sent only in its welcome");
        }
    }
}
