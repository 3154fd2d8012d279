//! Perft counts pin every edition's move generator: each line of `tests/data/perft-editions.txt`
//! is checked against `table_perft`, and the smaller ones against the naive implementation of
//! `naive.rs`; `plyyard` on a `Table` must reproduce `Game`'s counts (`tests/data/perft.txt`).

use aeroplane_rules::{Game, Rules, Table, perft, table_perft};

use crate::naive;

const EDITIONS: &str = include_str!("../data/perft-editions.txt");
const PLYYARD: &str = include_str!("../data/perft.txt");

/// The largest counts the naive walk re-derives.
const NAIVE_MAX_LEAVES: u64 = 1_000_000;

struct Line {
    notation: String,
    depth: u32,
    count: u64,
}

fn lines(data: &str) -> Vec<Line> {
    data.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (notation, numbers) = line.split_once(';').expect("`<position> ; <d> <count>`");
            let mut numbers = numbers
                .split_whitespace()
                .map(|n| n.parse::<u64>().unwrap());
            Line {
                notation: notation.trim().to_owned(),
                depth: numbers.next().unwrap() as u32,
                count: numbers.next().unwrap(),
            }
        })
        .collect()
}

#[test]
fn every_editions_perft_count_in_the_data_file_matches() {
    let lines = lines(EDITIONS);
    assert!(lines.len() >= 90, "the data file lost lines");
    for line in lines {
        let table: Table = line.notation.parse().unwrap();
        assert_eq!(
            table_perft(&table, line.depth),
            line.count,
            "perft {} of `{}`",
            line.depth,
            line.notation
        );
    }
}

#[test]
fn the_naive_walk_agrees_with_the_editions_data_file() {
    let mut checked = 0;
    for line in lines(EDITIONS)
        .into_iter()
        .filter(|l| l.count <= NAIVE_MAX_LEAVES)
    {
        let table: Table = line.notation.parse().unwrap();
        assert_eq!(
            naive::perft(&naive::State::from(&table), line.depth),
            line.count,
            "perft {} of `{}`",
            line.depth,
            line.notation
        );
        checked += 1;
    }
    assert!(checked >= 90, "only {checked} lines were cross-checked");
}

#[test]
fn plyyard_on_a_table_reproduces_every_count_of_the_plyyard_data_file() {
    for line in lines(PLYYARD) {
        let game: Game = line.notation.parse().unwrap();
        let fields: Vec<&str> = line.notation.split_whitespace().collect();
        let table: Table = format!(
            "plyyard red:{} yellow:{} {} {} {} -",
            fields[0], fields[1], fields[2], fields[3], fields[4]
        )
        .parse()
        .unwrap();
        assert_eq!(
            table_perft(&table, line.depth),
            line.count,
            "`{}`",
            line.notation
        );
        assert_eq!(perft(&game, line.depth), line.count);
    }
}

#[test]
fn every_edition_and_player_count_has_initial_counts_in_the_data_file() {
    let lines = lines(EDITIONS);
    for (rules, players) in [
        ("flights", 2),
        ("flights", 3),
        ("flights", 4),
        ("classic", 2),
        ("classic", 3),
        ("classic", 4),
        ("classic+jump-after-shortcut", 4),
        ("plyyard", 2),
    ] {
        let initial = Table::new(rules.parse::<Rules>().unwrap(), players).unwrap();
        let notation = initial.to_string();
        assert!(
            lines.iter().any(|l| l.notation == notation && l.depth >= 5),
            "no depth-5 count for `{notation}`"
        );
    }
}

#[test]
fn the_first_classic_counts_follow_from_counting_by_hand() {
    let table = Table::new(Rules::CLASSIC, 2).unwrap();
    // Depth 1: odd values have no legal move (one child each); 2, 4 and 6 may take off any of
    // four planes.
    assert_eq!(table_perft(&table, 1), 3 + 3 * 4);
    // Depth 2: after an odd value, yellow faces the mirror position (15 each). After a take-off
    // with 2 or 4, yellow too (15 each, four ways each). After a take-off with a 6, red rolls again
    // with one plane out: odd values move it (1 each), even ones move it or take off one of three.
    let after_six = 3 + 3 * 4;
    assert_eq!(table_perft(&table, 2), 3 * 15 + 2 * 4 * 15 + 4 * after_six);
}
