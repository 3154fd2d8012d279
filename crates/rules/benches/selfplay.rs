//! Random self-play: how many complete two-player games (and how many actions) the rules engine
//! plays per second on one core.
//!
//! Each iteration plays the same batch of games from a fixed seed: every roll is a uniform die
//! value and every plane choice a uniform pick among the legal planes, both drawn from a fast
//! seeded RNG (`SmallRng`), so the work per iteration is identical and the figures comparable.
//! Run with `cargo bench -p aeroplane-rules --bench selfplay`; results go to `docs/benchmarks.md`.

use std::hint::black_box;

use aeroplane_rules::{Die, Game, Phase};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Games per benchmark iteration.
const GAMES: u64 = 1_000;
/// The seed of the batch.
const SEED: u64 = 0x5eed_a1e0_0000_0001;

/// Plays one game to its end with uniform random rolls and choices; returns the actions taken.
///
/// The events of every action are looked at (their count goes into the black box), as a server
/// or a bot that reads them would.
fn play_one_game(rng: &mut SmallRng) -> u64 {
    let mut game = Game::new();
    let mut actions = 0;
    loop {
        let colour = game.to_act();
        let events = match game.phase() {
            Phase::AwaitingRoll => {
                let die = Die::ALL[rng.random_range(0..Die::ALL.len())];
                game.roll(colour, die).expect("the player to act may roll")
            }
            Phase::AwaitingMove { legal, .. } => {
                let choice = rng.random_range(0..legal.len());
                let plane = legal.iter().nth(choice).expect("the choice is in range");
                game.move_plane(colour, plane)
                    .expect("a listed plane is legal")
            }
            Phase::Over(_) => return actions,
        };
        black_box(events.len());
        actions += 1;
    }
}

/// Plays the batch of [`GAMES`] games from [`SEED`]; returns the total actions taken.
fn play_batch() -> u64 {
    let mut rng = SmallRng::seed_from_u64(SEED);
    (0..GAMES).map(|_| play_one_game(&mut rng)).sum()
}

/// Nanoseconds of CPU time this thread has used, where Linux tells (`/proc/thread-self/schedstat`).
///
/// On a shared machine wall-clock figures also count the time other processes held the core; CPU
/// time does not.
fn thread_cpu_nanos() -> Option<u64> {
    let schedstat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    schedstat.split_whitespace().next()?.parse().ok()
}

/// Prints games and actions per second of CPU time over a few batches, if CPU time is available.
fn report_cpu_time_throughput(actions_per_batch: u64) {
    const BATCHES: u64 = 30;
    let Some(start) = thread_cpu_nanos() else {
        return;
    };
    let wall = std::time::Instant::now();
    for _ in 0..BATCHES {
        black_box(play_batch());
    }
    let (Some(end), wall) = (thread_cpu_nanos(), wall.elapsed()) else {
        return;
    };
    let cpu_seconds = (end - start) as f64 / 1e9;
    println!(
        "cpu time: {:.0} games/s, {:.2} M actions/s ({:.2} s of CPU over {:.2} s of wall clock)",
        (BATCHES * GAMES) as f64 / cpu_seconds,
        (BATCHES * actions_per_batch) as f64 / cpu_seconds / 1e6,
        cpu_seconds,
        wall.as_secs_f64(),
    );
}

fn selfplay(c: &mut Criterion) {
    let actions = play_batch();
    println!(
        "one batch: {GAMES} games, {actions} actions ({:.1} actions per game)",
        actions as f64 / GAMES as f64
    );
    report_cpu_time_throughput(actions);
    let mut group = c.benchmark_group("selfplay");
    group.throughput(Throughput::Elements(GAMES));
    group.bench_function("games", |b| b.iter(|| black_box(play_batch())));
    group.throughput(Throughput::Elements(actions));
    group.bench_function("actions", |b| b.iter(|| black_box(play_batch())));
    group.finish();
}

criterion_group!(benches, selfplay);
criterion_main!(benches);
