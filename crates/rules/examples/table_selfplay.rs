//! The rules benchmark of the editions: random complete games per second, per edition and player
//! count, on one core.
//!
//! ```text
//! cargo run --release -p aeroplane-rules --example table_selfplay -- [seconds per configuration]
//! ```
//!
//! Every roll is a uniform die value and every plane choice a uniform pick among the legal planes,
//! both from a fixed-seed `SmallRng`, so runs are comparable; the events of every action are
//! looked at (their count goes into a black box), as a server would. One thread only.

use std::hint::black_box;
use std::time::Instant;

use aeroplane_rules::{Die, Rules, Table, TablePhase};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Plays one game to its end; returns the number of actions.
fn play_one_game(rules: Rules, players: usize, rng: &mut SmallRng) -> u64 {
    let mut table = Table::new(rules, players).expect("a seating the edition allows");
    let mut actions = 0;
    loop {
        let side = table.to_act();
        let events = match table.phase() {
            TablePhase::AwaitingRoll => table.roll(side, Die::ALL[rng.random_range(0..6)]),
            TablePhase::AwaitingMove { legal, .. } => {
                let plane = legal.iter().nth(rng.random_range(0..legal.len()));
                table.move_plane(side, plane.expect("the choice is in range"))
            }
            TablePhase::Over(_) => return actions,
        }
        .expect("random play only takes legal actions");
        black_box(events.len());
        actions += 1;
    }
}

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    println!("edition  players  games/s  actions/s  actions/game");
    let configurations = [
        (Rules::PLYYARD, 2),
        (Rules::FLIGHTS, 2),
        (Rules::FLIGHTS, 3),
        (Rules::FLIGHTS, 4),
        (Rules::CLASSIC, 2),
        (Rules::CLASSIC, 3),
        (Rules::CLASSIC, 4),
    ];
    for (rules, players) in configurations {
        let mut rng = SmallRng::seed_from_u64(0x5eed_a1e0_0000_0001);
        let started = Instant::now();
        let (mut games, mut actions) = (0u64, 0u64);
        while started.elapsed().as_secs_f64() < seconds {
            for _ in 0..100 {
                actions += play_one_game(rules, players, &mut rng);
                games += 1;
            }
        }
        let elapsed = started.elapsed().as_secs_f64();
        println!(
            "{:<8} {:>7}  {:>7.0}  {:>9.0}  {:>12.0}",
            rules.to_string(),
            players,
            games as f64 / elapsed,
            actions as f64 / elapsed,
            actions as f64 / games as f64
        );
    }
}
