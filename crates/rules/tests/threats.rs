//! `Game::threats`: which opposing planes could capture on a square with their next roll.

mod common;

use aeroplane_rules::{Colour, Game, RingIndex, Threat};
use common::*;

fn square(index: u8) -> RingIndex {
    RingIndex::new(index).expect("a ring index is 0..=51")
}

fn threats(game: &Game, attacker: Colour, index: u8) -> Vec<(u8, u8)> {
    game.threats(attacker, square(index))
        .iter()
        .map(|Threat { plane, die }| (plane.number(), die.value()))
        .collect()
}

#[test]
fn planes_one_to_six_squares_behind_threaten_a_square_with_the_exact_value() {
    // Yellow planes on ring 30 (progress 4) and 35 (progress 9); square 36 is unsafe.
    let game = position("b,b,b,b 4,9,b,b red - 0");
    assert_eq!(threats(&game, YELLOW, 36), [(0, 6), (1, 1)]);
    assert_eq!(threats(&game, YELLOW, 31), [(0, 1)]);
    assert_eq!(threats(&game, YELLOW, 37), [(1, 2)]);
}

#[test]
fn planes_seven_or_more_squares_behind_or_ahead_do_not_threaten() {
    let game = position("b,b,b,b 4,b,b,b red - 0");
    assert!(threats(&game, YELLOW, 37).is_empty(), "seven squares");
    assert!(threats(&game, YELLOW, 29).is_empty(), "behind the plane");
    assert!(
        threats(&game, YELLOW, 30).is_empty(),
        "the plane's own square"
    );
}

#[test]
fn nothing_threatens_a_safe_square() {
    // Red planes right behind every safe square they can reach.
    let game = position("2,7,12,20 b,b,b,b yellow - 0");
    for safe in [8, 13, 21] {
        assert!(
            threats(&game, RED, safe).is_empty(),
            "square {safe} is safe"
        );
    }
    assert_eq!(threats(&game, RED, 9), [(1, 2)]);
}

#[test]
fn planes_that_would_enter_their_lane_do_not_threaten() {
    // Red's progress 48 is ring 48; ring 50 is its lane mouth, ring 51 and beyond it never visits.
    let game = position("48,b,b,b b,b,b,b yellow - 0");
    assert_eq!(threats(&game, RED, 50), [(0, 2)]);
    assert!(threats(&game, RED, 51).is_empty());
    assert!(threats(&game, RED, 1).is_empty());
    // Yellow's progress 47 is ring 21; ring 24 is its lane mouth and ring 25 it never visits.
    let game = position("b,b,b,b 47,b,b,b red - 0");
    assert_eq!(threats(&game, YELLOW, 24), [(0, 3)]);
    assert!(threats(&game, YELLOW, 25).is_empty());
}

#[test]
fn threats_count_back_across_the_ring_wrap() {
    // Yellow's progress 24 is ring 50; ring 2 is four squares on.
    let game = position("b,b,b,b 24,b,b,b red - 0");
    assert_eq!(threats(&game, YELLOW, 2), [(0, 4)]);
    assert_eq!(threats(&game, YELLOW, 51), [(0, 1)]);
}

#[test]
fn planes_in_base_in_the_lane_or_finished_do_not_threaten() {
    let game = position("b,53,f,10 b,b,b,b yellow - 0");
    assert!(
        threats(&game, RED, 1).is_empty(),
        "a deployment lands on the safe start square"
    );
    assert!(threats(&game, RED, 2).is_empty());
    assert_eq!(threats(&game, RED, 12), [(3, 2)]);
}

#[test]
fn several_planes_on_one_square_are_each_a_threat() {
    let game = position("10,10,b,b b,b,b,b yellow - 0");
    assert_eq!(threats(&game, RED, 14), [(0, 4), (1, 4)]);
}
