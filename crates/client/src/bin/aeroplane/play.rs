//! `aeroplane play [ROOM | --computer LEVEL | --quick] [--ruleset R --players N]`: one seat in a
//! room of any edition and player count, played from the keyboard.

use std::process::ExitCode;
use std::time::Duration;

use aeroplane_bot::Level;
use aeroplane_client::render::{colour_wanted, label, ranking};
use aeroplane_client::terminal::escape;
use aeroplane_client::{Api, Client, Turn, room_url, verify_record, ws_url};
use aeroplane_protocol::api::{CreateRoom, TableRules};
use aeroplane_protocol::board::Board;
use aeroplane_protocol::record::{Mode, ResultRecord};
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::{Plane, PlaneSet, Side};
use anyhow::Context as _;
use tokio::io::AsyncBufReadExt as _;
use uuid::Uuid;

use crate::log::GameLog;

/// Arguments of `aeroplane play`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The room to join (its id); the room decides the edition and the number of players.
    /// Without it, a new room is opened (of `--ruleset` and `--players`) and its id printed.
    #[arg(conflicts_with_all = ["computer", "levels", "quick", "ruleset", "players", "house_rules"])]
    room: Option<Uuid>,
    /// Play against the server's computers at this level (random, easy, normal, hard): opens a
    /// computer room whose other seats (one to three, as `--players` says) the server's bots
    /// play.
    #[arg(long, value_name = "LEVEL", conflicts_with = "quick")]
    computer: Option<Level>,
    /// Each computer's level in turn order of their colours, comma-separated (e.g.
    /// `easy,normal,hard`; the last repeats for computers not named). Opens a computer room
    /// like `--computer`.
    #[arg(
        long,
        value_name = "LEVELS",
        value_delimiter = ',',
        conflicts_with = "quick"
    )]
    levels: Vec<Level>,
    /// Wait in the quick-match queue of `--ruleset` and `--players` until the game is full.
    #[arg(long)]
    quick: bool,
    /// The edition to play in a new room or a quick match: plyyard (two players), flights or
    /// classic (2 to 4 players); see docs/rules/. Default: plyyard.
    #[arg(long, value_name = "EDITION", value_parser = ["plyyard", "flights", "classic"])]
    ruleset: Option<String>,
    /// How many players a new room or a quick match seats: 2 (the default) to 4; plyyard
    /// seats two.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(2..=4))]
    players: Option<u8>,
    /// A house rule to turn on in a new room (repeatable): jump-after-shortcut (classic only).
    #[arg(
        long = "house-rule",
        value_name = "RULE",
        value_parser = ["jump-after-shortcut"],
        conflicts_with = "quick"
    )]
    house_rules: Vec<String>,
    /// Your display name.
    #[arg(long, default_value = "player")]
    name: String,
    /// The colour you want (red, green, yellow or blue, among those the game seats); any free
    /// seat when absent, except against the computer, where you play red (which rolls first)
    /// when absent.
    #[arg(long)]
    colour: Option<Side>,
    /// Your dice seed (at most 64 bytes), mixed into the game's dice (see `fairness.md`).
    #[arg(long)]
    seed: Option<String>,
    /// Play without your identity: an anonymous seat, and an unrated game.
    #[arg(long)]
    anonymous: bool,
}

impl Args {
    /// Whether the seats other than ours are the server's computers.
    fn against_computer(&self) -> bool {
        self.computer.is_some() || !self.levels.is_empty()
    }

    /// The body of `POST /api/rooms` for a new room of `mode` (an unchanged two-player
    /// `plyyard` body when no edition or player count is asked for).
    fn new_room(&self, mode: Mode) -> CreateRoom {
        let computer = mode == Mode::Computer;
        CreateRoom {
            mode,
            ruleset: self.ruleset.clone(),
            players: self.players,
            house_rules: self.house_rules.clone(),
            colour: computer.then(|| self.colour.unwrap_or(Side::Red)),
            level: self
                .computer
                .filter(|_| computer)
                .map(|level| level.as_str().to_owned()),
            levels: self.levels.iter().map(|l| l.as_str().to_owned()).collect(),
            ..CreateRoom::default()
        }
    }

    /// The game asked for, in words, e.g. `classic for 3`.
    fn game(&self) -> String {
        let ruleset = self.ruleset.as_deref().unwrap_or("plyyard");
        format!("{ruleset} for {}", self.players.unwrap_or(2))
    }
}

/// The keys of an online room (draw offers exist only there).
const HELP_ONLINE: &str = "keys: Enter or r = roll, 1-4 = move that plane, d = offer a draw, \
                           a = accept a draw (every other player must), n = decline a draw, \
                           resign = resign, ? = this help";
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

