//! `aeroplane games` and `aeroplane replay GAME_ID|FILE`.
//!
//! A replay draws every position of a stored game: a two-player `plyyard` game through its
//! `Game` board as it always has, a game of any other edition or player count through the
//! table board of up to four colours, ending with every seat's place.

use std::io::{IsTerminal as _, Write as _};
use std::path::Path;
use std::process::ExitCode;

use aeroplane_client::Api;
use aeroplane_client::render::{colour_wanted, label, render, render_table};
use aeroplane_client::terminal::escape;
use aeroplane_protocol::record::{GameRecord, Players, ResultRecord};
use aeroplane_rules::{Action, Game, Side, Table, TableAction};
use anyhow::Context as _;
use time::format_description::well_known::Rfc3339;
use tokio::io::AsyncBufReadExt as _;

/// Arguments of `aeroplane games`.
#[derive(Debug, clap::Args)]
pub(crate) struct ListArgs {
    /// Only games in which a player of this name (or with this player id) sat.
    #[arg(long, conflicts_with = "mine")]
    player: Option<String>,
    /// Only your own games: those of the identity in `--identity`'s file (made if missing).
    #[arg(long)]
    mine: bool,
    /// Only games with this result: red, yellow (the winner) or draw.
    #[arg(long)]
    result: Option<String>,
    /// At most this many games.
    #[arg(long, default_value_t = 20)]
    limit: u32,
    /// Only games that ended before this cursor (printed at the end of the previous page).
    #[arg(long)]
    before: Option<String>,
}

/// Arguments of `aeroplane replay`.
#[derive(Debug, clap::Args)]
pub(crate) struct ReplayArgs {
    /// A finished game's id, or the path of a game record saved as JSON (any edition: plyyard,
    /// flights or classic, with 2 to 4 players).
    game: String,
    /// Print every position at once instead of stepping with Enter (the default when standard
    /// input is not a terminal).
    #[arg(long)]
    all: bool,
}

