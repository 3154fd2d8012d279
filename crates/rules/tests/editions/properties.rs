//! Property tests: random games of every edition and player count keep every invariant after
//! every step (planes conserved and in range, no plane past the centre, stacks consistent, no two
//! colours on one square, refused actions change nothing, turns rotate clockwise over the players
//! in play, the notation round-trips).

use aeroplane_rules::{
    Die, PassReason, Plane, Position, Rules, Side, Table, TableEvent, TablePhase,
};
use proptest::prelude::*;

fn rules_of(index: u8) -> Rules {
    match index % 4 {
        0 => Rules::PLYYARD,
        1 => Rules::FLIGHTS,
        2 => Rules::CLASSIC,
        _ => Rules::classic_with_jump_after_shortcut(),
    }
}

fn check_invariants(table: &Table) {
    let rules = table.rules();
    let mut owner: [Option<Side>; 52] = [None; 52];
    for side in table.sides() {
        for plane in Plane::ALL {
            let position = table.position(side, plane);
            if let Position::Route(progress) = position {
                assert!(
                    progress < rules.finish(),
                    "a plane past the centre in `{table}`"
                );
            }
            if rules.stacks() {
                let stack = table.stack_of(side, plane);
                assert!(stack.contains(plane));
                for mate in stack.iter() {
                    assert_eq!(
                        table.position(side, mate),
                        position,
                        "a stack split in `{table}`"
                    );
                }
            }
            let Some(square) = Table::ring_square(side, position) else {
                continue;
            };
            if !table.in_play(side) || rules.is_safe(square) {
                continue;
            }
            if let Some(other) = owner[square.value() as usize] {
                assert_eq!(
                    other, side,
                    "two colours share square {square} in `{table}`"
                );
            }
            owner[square.value() as usize] = Some(side);
        }
        if table.place(side).is_some() && !table.is_over() {
            assert_ne!(
                table.to_act(),
                side,
                "a player who is out acts in `{table}`"
            );
        }
    }
    if let TablePhase::AwaitingMove { roll, legal } = table.phase() {
        assert_eq!(legal, table.legal_planes(table.to_act(), roll));
        for plane in legal.iter() {
            for mate in table.stack_of(table.to_act(), plane).iter() {
                assert!(legal.contains(mate), "half a stack is legal in `{table}`");
            }
        }
    }
    if !table.is_over() {
        let text = table.to_string();
        let parsed: Table = text.parse().unwrap_or_else(|e| panic!("`{text}`: {e}"));
        assert_eq!(parsed, *table, "`{text}` does not round-trip");
    }
}

/// A refused action of each kind leaves the table as it was.
fn check_refusals(table: &Table) {
    let mut copy = *table;
    let wrong = table.next_after(table.to_act());
    if wrong != table.to_act() {
        assert!(copy.roll(wrong, Die::ALL[0]).is_err());
    }
    if let TablePhase::AwaitingMove { legal, .. } = table.phase() {
        assert!(copy.roll(table.to_act(), Die::SIX).is_err());
        if let Some(illegal) = Plane::ALL.into_iter().find(|p| !legal.contains(*p)) {
            assert!(copy.move_plane(table.to_act(), illegal).is_err());
        }
    } else {
        assert!(copy.move_plane(table.to_act(), Plane::ALL[0]).is_err());
    }
    assert_eq!(copy, *table, "a refused action changed the table");
}

