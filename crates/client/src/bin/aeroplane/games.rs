//! `aeroplane games` and `aeroplane replay GAME_ID|FILE`.

use std::io::{IsTerminal as _, Write as _};
use std::path::Path;
use std::process::ExitCode;

use aeroplane_client::Api;
use aeroplane_client::render::{colour_wanted, render};
use aeroplane_client::terminal::escape;
use aeroplane_protocol::record::GameRecord;
use aeroplane_rules::{Action, Game};
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
    /// A finished game's id, or the path of a game record saved as JSON.
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
            "{}  {ended}  {} (Red) v {} (Yellow)  {result}, {} rolls, {} moves{rated}",
            game.id,
            escape(&game.players.red.name),
            escape(&game.players.yellow.name),
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
    let positions = positions(&record)?;
    let colour = colour_wanted();
    let step_by_step = !args.all && std::io::stdin().is_terminal();
    println!(
        "game {}: {} (Red) v {} (Yellow), {} positions",
        record.id,
        escape(&record.players.red.name),
        escape(&record.players.yellow.name),
        positions.len()
    );
    if !step_by_step {
        for (index, (action, game)) in positions.iter().enumerate() {
            // A closed pipe (`| head`) ends the listing quietly.
            if show(index, action.as_ref(), game, colour).is_err() {
                break;
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    println!("Enter = next, b = back, a number = go to that position, q = quit");
    let mut input = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut index = 0;
    loop {
        let (action, game) = &positions[index];
        show(index, action.as_ref(), game, colour)?;
        let Some(line) = input.next_line().await? else {
            break;
        };
        index = match line.trim() {
            "q" => break,
            "b" => index.saturating_sub(1),
            "" => (index + 1).min(positions.len() - 1),
            number => number
                .parse::<usize>()
                .map_or(index, |n| n.min(positions.len() - 1)),
        };
    }
    Ok(ExitCode::SUCCESS)
}

/// The initial position, then the position after each standing action.
fn positions(record: &GameRecord) -> anyhow::Result<Vec<(Option<Action>, Game)>> {
    let mut game = Game::new();
    let mut out = vec![(None, game)];
    for action in record.standing_actions() {
        let action = action.to_plyyard().ok_or_else(|| {
            anyhow::anyhow!(
                "the record seats {action:?}'s colour, which two-player plyyard does not"
            )
        })?;
        game.apply(action).map_err(|error| {
            anyhow::anyhow!("the record's action {action:?} is illegal: {error}")
        })?;
        out.push((Some(action), game));
    }
    Ok(out)
}

fn show(index: usize, action: Option<&Action>, game: &Game, colour: bool) -> std::io::Result<()> {
    let what = match action {
        None => "the start".to_owned(),
        Some(Action::Roll { colour, value }) => format!("{colour} rolls a {value}"),
        Some(Action::Move { colour, plane }) => format!("{colour} moves plane {plane}"),
        Some(other) => format!("{} {:?}", other.colour(), other),
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "\n#{index}: {what}")?;
    write!(out, "{}", render(game, colour))
}
