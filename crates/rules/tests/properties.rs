//! Property tests over random games: random die values, random legal choices and random resign
//! and draw actions. After every step the invariants of `rules.md` §6 hold, every listed plane is
//! accepted and every other one refused, and the notation and the JSON form round-trip.

mod common;

use aeroplane_rules::{
    Action, Colour, Event, Events, Forfeit, Game, PassReason, Phase, Plane, Position, RuleError,
};
use common::*;
use proptest::prelude::*;

/// One random step: a die value, a choice among legal planes, and whether (and which) resign or
/// draw action to try first.
type Step = (u8, u8, u8);

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec((1..=6u8, any::<u8>(), any::<u8>()), 0..600)
}

/// A resign or draw action picked by `kind` and `choice`, or `None`: most steps are plain play,
/// and accepting or resigning are rare enough that many games are still played out.
fn social_action(kind: u8, choice: u8, colour: Colour) -> Option<Action> {
    match kind {
        0..=7 => Some(Action::OfferDraw { colour }),
        8..=11 => Some(Action::DeclineDraw { colour }),
        12..=13 => Some(Action::WithdrawDraw { colour }),
        14 if choice < 64 => Some(Action::AcceptDraw { colour }),
        15 if choice < 64 => Some(Action::Resign { colour }),
        _ => None,
    }
}

/// A plane's progress with the base as -1, so captures are the only way down.
fn rank(position: Position) -> i32 {
    position.progress().map_or(-1, i32::from)
}

/// `rules.md` §6: the invariants that hold in every position, live or over.
fn assert_position_invariants(game: &Game) {
    for colour in Colour::ALL {
        assert!(game.planes(colour).iter().all(|p| p.is_valid()), "{game}");
    }
    for red in Plane::ALL {
        let Some(square) = game.ring_index(Colour::Red, red) else {
            continue;
        };
        for yellow in Plane::ALL {
            if game.ring_index(Colour::Yellow, yellow) == Some(square) {
                assert!(
                    square.is_safe(),
                    "Red and Yellow share unsafe square {square}: {game}"
                );
            }
        }
    }
    assert!(game.sixes() <= 2);
    if let Phase::AwaitingMove { roll, legal } = game.phase() {
        assert!(!legal.is_empty());
        assert_eq!(legal, game.legal_planes(game.to_act(), roll));
    }
}

/// `rules.md` §6: what may change from `before` to `after` when `mover` played and produced
/// `events`.
fn assert_step_invariants(before: &Game, after: &Game, mover: Colour, events: &Events) {
    assert_position_invariants(after);
    let captured = events.iter().find_map(|e| match e {
        Event::Moved {
            capture: Some(capture),
            ..
        } => Some((capture.colour, capture.planes)),
        _ => None,
    });
    for colour in Colour::ALL {
        for plane in Plane::ALL {
            let (from, to) = (
                before.position(colour, plane),
                after.position(colour, plane),
            );
            if rank(to) < rank(from) {
                assert_eq!(
                    to,
                    Position::Base,
                    "{colour} {plane} went back: {before} -> {after}"
                );
                let (victim, planes) = captured.expect("a plane went back without a capture");
                assert_eq!(victim, colour);
                assert_eq!(victim, mover.opponent());
                assert!(planes.contains(plane));
            }
        }
    }
    let void = events.iter().any(|e| {
        matches!(
            e,
            Event::TurnPassed {
                reason: PassReason::VoidThirdSix | PassReason::NoLegalMove,
                ..
            }
        )
    });
    if void {
        assert_eq!(after.planes(Colour::Red), before.planes(Colour::Red));
        assert_eq!(after.planes(Colour::Yellow), before.planes(Colour::Yellow));
        assert_eq!(after.to_act(), before.to_act().opponent());
        assert_eq!(after.sixes(), 0);
        assert_eq!(after.phase(), Phase::AwaitingRoll);
    }
    for event in events {
        if let Event::Moved {
            colour,
            plane,
            from,
            to,
            finished,
            extra_roll,
            ..
        } = *event
        {
            assert_eq!(colour, mover);
            assert_eq!(from, before.position(colour, plane));
            assert_eq!(to, after.position(colour, plane));
            assert_eq!(finished, to == Position::Finished);
            let rolls_again = !after.is_over() && after.to_act() == mover;
            assert_eq!(extra_roll, rolls_again, "{before} -> {after}: {events:?}");
        }
    }
}

