//! Prints perft counts.
//!
//! - `cargo run --release -p aeroplane-rules --example perft -- <depth> [position]`: `plyyard`'s
//!   `Game`, `position` in the notation of `rules.md` §7 (quote it: it has spaces).
//! - `... --example perft -- --ruleset flights --players 4 <depth> [position]`: a `Table` of any
//!   edition (`docs/rules/README.md`); `position`, if given, is in the editions' notation and
//!   names its own ruleset, so `--ruleset` and `--players` only choose the initial position.
//!
//! One line `perft <d> <count>` is printed for each d from 1 to depth.

use std::process::ExitCode;

use aeroplane_rules::{Game, Rules, Table, perft, table_perft};

const USAGE: &str = "usage: perft [--ruleset plyyard|flights|classic[+jump-after-shortcut]] \
                     [--players 2|3|4] <depth> [position]";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run(mut args: Vec<String>) -> Result<(), String> {
    let ruleset = take_option(&mut args, "--ruleset")?;
    let players = take_option(&mut args, "--players")?;
    let depth: u32 = args
        .first()
        .and_then(|d| d.parse().ok())
        .ok_or("missing or bad depth")?;
    let position = args
        .get(1..)
        .filter(|rest| !rest.is_empty())
        .map(|rest| rest.join(" "));
    let table_wanted = ruleset.is_some() || players.is_some();
    let starts_with_ruleset = position
        .as_deref()
        .and_then(|p| p.split_whitespace().next())
        .is_some_and(|first| first.parse::<Rules>().is_ok());
    if !table_wanted && !starts_with_ruleset {
        let game = match position {
            None => Game::new(),
            Some(text) => text
                .parse::<Game>()
                .map_err(|e| format!("invalid position: {e}"))?,
        };
        (1..=depth).for_each(|d| println!("perft {d} {}", perft(&game, d)));
        return Ok(());
    }
    let table = match position {
        Some(text) => text
            .parse::<Table>()
            .map_err(|e| format!("invalid position: {e}"))?,
        None => {
            let rules: Rules = ruleset
                .as_deref()
                .unwrap_or("plyyard")
                .parse()
                .map_err(|e| format!("{e}"))?;
            let players: usize = players
                .as_deref()
                .unwrap_or("2")
                .parse()
                .map_err(|_| "--players is 2, 3 or 4")?;
            Table::new(rules, players).map_err(|e| e.to_string())?
        }
    };
    (1..=depth).for_each(|d| println!("perft {d} {}", table_perft(&table, d)));
    Ok(())
}

/// Removes `--name value` from `args` and returns the value.
fn take_option(args: &mut Vec<String>, name: &str) -> Result<Option<String>, String> {
    let Some(at) = args.iter().position(|a| a == name) else {
        return Ok(None);
    };
    if at + 1 >= args.len() {
        return Err(format!("{name} needs a value"));
    }
    let value = args.remove(at + 1);
    args.remove(at);
    Ok(Some(value))
}
