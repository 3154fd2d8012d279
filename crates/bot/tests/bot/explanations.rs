//! Each decision explains itself in one short sentence that matches what the move does.

use aeroplane_bot::{Level, choose};

use super::position;

fn explanation(level: Level, notation: &str) -> String {
    choose(level, &position(notation), 0).unwrap().explanation
}

/// One short sentence: non-empty, one line, no full stop inside, and short enough for a hint.
fn assert_one_short_sentence(text: &str) {
    assert!(!text.trim().is_empty(), "empty explanation");
    assert!(!text.contains('\n'), "{text:?} has more than one line");
    assert!(
        !text.contains(". ") && !text.ends_with('.'),
        "{text:?} is not one sentence"
    );
    assert!(text.len() <= 100, "{text:?} is too long for a hint");
    assert_eq!(text.trim(), text, "{text:?} has stray whitespace");
}

#[test]
fn every_explanation_in_many_positions_is_one_short_sentence() {
    let positions = [
        "10,30,b,b 40,b,b,b red 4 0",
        "b,50,b,b b,b,b,b red 6 1",
        "10,b,20,b b,b,b,b red 6 1",
        "10,20,b,5 b,b,b,b red 3 0",
        "30,5,b,b 2,b,b,b red 4 0",
        "8,20,b,b 31,b,b,b red 2 0",
        "48,12,b,b 19,b,b,b red 4 0",
        "52,53,f,b 3,b,b,b red 2 0",
        "f,f,f,50 b,b,b,b red 6 1",
        "b,b,b,b 4,b,b,b red 6 1",
        "b,30,52,b b,b,12,f yellow 4 0",
    ];
    for notation in positions {
        for level in Level::ALL {
            assert_one_short_sentence(&explanation(level, notation));
        }
    }
}

#[test]
fn a_capture_names_the_victim_and_the_square() {
    assert_eq!(
        explanation(Level::Easy, "10,30,b,b 40,b,b,b red 4 0"),
        "captures Yellow's plane on square 14"
    );
}

#[test]
fn a_capture_of_two_planes_counts_them() {
    assert_eq!(
        explanation(Level::Easy, "10,30,b,b 40,40,b,b red 4 0"),
        "captures 2 of Yellow's planes on square 14"
    );
}

#[test]
fn a_finish_says_which_plane_and_whether_it_wins() {
    assert_eq!(
        explanation(Level::Easy, "b,50,b,b b,b,b,b red 6 1"),
        "finishes plane 2 and rolls again"
    );
    assert_eq!(
        explanation(Level::Normal, "f,f,f,50 b,b,b,b red 6 1"),
        "finishes plane 4 and wins the game"
    );
}

#[test]
fn a_deployment_says_so() {
    assert_eq!(
        explanation(Level::Easy, "10,b,20,b b,b,b,b red 6 1"),
        "deploys plane 2 onto its start square"
    );
}

#[test]
fn an_escape_names_the_opponent_and_the_safe_square() {
    assert_eq!(
        explanation(Level::Normal, "30,5,b,b 2,b,b,b red 4 0"),
        "moves plane 1 out of Yellow's reach to the star on square 34"
    );
}

#[test]
fn keeping_a_plane_on_a_star_says_what_it_avoided() {
    assert_eq!(
        explanation(Level::Normal, "8,20,b,b 31,b,b,b red 2 0"),
        "leaves plane 1 safe on the star on square 8 instead of 5 squares in front of Yellow"
    );
}

#[test]
fn entering_the_home_lane_says_so() {
    assert_eq!(
        explanation(Level::Easy, "48,12,b,b b,b,b,b red 4 0"),
        "moves plane 1 into its home lane"
    );
    assert_eq!(
        explanation(Level::Normal, "48,12,b,b 19,b,b,b red 4 0"),
        "moves threatened plane 1 to safety in its home lane"
    );
}

#[test]
fn easy_says_it_advances_its_leader() {
    assert_eq!(
        explanation(Level::Easy, "10,20,b,5 b,b,b,b red 3 0"),
        "advances its leading plane 2 to square 23"
    );
}

#[test]
fn hints_number_planes_from_one_and_squares_from_the_planes_own_start() {
    // Yellow's plane 1 (the second) stands 10 steps from its start (ring square 36) and captures
    // Red on its 14th step, ring square 40: the hint speaks of plane 2 and square 14, as the
    // browser's move button "Plane 2: square 10 → square 14" does.
    assert_eq!(
        explanation(Level::Easy, "40,b,b,b b,10,b,b yellow 4 0"),
        "captures Red's plane on square 14"
    );
    assert_eq!(
        explanation(Level::Easy, "b,b,b,b b,10,20,b yellow 3 0"),
        "advances its leading plane 3 to square 23"
    );
}
