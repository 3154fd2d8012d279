//! Captures (`rules.md` §4 step 7): every opposing plane on the unsafe ring square an advance ends
//! on goes back to its base; nothing else ever captures.

mod common;

use aeroplane_rules::board::SAFE_SQUARES;
use aeroplane_rules::{Capture, Colour, PassReason, Position, RingIndex};
use common::*;

/// The progress a plane of `colour` has on ring square `square`, if it ever visits it.
fn progress_on(colour: Colour, square: u8) -> Option<u8> {
    let progress = (square + 52 - colour.start_square().value()) % 52;
    (progress <= 50).then_some(progress)
}

/// Red's and Yellow's planes in notation, from per-colour entries.
fn notation(red: [&str; 4], yellow: [&str; 4], to_act: Colour) -> String {
    format!(
        "{} {} {} - 0",
        red.join(","),
        yellow.join(","),
        to_act.as_str()
    )
}

#[test]
fn an_advance_onto_an_unsafe_square_captures_every_opposing_plane_there() {
    // Yellow progress 40 is ring 14; progress 41 is ring 15.
    let mut game = position("10,b,b,b 40,40,41,b red - 0");
    roll(&mut game, 4);
    let events = move_plane(&mut game, 0);
    assert_eq!(
        capture(&events),
        Some(Capture {
            colour: YELLOW,
            planes: planes(&[0, 1]),
            square: RingIndex::new(14).unwrap(),
        })
    );
    assert_eq!(
        game.planes(YELLOW),
        [
            Position::Base,
            Position::Base,
            Position::Route(41),
            Position::Base
        ]
    );
    assert_eq!(game.position(RED, plane(0)), Position::Route(14));
}

#[test]
fn yellow_captures_red_planes_across_the_ring_wrap() {
    // Yellow progress 24 is ring 50; four steps on is ring 2, where Red has a plane.
    let mut game = position("2,30,b,b 24,b,b,b yellow - 0");
    roll(&mut game, 4);
    let events = move_plane(&mut game, 0);
    assert_eq!(capture(&events).map(|c| c.colour), Some(Colour::Red));
    assert_eq!(game.planes(RED)[..2], [Position::Base, Position::Route(30)]);
    assert_eq!(
        game.ring_index(YELLOW, plane(0)).map(|s| s.value()),
        Some(2)
    );
}

#[test]
fn nothing_is_captured_on_any_of_the_eight_safe_squares() {
    for square in SAFE_SQUARES.map(|s| s.value()) {
        // Red cannot advance onto its own start square (it never comes round again), so Yellow
        // attacks square 0; Red attacks every other one.
        let mover = if square == 0 { YELLOW } else { RED };
        let victim = mover.opponent();
        let landing = progress_on(mover, square).unwrap();
        let start = (landing - 3).to_string();
        let target = progress_on(victim, square).unwrap().to_string();
        let (red, yellow) = match mover {
            Colour::Red => (
                [start.as_str(), "b", "b", "b"],
                [target.as_str(), "b", "b", "b"],
            ),
            Colour::Yellow => (
                [target.as_str(), "b", "b", "b"],
                [start.as_str(), "b", "b", "b"],
            ),
        };
        let mut game = position(&notation(red, yellow, mover));
        roll(&mut game, 3);
        let events = move_plane(&mut game, 0);
        assert_eq!(
            game.ring_index(mover, plane(0)).map(|s| s.value()),
            Some(square)
        );
        assert_eq!(
            game.ring_index(victim, plane(0)).map(|s| s.value()),
            Some(square),
            "square {square} is safe, yet the plane there was captured"
        );
        assert_eq!(capture(&events), None);
        assert_eq!(
            pass_reason(&events),
            Some(PassReason::Normal),
            "square {square}"
        );
    }
}

#[test]
fn green_and_blue_start_squares_are_safe_for_red_and_yellow_alike() {
    // Nobody plays Green or Blue, yet their start squares, ring 13 and ring 39, are safe.
    // Yellow's progress 39 is ring 13 and its progress 13 is ring 39.
    let game = position("10,36,b,b 39,13,b,b red - 0");
    for (mover, square) in [(0, 13), (1, 39)] {
        let mut game = game;
        roll(&mut game, 3);
        let events = move_plane(&mut game, mover);
        assert_eq!(
            game.ring_index(RED, plane(mover)).map(|s| s.value()),
            Some(square)
        );
        assert_eq!(
            game.planes(YELLOW)[..2],
            [Position::Route(39), Position::Route(13)]
        );
        assert_eq!(pass_reason(&events), Some(PassReason::Normal));
    }
}

#[test]
fn passing_over_an_opposing_plane_captures_nothing() {
    // Yellow progress 38 is ring 12, between Red's 10 and 14.
    let mut game = position("10,b,b,b 38,b,b,b red - 0");
    roll(&mut game, 4);
    let events = move_plane(&mut game, 0);
    assert_eq!(game.position(YELLOW, plane(0)), Position::Route(38));
    assert_eq!(pass_reason(&events), Some(PassReason::Normal));
}

#[test]
fn a_deployment_never_captures() {
    // Yellow progress 26 is ring 0, Red's start square: safe, so they may share it.
    let mut game = position("b,b,b,b 26,b,b,b red - 0");
    roll(&mut game, 6);
    let events = move_plane(&mut game, 0);
    assert_eq!(game.position(YELLOW, plane(0)), Position::Route(26));
    assert_eq!(
        game.ring_index(RED, plane(0)),
        game.ring_index(YELLOW, plane(0))
    );
    assert_eq!(capture(&events), None);
}

#[test]
fn a_plane_entering_its_lane_captures_nothing_on_the_ring() {
    // Red's progress 53 would be ring 1 if the lane were part of the ring; Yellow is on ring 1.
    let mut game = position("50,b,b,b 27,b,b,b red - 0");
    roll(&mut game, 3);
    let events = move_plane(&mut game, 0);
    assert_eq!(game.position(RED, plane(0)), Position::Route(53));
    assert_eq!(game.position(YELLOW, plane(0)), Position::Route(27));
    assert_eq!(pass_reason(&events), Some(PassReason::Normal));
}

#[test]
fn a_capture_sends_planes_back_to_base_from_where_they_must_deploy_again() {
    let mut game = position("10,b,b,b 40,b,b,b red - 0");
    roll(&mut game, 4);
    move_plane(&mut game, 0);
    roll(&mut game, 1);
    move_plane(&mut game, 0);
    assert_eq!(game.to_act(), YELLOW);
    let mut captured = game;
    roll(&mut captured, 5);
    assert_eq!(captured.to_act(), RED, "a plane in base cannot move on a 5");
    roll(&mut game, 6);
    move_plane(&mut game, 0);
    assert_eq!(game.position(YELLOW, plane(0)), Position::Route(0));
}
