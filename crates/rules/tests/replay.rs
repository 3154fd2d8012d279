//! `Game::replay`: an action log reproduces the game, and a refused action is reported by index.

mod common;

use aeroplane_rules::{Action, Colour, EndReason, Event, Game, Outcome, ReplayError, RuleError};
use common::*;

/// A short game: Red deploys and moves, Yellow offers a draw that Red's roll declines, Red offers
/// one that Yellow declines, and Red resigns.
fn log() -> Vec<Action> {
    let roll = |colour: Colour, value| Action::Roll {
        colour,
        value: die(value),
    };
    let mv = |colour: Colour, number| Action::Move {
        colour,
        plane: plane(number),
    };
    vec![
        roll(RED, 6),
        mv(RED, 1),
        roll(RED, 4),
        mv(RED, 1),
        Action::OfferDraw { colour: YELLOW },
        roll(YELLOW, 6),
        mv(YELLOW, 0),
        roll(YELLOW, 2),
        mv(YELLOW, 0),
        roll(RED, 1),
        mv(RED, 1),
        Action::OfferDraw { colour: RED },
        Action::DeclineDraw { colour: YELLOW },
        Action::Resign { colour: RED },
    ]
}

#[test]
fn replaying_a_log_reproduces_the_state_events_and_result() {
    let mut game = Game::new();
    let mut expected_events = Vec::new();
    for action in log() {
        expected_events.push(game.apply(action).unwrap());
    }
    let (replayed, events) = Game::replay(log()).unwrap();
    assert_eq!(replayed, game);
    assert_eq!(events, expected_events);
    assert!(events[9].contains(&Event::DrawDeclined {
        by: RED,
        implicit: true
    }));
    assert_eq!(
        replayed.outcome(),
        Some(Outcome {
            winner: Some(YELLOW),
            reason: EndReason::Resigned
        })
    );
}

#[test]
fn replaying_an_empty_log_gives_the_initial_position() {
    let (game, events) = Game::replay([]).unwrap();
    assert_eq!(game, Game::new());
    assert!(events.is_empty());
}

#[test]
fn a_refused_action_stops_the_replay_and_names_its_index() {
    let mut actions = log();
    // Yellow rolling while Red's move is pending.
    actions.insert(
        3,
        Action::Roll {
            colour: YELLOW,
            value: die(2),
        },
    );
    let error = Game::replay(actions.clone()).unwrap_err();
    assert_eq!(
        error,
        ReplayError {
            index: 3,
            action: actions[3],
            error: RuleError::NotYourTurn
        }
    );
    assert_eq!(error.error.code(), "not_your_turn");
    assert!(error.to_string().starts_with("action 3 "), "{error}");
}

#[test]
fn replay_refuses_an_action_after_the_game_ended() {
    let mut actions = log();
    actions.push(Action::Roll {
        colour: YELLOW,
        value: die(3),
    });
    let error = Game::replay(actions).unwrap_err();
    assert_eq!((error.index, error.error.code()), (14, "game_over"));
}
