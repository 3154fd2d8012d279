//! `aeroplane play [ROOM | --computer LEVEL | --quick]`.

use std::process::ExitCode;
use std::time::Duration;

use aeroplane_bot::Level;
use aeroplane_client::render::{colour_wanted, describe};
use aeroplane_client::terminal::escape;
use aeroplane_client::{Api, Client, Turn, room_url, verify_record, ws_url};
use aeroplane_protocol::record::Mode;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::{Colour, Plane};
use anyhow::Context as _;
use tokio::io::AsyncBufReadExt as _;
use uuid::Uuid;

/// Arguments of `aeroplane play`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The room to join (its id). Without it, a new room is opened and its id printed.
    #[arg(conflicts_with_all = ["computer", "quick"])]
    room: Option<Uuid>,
    /// Play against the server's computer at this level (random, easy, normal, hard): opens a
    /// computer room, whose other seat the server's bot plays.
    #[arg(long, value_name = "LEVEL", conflicts_with = "quick")]
    computer: Option<Level>,
    /// Wait for the next player who also asks for a quick match.
    #[arg(long)]
    quick: bool,
    /// Your display name.
    #[arg(long, default_value = "player")]
    name: String,
    /// The colour you want (red or yellow); any free seat when absent, except against the
    /// computer, where you play red (which rolls first) when absent.
    #[arg(long)]
    colour: Option<Colour>,
    /// Your dice seed (at most 64 bytes), mixed into the game's dice (see `fairness.md`).
    #[arg(long)]
    seed: Option<String>,
    /// Play without your identity: an anonymous seat, and an unrated game.
    #[arg(long)]
    anonymous: bool,
}

/// The keys of an online room (draw offers exist only there).
const HELP_ONLINE: &str = "keys: Enter or r = roll, 1-4 = move that plane, d = offer a draw, \
                           a = accept a draw, n = decline a draw, resign = resign, ? = this help";
/// The keys against the computer (hints and undo exist only there).
const HELP_COMPUTER: &str = "keys: Enter or r = roll, 1-4 = move that plane, t = the computer's \
                             tip for your roll, u = undo your last plane choice, resign = resign, \
                             ? = this help";

/// The key help for the room's mode.
fn help(mode: Mode) -> &'static str {
    match mode {
        Mode::Online => HELP_ONLINE,
        Mode::Computer | Mode::Local => HELP_COMPUTER,
    }
}

/// Finds the room `args` ask for (quick match, a new computer or online room, or the one named)
/// and takes a seat in it.
async fn seated(
    server: &str,
    api: &Api,
    args: &Args,
    player: Option<String>,
) -> anyhow::Result<Client> {
    let seed = args.seed.as_deref();
    let connect = |url: String| {
        let player = player.clone();
        async move {
            let mut client = Client::connect(&url).await?;
            client.set_player(player);
            Ok::<Client, aeroplane_client::ClientError>(client)
        }
    };
    let client = if args.quick {
        println!("waiting for an opponent...");
        let matched = api
            .quick_match(&args.name, seed)
            .await
            .context("quick match failed")?;
        let mut client = connect(ws_url(server, &matched.ws_path)).await?;
        client.join_with_token(&args.name, &matched.token).await?;
        client
    } else if let Some(level) = args.computer {
        let colour = args.colour.unwrap_or(Colour::Red);
        let room = api
            .create_computer_room(colour.into(), level)
            .await
            .context("failed to open a room against the computer")?;
        println!(
            "room {} is open; the computer plays at level {level}",
            room.id
        );
        let mut client = connect(ws_url(server, &room.ws_path)).await?;
        client.join_player(&args.name, room.colour, seed).await?;
        client
    } else {
        let room = match args.room {
            Some(room) => room,
            None => {
                let room = api.create_room().await.context("failed to open a room")?;
                println!(
                    "room {} is open; your opponent runs:  aeroplane play {}",
                    room.id, room.id
                );
                room.id
            }
        };
        let mut client = connect(room_url(server, room)).await?;
        client
            .join_player(&args.name, args.colour.map(Into::into), seed)
            .await?;
        client
    };
    Ok(client)
}

