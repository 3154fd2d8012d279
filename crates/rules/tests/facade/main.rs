//! `Game` is a facade over a `plyyard` `Table`: for many random games, with random rolls, moves,
//! draw actions, resignations and forfeits (refused ones included), it must agree event by event
//! and position by position with the engine it replaced, kept in `reference.rs`.

mod reference;

use aeroplane_rules::{Action, Colour, Die, Forfeit, Game, Phase, Plane, RuleError};
use proptest::prelude::*;
use reference::Reference;

/// Applies `action` to the reference engine, as `Game::apply` does to the facade.
fn apply(reference: &mut Reference, action: Action) -> Result<aeroplane_rules::Events, RuleError> {
    match action {
        Action::Roll { colour, value } => reference.roll(colour, value),
        Action::Move { colour, plane } => reference.move_plane(colour, plane),
        Action::Resign { colour } => reference.resign(colour),
        Action::OfferDraw { colour } => reference.offer_draw(colour),
        Action::AcceptDraw { colour } => reference.accept_draw(colour),
        Action::DeclineDraw { colour } => reference.decline_draw(colour),
        Action::WithdrawDraw { colour } => reference.withdraw_draw(colour),
        Action::Forfeit { colour, reason } => reference.forfeit(colour, reason),
    }
}

/// Everything the facade shows of a position equals the reference's.
fn assert_same_position(game: &Game, reference: &Reference, context: &str) {
    for colour in Colour::ALL {
        assert_eq!(game.planes(colour), reference.planes(colour), "{context}");
        assert_eq!(
            game.draw().may_offer(colour),
            reference.draw().may_offer(colour),
            "{context}"
        );
        for plane in Plane::ALL {
            assert_eq!(
                game.ring_index(colour, plane),
                reference.ring_index(colour, plane),
                "{context}"
            );
        }
        for die in Die::ALL {
            assert_eq!(
                game.legal_planes(colour, die),
                reference.legal_planes(colour, die),
                "{context}"
            );
        }
        assert_eq!(
            game.check_roll(colour),
            reference.check_roll(colour),
            "{context}"
        );
    }
    assert_eq!(game.to_act(), reference.to_act(), "{context}");
    assert_eq!(game.phase(), reference.phase(), "{context}");
    assert_eq!(game.sixes(), reference.sixes(), "{context}");
    assert_eq!(
        game.draw().standing_offer(),
        reference.draw().offer,
        "{context}"
    );
    assert_eq!(game.outcome(), reference.outcome(), "{context}");
    assert_eq!(game.is_over(), reference.is_over(), "{context}");
}

/// The action a step stands for: mostly the player to act playing on, sometimes a draw action,
/// a resignation or a forfeit by either colour, and sometimes an action out of turn.
fn action_for(game: &Game, (kind, value, choice): (u8, u8, u8)) -> Action {
    let to_act = game.to_act();
    let colour = if choice % 2 == 0 {
        to_act
    } else {
        to_act.opponent()
    };
    let die = Die::ALL[usize::from(value) % 6];
    match kind {
        0..=3 => Action::OfferDraw { colour },
        4..=5 => Action::AcceptDraw { colour },
        6..=7 => Action::DeclineDraw { colour },
        8 => Action::WithdrawDraw { colour },
        9 if choice < 16 => Action::Resign { colour },
        10 if choice < 16 => Action::Forfeit {
            colour,
            reason: if value % 2 == 0 {
                Forfeit::Abandoned
            } else {
                Forfeit::Timeout
            },
        },
        11 => Action::Roll { colour, value: die },
        12 => Action::Move {
            colour,
            plane: Plane::ALL[usize::from(value) % 4],
        },
        _ => match game.phase() {
            Phase::AwaitingMove { legal, .. } => Action::Move {
                colour: to_act,
                plane: legal
                    .iter()
                    .nth(usize::from(choice) % legal.len())
                    .expect("the choice is in range"),
            },
            Phase::AwaitingRoll | Phase::Over(_) => Action::Roll {
                colour: to_act,
                value: die,
            },
        },
    }
}

/// Plays `steps` on the facade and the reference from `game`, comparing after every step.
fn play_both(mut game: Game, steps: &[(u8, u8, u8)]) {
    let mut reference = Reference::from_game(&game);
    assert_same_position(&game, &reference, "at the start");
    for (index, step) in steps.iter().enumerate() {
        let action = action_for(&game, *step);
        let before = game;
        let context = format!("step {index}: {action:?} in `{before}`");
        let ours = game.apply(action);
        let theirs = apply(&mut reference, action);
        assert_eq!(ours, theirs, "{context}");
        if ours.is_err() {
            assert_eq!(game, before, "a refused action changed the game: {context}");
        }
        assert_same_position(&game, &reference, &context);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_facade_and_the_old_engine_agree_event_by_event(
        steps in prop::collection::vec((0u8..40, any::<u8>(), any::<u8>()), 0..800),
    ) {
        play_both(Game::new(), &steps);
    }

    #[test]
    fn they_agree_from_positions_deep_in_a_game(
        start in prop::sample::select(vec![
            "b,b,12,f b,30,52,b yellow 4 0",
            "10,b,b,b 5,b,b,b red - 0",
            "50,49,f,f f,f,f,53 red - 0",
            "6,b,b,b b,b,b,b red 6 1",
            "0,13,26,39 26,34,0,8 yellow - 2",
            "45,48,55,f 17,20,b,b red - 1",
        ]),
        steps in prop::collection::vec((0u8..40, any::<u8>(), any::<u8>()), 0..400),
    ) {
        let game: Game = start.parse().expect("a valid position");
        play_both(game, &steps);
    }
}

#[test]
fn many_complete_random_games_agree_to_the_end() {
    // A fixed linear congruential sequence stands in for dice, choices and the rare draw actions.
    let mut state: u32 = 2_024;
    let mut next = move || {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (state >> 16) as u8
    };
    for _ in 0..2_000 {
        let mut steps = Vec::new();
        let mut game = Game::new();
        while !game.is_over() && steps.len() < 5_000 {
            // Plain play nine times in ten, so most games are played out to a finish.
            let kind = if next() < 230 { 20 } else { next() % 40 };
            let step = (kind, next(), next());
            game.apply(action_for(&game, step)).ok();
            steps.push(step);
        }
        play_both(Game::new(), &steps);
    }
}