pub(crate) async fn list(
    server: &str,
    identity: Option<&Path>,
    args: ListArgs,
) -> anyhow::Result<ExitCode> {
    let api = Api::new(server)?;
    let mut query = vec![("limit", args.limit.to_string())];
    let player = match args.mine {
        true => Some(
            crate::identity::load_or_create(needed(identity)?, &api, None)
                .await?
                .id
                .to_string(),
        ),
        false => args.player,
    };
    query.extend(player.map(|player| ("player", player)));
    query.extend(args.result.map(|result| ("result", result)));
    query.extend(args.before.map(|before| ("before", before)));
    let list = api.games(&query).await.context("failed to list games")?;
    if list.games.is_empty() {
        println!("no finished games");
    }
    for game in &list.games {
        let ended = game.ended_at.format(&Rfc3339).unwrap_or_default();
        let result = match game.result.winner {
            Some(winner) => format!("{winner} won ({})", game.result.reason.as_str()),
            None => format!("draw ({})", game.result.reason.as_str()),
        };
        let rated = if game.rated { ", rated" } else { "" };
        println!(
            "{}  {ended}  {}  {result}, {} rolls, {} moves{rated}",
            game.id,
            seats(&game.players),
            game.rolls,
            game.moves
        );
    }
    if let Some(before) = list.next_before {
        println!("more: aeroplane games --before {before}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `aeroplane me`: the profile of this command's identity.
pub(crate) async fn me(server: &str, identity: Option<&Path>) -> anyhow::Result<ExitCode> {
    let api = Api::new(server)?;
    let identity = crate::identity::load_or_create(needed(identity)?, &api, None).await?;
    let profile = api
        .with_identity(identity.credentials())
        .me()
        .await
        .context("failed to read your profile")?;
    let provisional = if profile.rating.provisional { "?" } else { "" };
    println!(
        "{} ({}): rating {:.0}{provisional} (deviation {:.0}); {} games: {} won, {} lost, {} drawn",
        escape(&profile.name),
        profile.id,
        profile.rating.rating,
        profile.rating.deviation,
        profile.games,
        profile.wins,
        profile.losses,
        profile.draws
    );
    Ok(ExitCode::SUCCESS)
}

/// The identity file's path, which a command that plays as you needs.
pub(crate) fn needed(identity: Option<&Path>) -> anyhow::Result<&Path> {
    identity.context("no identity file: pass --identity FILE (or set AEROPLANE_IDENTITY or HOME)")
}

pub(crate) async fn replay(server: &str, args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let record = crate::verify::load(server, &args.game).await?;
    let colour = colour_wanted();
    let frames = if record.is_plyyard() {
        plyyard_frames(&record, colour)?
    } else {
        table_frames(&record, colour)?
    };
    let step_by_step = !args.all && std::io::stdin().is_terminal();
    println!("{}", heading(&record, frames.len()));
    if !step_by_step {
        for (index, frame) in frames.iter().enumerate() {
            // A closed pipe (`| head`) ends the listing quietly.
            if frame.show(index).is_err() {
                break;
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    println!("Enter = next, b = back, a number = go to that position, q = quit");
    let mut input = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut index = 0;
    loop {
        frames[index].show(index)?;
        let Some(line) = input.next_line().await? else {
            break;
        };
        index = match line.trim() {
            "q" => break,
            "b" => index.saturating_sub(1),
            "" => (index + 1).min(frames.len() - 1),
            number => number
                .parse::<usize>()
                .map_or(index, |n| n.min(frames.len() - 1)),
        };
    }
    Ok(ExitCode::SUCCESS)
}

/// The replay's first line: the game, its seats and (for a game other than two-player
/// `plyyard`) its edition, e.g. `game …: flights, Ann (Red) v Bob (Yellow) v Cy (Blue), 9 positions`.
fn heading(record: &GameRecord, positions: usize) -> String {
    let edition = match record.is_plyyard() {
        true => String::new(),
        false => match record.rules() {
            Ok(rules) => format!("{rules}, "),
            Err(_) => format!("{}, ", escape(&record.ruleset)),
        },
    };
    format!(
        "game {}: {edition}{}, {positions} positions",
        record.id,
        seats(&record.players)
    )
}

/// Every seat in turn order, e.g. `Ann (Red) v Bob (Yellow)`, names escaped for the terminal.
fn seats(players: &Players) -> String {
    let seats: Vec<String> = Side::ALL
        .into_iter()
        .filter_map(|side| {
            let seat = players.seat(side)?;
            Some(format!("{} ({side})", escape(&seat.name)))
        })
        .collect();
    seats.join(" v ")
}

/// One position of a replay: what led to it and the board, drawn once.
struct Frame {
    what: String,
    board: String,
}

impl Frame {
    fn show(&self, index: usize) -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        writeln!(out, "\n#{index}: {}", self.what)?;
        write!(out, "{}", self.board)
    }
}

/// The initial position, then the position after each standing action, of a two-player
/// `plyyard` game.
fn plyyard_frames(record: &GameRecord, colour: bool) -> anyhow::Result<Vec<Frame>> {
    let mut game = Game::new();
    let mut out = vec![Frame {
        what: "the start".to_owned(),
        board: render(&game, colour),
    }];
    for action in record.standing_actions() {
        let action = action.to_plyyard().ok_or_else(|| {
            anyhow::anyhow!(
                "the record seats {action:?}'s colour, which two-player plyyard does not"
            )
        })?;
        game.apply(action).map_err(|error| {
            anyhow::anyhow!("the record's action {action:?} is illegal: {error}")
        })?;
        let what = match action {
            Action::Roll { colour, value } => format!("{colour} rolls a {value}"),
            Action::Move { colour, plane } => format!("{colour} moves plane {plane}"),
            other => format!("{} {:?}", other.colour(), other),
        };
        out.push(Frame {
            what,
            board: render(&game, colour),
        });
    }
    Ok(out)
}

/// The initial position, then the position after each standing action, of a game of any edition
/// and player count; the last one ends with the ranking, each seat by name.
fn table_frames(record: &GameRecord, colour: bool) -> anyhow::Result<Vec<Frame>> {
    let rules = record.rules()?;
    let mut table = Table::new(rules, record.players.count())
        .map_err(|error| anyhow::anyhow!("the record's seats do not fit {rules}: {error}"))?;
    let mut out = vec![Frame {
        what: "the start".to_owned(),
        board: render_table(&table, colour),
    }];
    for (index, action) in record.standing_actions().enumerate() {
        table.apply(action).map_err(|error| {
            anyhow::anyhow!("the record's action {index} ({action:?}) is illegal: {error}")
        })?;
        out.push(Frame {
            what: describe_action(action),
            board: render_table(&table, colour),
        });
    }
    if let (Some(result), Some(last)) = (ResultRecord::of_table(&table), out.last_mut()) {
        let places = result.places.unwrap_or_default();
        last.board.push_str("ranking:\n");
        let mut sides: Vec<Side> = table.sides().collect();
        sides.sort_by_key(|side| places.get(*side).unwrap_or(u8::MAX));
        for side in sides {
            let name = record
                .players
                .seat(side)
                .map_or_else(String::new, |seat| escape(&seat.name).into_owned());
            let place = places
                .get(side)
                .map_or_else(|| "-".to_owned(), |place| place.to_string());
            last.board
                .push_str(&format!("  {place:>2}. {name} ({side})\n"));
        }
    }
    Ok(out)
}

/// A table action in words, planes numbered 1 to 4 as on the board.
fn describe_action(action: TableAction) -> String {
    match action {
        TableAction::Roll { colour, value } => format!("{colour} rolls a {value}"),
        TableAction::Move { colour, plane } => format!("{colour} moves plane {}", label(plane)),
        TableAction::Resign { colour } => format!("{colour} resigns"),
        TableAction::OfferDraw { colour } => format!("{colour} offers a draw"),
        TableAction::AcceptDraw { colour } => format!("{colour} accepts the draw"),
        TableAction::DeclineDraw { colour } => format!("{colour} declines the draw"),
        TableAction::WithdrawDraw { colour } => format!("{colour} withdraws the draw offer"),
        TableAction::Forfeit { colour, reason } => format!("{colour} forfeits ({reason:?})"),
    }
}
