//! A scenario per clause of `docs/rules/flights.md`, named after it.

use aeroplane_rules::{
    EndReason, PassReason, RuleError, Rules, Side, Table, TableEvent, TableOutcome, TablePhase,
};

use crate::helpers::{
    assert_refused, die, move_plane, planes, play_and_expect, roll, sent_home, table,
};

#[test]
fn f2_2_two_players_are_red_and_yellow_three_add_blue_four_are_everyone() {
    let seats = |n| {
        Table::new(Rules::FLIGHTS, n)
            .unwrap()
            .sides()
            .collect::<Vec<_>>()
    };
    assert_eq!(seats(2), [Side::Red, Side::Yellow]);
    assert_eq!(seats(3), [Side::Red, Side::Yellow, Side::Blue]);
    assert_eq!(seats(4), Side::ALL);
    assert!(Table::new(Rules::FLIGHTS, 1).is_err());
    assert!(Table::new(Rules::FLIGHTS, 5).is_err());
}

#[test]
fn f2_3_turns_rotate_clockwise_from_red_through_every_seated_colour() {
    for (players, order) in [
        (2, vec![Side::Yellow, Side::Red]),
        (3, vec![Side::Yellow, Side::Blue, Side::Red]),
        (4, vec![Side::Green, Side::Yellow, Side::Blue, Side::Red]),
    ] {
        let mut t = Table::new(Rules::FLIGHTS, players).unwrap();
        for expected in order {
            roll(&mut t, 1);
            assert_eq!(t.to_act(), expected, "{players} players");
        }
    }
}

#[test]
fn f3_3_only_a_six_launches_and_any_hangar_plane_may() {
    let mut t = table("flights red:b,b,b,b yellow:b,b,b,b red - 0 -");
    for value in 1..=5 {
        let mut child = t;
        let events = roll(&mut child, value);
        assert!(matches!(
            events.last(),
            Some(TableEvent::TurnPassed {
                reason: PassReason::NoLegalMove,
                ..
            })
        ));
    }
    roll(&mut t, 6);
    assert_eq!(
        t.phase(),
        TablePhase::AwaitingMove {
            roll: die(6),
            legal: planes(&[0, 1, 2, 3])
        }
    );
}

