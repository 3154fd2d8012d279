//! `aeroplane watch ROOM`: follow a room of any edition as a spectator, printing every event in
//! words and the board after each move, down to the ranking at game over.

use std::process::ExitCode;

use aeroplane_client::render::{colour_wanted, describe_result};
use aeroplane_client::{Client, room_url};
use aeroplane_protocol::server::ServerMessage;
use uuid::Uuid;

use crate::log::GameLog;

/// Arguments of `aeroplane watch`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The room to watch (its id): a two-player plyyard room, or a table room of any edition
    /// with two to four players.
    room: Uuid,
    /// The name shown to the room.
    #[arg(long, default_value = "spectator")]
    name: String,
}

/// Watches until the game is over; exits 0 then.
pub(crate) async fn run(server: &str, args: Args) -> anyhow::Result<ExitCode> {
    let mut client = Client::connect(&room_url(server, args.room)).await?;
    let welcome = client.join_spectator(&args.name).await?;
    let colour = colour_wanted();
    print!("{}", crate::show_board(client.board(), colour));
    if let Some(result) = welcome.snapshot.result {
        println!("the game is over: {}", describe_result(&result));
        return Ok(ExitCode::SUCCESS);
    }
    let mut log = GameLog::new(colour);
    loop {
        let message = client.next_message().await?;
        log.print(client.board(), &message);
        if let ServerMessage::GameOver(over) = message {
            println!("server seed revealed: {}", over.server_seed);
            println!("check the game with: aeroplane verify {}", args.room);
            return Ok(ExitCode::SUCCESS);
        }
    }
}
