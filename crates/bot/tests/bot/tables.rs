//! The bots at a `Table` of every edition: legal and deterministic, one short sentence in the
//! players' numbering, the easy priorities, and a normal bot that weighs every opponent.

use aeroplane_bot::{Level, choose_table};
use aeroplane_rules::{Die, Plane, Rules, Side, Table, TablePhase};

fn table(notation: &str) -> Table {
    notation
        .parse()
        .unwrap_or_else(|e| panic!("`{notation}`: {e}"))
}

fn choice(level: Level, notation: &str) -> (u8, String) {
    let decision = choose_table(level, &table(notation), 7).unwrap();
    (decision.plane.number() + 1, decision.explanation)
}

#[test]
fn every_level_moves_only_legal_planes_in_games_of_every_edition_and_size() {
    for (rules, players) in [
        (Rules::FLIGHTS, 2),
        (Rules::FLIGHTS, 4),
        (Rules::CLASSIC, 3),
        (Rules::classic_with_jump_after_shortcut(), 4),
        (Rules::PLYYARD, 2),
    ] {
        for level in Level::ALL {
            let mut t = Table::new(rules, players).unwrap();
            let mut seed = 99u64;
            for _ in 0..300 {
                if t.is_over() {
                    break;
                }
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let side = t.to_act();
                match t.phase() {
                    TablePhase::AwaitingRoll => {
                        t.roll(side, Die::ALL[(seed >> 33) as usize % 6]).unwrap();
                    }
                    TablePhase::AwaitingMove { legal, .. } => {
                        let decision = choose_table(level, &t, seed).unwrap();
                        assert!(legal.contains(decision.plane));
                        assert_eq!(choose_table(level, &t, seed).unwrap(), decision);
                        let text = &decision.explanation;
                        assert!(!text.is_empty() && text.len() <= 100, "{text:?}");
                        assert!(!text.contains('.') && !text.contains('\n'), "{text:?}");
                        t.move_plane(side, decision.plane).unwrap();
                    }
                    TablePhase::Over(_) => unreachable!(),
                }
            }
        }
    }
}

#[test]
fn a_table_awaiting_a_roll_gets_no_decision() {
    assert!(choose_table(Level::Hard, &Table::new(Rules::FLIGHTS, 3).unwrap(), 0).is_err());
}

#[test]
fn easy_sends_an_opponent_home_when_it_can_and_says_so_in_the_players_numbering() {
    assert_eq!(
        choice(
            Level::Easy,
            "flights red:20,7,b,b yellow:36,b,b,b red 3 0 -"
        ),
        (
            2,
            "moves plane 2 to square 10, sending Yellow's plane home".to_owned()
        )
    );
}

#[test]
fn a_hint_tells_the_jump_and_the_flight() {
    assert_eq!(
        choice(Level::Easy, "flights red:29,b,b,b yellow:b,b,b,b red 3 0 -").1,
        "moves plane 1 to square 32, jumps to square 36 and flies to square 48"
    );
}

#[test]
fn a_classic_hint_names_the_stack() {
    assert_eq!(
        choice(
            Level::Easy,
            "classic red:10,10,b,b yellow:b,b,b,b red 1 0 -"
        )
        .1,
        "moves the stack of planes 1 and 2 to square 11"
    );
}

#[test]
fn normal_keeps_away_from_an_opponent_who_does_not_roll_next() {
    // Red may move plane 1 from 1 to 6 (ring 6, which blue's plane at its 17th step, ring 4,
    // reaches with a 2) or plane 2 from 40 to 45, out of everyone's reach. Blue rolls after
    // yellow, but it is weighed all the same.
    let notation = "flights red:1,40,b,b yellow:b,b,b,b blue:17,b,b,b red 5 0 -";
    assert_eq!(choice(Level::Normal, notation).0, 2);
    assert_eq!(choice(Level::Hard, notation).0, 2);
}

#[test]
fn normal_and_hard_take_the_win_when_it_is_there() {
    for level in [Level::Normal, Level::Hard] {
        let (plane, text) = choice(level, "classic red:f,f,f,55 yellow:10,b,b,b red 2 0 -");
        assert_eq!(plane, 4);
        assert_eq!(text, "brings plane 4 to the centre and wins the game");
    }
}

#[test]
fn the_plane_numbers_of_a_decision_are_the_crates_numbers() {
    let decision = choose_table(
        Level::Easy,
        &table("flights red:b,b,b,b yellow:b,b,b,b red 6 1 -"),
        0,
    )
    .unwrap();
    assert_eq!(decision.plane, Plane::ALL[0]);
    assert_eq!(decision.explanation, "launches plane 1");
    assert_eq!(Side::Red.as_str(), "red");
}
