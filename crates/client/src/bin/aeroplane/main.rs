//! `aeroplane`: play, watch and verify games of an Aeroplane Chess server from a terminal.

mod games;
mod identity;
mod log;
mod play;
mod verify;
mod watch;

use std::process::ExitCode;

use aeroplane_protocol::board::Board;
use clap::{Parser, Subcommand};

/// The board of a room as the terminal shows it, of any edition.
pub(crate) fn show_board(board: &Board, colour: bool) -> String {
    match board {
        Board::Plyyard(game) => aeroplane_client::render::render(game, colour),
        Board::Table(table) => aeroplane_client::render::render_table(table, colour),
    }
}

/// Play, watch, verify and replay games of an Aeroplane Chess server from a terminal.
///
/// Every command talks to the server named by `--server` (default: a server on this machine).
/// Boards are coloured when standard output is a terminal and NO_COLOR is not set.
#[derive(Debug, Parser)]
#[command(name = "aeroplane", version)]
struct Cli {
    /// The server's base URL.
    #[arg(
        long,
        global = true,
        env = "AEROPLANE_SERVER",
        default_value = "http://127.0.0.1:8080"
    )]
    server: String,
    /// The file holding your player identity, one per server (made on first use; default
    /// `$XDG_CONFIG_HOME/aeroplane/identity.json` or `~/.config/aeroplane/identity.json`).
    #[arg(long, global = true, env = "AEROPLANE_IDENTITY", value_name = "FILE")]
    identity: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Play a game in the terminal: join ROOM, play the computer, take a quick match, or (with
    /// no argument) open a new room and wait for friends.
    ///
    /// A new room, a computer room or a quick match plays the edition of `--ruleset` (plyyard,
    /// flights or classic) with `--players` (2 to 4): e.g. `aeroplane play --ruleset flights
    /// --players 4 --computer normal` against three computers, or `aeroplane play --ruleset
    /// classic --players 3 --quick`. A room joined by its id plays what it was opened for.
    Play(play::Args),
    /// Watch a room as a spectator: every event in words and the board after each move, for
    /// every edition and 2 to 4 players, down to the places at game over.
    Watch(watch::Args),
    /// Check a finished game's fairness (commitment, seeds, every roll) and replay its moves
    /// through the rules; exits 0 only if everything matches, 1 if not, 2 if it cannot be read.
    ///
    /// Every edition (plyyard, flights, classic) and every player count (2 to 4) is verified: a
    /// two-player plyyard game with dice scheme v1, every other game with v2 (keyed by each
    /// seated colour's seed), its result checked down to every seat's place.
    Verify(verify::Args),
    /// List finished games, newest first (`--mine`: the games of your identity).
    Games(games::ListArgs),
    /// Show your player profile: name, rating (with `?` while provisional) and results.
    Me,
    /// Step through a finished game, position by position.
    ///
    /// Games of every edition (plyyard, flights, classic) with 2 to 4 players are drawn, each
    /// colour by its letter (R, G, Y, B) so the board reads without colour (set NO_COLOR), and
    /// the last position ends with the ranking.
    Replay(games::ReplayArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("failed to start the tokio runtime");
    let server = cli.server;
    let identity = cli.identity.or_else(identity::default_path);
    let outcome = runtime.block_on(async move {
        match cli.command {
            Command::Play(args) => play::run(&server, identity.as_deref(), args).await,
            Command::Watch(args) => watch::run(&server, args).await,
            Command::Verify(args) => verify::run(&server, args).await,
            Command::Games(args) => games::list(&server, identity.as_deref(), args).await,
            Command::Me => games::me(&server, identity.as_deref()).await,
            Command::Replay(args) => games::replay(&server, args).await,
        }
    });
    // Background connection tasks may still be winding down; do not wait for them.
    runtime.shutdown_background();
    match outcome {
        Ok(code) => code,
        Err(error) => {
            // An error may quote the server (its messages echo input): escape it too.
            let text = format!("{error:#}");
            eprintln!("error: {}", aeroplane_client::terminal::escape(&text));
            ExitCode::from(2)
        }
    }
}