/// `aeroplane play`: takes a seat (as this command's identity, unless `--anonymous`), then plays
/// turn by turn from the keyboard until the game ends. About 95 lines: the one interactive loop
/// (prompt, server messages, typed lines), whose pieces are `act` and `render::describe`.
pub(crate) async fn run(
    server: &str,
    identity: Option<&std::path::Path>,
    args: Args,
) -> anyhow::Result<ExitCode> {
    let mut api = Api::new(server)?;
    let mut credentials = None;
    if !args.anonymous {
        // Without an identity (no file to keep it in, or a server without players) the game
        // is played as before: anonymous and unrated.
        let identity = match identity {
            Some(path) => crate::identity::load_or_create(path, &api, Some(&args.name)).await,
            None => Err(anyhow::anyhow!("no identity file (pass --identity FILE)")),
        };
        match identity {
            Ok(identity) => {
                credentials = Some(identity.credentials());
                api = api.with_identity(identity.credentials());
            }
            Err(error) => eprintln!("playing anonymously: {}", escape(&format!("{error:#}"))),
        }
    }
    let mut client = seated(server, &api, &args, credentials).await?;
    let me = client.colour().context("the server gave no seat")?;
    let mode = if args.computer.is_some() {
        Mode::Computer
    } else {
        Mode::Online
    };
    println!("you play {me}. {}", help(mode));
    let colour = colour_wanted();
    print!("{}", crate::show_board(client.board(), colour));

    let mut input = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut prompted = false;
    let result = loop {
        if let Some(turn) = client.my_turn() {
            match turn {
                Turn::Over(result) => break result,
                _ if prompted => {}
                Turn::Roll => println!("your turn: press Enter to roll"),
                Turn::Move { roll, legal } => {
                    let planes: Vec<String> = legal.iter().map(|p| p.to_string()).collect();
                    println!(
                        "you rolled a {roll}: choose a plane ({})",
                        planes.join(", ")
                    );
                }
            }
            prompted = true;
        }
        tokio::select! {
            message = client.next_message() => {
                let message = message?;
                if let ServerMessage::Error(error) = &message {
                    println!("refused: {} ({})", escape(&error.message), error.code);
                    prompted = false;
                }
                if let ServerMessage::Hint(hint) = &message {
                    println!(
                        "tip ({} computer): move plane {}: {}",
                        escape(&hint.level),
                        aeroplane_client::render::label(hint.plane),
                        escape(&hint.explanation)
                    );
                    prompted = false;
                }
                if let Some(text) = describe(&message)
                    && message.event().is_some()
                {
                    prompted = false;
                    // The board changes only when a plane moves or an undo takes moves back.
                    if matches!(message, ServerMessage::Moved(_) | ServerMessage::Undone(_)) {
                        print!("{}", crate::show_board(client.board(), colour));
                    }
                    println!("{text}");
                }
            }
            line = input.next_line() => {
                let Some(line) = line? else { anyhow::bail!("standard input closed") };
                prompted = false;
                if let Err(error) = act(&mut client, mode, line.trim()) {
                    println!("{error}");
                }
            }
        }
    };
    match result.winner {
        Some(winner) if winner == me => println!("you won ({})", result.reason.as_str()),
        Some(_) => println!("you lost ({})", result.reason.as_str()),
        None => println!("draw ({})", result.reason.as_str()),
    }
    if let Some(room) = client.room_id() {
        check_stored_game(&api, room).await;
    }
    Ok(ExitCode::SUCCESS)
}

/// Turns one line of input into an action. Keys of the other mode still reach the server, which
/// refuses them with their stable code (`draws_unavailable`, `hints_unavailable`...).
fn act(client: &mut Client, mode: Mode, line: &str) -> anyhow::Result<()> {
    match line {
        "" | "r" | "roll" => client.roll()?,
        "d" => client.offer_draw()?,
        "a" => client.accept_draw()?,
        "n" => client.decline_draw()?,
        "t" | "tip" | "hint" => client.hint()?,
        "u" | "undo" => client.undo()?,
        "resign" => client.resign()?,
        "?" | "h" | "help" => {
            println!("{}", help(mode));
            return Ok(());
        }
        other => {
            // People number planes 1 to 4, as the board and the hints do.
            let plane = other
                .parse::<u8>()
                .ok()
                .and_then(|number| number.checked_sub(1))
                .and_then(Plane::new)
                .with_context(|| format!("`{other}` is not a key I know; {}", help(mode)))?;
            client.move_plane(plane)?
        }
    };
    Ok(())
}

/// Fetches the finished game from the server and verifies its dice and moves.
async fn check_stored_game(api: &Api, room: Uuid) {
    for _ in 0..20 {
        if let Ok(record) = api.game(room).await {
            match verify_record(&record) {
                Ok(_) => {
                    println!("fairness: every roll and move verified (aeroplane verify {room})")
                }
                Err(error) => println!("fairness: NOT verified: {error}"),
            }
            return;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    println!("the stored game is not available yet; check it later with: aeroplane verify {room}");
}
