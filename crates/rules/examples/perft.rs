//! Prints perft counts: `cargo run --release -p aeroplane-rules --example perft -- <depth> [position]`.
//!
//! `position` is the notation of `rules.md` §7 (quote it: it has spaces); the default is the
//! initial position. One line `perft <d> <count>` is printed for each d from 1 to depth.

use std::process::ExitCode;

use aeroplane_rules::{Game, perft};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: perft <depth> [position]  (position in the notation of rules.md §7)";
    let Some(depth) = args.first().and_then(|d| d.parse::<u32>().ok()) else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let game = match args.get(1..).filter(|rest| !rest.is_empty()) {
        None => Game::new(),
        Some(rest) => match rest.join(" ").parse::<Game>() {
            Ok(game) => game,
            Err(error) => {
                eprintln!("invalid position: {error}\n{usage}");
                return ExitCode::from(2);
            }
        },
    };
    for d in 1..=depth {
        println!("perft {d} {}", perft(&game, d));
    }
    ExitCode::SUCCESS
}
