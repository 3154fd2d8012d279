//! Plays many games between two bot levels and prints win rates and decision times.
//!
//! ```text
//! cargo run --release -p aeroplane-bot --example tournament -- --a normal --b hard --games 10000 [--seed S] [--threads T]
//! ```
//!
//! Dice come from a seeded RNG. Games are played in pairs on the same dice with colours swapped
//! (Red always rolls first, so each level plays Red in half the games), which also cancels much of
//! the luck of the dice. Win rates carry 95% Wilson score intervals.

use std::process::ExitCode;
use std::time::Instant;

use aeroplane_bot::{Level, choose};
use aeroplane_rules::{Colour, Die, Game, Phase};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

#[path = "support/stats.rs"]
mod stats;
use stats::{percentile, wilson};

/// A game that has not ended after this many actions (rolls and moves) is stopped and reported.
const ACTION_CAP: u32 = 20_000;

struct Args {
    a: Level,
    b: Level,
    games: u32,
    seed: u64,
    threads: u32,
}

/// What a run of games produced, for one side or merged.
#[derive(Default)]
struct Tally {
    /// Wins of side A and side B.
    wins: [u32; 2],
    /// Wins of side A and side B when playing Red.
    wins_as_red: [u32; 2],
    /// Games stopped at the action cap.
    capped: u32,
    /// Moves played in all games.
    moves: u64,
    /// Decision times of side A and side B, in nanoseconds.
    times: [Vec<u32>; 2],
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            eprintln!("usage: tournament --a LEVEL --b LEVEL [--games N] [--seed S] [--threads T]");
            return ExitCode::FAILURE;
        }
    };
    let started = Instant::now();
    let tally = run(&args);
    report(&args, &tally, started.elapsed().as_secs_f64());
    ExitCode::SUCCESS
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        a: Level::Normal,
        b: Level::Hard,
        games: 1000,
        seed: 1,
        threads: 1,
    };
    let mut words = std::env::args().skip(1);
    while let Some(flag) = words.next() {
        let value = words
            .next()
            .ok_or_else(|| format!("{flag} needs a value"))?;
        let bad = |_| format!("bad value for {flag}: {value}");
        match flag.as_str() {
            "--a" => args.a = value.parse().map_err(|e| format!("--a: {e}"))?,
            "--b" => args.b = value.parse().map_err(|e| format!("--b: {e}"))?,
            "--games" => args.games = value.parse().map_err(bad)?,
            "--seed" => args.seed = value.parse().map_err(bad)?,
            "--threads" => args.threads = value.parse::<u32>().map_err(bad)?.max(1),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(args)
}

fn run(args: &Args) -> Tally {
    let threads = args.threads.min(args.games.max(1));
    let tallies: Vec<Tally> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|worker| {
                scope.spawn(move || {
                    let mut tally = Tally::default();
                    for game in (worker..args.games).step_by(threads as usize) {
                        play(args, game, &mut tally);
                    }
                    tally
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a worker panicked"))
            .collect()
    });
    let mut total = Tally::default();
    for tally in tallies {
        for side in 0..2 {
            total.wins[side] += tally.wins[side];
            total.wins_as_red[side] += tally.wins_as_red[side];
            total.times[side].extend(tally.times[side].iter());
        }
        total.capped += tally.capped;
        total.moves += tally.moves;
    }
    total
}

/// Plays game number `index`: side A is Red in even games; a pair of games shares its dice.
fn play(args: &Args, index: u32, tally: &mut Tally) {
    let pair = u64::from(index / 2);
    let mut dice = SmallRng::seed_from_u64(args.seed ^ pair.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut bot_seeds = SmallRng::seed_from_u64(!args.seed ^ u64::from(index).rotate_left(32));
    let a_colour = if index.is_multiple_of(2) {
        Colour::Red
    } else {
        Colour::Yellow
    };
    let side_of = |colour: Colour| usize::from(colour != a_colour);
    let levels = [args.a, args.b];
    let mut game = Game::new();
    for _ in 0..ACTION_CAP {
        let colour = game.to_act();
        match game.phase() {
            Phase::Over(outcome) => {
                if let Some(winner) = outcome.winner {
                    tally.wins[side_of(winner)] += 1;
                    if winner == Colour::Red {
                        tally.wins_as_red[side_of(winner)] += 1;
                    }
                }
                return;
            }
            Phase::AwaitingRoll => {
                let die = Die::new(dice.random_range(1..=6)).expect("1..=6 is a die value");
                game.roll(colour, die).expect("the player to act may roll");
            }
            Phase::AwaitingMove { .. } => {
                let side = side_of(colour);
                let started = Instant::now();
                let decision = choose(levels[side], &game, bot_seeds.random())
                    .expect("the game awaits a move");
                let nanos = started.elapsed().as_nanos();
                tally.times[side].push(u32::try_from(nanos).unwrap_or(u32::MAX));
                tally.moves += 1;
                game.move_plane(colour, decision.plane)
                    .expect("bots choose legal planes");
            }
        }
    }
    tally.capped += 1;
}

fn report(args: &Args, tally: &Tally, seconds: f64) {
    let decided = tally.wins[0] + tally.wins[1];
    println!(
        "{} games, seed {}, {} threads, {:.1} s; {} capped at {ACTION_CAP} actions; {:.1} moves per game",
        args.games,
        args.seed,
        args.threads,
        seconds,
        tally.capped,
        tally.moves as f64 / f64::from(args.games.max(1)),
    );
    println!(
        "side  level   wins    win rate  95% CI (Wilson)   wins as Red  p50 ms   p99 ms   mean ms"
    );
    for side in 0..2 {
        let level = [args.a, args.b][side];
        let wins = tally.wins[side];
        let (low, high) = wilson(wins, decided);
        let mut times = tally.times[side].clone();
        times.sort_unstable();
        let mean = times.iter().map(|t| f64::from(*t)).sum::<f64>() / times.len().max(1) as f64;
        println!(
            "{}     {:<7} {:<7} {:>6.2}%   [{:.2}%, {:.2}%]  {:>8}   {:>7.4}  {:>7.4}  {:>7.4}",
            ["A", "B"][side],
            level.as_str(),
            wins,
            100.0 * f64::from(wins) / f64::from(decided.max(1)),
            100.0 * low,
            100.0 * high,
            tally.wins_as_red[side],
            percentile(&times, 0.50) / 1e6,
            percentile(&times, 0.99) / 1e6,
            mean / 1e6,
        );
    }
}
