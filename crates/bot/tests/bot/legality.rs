//! Every level only ever chooses a legal plane, and chooses the same one for the same seed.

use aeroplane_bot::{Level, NotAwaitingMove, choose};
use aeroplane_rules::{Die, Game, Phase};
use proptest::prelude::*;

/// A small portable RNG so the positions depend only on the proptest inputs.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The first position awaiting a move after at least `actions` random rolls and moves from the
/// start, or `None` if the game ended first.
fn reached_by_random_play(seed: u64, actions: u32) -> Option<Game> {
    let mut state = seed;
    let mut game = Game::new();
    let mut done = 0;
    loop {
        match game.phase() {
            Phase::Over(_) => return None,
            Phase::AwaitingMove { .. } if done >= actions => return Some(game),
            Phase::AwaitingMove { legal, .. } => {
                let index = next(&mut state) % legal.len() as u64;
                let plane = legal.iter().nth(index as usize).unwrap();
                game.move_plane(game.to_act(), plane).unwrap();
            }
            Phase::AwaitingRoll => {
                let die = Die::new((next(&mut state) % 6) as u8 + 1).unwrap();
                game.roll(game.to_act(), die).unwrap();
            }
        }
        done += 1;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_level_chooses_a_legal_plane(seed in any::<u64>(), actions in 0u32..600, bot_seed in any::<u64>()) {
        let Some(game) = reached_by_random_play(seed, actions) else { return Ok(()) };
        let Phase::AwaitingMove { legal, .. } = game.phase() else { unreachable!() };
        for level in Level::ALL {
            let decision = choose(level, &game, bot_seed).unwrap();
            prop_assert!(legal.contains(decision.plane), "{level} chose illegal plane {} in {game}", decision.plane);
            let mut after = game;
            prop_assert!(after.move_plane(game.to_act(), decision.plane).is_ok());
        }
    }

    #[test]
    fn the_same_level_position_and_seed_give_the_same_decision(seed in any::<u64>(), actions in 0u32..600, bot_seed in any::<u64>()) {
        let Some(game) = reached_by_random_play(seed, actions) else { return Ok(()) };
        for level in Level::ALL {
            prop_assert_eq!(choose(level, &game, bot_seed), choose(level, &game, bot_seed));
        }
    }
}

#[test]
fn a_game_awaiting_a_roll_gets_no_decision() {
    for level in Level::ALL {
        assert_eq!(choose(level, &Game::new(), 0), Err(NotAwaitingMove));
    }
}

#[test]
fn a_finished_game_gets_no_decision() {
    let mut game = super::position("f,f,f,50 b,b,b,b red 6 1");
    game.move_plane(
        aeroplane_rules::Colour::Red,
        aeroplane_rules::Plane::new(3).unwrap(),
    )
    .unwrap();
    assert!(game.is_over());
    for level in Level::ALL {
        assert_eq!(choose(level, &game, 0), Err(NotAwaitingMove));
    }
}

#[test]
fn the_random_level_reaches_every_legal_plane_as_the_seed_varies() {
    let game = super::position("5,10,20,30 b,b,b,b red 3 0");
    let chosen: std::collections::BTreeSet<u8> = (0..64)
        .map(|seed| choose(Level::Random, &game, seed).unwrap().plane.number())
        .collect();
    assert_eq!(chosen.into_iter().collect::<Vec<_>>(), [0, 1, 2, 3]);
}

#[test]
fn bots_of_every_level_finish_whole_games_against_each_other() {
    let mut state = 42;
    for (red, yellow) in [
        (Level::Easy, Level::Hard),
        (Level::Hard, Level::Normal),
        (Level::Random, Level::Easy),
    ] {
        let mut game = Game::new();
        let mut actions = 0;
        while !game.is_over() {
            actions += 1;
            assert!(
                actions < 20_000,
                "the game between {red} and {yellow} did not end"
            );
            let colour = game.to_act();
            match game.phase() {
                Phase::AwaitingRoll => {
                    let die = Die::new((next(&mut state) % 6) as u8 + 1).unwrap();
                    game.roll(colour, die).unwrap();
                }
                _ => {
                    let level = if colour == aeroplane_rules::Colour::Red {
                        red
                    } else {
                        yellow
                    };
                    let decision = choose(level, &game, next(&mut state)).unwrap();
                    game.move_plane(colour, decision.plane).unwrap();
                }
            }
        }
    }
}