/// A game that is over refuses every roll and move, by either player.
fn assert_refuses_play(game: &mut Game) {
    for colour in Colour::ALL {
        assert_refused(game, "game_over", |g| g.roll(colour, die(6)));
        assert_refused(game, "game_over", |g| g.move_plane(colour, plane(0)));
    }
}

/// The notation of a live position parses back into the same position (the draw state is not
/// part of the notation).
fn assert_notation_round_trips(game: &Game) {
    let text = game.to_string();
    let parsed: Game = text
        .parse()
        .unwrap_or_else(|e| panic!("`{text}` does not parse: {e}"));
    assert_eq!(parsed.to_string(), text);
    assert_eq!(parsed.planes(Colour::Red), game.planes(Colour::Red));
    assert_eq!(parsed.planes(Colour::Yellow), game.planes(Colour::Yellow));
    assert_eq!(parsed.to_act(), game.to_act());
    assert_eq!(parsed.phase(), game.phase());
    assert_eq!(parsed.sixes(), game.sixes());
}

/// The JSON form of the game, of the action and of its events reads back into the same values.
fn assert_json_round_trips(game: &Game, action: &Action, events: &Events) {
    let json = serde_json::to_string(game).unwrap();
    let read: Game = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
    assert_eq!(&read, game, "{json}");
    let json = serde_json::to_string(action).unwrap();
    assert_eq!(
        &serde_json::from_str::<Action>(&json).unwrap(),
        action,
        "{json}"
    );
    for event in events {
        let json = serde_json::to_string(event).unwrap();
        assert_eq!(
            &serde_json::from_str::<Event>(&json).unwrap(),
            event,
            "{json}"
        );
    }
}

/// Applies `action`; checks the step invariants if it was accepted, and that the game is
/// unchanged if it was refused.
fn apply_and_check(game: &mut Game, action: Action) -> Result<Events, RuleError> {
    let before = *game;
    let result = game.apply(action);
    match &result {
        Ok(events) => {
            assert_step_invariants(&before, game, action.colour(), events);
            assert_json_round_trips(game, &action, events);
            if !game.is_over() {
                assert_notation_round_trips(game);
            }
        }
        Err(_) => assert_eq!(*game, before, "refused {action:?} changed the game"),
    }
    result
}

/// Plays the random steps, checking everything after each one.
fn play(steps: &[Step]) -> Game {
    let mut game = Game::new();
    for &(value, choice, social) in steps {
        if game.is_over() {
            assert_refuses_play(&mut game);
            break;
        }
        let colour = game.to_act();
        let either = if choice % 2 == 0 {
            colour
        } else {
            colour.opponent()
        };
        if let Some(action) = social_action(social, choice, either) {
            let _ = apply_and_check(&mut game, action);
            continue;
        }
        match game.phase() {
            Phase::AwaitingRoll => {
                assert_refused(&mut game, "not_your_turn", |g| {
                    g.roll(colour.opponent(), die(value))
                });
                assert_refused(&mut game, "roll_first", |g| g.move_plane(colour, plane(0)));
                apply_and_check(
                    &mut game,
                    Action::Roll {
                        colour,
                        value: die(value),
                    },
                )
                .unwrap();
            }
            Phase::AwaitingMove { legal, .. } => {
                assert_refused(&mut game, "move_first", |g| g.roll(colour, die(value)));
                for candidate in Plane::ALL {
                    let mut trial = game;
                    let action = Action::Move {
                        colour,
                        plane: candidate,
                    };
                    if legal.contains(candidate) {
                        apply_and_check(&mut trial, action).expect("a listed plane is accepted");
                    } else {
                        assert_refused(&mut trial, "illegal_plane", |g| g.apply(action));
                    }
                }
                let plane = legal.iter().nth(usize::from(choice) % legal.len()).unwrap();
                apply_and_check(&mut game, Action::Move { colour, plane }).unwrap();
            }
            Phase::Over(_) => unreachable!("checked above"),
        }
    }
    game
}

