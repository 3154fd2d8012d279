//! The position notation of `rules.md` §7: printing, parsing, round trips and every rejection.

mod common;

use aeroplane_rules::{Colour, Die, Game, Phase, Position, PositionError};
use common::*;

/// Asserts that `notation` is rejected with `expected`, and that the message mentions `reason`.
fn assert_rejected(notation: &str, expected: PositionError, reason: &str) {
    let error = notation.parse::<Game>().expect_err(notation);
    assert_eq!(error, expected, "`{notation}`");
    let message = error.to_string();
    assert!(
        message.contains(reason),
        "`{notation}`: message `{message}` does not say `{reason}`"
    );
}

#[test]
fn the_initial_position_prints_as_in_the_rules() {
    assert_eq!(Game::new().to_string(), "b,b,b,b b,b,b,b red - 0");
    assert_eq!(Game::new().notation(), "b,b,b,b b,b,b,b red - 0");
    assert_eq!(position("b,b,b,b b,b,b,b red - 0"), Game::new());
}

#[test]
fn the_example_from_the_rules_parses_into_the_position_it_describes() {
    let game = position("b,b,12,f b,30,52,b yellow 4 0");
    assert_eq!(
        game.planes(RED),
        [
            Position::Base,
            Position::Base,
            Position::Route(12),
            Position::Finished
        ]
    );
    assert_eq!(
        game.planes(YELLOW),
        [
            Position::Base,
            Position::Route(30),
            Position::Route(52),
            Position::Base
        ]
    );
    assert_eq!(game.to_act(), YELLOW);
    assert_eq!(
        game.phase(),
        Phase::AwaitingMove {
            roll: die(4),
            legal: planes(&[1, 2])
        }
    );
    assert_eq!(game.sixes(), 0);
    let mut finishing = game;
    move_plane(&mut finishing, 2);
    assert_eq!(finishing.position(YELLOW, plane(2)), Position::Finished);
}

#[test]
fn printing_and_parsing_round_trip() {
    for notation in [
        "b,b,b,b b,b,b,b red - 0",
        "b,b,12,f b,30,52,b yellow 4 0",
        "0,55,f,b 26,0,b,f red 6 1",
        "10,10,10,10 5,5,5,5 yellow - 2",
        "50,51,52,53 47,48,49,50 red 6 2",
    ] {
        let game = position(notation);
        assert_eq!(game.to_string(), notation);
        assert_eq!(position(&game.to_string()), game);
    }
}

#[test]
fn a_finished_game_prints_but_does_not_parse() {
    let mut game = position("55,f,f,f 10,b,b,b red 1 0");
    move_plane(&mut game, 0);
    assert_eq!(game.to_string(), "f,f,f,f 10,b,b,b red - 0");
    assert_eq!(
        game.to_string().parse::<Game>(),
        Err(PositionError::AllFinished(Colour::Red))
    );
}

#[test]
fn a_line_with_the_wrong_number_of_fields_is_rejected() {
    assert_rejected("", PositionError::FieldCount(0), "expected 5");
    assert_rejected(
        "b,b,b,b b,b,b,b red -",
        PositionError::FieldCount(4),
        "found 4",
    );
    assert_rejected(
        "b,b,b,b b,b,b,b red - 0 0",
        PositionError::FieldCount(6),
        "found 6",
    );
}

#[test]
fn a_plane_entry_that_is_not_b_f_or_a_progress_up_to_55_is_rejected() {
    for (text, bad) in [
        ("56", "56"),
        ("-1", "-1"),
        ("x", "x"),
        ("", ""),
        ("B", "B"),
        ("+3", "+3"),
    ] {
        let notation = format!("b,{text},b,b b,b,b,b red - 0");
        let expected = PositionError::PlaneValue {
            colour: Colour::Red,
            plane: plane(1),
            text: bad.to_owned(),
        };
        assert_rejected(
            &notation,
            expected,
            "is not `b`, `f` or a number from 0 to 55",
        );
    }
    let expected = PositionError::PlaneValue {
        colour: Colour::Yellow,
        plane: plane(3),
        text: "999".into(),
    };
    assert_rejected("b,b,b,b b,b,b,999 red - 0", expected, "Yellow's plane 3");
}

#[test]
fn a_player_without_exactly_four_planes_is_rejected() {
    assert_rejected(
        "b,b,b b,b,b,b red - 0",
        PositionError::PlaneCount {
            colour: Colour::Red,
            found: 3,
        },
        "expected 4",
    );
    assert_rejected(
        "b,b,b,b b,b,b,b,b red - 0",
        PositionError::PlaneCount {
            colour: Colour::Yellow,
            found: 5,
        },
        "found 5",
    );
}

