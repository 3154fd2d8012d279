//! Two clients play one game against each other with random legal moves, then the finished game
//! is fetched and verified.
//!
//! Start a server (`cargo run -p aeroplane-server`), then:
//!
//! ```text
//! cargo run -p aeroplane-client --example play_random -- http://127.0.0.1:8080
//! ```

use aeroplane_client::{Api, Client, Turn, room_url, verify_record};
use aeroplane_rules::Colour;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let server = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "http://127.0.0.1:8080".to_owned());
    let api = Api::new(&server)?;
    let room = api.create_room().await?;
    println!("room {} (commitment {})", room.id, room.commitment);

    let url = room_url(&server, room.id);
    let mut red = Client::connect(&url).await?;
    red.join_player(
        "Random Red",
        Some(Colour::Red.into()),
        Some("red's own seed"),
    )
    .await?;
    let mut yellow = Client::connect(&url).await?;
    yellow
        .join_player("Random Yellow", Some(Colour::Yellow.into()), None)
        .await?;

    let (red_moves, yellow_moves) = tokio::try_join!(play(red, 1), play(yellow, 2))?;
    println!("Red made {red_moves} moves, Yellow {yellow_moves}");

    // The room hands the record to the store as the game ends; give it a moment to land.
    let mut record = None;
    for _ in 0..50 {
        if let Ok(found) = api.game(room.id).await {
            record = Some(found);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let record = record.ok_or_else(|| anyhow::anyhow!("the finished game was not stored"))?;
    println!("{}", verify_record(&record)?);
    Ok(())
}

/// Plays one seat with uniformly random legal planes until the game is over.
async fn play(mut client: Client, seed: u64) -> anyhow::Result<u32> {
    let mut moves = 0;
    loop {
        match client.wait_my_turn().await? {
            // After an action, `wait_my_turn` waits for the room's answer before judging again.
            Turn::Roll => {
                client.roll()?;
            }
            Turn::Move { .. } => {
                let seed = seed * 1_000 + u64::from(moves);
                let decision = aeroplane_bot::choose(
                    aeroplane_bot::Level::Random,
                    client.game().expect("a plyyard room"),
                    seed,
                )?;
                client.move_plane(decision.plane)?;
                moves += 1;
            }
            Turn::Over(result) => {
                if client.colour() == Some(Colour::Red.into()) {
                    println!("game over: {result:?}");
                }
                return Ok(moves);
            }
        }
    }
}
