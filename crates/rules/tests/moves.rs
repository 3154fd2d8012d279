//! Which planes may move and where they go: deployment, advancing and finishing (`rules.md` §4
//! steps 4–6 and 8).

mod common;

use aeroplane_rules::{Event, Game, PassReason, Phase, Position};
use common::*;

#[test]
fn red_makes_the_first_roll_of_every_game() {
    let mut game = Game::new();
    assert_eq!(game.to_act(), RED);
    assert_eq!(game.phase(), Phase::AwaitingRoll);
    assert_refused(&mut game, "not_your_turn", |g| g.roll(YELLOW, die(6)));
    roll(&mut game, 6);
}

#[test]
fn a_plane_leaves_its_base_only_on_a_six() {
    for value in 1..=5 {
        let mut game = Game::new();
        let events = roll(&mut game, value);
        assert_eq!(
            events[0],
            Event::Rolled {
                colour: RED,
                value: die(value),
                legal: planes(&[])
            },
            "a {value} cannot deploy"
        );
        assert_eq!(pass_reason(&events), Some(PassReason::NoLegalMove));
        assert_eq!(game.planes(RED), [Position::Base; 4]);
        assert_eq!(game.to_act(), YELLOW);
    }
    let mut game = Game::new();
    roll(&mut game, 6);
    assert_eq!(
        game.phase(),
        Phase::AwaitingMove {
            roll: die(6),
            legal: planes(&[0, 1, 2, 3])
        }
    );
}

#[test]
fn deploying_uses_up_the_six_and_does_not_advance_the_plane() {
    let mut game = Game::new();
    roll(&mut game, 6);
    let events = move_plane(&mut game, 2);
    assert_eq!(
        events.as_slice(),
        [Event::Moved {
            colour: RED,
            plane: plane(2),
            from: Position::Base,
            to: Position::Route(0),
            capture: None,
            finished: false,
            extra_roll: true,
        },]
    );
    assert_eq!(game.position(RED, plane(2)), Position::Route(0));
    assert_eq!(game.ring_index(RED, plane(2)).map(|s| s.value()), Some(0));
    assert_eq!(game.to_act(), RED);
    assert_eq!(game.sixes(), 1);
}

#[test]
fn yellow_deploys_onto_its_own_start_square() {
    let mut game = position("10,b,b,b b,b,b,b yellow 6 1");
    move_plane(&mut game, 0);
    assert_eq!(
        game.ring_index(YELLOW, plane(0)).map(|s| s.value()),
        Some(26)
    );
}

#[test]
fn a_six_may_advance_a_plane_instead_of_deploying() {
    let mut game = position("10,b,b,b b,b,b,b red - 0");
    let events = roll(&mut game, 6);
    assert_eq!(
        events[0],
        Event::Rolled {
            colour: RED,
            value: die(6),
            legal: planes(&[0, 1, 2, 3])
        }
    );
    let events = move_plane(&mut game, 0);
    assert_eq!(
        events[0],
        Event::Moved {
            colour: RED,
            plane: plane(0),
            from: Position::Route(10),
            to: Position::Route(16),
            capture: None,
            finished: false,
            extra_roll: true,
        }
    );
    assert_eq!(
        game.planes(RED),
        [
            Position::Route(16),
            Position::Base,
            Position::Base,
            Position::Base
        ]
    );
}

#[test]
fn a_plane_advances_by_the_whole_value_rolled() {
    let mut game = position("10,20,b,b b,b,b,b red - 0");
    roll(&mut game, 4);
    assert_eq!(
        game.phase(),
        Phase::AwaitingMove {
            roll: die(4),
            legal: planes(&[0, 1])
        }
    );
    move_plane(&mut game, 1);
    assert_eq!(game.position(RED, plane(1)), Position::Route(24));
    assert_eq!(game.position(RED, plane(0)), Position::Route(10));
}

#[test]
fn two_planes_on_one_square_are_two_legal_choices() {
    let mut game = position("10,10,b,b b,b,b,b red - 0");
    roll(&mut game, 3);
    assert_eq!(
        game.phase(),
        Phase::AwaitingMove {
            roll: die(3),
            legal: planes(&[0, 1])
        }
    );
}

#[test]
fn a_plane_at_the_lane_mouth_turns_into_its_own_home_lane() {
    let mut game = position("50,b,b,b b,b,b,b red - 0");
    roll(&mut game, 1);
    move_plane(&mut game, 0);
    assert_eq!(game.position(RED, plane(0)), Position::Route(51));
    assert!(game.position(RED, plane(0)).is_in_home_lane());
    assert_eq!(game.ring_index(RED, plane(0)), None);
}

#[test]
fn a_plane_reaching_progress_fifty_six_exactly_finishes() {
    let mut game = position("53,b,b,b b,b,b,b red - 0");
    roll(&mut game, 3);
    let events = move_plane(&mut game, 0);
    assert_eq!(
        events.as_slice(),
        [Event::Moved {
            colour: RED,
            plane: plane(0),
            from: Position::Route(53),
            to: Position::Finished,
            capture: None,
            finished: true,
            extra_roll: true,
        },]
    );
    assert_eq!(game.position(RED, plane(0)), Position::Finished);
    assert_eq!(game.position(RED, plane(0)).progress(), Some(56));
}

#[test]
fn overshooting_the_finish_is_illegal_in_the_lane() {
    let mut game = position("53,20,b,b b,b,b,b red - 0");
    roll(&mut game, 4);
    assert_eq!(
        game.phase(),
        Phase::AwaitingMove {
            roll: die(4),
            legal: planes(&[1])
        }
    );
    assert_refused(&mut game, "illegal_plane", |g| g.move_plane(RED, plane(0)));
    assert_refused(&mut game, "illegal_plane", |g| g.move_plane(RED, plane(2)));
}

#[test]
fn a_lane_plane_that_would_overshoot_leaves_no_legal_move() {
    let mut game = position("53,b,b,b b,b,b,b red - 0");
    let events = roll(&mut game, 4);
    assert_eq!(pass_reason(&events), Some(PassReason::NoLegalMove));
    assert_eq!(game.position(RED, plane(0)), Position::Route(53));
    assert_eq!(game.to_act(), YELLOW);
}

#[test]
fn a_six_from_the_lane_mouth_finishes() {
    let mut game = position("50,b,b,b b,b,b,b red - 0");
    roll(&mut game, 6);
    let events = move_plane(&mut game, 0);
    assert!(finished(&events));
    assert_eq!(game.position(RED, plane(0)), Position::Finished);
}

#[test]
fn a_finished_plane_never_moves_again() {
    let mut game = position("f,b,b,b b,b,b,b red - 0");
    roll(&mut game, 6);
    assert_eq!(
        game.phase(),
        Phase::AwaitingMove {
            roll: die(6),
            legal: planes(&[1, 2, 3])
        }
    );
    assert_refused(&mut game, "illegal_plane", |g| g.move_plane(RED, plane(0)));
}

#[test]
fn a_move_must_wait_for_a_roll_and_a_roll_for_the_pending_move() {
    let mut game = position("10,b,b,b b,b,b,b red - 0");
    assert_refused(&mut game, "roll_first", |g| g.move_plane(RED, plane(0)));
    roll(&mut game, 2);
    assert_refused(&mut game, "move_first", |g| g.roll(RED, die(3)));
    assert_refused(&mut game, "not_your_turn", |g| {
        g.move_plane(YELLOW, plane(0))
    });
    assert_refused(&mut game, "not_your_turn", |g| g.roll(YELLOW, die(3)));
}