/// Any action at all: either colour, any die value, any plane, any kind, legal or not. This is the
/// rules engine's fuzz harness (a property-based one: the toolchain here is stable-only, so
/// `cargo fuzz` and its nightly sanitizers are not available). Rolls are weighted up so that
/// games get somewhere.
fn any_action() -> impl Strategy<Value = Action> {
    let colour = prop_oneof![Just(Colour::Red), Just(Colour::Yellow)];
    (colour, 0..16u8, 1..=6u8, 0..4u8).prop_map(|(colour, kind, value, number)| match kind {
        0..=5 => Action::Roll {
            colour,
            value: die(value),
        },
        6..=10 => Action::Move {
            colour,
            plane: plane(number),
        },
        11 => Action::OfferDraw { colour },
        12 => Action::DeclineDraw { colour },
        13 => Action::WithdrawDraw { colour },
        14 if number == 0 && value == 1 => Action::Resign { colour },
        14 => Action::AcceptDraw { colour },
        _ => Action::Forfeit {
            colour,
            reason: if value % 2 == 0 {
                Forfeit::Abandoned
            } else {
                Forfeit::Timeout
            },
        },
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn arbitrary_action_sequences_never_panic_and_refusals_change_nothing(
        actions in prop::collection::vec(any_action(), 0..800)
    ) {
        let mut game = Game::new();
        for action in actions {
            // Forfeits end the game at once; let most sequences play on instead.
            if matches!(action, Action::Forfeit { .. }) && game.sixes() != 2 {
                continue;
            }
            // `check_roll` answers exactly as a roll of any value would, and changes nothing.
            for colour in Colour::ALL {
                let checked = game.check_roll(colour);
                for value in 1..=6 {
                    let mut probe = game;
                    prop_assert_eq!(probe.roll(colour, die(value)).map(|_| ()), checked);
                }
            }
            let _ = apply_and_check(&mut game, action);
            if game.is_over() {
                assert_refuses_play(&mut game);
            }
        }
    }

    #[test]
    fn random_games_keep_every_invariant(steps in steps()) {
        play(&steps);
    }

    #[test]
    fn replaying_the_log_of_a_random_game_reproduces_it(steps in steps()) {
        // Record the accepted actions of a plain random game, then replay them.
        let mut game = Game::new();
        let mut log = Vec::new();
        for (value, choice, _) in steps {
            let colour = game.to_act();
            let action = match game.phase() {
                Phase::AwaitingRoll => Action::Roll { colour, value: die(value) },
                Phase::AwaitingMove { legal, .. } => Action::Move {
                    colour,
                    plane: legal.iter().nth(usize::from(choice) % legal.len()).unwrap(),
                },
                Phase::Over(_) => break,
            };
            game.apply(action).unwrap();
            log.push(action);
        }
        let (replayed, events) = Game::replay(log.iter().copied()).unwrap();
        prop_assert_eq!(replayed, game);
        prop_assert_eq!(events.len(), log.len());
    }
}

#[test]
fn long_random_games_reach_an_end_on_the_board() {
    // With no resigning, a few thousand random steps finish a game: the generator does not loop.
    let steps: Vec<Step> = (0..20_000u32)
        .map(|i| ((i * 7 % 6 + 1) as u8, (i * 13 % 251) as u8, 255))
        .collect();
    let game = play(&steps);
    assert!(game.is_over());
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.reason, aeroplane_rules::EndReason::Finished);
    let winner = outcome.winner.unwrap();
    assert!(game.planes(winner).iter().all(|p| *p == Position::Finished));
}
