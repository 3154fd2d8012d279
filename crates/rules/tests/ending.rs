//! How a game ends (`rules.md` §4 step 9 and §5): winning, resigning, server-policy forfeits, and
//! a finished game refusing everything.

mod common;

use aeroplane_rules::{
    Colour, EndReason, Event, Forfeit, Game, Outcome, Phase, Plane, Position, RuleError,
};
use common::*;

type GameAction = fn(&mut Game, Colour) -> Result<aeroplane_rules::Events, RuleError>;

/// Every action a player can take, for either colour.
const EVERY_ACTION: [(&str, GameAction); 9] = [
    ("roll", |g, c| g.roll(c, die(6))),
    ("move", |g, c| g.move_plane(c, plane(0))),
    ("resign", |g, c| g.resign(c)),
    ("offer", |g, c| g.offer_draw(c)),
    ("accept", |g, c| g.accept_draw(c)),
    ("decline", |g, c| g.decline_draw(c)),
    ("withdraw", |g, c| g.withdraw_draw(c)),
    ("abandon", |g, c| g.forfeit(c, Forfeit::Abandoned)),
    ("time out", |g, c| g.forfeit(c, Forfeit::Timeout)),
];

fn assert_refuses_everything(mut game: Game) {
    assert!(game.is_over());
    for colour in Colour::ALL {
        for (name, action) in EVERY_ACTION {
            let before = game;
            let result = action(&mut game, colour);
            assert_eq!(
                result.map_err(RuleError::code),
                Err("game_over"),
                "{name} by {colour}"
            );
            assert_eq!(game, before, "{name} by {colour} changed a finished game");
        }
    }
}

#[test]
fn finishing_the_fourth_plane_wins_at_once_without_an_extra_roll() {
    let mut game = position("55,f,f,f 10,b,b,b red - 0");
    roll(&mut game, 1);
    let events = move_plane(&mut game, 0);
    let outcome = Outcome {
        winner: Some(RED),
        reason: EndReason::Finished,
    };
    assert_eq!(
        events.as_slice(),
        [
            Event::Moved {
                colour: RED,
                plane: plane(0),
                from: Position::Route(55),
                to: Position::Finished,
                capture: None,
                finished: true,
                extra_roll: false,
            },
            Event::GameOver { outcome },
        ]
    );
    assert_eq!(game.phase(), Phase::Over(outcome));
    assert_eq!(game.outcome(), Some(outcome));
}

#[test]
fn a_winning_six_earns_no_extra_roll_either() {
    let mut game = position("f,f,50,f b,b,b,b red - 1");
    roll(&mut game, 6);
    let events = move_plane(&mut game, 2);
    assert_eq!(extra_rolls(&events), 0);
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            winner: Some(RED),
            reason: EndReason::Finished
        })
    );
}

#[test]
fn yellow_wins_by_finishing_its_fourth_plane() {
    let mut game = position("10,b,b,b f,f,53,f yellow 3 0");
    move_plane(&mut game, 2);
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            winner: Some(YELLOW),
            reason: EndReason::Finished
        })
    );
}

#[test]
fn a_game_won_on_the_board_refuses_every_action() {
    let mut game = position("55,f,f,f 10,b,b,b red 1 0");
    move_plane(&mut game, 0);
    assert_refuses_everything(game);
}

#[test]
fn a_resigned_game_refuses_every_action() {
    let mut game = Game::new();
    game.resign(RED).unwrap();
    assert_refuses_everything(game);
}

#[test]
fn a_drawn_game_refuses_every_action() {
    let mut game = Game::new();
    game.offer_draw(RED).unwrap();
    game.accept_draw(YELLOW).unwrap();
    assert_refuses_everything(game);
}

#[test]
fn a_forfeited_game_refuses_every_action() {
    let mut game = Game::new();
    game.forfeit(YELLOW, Forfeit::Timeout).unwrap();
    assert_refuses_everything(game);
}

#[test]
fn a_player_may_resign_on_its_own_turn_in_either_phase() {
    let awaiting_roll = position("10,b,b,b 5,b,b,b red - 0");
    let awaiting_move = position("10,b,b,b 5,b,b,b red 3 0");
    for mut game in [awaiting_roll, awaiting_move] {
        let events = game.resign(RED).unwrap();
        let outcome = Outcome {
            winner: Some(YELLOW),
            reason: EndReason::Resigned,
        };
        assert_eq!(
            events.as_slice(),
            [Event::Resigned { colour: RED }, Event::GameOver { outcome }]
        );
        assert_eq!(game.outcome(), Some(outcome));
    }
}

#[test]
fn a_player_may_resign_on_the_opponents_turn_in_either_phase() {
    let awaiting_roll = position("10,b,b,b 5,b,b,b red - 0");
    let awaiting_move = position("10,b,b,b 5,b,b,b red 3 0");
    for mut game in [awaiting_roll, awaiting_move] {
        game.resign(YELLOW).unwrap();
        assert_eq!(
            game.outcome(),
            Some(Outcome {
                winner: Some(RED),
                reason: EndReason::Resigned
            })
        );
    }
}

#[test]
fn an_abandonment_or_timeout_makes_the_opponent_the_winner() {
    for (forfeit, reason) in [
        (Forfeit::Abandoned, EndReason::Abandoned),
        (Forfeit::Timeout, EndReason::Timeout),
    ] {
        let mut game = position("10,b,b,b 5,b,b,b yellow 3 0");
        let events = game.forfeit(RED, forfeit).unwrap();
        let outcome = Outcome {
            winner: Some(YELLOW),
            reason,
        };
        assert_eq!(events.as_slice(), [Event::GameOver { outcome }]);
        assert_eq!(game.outcome(), Some(outcome));
        assert_eq!(reason.as_str(), format!("{forfeit:?}").to_lowercase());
    }
}

#[test]
fn every_error_has_a_distinct_stable_code() {
    let codes: Vec<&str> = RuleError::ALL.iter().map(|e| e.code()).collect();
    assert_eq!(
        codes,
        [
            "game_over",
            "not_your_turn",
            "roll_first",
            "move_first",
            "illegal_plane",
            "no_offer",
            "offer_pending",
            "offer_too_soon",
            "not_offer_receiver",
            "not_offer_owner",
        ]
    );
}

#[test]
fn an_unknown_plane_number_does_not_exist() {
    assert_eq!(Plane::new(4), None);
    assert_eq!(Plane::ALL.map(Plane::number), [0, 1, 2, 3]);
}