fn check_step(before: &Table, after: &Table, events: &[TableEvent]) {
    for event in events {
        match *event {
            TableEvent::TurnPassed { from, to, reason } => {
                assert_eq!(to, after.next_after(from), "the turn skipped a player");
                assert!(after.in_play(to));
                if reason == PassReason::VoidThirdSix {
                    assert_eq!(before.sixes(), 2);
                }
            }
            TableEvent::SentHome { side, planes, .. } => {
                assert!(
                    planes
                        .iter()
                        .all(|p| after.position(side, p) == Position::Base)
                );
            }
            _ => {}
        }
    }
    // Progress never goes down except to the hangar, or by a bounce inside the runway.
    for side in before.sides() {
        for plane in Plane::ALL {
            let old = before.position(side, plane).progress();
            let new = after.position(side, plane).progress();
            if let (Some(old), Some(new)) = (old, new)
                && new < old
            {
                assert!(
                    before.rules().bounces() && new > 50,
                    "progress fell in `{before}`"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_games_of_every_edition_keep_every_invariant(
        edition in 0u8..4,
        players in 2usize..=4,
        choices in prop::collection::vec(any::<u8>(), 50..3000),
    ) {
        let rules = rules_of(edition);
        let players = if rules.allows_players(players) { players } else { 2 };
        let mut table = Table::new(rules, players).unwrap();
        for choice in choices {
            if table.is_over() {
                break;
            }
            check_refusals(&table);
            let before = table;
            let side = table.to_act();
            let events = match table.phase() {
                TablePhase::AwaitingRoll => table.roll(side, Die::ALL[choice as usize % 6]),
                TablePhase::AwaitingMove { legal, .. } => {
                    let plane = legal.iter().nth(choice as usize % legal.len()).unwrap();
                    table.move_plane(side, plane)
                }
                TablePhase::Over(_) => unreachable!(),
            }
            .unwrap();
            check_step(&before, &table, &events);
            check_invariants(&table);
        }
    }

    #[test]
    fn a_resignation_at_any_moment_keeps_every_invariant(
        edition in 1u8..4,
        players in 2usize..=4,
        choices in prop::collection::vec(any::<u8>(), 10..200),
        quitter in 0usize..4,
    ) {
        let mut table = Table::new(rules_of(edition), players).unwrap();
        for choice in choices {
            if table.is_over() {
                break;
            }
            let side = table.to_act();
            match table.phase() {
                TablePhase::AwaitingRoll => table.roll(side, Die::ALL[choice as usize % 6]),
                TablePhase::AwaitingMove { legal, .. } => {
                    table.move_plane(side, legal.iter().nth(choice as usize % legal.len()).unwrap())
                }
                TablePhase::Over(_) => unreachable!(),
            }
            .unwrap();
        }
        let quitter = table.sides().nth(quitter % players).unwrap();
        let before = table;
        match table.resign(quitter) {
            Ok(events) => {
                check_step(&before, &table, &events);
                assert!(table.place(quitter).is_some());
                check_invariants(&table);
            }
            Err(_) => assert_eq!(table, before),
        }
    }
}

#[test]
fn random_games_of_every_edition_and_player_count_end_with_a_winner() {
    for (rules, players) in [
        (Rules::FLIGHTS, 2),
        (Rules::FLIGHTS, 4),
        (Rules::CLASSIC, 3),
        (Rules::classic_with_jump_after_shortcut(), 4),
    ] {
        let mut table = Table::new(rules, players).unwrap();
        // A fixed linear congruential sequence stands in for dice and choices.
        let mut state: u32 = 12_345;
        let mut steps = 0;
        while !table.is_over() {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let choice = (state >> 16) as usize;
            let side = table.to_act();
            match table.phase() {
                TablePhase::AwaitingRoll => table.roll(side, Die::ALL[choice % 6]),
                TablePhase::AwaitingMove { legal, .. } => {
                    table.move_plane(side, legal.iter().nth(choice % legal.len()).unwrap())
                }
                TablePhase::Over(_) => unreachable!(),
            }
            .unwrap();
            check_invariants(&table);
            steps += 1;
            assert!(steps < 100_000, "{rules} with {players} never ended");
        }
        let winner = table.outcome().unwrap().winner.unwrap();
        assert_eq!(table.place(winner), Some(1));
        if !rules.ends_at_first_finish() {
            assert!(
                table.sides().all(|s| table.place(s).is_some()),
                "everyone is ranked"
            );
        }
    }
}
