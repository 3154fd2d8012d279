//! `aeroplane watch ROOM`.

use std::process::ExitCode;

use aeroplane_client::render::{colour_wanted, describe};
use aeroplane_client::{Client, room_url};
use aeroplane_protocol::server::ServerMessage;
use uuid::Uuid;

/// Arguments of `aeroplane watch`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The room to watch (its id).
    room: Uuid,
    /// The name shown to the room.
    #[arg(long, default_value = "spectator")]
    name: String,
}

pub(crate) async fn run(server: &str, args: Args) -> anyhow::Result<ExitCode> {
    let mut client = Client::connect(&room_url(server, args.room)).await?;
    let welcome = client.join_spectator(&args.name).await?;
    let colour = colour_wanted();
    print!("{}", crate::show_board(client.board(), colour));
    if let Some(result) = welcome.snapshot.result {
        println!("the game is over: {result:?}");
        return Ok(ExitCode::SUCCESS);
    }
    loop {
        let message = client.next_message().await?;
        if let Some(text) = describe(&message) {
            print!("{}", crate::show_board(client.board(), colour));
            println!("{text}");
        }
        if let ServerMessage::GameOver(over) = message {
            println!("server seed revealed: {}", over.server_seed);
            println!("check the game with: aeroplane verify {}", args.room);
            return Ok(ExitCode::SUCCESS);
        }
    }
}
