//! A scenario per clause of `docs/rules/classic.md`, named after it.

use aeroplane_rules::{EndReason, PassReason, Rules, Side, Table, TableEvent, TableOutcome};

use crate::helpers::{die, move_plane, planes, play_and_expect, roll, sent_home, table};

#[test]
fn c3_2_any_even_number_takes_off_and_uses_the_roll() {
    play_and_expect(
        "classic red:b,b,b,b yellow:b,b,b,b red 2 0 -",
        0,
        "classic red:0,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
    let t = Table::new(Rules::CLASSIC, 4).unwrap();
    for (value, legal) in [(1, 0), (2, 4), (3, 0), (4, 4), (5, 0), (6, 4)] {
        assert_eq!(
            t.legal_planes(Side::Red, die(value)).len(),
            legal,
            "roll {value}"
        );
    }
}

#[test]
fn c3_3_an_odd_roll_with_every_plane_in_the_hangar_passes_the_turn() {
    let mut t = Table::new(Rules::CLASSIC, 3).unwrap();
    let events = roll(&mut t, 3);
    assert!(events.contains(&TableEvent::TurnPassed {
        from: Side::Red,
        to: Side::Yellow,
        reason: PassReason::NoLegalMove
    }));
}

#[test]
fn c3_4_a_six_gives_another_roll_and_sending_home_does_not() {
    play_and_expect(
        "classic red:b,b,b,b yellow:b,b,b,b red 6 1 -",
        0,
        "classic red:0,b,b,b yellow:b,b,b,b red - 1 0",
    );
    play_and_expect(
        "classic red:2,b,b,b yellow:29,b,b,b red 1 0 -",
        0,
        "classic red:3,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
}

#[test]
fn c3_5_a_third_six_sends_every_plane_moved_by_the_first_two_home() {
    let mut t = table("classic red:12,12,6,b yellow:b,b,b,b red - 2 012");
    let events = roll(&mut t, 6);
    assert_eq!(
        t.to_string(),
        "classic red:b,b,b,b yellow:b,b,b,b yellow - 0 -"
    );
    assert!(events.contains(&TableEvent::ThirdSix {
        side: Side::Red,
        returned: planes(&[0, 1, 2])
    }));
}

#[test]
fn c3_5_planes_taken_off_and_moved_by_two_sixes_return_but_others_stay() {
    let mut t = table("classic red:b,b,b,9 yellow:b,b,b,b red - 0 -");
    roll(&mut t, 6);
    move_plane(&mut t, 0);
    roll(&mut t, 6);
    move_plane(&mut t, 1);
    assert_eq!(
        t.to_string(),
        "classic red:0,0,b,9 yellow:b,b,b,b red - 2 01"
    );
    roll(&mut t, 6);
    assert_eq!(
        t.to_string(),
        "classic red:b,b,b,9 yellow:b,b,b,b yellow - 0 -"
    );
}

#[test]
fn c3_5_a_plane_that_reached_the_centre_is_not_sent_back() {
    let mut t = table("classic red:51,5,b,b yellow:b,b,b,b red 6 2 1");
    move_plane(&mut t, 0);
    roll(&mut t, 6);
    assert_eq!(
        t.to_string(),
        "classic red:f,b,b,b yellow:b,b,b,b yellow - 0 -"
    );
}

#[test]
fn c4_1_a_take_off_sends_home_an_opponent_on_the_start_square_and_joins_own_planes() {
    let events = play_and_expect(
        "classic red:b,b,b,b yellow:26,b,b,b red 4 0 -",
        3,
        "classic red:b,b,b,0 yellow:b,b,b,b yellow - 0 -",
    );
    assert_eq!(sent_home(&events), [(Side::Yellow, planes(&[0]))]);
    let mut t = table("classic red:0,b,b,b yellow:b,b,b,b red 4 0 -");
    move_plane(&mut t, 1);
    assert_eq!(
        t.stack_of(Side::Red, crate::helpers::plane(0)),
        planes(&[0, 1])
    );
}

#[test]
fn c5_landing_on_an_opponent_sends_it_home_and_the_jump_still_follows() {
    play_and_expect(
        "classic red:1,b,b,b yellow:30,b,b,b red 3 0 -",
        0,
        "classic red:8,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
}

#[test]
fn c5_a_jump_sends_home_the_opponents_on_the_squares_it_passes_and_lands_on() {
    play_and_expect(
        "classic red:1,b,b,b yellow:32,b,b,b red 3 0 -",
        0,
        "classic red:8,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
    play_and_expect(
        "classic red:1,b,b,b yellow:34,b,b,b red 3 0 -",
        0,
        "classic red:8,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
    play_and_expect(
        "classic red:1,b,b,b yellow:35,b,b,b red 3 0 -",
        0,
        "classic red:8,b,b,b yellow:35,b,b,b yellow - 0 -",
    );
}

#[test]
fn c5_a_jump_onto_the_shortcut_square_takes_the_shortcut() {
    play_and_expect(
        "classic red:13,b,b,b yellow:b,b,b,b red 3 0 -",
        0,
        "classic red:32,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
}

#[test]
fn c5_a_shortcut_sends_home_the_plane_in_the_crossed_lane_and_on_its_landing_square() {
    play_and_expect(
        "classic red:17,b,b,b yellow:53,6,b,b red 3 0 -",
        0,
        "classic red:32,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
}

#[test]
fn c5_only_the_opposite_colour_lane_is_crossed() {
    play_and_expect(
        "classic red:17,b,b,b green:53,b,b,b yellow:b,b,b,b blue:53,b,b,b red 3 0 -",
        0,
        "classic red:32,b,b,b green:53,b,b,b yellow:b,b,b,b blue:53,b,b,b green - 0 -",
    );
}

#[test]
fn c5_the_house_rule_lets_a_direct_landing_on_the_shortcut_jump_afterwards() {
    play_and_expect(
        "classic red:17,b,b,b yellow:b,b,b,b red 3 0 -",
        0,
        "classic red:32,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
    play_and_expect(
        "classic+jump-after-shortcut red:17,b,b,b yellow:b,b,b,b red 3 0 -",
        0,
        "classic+jump-after-shortcut red:36,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
    play_and_expect(
        "classic+jump-after-shortcut red:13,b,b,b yellow:b,b,b,b red 3 0 -",
        0,
        "classic+jump-after-shortcut red:32,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
}

#[test]
fn c7_a_plane_landing_on_its_own_plane_stacks_and_the_stack_moves_as_one() {
    play_and_expect(
        "classic red:10,7,b,b yellow:b,b,b,b red 3 0 -",
        1,
        "classic red:10,10,b,b yellow:b,b,b,b yellow - 0 -",
    );
    let events = play_and_expect(
        "classic red:10,10,b,b yellow:b,b,b,b red 2 0 -",
        1,
        "classic red:16,16,b,b yellow:b,b,b,b yellow - 0 -",
    );
    assert!(events.contains(&TableEvent::Jumped {
        side: Side::Red,
        planes: planes(&[0, 1]),
        from: 12,
        to: 16
    }));
}

#[test]
fn c6_2_a_stack_sent_home_comes_apart_in_the_hangar() {
    let events = play_and_expect(
        "classic red:10,10,b,b yellow:33,b,b,b yellow 3 0 -",
        0,
        "classic red:b,b,b,b yellow:40,b,b,b red - 0 -",
    );
    assert_eq!(sent_home(&events), [(Side::Red, planes(&[0, 1]))]);
}

#[test]
fn c7_2_a_stack_reaches_the_centre_together_on_an_exact_roll() {
    play_and_expect(
        "classic red:54,54,b,b yellow:b,b,b,b red 3 0 -",
        0,
        "classic red:f,f,b,b yellow:b,b,b,b yellow - 0 -",
    );
}

#[test]
fn c8_1_a_roll_past_the_centre_is_not_a_legal_move() {
    let t = table("classic red:55,b,b,b yellow:b,b,b,b red - 0 -");
    assert!(t.legal_planes(Side::Red, die(3)).is_empty());
    assert_eq!(t.legal_planes(Side::Red, die(2)), planes(&[0, 1, 2, 3]));
}

#[test]
fn c9_play_goes_on_until_only_one_loser_remains() {
    let mut t = table("classic red:f,f,f,55 yellow:40,b,b,b blue:2,b,b,b red 2 0 -");
    move_plane(&mut t, 3);
    assert_eq!(
        t.to_string(),
        "classic red=1:f,f,f,f yellow:40,b,b,b blue:2,b,b,b yellow - 0 -"
    );
    assert!(!t.is_over());
    let mut t = table("classic red=1:f,f,f,f yellow:f,f,f,54 blue:2,b,b,b yellow 3 0 -");
    move_plane(&mut t, 3);
    assert_eq!(
        t.outcome(),
        Some(TableOutcome {
            winner: Some(Side::Red),
            reason: EndReason::Finished
        })
    );
    assert_eq!(
        [Side::Red, Side::Yellow, Side::Blue].map(|s| t.place(s)),
        [Some(1), Some(2), Some(3)]
    );
}

#[test]
fn c9_2_with_two_players_the_first_to_finish_wins() {
    let mut t = table("classic red:f,f,f,55 yellow:40,b,b,b red 2 0 -");
    move_plane(&mut t, 3);
    assert_eq!(t.outcome().and_then(|o| o.winner), Some(Side::Red));
    assert_eq!(t.place(Side::Yellow), Some(2));
}

#[test]
fn c9_1_a_player_who_finishes_with_a_six_does_not_roll_again() {
    let mut t = table("classic red:f,f,f,51 yellow:40,b,b,b blue:2,b,b,b red 6 1 -");
    move_plane(&mut t, 3);
    assert_eq!(t.to_act(), Side::Yellow);
}
