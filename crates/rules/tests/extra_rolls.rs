//! When the same player rolls again and when the turn passes (`rules.md` §4 steps 2, 3, 5, 10 and
//! 11), including the consecutive-six counter and the void third six.

mod common;

use aeroplane_rules::{Event, Game, PassReason, Phase, Position};
use common::*;

/// Asserts that the move just made earned exactly one extra roll for Red.
fn assert_one_extra_roll_for_red(game: &Game, events: &aeroplane_rules::Events) {
    assert_eq!(extra_rolls(events), 1, "{events:?}");
    assert!(
        matches!(
            events.as_slice(),
            [Event::Moved {
                colour: RED,
                extra_roll: true,
                ..
            }]
        ),
        "{events:?}"
    );
    assert_eq!(pass_reason(events), None);
    assert_eq!(game.to_act(), RED);
    assert_eq!(game.phase(), Phase::AwaitingRoll);
}

#[test]
fn a_six_earns_one_extra_roll() {
    let mut game = position("10,b,b,b b,b,b,b red - 0");
    roll(&mut game, 6);
    let events = move_plane(&mut game, 0);
    assert_one_extra_roll_for_red(&game, &events);
    assert_eq!(game.sixes(), 1);
}

#[test]
fn a_capture_earns_one_extra_roll() {
    let mut game = position("10,b,b,b 40,b,b,b red - 0");
    roll(&mut game, 4);
    let events = move_plane(&mut game, 0);
    assert_one_extra_roll_for_red(&game, &events);
    assert_eq!(game.sixes(), 0);
}

#[test]
fn a_finish_earns_one_extra_roll() {
    let mut game = position("52,b,b,b b,b,b,b red - 0");
    roll(&mut game, 4);
    let events = move_plane(&mut game, 0);
    assert_one_extra_roll_for_red(&game, &events);
}

#[test]
fn a_six_that_captures_earns_only_one_extra_roll() {
    // Yellow progress 40 is ring 14, six squares past Red's 8.
    let mut game = position("8,b,b,b 40,40,b,b red - 0");
    roll(&mut game, 6);
    let events = move_plane(&mut game, 0);
    assert!(capture(&events).is_some());
    assert_one_extra_roll_for_red(&game, &events);
    // The one extra roll is one roll: a plain move after it ends the turn.
    roll(&mut game, 2);
    let events = move_plane(&mut game, 0);
    assert_eq!(pass_reason(&events), Some(PassReason::Normal));
    assert_eq!(game.to_act(), YELLOW);
}

#[test]
fn a_six_that_finishes_earns_only_one_extra_roll() {
    let mut game = position("50,10,b,b b,b,b,b red - 0");
    roll(&mut game, 6);
    let events = move_plane(&mut game, 0);
    assert!(finished(&events));
    assert_one_extra_roll_for_red(&game, &events);
    roll(&mut game, 1);
    move_plane(&mut game, 1);
    assert_eq!(game.to_act(), YELLOW);
}

#[test]
fn a_plain_move_passes_the_turn_and_resets_the_counter() {
    let mut game = position("10,b,b,b b,b,b,b red - 1");
    roll(&mut game, 3);
    assert_eq!(game.sixes(), 0);
    let events = move_plane(&mut game, 0);
    assert_eq!(
        events.last(),
        Some(&Event::TurnPassed {
            from: RED,
            to: YELLOW,
            reason: PassReason::Normal
        })
    );
    assert_eq!(game.to_act(), YELLOW);
    assert_eq!(game.sixes(), 0);
}

#[test]
fn a_six_with_no_legal_move_passes_the_turn_without_an_extra_roll() {
    let mut game = position("f,f,f,53 10,b,b,b red - 1");
    let before = game;
    let events = roll(&mut game, 6);
    assert_eq!(
        events.as_slice(),
        [
            Event::Rolled {
                colour: RED,
                value: die(6),
                legal: planes(&[])
            },
            Event::TurnPassed {
                from: RED,
                to: YELLOW,
                reason: PassReason::NoLegalMove
            },
        ]
    );
    assert_eq!(game.to_act(), YELLOW);
    assert_eq!(game.sixes(), 0);
    assert_eq!(game.phase(), Phase::AwaitingRoll);
    assert_eq!(game.planes(RED), before.planes(RED));
    assert_eq!(game.planes(YELLOW), before.planes(YELLOW));
}

#[test]
fn the_third_consecutive_six_is_void_and_earlier_moves_stand() {
    let mut game = Game::new();
    roll(&mut game, 6);
    move_plane(&mut game, 0);
    roll(&mut game, 6);
    move_plane(&mut game, 0);
    assert_eq!(game.sixes(), 2);
    let before = game;
    let events = roll(&mut game, 6);
    assert_eq!(
        events.as_slice(),
        [
            Event::Rolled {
                colour: RED,
                value: die(6),
                legal: planes(&[])
            },
            Event::TurnPassed {
                from: RED,
                to: YELLOW,
                reason: PassReason::VoidThirdSix
            },
        ]
    );
    assert_eq!(game.planes(RED), before.planes(RED));
    assert_eq!(
        game.position(RED, plane(0)),
        Position::Route(6),
        "earlier moves stand"
    );
    assert_eq!(game.to_act(), YELLOW);
    assert_eq!(game.sixes(), 0);
}

#[test]
fn the_third_six_is_void_even_when_it_would_have_had_no_legal_move() {
    let mut game = position("f,f,f,53 10,b,b,b red - 2");
    let events = roll(&mut game, 6);
    assert_eq!(pass_reason(&events), Some(PassReason::VoidThirdSix));
}

#[test]
fn the_turn_passing_resets_the_six_counter_for_the_opponent() {
    let mut game = position("10,b,b,b 5,b,b,b red - 2");
    roll(&mut game, 6);
    assert_eq!(game.to_act(), YELLOW);
    roll(&mut game, 6);
    move_plane(&mut game, 0);
    roll(&mut game, 6);
    assert!(
        matches!(game.phase(), Phase::AwaitingMove { .. }),
        "Yellow's second six is played"
    );
    assert_eq!(game.sixes(), 2);
}

#[test]
fn six_move_four_capture_six_move_six_plays_the_last_six() {
    // Yellow progress 46 is ring 20: Red's plane reaches it with 6 then 4.
    let mut game = position("10,b,b,b 46,b,b,b red - 0");
    roll(&mut game, 6);
    move_plane(&mut game, 0);
    roll(&mut game, 4);
    let events = move_plane(&mut game, 0);
    assert!(capture(&events).is_some());
    assert_eq!(game.sixes(), 0, "a four breaks the run of sixes");
    roll(&mut game, 6);
    move_plane(&mut game, 0);
    let events = roll(&mut game, 6);
    assert_eq!(game.sixes(), 2);
    assert_eq!(pass_reason(&events), None);
    move_plane(&mut game, 0);
    assert_eq!(game.position(RED, plane(0)), Position::Route(32));
    assert_eq!(game.to_act(), RED, "the played six earns its extra roll");
    let events = roll(&mut game, 6);
    assert_eq!(pass_reason(&events), Some(PassReason::VoidThirdSix));
}