#[test]
fn f3_5_only_a_six_earns_another_roll_not_a_crash() {
    play_and_expect(
        "flights red:7,b,b,b yellow:36,36,b,b red 3 0 -",
        0,
        "flights red:10,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
    play_and_expect(
        "flights red:7,b,b,b yellow:b,b,b,b red 6 1 -",
        0,
        "flights red:13,b,b,b yellow:b,b,b,b red - 1 0",
    );
}

#[test]
fn f3_6_a_third_six_sends_the_plane_moved_last_home_and_ends_the_turn() {
    let mut t = table("flights red:6,10,b,b yellow:b,b,b,b red - 2 1");
    let events = roll(&mut t, 6);
    assert_eq!(
        t.to_string(),
        "flights red:6,b,b,b yellow:b,b,b,b yellow - 0 -"
    );
    assert!(events.contains(&TableEvent::ThirdSix {
        side: Side::Red,
        returned: planes(&[1])
    }));
}

#[test]
fn f3_6_three_sixes_from_the_start_send_the_launched_and_moved_plane_home() {
    let mut t = Table::new(Rules::FLIGHTS, 2).unwrap();
    roll(&mut t, 6);
    move_plane(&mut t, 0);
    roll(&mut t, 6);
    move_plane(&mut t, 0);
    assert_eq!(
        t.to_string(),
        "flights red:6,b,b,b yellow:b,b,b,b red - 2 0"
    );
    roll(&mut t, 6);
    assert_eq!(
        t.to_string(),
        "flights red:b,b,b,b yellow:b,b,b,b yellow - 0 -"
    );
}

#[test]
fn f3_6_a_plane_that_reached_the_centre_is_not_sent_back_but_one_in_the_runway_is() {
    let mut t = table("flights red:51,10,b,b yellow:b,b,b,b red 6 2 1");
    move_plane(&mut t, 0);
    roll(&mut t, 6);
    assert_eq!(
        t.to_string(),
        "flights red:f,10,b,b yellow:b,b,b,b yellow - 0 -"
    );
    let mut t = table("flights red:53,b,b,b yellow:b,b,b,b red - 2 0");
    roll(&mut t, 6);
    assert_eq!(
        t.to_string(),
        "flights red:b,b,b,b yellow:b,b,b,b yellow - 0 -"
    );
}

#[test]
fn f4_1_a_launch_puts_the_plane_on_its_start_square_and_does_not_jump() {
    play_and_expect(
        "flights red:b,b,b,b yellow:b,b,b,b red 6 1 -",
        2,
        "flights red:b,b,0,b yellow:b,b,b,b red - 1 2",
    );
}

#[test]
fn f4_2_a_launch_crashes_an_enemy_waiting_on_the_start_square() {
    let events = play_and_expect(
        "flights red:b,b,b,b yellow:26,b,b,b red 6 1 -",
        0,
        "flights red:0,b,b,b yellow:b,b,b,b red - 1 0",
    );
    assert_eq!(sent_home(&events), [(Side::Yellow, planes(&[0]))]);
}

#[test]
fn f5_a_plane_that_stops_on_its_own_colour_jumps_four_squares() {
    play_and_expect(
        "flights red:1,b,b,b yellow:b,b,b,b red 3 0 -",
        0,
        "flights red:8,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
}

#[test]
fn f5_a_jump_onto_the_flight_square_continues_with_the_flight() {
    let events = play_and_expect(
        "flights red:29,b,b,b yellow:b,b,b,b red 3 0 -",
        0,
        "flights red:48,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| match e {
            TableEvent::Moved { .. } => "moved",
            TableEvent::Jumped { .. } => "jumped",
            TableEvent::Flew { .. } => "flew",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["moved", "jumped", "flew", "other"]);
}

#[test]
fn f5_a_direct_landing_on_the_flight_square_flies_without_jumping_first() {
    play_and_expect(
        "flights red:30,b,b,b yellow:b,b,b,b red 6 1 -",
        0,
        "flights red:48,b,b,b yellow:b,b,b,b red - 1 0",
    );
}

#[test]
fn f1_7_there_is_no_jump_from_progress_48() {
    play_and_expect(
        "flights red:45,b,b,b yellow:b,b,b,b red 3 0 -",
        0,
        "flights red:48,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
}

#[test]
fn f5_only_the_final_square_crashes_not_the_square_jumped_from() {
    play_and_expect(
        "flights red:2,b,b,b yellow:30,b,b,b red 2 0 -",
        0,
        "flights red:8,b,b,b yellow:30,b,b,b yellow - 0 -",
    );
    play_and_expect(
        "flights red:2,b,b,b yellow:34,b,b,b red 2 0 -",
        0,
        "flights red:8,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
}

#[test]
fn f5_a_flight_crashes_at_its_landing_square_and_nothing_on_its_way() {
    play_and_expect(
        "flights red:30,b,b,b yellow:22,14,b,b red 6 1 -",
        0,
        "flights red:48,b,b,b yellow:b,14,b,b red - 1 0",
    );
}

#[test]
fn f6_2_an_overshoot_bounces_back_from_the_centre() {
    play_and_expect(
        "flights red:54,b,b,b yellow:b,b,b,b red 5 0 -",
        0,
        "flights red:55,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
    let t = table("flights red:56,b,b,b yellow:b,b,b,b red 6 1 -");
    assert_eq!(t.legal_planes(Side::Red, die(6)), planes(&[0, 1, 2, 3]));
}

#[test]
fn f7_1_a_crash_sends_every_enemy_plane_on_the_square_home() {
    let events = play_and_expect(
        "flights red:7,b,b,b yellow:36,36,b,b red 3 0 -",
        0,
        "flights red:10,b,b,b yellow:b,b,b,b yellow - 0 -",
    );
    assert_eq!(sent_home(&events), [(Side::Yellow, planes(&[0, 1]))]);
}

#[test]
fn f7_2_own_planes_share_a_square_but_still_move_alone() {
    let mut t = table("flights red:7,10,b,b yellow:b,b,b,b red 3 0 -");
    move_plane(&mut t, 0);
    assert_eq!(
        t.to_string(),
        "flights red:10,10,b,b yellow:b,b,b,b yellow - 0 -"
    );
    let mut t = table("flights red:10,10,b,b yellow:b,b,b,b red 1 0 -");
    move_plane(&mut t, 0);
    assert_eq!(
        t.to_string(),
        "flights red:11,10,b,b yellow:b,b,b,b yellow - 0 -"
    );
}

#[test]
fn f8_1_the_first_player_to_finish_wins_and_the_game_ends_for_everyone() {
    let mut t = table("flights red:f,f,f,55 yellow:b,b,b,b blue:b,b,b,b red 2 0 -");
    move_plane(&mut t, 3);
    assert_eq!(
        t.outcome(),
        Some(TableOutcome {
            winner: Some(Side::Red),
            reason: EndReason::Finished
        })
    );
    assert_eq!(t.place(Side::Red), Some(1));
    assert_eq!(t.place(Side::Yellow), None);
    assert_refused(&mut t, "game_over", |t| t.roll(Side::Yellow, die(1)));
}

#[test]
fn f8_2_with_three_players_a_resigner_leaves_and_the_last_one_left_wins() {
    let mut t = table("flights red:5,b,b,b yellow:9,b,b,b blue:3,b,b,b yellow - 0 -");
    t.resign(Side::Yellow).unwrap();
    assert_eq!(
        t.to_string(),
        "flights red:5,b,b,b yellow=3:b,b,b,b blue:3,b,b,b blue - 0 -"
    );
    assert_refused(&mut t, "not_your_turn", |t| t.resign(Side::Yellow));
    roll(&mut t, 1);
    assert_eq!(t.to_act(), Side::Blue, "blue moves its plane");
    move_plane(&mut t, 0);
    assert_eq!(t.to_act(), Side::Red, "the turn skips yellow");
    t.resign(Side::Blue).unwrap();
    assert_eq!(
        t.outcome(),
        Some(TableOutcome {
            winner: Some(Side::Red),
            reason: EndReason::Resigned
        })
    );
    assert_eq!(
        [t.place(Side::Red), t.place(Side::Blue)],
        [Some(1), Some(2)]
    );
}

#[test]
fn f8_2_with_two_players_resigning_hands_the_other_the_win() {
    let mut t = Table::new(Rules::FLIGHTS, 2).unwrap();
    t.resign(Side::Red).unwrap();
    assert_eq!(t.outcome().and_then(|o| o.winner), Some(Side::Yellow));
}

#[test]
fn refused_actions_leave_the_table_unchanged() {
    let mut t = table("flights red:5,b,b,b yellow:9,b,b,b red - 0 -");
    assert_refused(&mut t, "not_your_turn", |t| t.roll(Side::Yellow, die(3)));
    assert_refused(&mut t, "roll_first", |t| {
        t.move_plane(Side::Red, crate::helpers::plane(0))
    });
    roll(&mut t, 3);
    assert_refused(&mut t, "illegal_plane", |t| {
        t.move_plane(Side::Red, crate::helpers::plane(1))
    });
    assert_refused(&mut t, "move_first", |t| t.roll(Side::Red, die(3)));
    assert_refused(&mut t, "not_your_turn", |t| t.resign(Side::Blue));
    assert_eq!(RuleError::NotYourTurn.code(), "not_your_turn");
}

#[test]
fn a_preview_shows_what_another_players_move_would_do_without_changing_the_table() {
    let t = table("flights red:7,b,b,b yellow:36,b,b,b red - 0 -");
    let (after, events) = t
        .preview(Side::Red, crate::helpers::plane(0), die(3))
        .unwrap();
    assert_eq!(sent_home(&events), [(Side::Yellow, planes(&[0]))]);
    assert_eq!(
        after.position(Side::Yellow, crate::helpers::plane(0)),
        aeroplane_rules::Position::Base
    );
    assert_eq!(
        t.to_string(),
        "flights red:7,b,b,b yellow:36,b,b,b red - 0 -"
    );
    assert!(
        t.preview(Side::Yellow, crate::helpers::plane(1), die(3))
            .is_none(),
        "in the hangar"
    );
    assert!(
        t.preview(Side::Blue, crate::helpers::plane(0), die(3))
            .is_none(),
        "not seated"
    );
}