#[test]
fn a_player_to_act_other_than_red_or_yellow_is_rejected() {
    for text in ["green", "Red", "r", "-"] {
        let notation = format!("b,b,b,b b,b,b,b {text} - 0");
        assert_rejected(
            &notation,
            PositionError::ToAct(text.to_owned()),
            "is not `red` or `yellow`",
        );
    }
}

#[test]
fn a_pending_roll_other_than_a_dash_or_one_to_six_is_rejected() {
    for text in ["0", "7", "x", "--", "-6"] {
        let notation = format!("10,b,b,b b,b,b,b red {text} 0");
        assert_rejected(
            &notation,
            PositionError::PendingRoll(text.to_owned()),
            "pending roll",
        );
    }
}

#[test]
fn a_six_counter_other_than_zero_one_or_two_is_rejected() {
    for text in ["3", "-1", "x", "9"] {
        let notation = format!("10,b,b,b b,b,b,b red - {text}");
        assert_rejected(
            &notation,
            PositionError::SixCounter(text.to_owned()),
            "six counter",
        );
    }
}

#[test]
fn a_pending_roll_with_no_legal_plane_is_rejected() {
    assert_rejected(
        "b,b,b,b b,b,b,b red 3 0",
        PositionError::NoLegalPlane(die(3)),
        "no plane can move",
    );
    assert_rejected(
        "f,f,f,53 b,b,b,b red 6 1",
        PositionError::NoLegalPlane(Die::SIX),
        "6 is pending",
    );
}

#[test]
fn a_pending_six_needs_a_six_counter_of_one_or_two() {
    assert_rejected(
        "b,b,b,b b,b,b,b red 6 0",
        PositionError::PendingSixWithoutCounter,
        "must be 1 or 2",
    );
    position("b,b,b,b b,b,b,b red 6 1");
    position("b,b,b,b b,b,b,b red 6 2");
}

#[test]
fn a_pending_value_other_than_six_needs_a_six_counter_of_zero() {
    for counter in [1, 2] {
        let notation = format!("10,b,b,b b,b,b,b red 3 {counter}");
        assert_rejected(
            &notation,
            PositionError::PendingNonSixWithCounter(die(3)),
            "must be 0",
        );
    }
    // While a roll is awaited, any counter up to 2 is fine: sixes earned the extra rolls.
    position("10,b,b,b b,b,b,b red - 2");
}

#[test]
fn a_player_with_all_four_planes_finished_is_rejected() {
    assert_rejected(
        "10,b,b,b f,f,f,f red - 0",
        PositionError::AllFinished(Colour::Yellow),
        "the game would be over",
    );
    position("10,b,b,b f,f,f,55 red - 0");
}

#[test]
fn opposing_planes_together_on_an_unsafe_ring_square_are_rejected() {
    // Yellow's progress 40 is ring 14; its progress 30 is ring 4.
    assert_rejected(
        "14,b,b,b 40,b,b,b red - 0",
        PositionError::Collision(aeroplane_rules::RingIndex::new(14).unwrap()),
        "unsafe ring square 14",
    );
    assert_rejected(
        "b,b,4,b b,30,b,b yellow - 0",
        PositionError::Collision(aeroplane_rules::RingIndex::new(4).unwrap()),
        "together",
    );
}

#[test]
fn opposing_planes_together_on_a_safe_square_are_accepted() {
    // Ring 8 (a star) is Red's 8 and Yellow's 34; ring 39 (Blue's start) is Red's 39 and Yellow's 13.
    let game = position("8,39,b,b 34,13,b,b red - 0");
    assert_eq!(
        game.ring_index(RED, plane(0)),
        game.ring_index(YELLOW, plane(0))
    );
    assert_eq!(
        game.ring_index(RED, plane(1)),
        game.ring_index(YELLOW, plane(1))
    );
}

#[test]
fn lane_squares_of_different_colours_never_collide() {
    // Red's 53 and Yellow's 27 would both be ring 1 if the lane were part of the ring.
    position("53,b,b,b 27,b,b,b red - 0");
}

#[test]
fn extra_whitespace_between_fields_is_tolerated() {
    assert_eq!(position("  b,b,b,b   b,b,b,b red  - 0 "), Game::new());
}