/// What a table room plays, as its creation answer says, e.g. ` (classic, Red, Yellow, Blue)`;
/// nothing for a two-player `plyyard` room.
fn what_it_plays(table: Option<&TableRules>) -> String {
    let Some(table) = table else {
        return String::new();
    };
    let seats: Vec<String> = table.seats.iter().map(ToString::to_string).collect();
    format!(" ({}: {})", table.rules, seats.join(", "))
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
        println!("waiting in the quick-match queue of {}...", args.game());
        let matched = api
            .quick_match_in(&args.name, seed, args.ruleset.as_deref(), args.players)
            .await
            .context("quick match failed")?;
        let mut client = connect(ws_url(server, &matched.ws_path)).await?;
        client.join_with_token(&args.name, &matched.token).await?;
        client
    } else if args.against_computer() {
        let room = api
            .create_room_with(&args.new_room(Mode::Computer))
            .await
            .context("failed to open a room against the computer")?;
        let level = room.level.as_deref().unwrap_or("normal");
        println!(
            "room {} is open{}; the computer plays at level {}",
            room.id,
            what_it_plays(room.table.as_ref()),
            escape(level)
        );
        let mut client = connect(ws_url(server, &room.ws_path)).await?;
        client.join_player(&args.name, room.colour, seed).await?;
        client
    } else {
        let room = match args.room {
            Some(room) => room,
            None => {
                let room = api
                    .create_room_with(&args.new_room(Mode::Online))
                    .await
                    .context("failed to open a room")?;
                let others = room.table.as_ref().map_or(1, |table| table.seats.len() - 1);
                let whom = if others == 1 {
                    "your opponent runs".to_owned()
                } else {
                    format!("each of your {others} opponents runs")
                };
                println!(
                    "room {} is open{}; {whom}:  aeroplane play {}",
                    room.id,
                    what_it_plays(room.table.as_ref()),
                    room.id
                );
                room.id
            }
        };
        let mut client = connect(room_url(server, room)).await?;
        client.join_player(&args.name, args.colour, seed).await?;
        client
    };
    Ok(client)
}

/// `aeroplane play`: takes a seat (as this command's identity, unless `--anonymous`), then plays
/// turn by turn from the keyboard until the game ends. About 95 lines: the one interactive loop
/// (prompt, server messages, typed lines), whose pieces are `act` and `GameLog`.
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
    let mode = if args.against_computer() {
        Mode::Computer
    } else {
        Mode::Online
    };
    println!("you play {me}. {}", help(mode));
    let mut log = GameLog::new(colour_wanted());
    print!("{}", crate::show_board(client.board(), colour_wanted()));

    let mut input = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut prompted = false;
    let result = loop {
        if let Some(turn) = client.my_turn() {
            match turn {
                Turn::Over(result) => break result,
                _ if prompted => {}
                Turn::Roll => println!("your turn: press Enter to roll"),
                Turn::Move { roll, legal } => println!(
                    "you rolled a {roll}: choose a plane ({}){}",
                    numbers(legal),
                    stack_note(client.board())
                ),
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
                        label(hint.plane),
                        escape(&hint.explanation)
                    );
                    prompted = false;
                }
                if log.print(client.board(), &message) {
                    prompted = false;
                }
                if let ServerMessage::PlayerOut(out) = &message
                    && out.colour == me
                    && !client.board().is_over()
                {
                    println!(
                        "you are out of play in place {}; the others play on (Ctrl-C to leave)",
                        out.place
                    );
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
    println!("{}", outcome_for(&result, me, client.board()));
    if let Some(room) = client.room_id() {
        check_stored_game(&api, room).await;
    }
    Ok(ExitCode::SUCCESS)
}

/// The game's end as the player of `me` sees it: `you won (finished)`, `you lost (resigned)`,
/// `draw (agreed)`; in a table game also the place and every seat's, e.g.
/// `you finished in place 2 (finished); places: 1 Blue, 2 Red, 3 Yellow, Green (no place)`.
fn outcome_for(result: &ResultRecord, me: Side, board: &Board) -> String {
    let reason = result.reason.as_str();
    let mine = match (
        result.places.as_ref().and_then(|p| p.get(me)),
        result.winner,
    ) {
        (Some(1), _) => format!("you won ({reason})"),
        (Some(place), _) => format!("you finished in place {place} ({reason})"),
        (None, Some(winner)) if winner == me => format!("you won ({reason})"),
        (None, Some(_)) => format!("you lost ({reason})"),
        (None, None) => format!("draw ({reason})"),
    };
    match &result.places {
        Some(places) => format!(
            "{mine}; places: {}",
            ranking(places, board.sides().iter().copied())
        ),
        None => mine,
    }
}

/// Planes for people, numbered 1 to 4: `1, 3`.
fn numbers(planes: PlaneSet) -> String {
    let numbers: Vec<String> = planes.iter().map(|p| label(p).to_string()).collect();
    numbers.join(", ")
}

/// In `classic`, planes on one square are a stack that moves as one: choosing any of them moves
/// all (`classic.md`), which the prompt says.
fn stack_note(board: &Board) -> &'static str {
    match board {
        Board::Table(table) if table.rules().stacks() => "; planes sharing a square move together",
        _ => "",
    }
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
