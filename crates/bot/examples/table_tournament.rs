//! One bot level against another at a `Table` of any edition and player count.
//!
//! ```text
//! cargo run --release -p aeroplane-bot --example table_tournament -- \
//!     --ruleset flights --players 4 --a hard --b normal --games 10000 [--seconds 120] [--seed S] [--threads T]
//! ```
//!
//! Level A takes one seat and level B every other seat; A's seat rotates from game to game (Red,
//! then the next seat in turn order, …), and each group of games in which A has sat once in every
//! seat shares its dice, which cancels much of their luck. A beats B when the 95% Wilson interval
//! of A's win rate lies above the fair share, one game in `players`. `--seconds` stops starting
//! new groups after that long, so a run fits a time budget; the games actually played are printed.

use std::process::ExitCode;
use std::time::Instant;

use aeroplane_bot::{Level, choose_table};
use aeroplane_rules::{Die, Rules, Table, TablePhase};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

#[path = "support/stats.rs"]
mod stats;
use stats::{percentile, wilson};

/// A game that has not ended after this many actions is stopped and reported.
const ACTION_CAP: u32 = 50_000;

struct Args {
    rules: Rules,
    players: usize,
    levels: [Level; 2],
    games: u32,
    seconds: f64,
    seed: u64,
    threads: u32,
}

#[derive(Default)]
struct Tally {
    games: u32,
    a_wins: u32,
    capped: u32,
    times: [Vec<u32>; 2],
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            eprintln!(
                "usage: table_tournament --ruleset R --players N --a LEVEL --b LEVEL [--games N] [--seconds S] [--seed S] [--threads T]"
            );
            return ExitCode::FAILURE;
        }
    };
    let started = Instant::now();
    let tally = run(&args, started);
    report(&args, &tally, started.elapsed().as_secs_f64());
    ExitCode::SUCCESS
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        rules: Rules::FLIGHTS,
        players: 2,
        levels: [Level::Hard, Level::Normal],
        games: 1000,
        seconds: f64::INFINITY,
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
            "--ruleset" => args.rules = value.parse().map_err(|e| format!("{e}"))?,
            "--players" => args.players = value.parse().map_err(bad)?,
            "--a" => args.levels[0] = value.parse().map_err(|e| format!("--a: {e}"))?,
            "--b" => args.levels[1] = value.parse().map_err(|e| format!("--b: {e}"))?,
            "--games" => args.games = value.parse().map_err(bad)?,
            "--seconds" => {
                args.seconds = value
                    .parse()
                    .map_err(|_| format!("bad value for --seconds: {value}"))?
            }
            "--seed" => args.seed = value.parse().map_err(bad)?,
            "--threads" => args.threads = value.parse::<u32>().map_err(bad)?.max(1),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Table::new(args.rules, args.players).map_err(|e| e.to_string())?;
    Ok(args)
}

fn run(args: &Args, started: Instant) -> Tally {
    let group = args.players as u32;
    let groups = args.games.div_ceil(group);
    let threads = args.threads;
    let tallies: Vec<Tally> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|worker| {
                scope.spawn(move || {
                    let mut tally = Tally::default();
                    for index in (worker..groups).step_by(threads as usize) {
                        if started.elapsed().as_secs_f64() > args.seconds {
                            break;
                        }
                        for seat in 0..args.players {
                            play(args, u64::from(index), seat, &mut tally);
                        }
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
        total.games += tally.games;
        total.a_wins += tally.a_wins;
        total.capped += tally.capped;
        for side in 0..2 {
            total.times[side].extend(tally.times[side].iter());
        }
    }
    total
}

/// Plays one game of group `group` with level A in seat `a_seat` (index in turn order).
fn play(args: &Args, group: u64, a_seat: usize, tally: &mut Tally) {
    let mut dice = SmallRng::seed_from_u64(args.seed ^ group.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut bot_seeds = SmallRng::seed_from_u64(!args.seed ^ group.rotate_left(32) ^ a_seat as u64);
    let mut table = Table::new(args.rules, args.players).expect("checked in parse_args");
    let a_side = table.sides().nth(a_seat).expect("a seat of the table");
    tally.games += 1;
    for _ in 0..ACTION_CAP {
        let side = table.to_act();
        match table.phase() {
            TablePhase::Over(outcome) => {
                tally.a_wins += u32::from(outcome.winner == Some(a_side));
                return;
            }
            TablePhase::AwaitingRoll => {
                let die = Die::new(dice.random_range(1..=6)).expect("1..=6 is a die value");
                table.roll(side, die).expect("the player to act may roll");
            }
            TablePhase::AwaitingMove { .. } => {
                let who = usize::from(side != a_side);
                let clock = Instant::now();
                let decision = choose_table(args.levels[who], &table, bot_seeds.random())
                    .expect("the table awaits a move");
                let nanos = clock.elapsed().as_nanos();
                tally.times[who].push(u32::try_from(nanos).unwrap_or(u32::MAX));
                table
                    .move_plane(side, decision.plane)
                    .expect("bots choose legal planes");
            }
        }
    }
    tally.capped += 1;
}

fn report(args: &Args, tally: &Tally, seconds: f64) {
    let fair = 1.0 / args.players as f64;
    let (low, high) = wilson(tally.a_wins, tally.games);
    println!(
        "{} with {} players: A {} vs B {}: {} games ({} capped), seed {}, {} threads, {:.1} s",
        args.rules,
        args.players,
        args.levels[0],
        args.levels[1],
        tally.games,
        tally.capped,
        args.seed,
        args.threads,
        seconds
    );
    println!(
        "A wins {} = {:.2}% [95% CI {:.2}%, {:.2}%], fair share {:.2}%: {}",
        tally.a_wins,
        100.0 * f64::from(tally.a_wins) / f64::from(tally.games.max(1)),
        100.0 * low,
        100.0 * high,
        100.0 * fair,
        if low > fair {
            "A is stronger"
        } else {
            "not shown"
        }
    );
    for who in 0..2 {
        let mut times = tally.times[who].clone();
        times.sort_unstable();
        println!(
            "decision time {} ({}): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            ["A", "B"][who],
            args.levels[who],
            percentile(&times, 0.50) / 1e6,
            percentile(&times, 0.99) / 1e6,
            times.last().map_or(0.0, |t| f64::from(*t)) / 1e6,
        );
    }
}
