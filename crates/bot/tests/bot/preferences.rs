//! What each level prefers in positions where the right move is clear.

use aeroplane_bot::{Level, choose};

use super::position;

fn plane_chosen(level: Level, notation: &str) -> u8 {
    choose(level, &position(notation), 0)
        .unwrap()
        .plane
        .number()
}

// Red at 10 can hit Yellow's plane on ring square 14 (Yellow progress 40) with a 4.
const CAPTURE_AVAILABLE: &str = "10,30,b,b 40,b,b,b red 4 0";

#[test]
fn easy_prefers_a_capture_to_advancing_its_leader() {
    assert_eq!(plane_chosen(Level::Easy, CAPTURE_AVAILABLE), 0);
}

#[test]
fn normal_and_hard_take_a_capture_of_an_advanced_plane() {
    assert_eq!(plane_chosen(Level::Normal, CAPTURE_AVAILABLE), 0);
    assert_eq!(plane_chosen(Level::Hard, CAPTURE_AVAILABLE), 0);
}

#[test]
fn easy_prefers_finishing_to_deploying() {
    assert_eq!(plane_chosen(Level::Easy, "b,50,b,b b,b,b,b red 6 1"), 1);
}

#[test]
fn easy_prefers_deploying_to_advancing() {
    assert_eq!(plane_chosen(Level::Easy, "10,b,20,b b,b,b,b red 6 1"), 1);
}

#[test]
fn easy_otherwise_advances_its_leading_plane() {
    assert_eq!(plane_chosen(Level::Easy, "10,20,b,5 b,b,b,b red 3 0"), 1);
}

// Red's plane 0 on ring square 30 is 2 squares in front of Yellow's plane on 28 (progress 2);
// a 4 takes it to the star on 34. Red's plane 1 on 5 is in no danger either way.
const THREATENED_PLANE: &str = "30,5,b,b 2,b,b,b red 4 0";

#[test]
fn easy_ignores_danger_and_advances_its_leader() {
    // Plane 0 is the leader here too, so move the danger to the trailing plane.
    assert_eq!(plane_chosen(Level::Easy, "5,30,b,b b,b,b,b red 4 0"), 1);
}

#[test]
fn normal_and_hard_move_a_threatened_plane_out_of_reach() {
    assert_eq!(plane_chosen(Level::Normal, THREATENED_PLANE), 0);
    assert_eq!(plane_chosen(Level::Hard, THREATENED_PLANE), 0);
}

// Red's plane 0 sits on the star at 8; Yellow's plane on ring 5 (progress 31) is 3 squares
// behind it. A 2 would take plane 0 to 10, 5 squares in front of Yellow; plane 1 on 20 is safe.
const SAFE_ON_A_STAR: &str = "8,20,b,b 31,b,b,b red 2 0";

#[test]
fn normal_and_hard_leave_a_plane_safe_on_a_star_rather_than_expose_it() {
    assert_eq!(plane_chosen(Level::Normal, SAFE_ON_A_STAR), 1);
    assert_eq!(plane_chosen(Level::Hard, SAFE_ON_A_STAR), 1);
}

#[test]
fn normal_and_hard_walk_into_the_home_lane_rather_than_stay_exposed() {
    // Red's plane 0 on ring 48 (progress 48) is 3 in front of Yellow on 45 (progress 19);
    // a 4 takes it into the home lane, while plane 1 could only advance from 12 to 16.
    let notation = "48,12,b,b 19,b,b,b red 4 0";
    assert_eq!(plane_chosen(Level::Normal, notation), 0);
    assert_eq!(plane_chosen(Level::Hard, notation), 0);
}
