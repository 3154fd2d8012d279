//! Perft counts pin the move generator: every line of `tests/data/perft.txt` is checked against
//! `aeroplane_rules::perft`, and the smaller ones also against a naive second implementation of
//! `rules.md` §4 written here from the spec, so the data file does not only confirm itself.

use aeroplane_rules::{Colour, Game, Phase, Position, perft};

const DATA: &str = include_str!("data/perft.txt");

/// The deepest counts the naive walk re-derives (it is slower, and these already cover every rule).
const NAIVE_MAX_LEAVES: u64 = 1_000_000;

struct Line {
    notation: String,
    depth: u32,
    count: u64,
}

fn lines() -> Vec<Line> {
    DATA.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|(number, line)| {
            parse_line(line).unwrap_or_else(|| {
                panic!(
                    "perft.txt line {}: `{line}` is not `<position> ; <depth> <count>`",
                    number + 1
                )
            })
        })
        .collect()
}

fn parse_line(line: &str) -> Option<Line> {
    let (notation, numbers) = line.split_once(';')?;
    let numbers: Vec<&str> = numbers.split_whitespace().collect();
    let [depth, count] = numbers[..] else {
        return None;
    };
    Some(Line {
        notation: notation.trim().to_owned(),
        depth: depth.parse().ok()?,
        count: count.parse().ok()?,
    })
}

#[test]
fn every_perft_count_in_the_data_file_matches() {
    let lines = lines();
    assert!(lines.len() >= 8 + 5 * 4, "the data file lost lines");
    for Line {
        notation,
        depth,
        count,
    } in lines
    {
        let game: Game = notation
            .parse()
            .unwrap_or_else(|e| panic!("`{notation}`: {e}"));
        assert_eq!(perft(&game, depth), count, "perft {depth} of `{notation}`");
    }
}

#[test]
fn the_naive_walk_agrees_with_the_data_file() {
    let mut checked = 0;
    for Line {
        notation,
        depth,
        count,
    } in lines().into_iter().filter(|l| l.count <= NAIVE_MAX_LEAVES)
    {
        let game: Game = notation.parse().unwrap();
        assert_eq!(
            naive::perft(&naive::State::from(&game), depth),
            count,
            "perft {depth} of `{notation}`"
        );
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} lines were cross-checked");
}

#[test]
fn the_first_initial_counts_follow_from_counting_by_hand() {
    let game = Game::new();
    // Depth 1: the values 1 to 5 have no legal move (one child each); a 6 deploys any of 4 planes.
    let depth1 = 5 + 4;
    assert_eq!(perft(&game, 1), depth1);
    // Depth 2: after 1 to 5, Yellow faces the mirror of the initial position (9 each). After a
    // deployment Red rolls again with one plane on its start: 1 to 5 move it (1 each), and a 6 may
    // move it or deploy one of the other three (4).
    let after_deploy1 = 5 + 4;
    let depth2 = 5 * depth1 + 4 * after_deploy1;
    assert_eq!(perft(&game, 2), depth2);
    // Depth 3: after a deployment, 1 to 5 pass the turn to a Yellow with all planes in base (9
    // each). A second 6 either moves the deployed plane to 6 (then 1 to 5 move it, the third 6 is
    // void: 6) or deploys a second plane (then 1 to 5 move either of two planes, the third 6 is
    // void: 11) in three ways.
    let after_deploy2 = 5 * depth1 + (5 + 1) + 3 * (5 * 2 + 1);
    let depth3 = 5 * depth2 + 4 * after_deploy2;
    assert_eq!(perft(&game, 3), depth3);
    assert_eq!([depth1, depth2, depth3], [9, 81, 741]);
}

#[test]
fn a_finished_game_and_depth_zero_are_single_leaves() {
    let mut game: Game = "55,f,f,f 10,b,b,b red 1 0".parse().unwrap();
    assert_eq!(perft(&game, 0), 1, "a pending choice with one legal plane");
    assert_eq!(perft(&Game::new(), 0), 1);
    game.move_plane(Colour::Red, aeroplane_rules::Plane::ALL[0])
        .unwrap();
    assert!(game.is_over());
    assert_eq!(perft(&game, 5), 1);
}

/// A second, deliberately plain implementation of `rules.md` §4, sharing no code with the crate.
mod naive {
    use super::*;

    const SAFE: [usize; 8] = [0, 8, 13, 21, 26, 34, 39, 47];
    const START: [usize; 2] = [0, 26];
    const BASE: i32 = -1;
    const FINISH: i32 = 56;

    /// Plane progress per colour (`-1` base, `56` finished), who acts, the six counter, and the
    /// pending roll if a plane choice is awaited.
    #[derive(Clone, Copy)]
    pub(super) struct State {
        planes: [[i32; 4]; 2],
        to_act: usize,
        sixes: u32,
        pending: Option<i32>,
    }

    impl From<&Game> for State {
        fn from(game: &Game) -> State {
            let progress = |p: Position| match p {
                Position::Base => BASE,
                Position::Route(p) => i32::from(p),
                Position::Finished => FINISH,
            };
            State {
                planes: [Colour::Red, Colour::Yellow].map(|c| game.planes(c).map(progress)),
                to_act: if game.to_act() == Colour::Red { 0 } else { 1 },
                sixes: u32::from(game.sixes()),
                pending: match game.phase() {
                    Phase::AwaitingMove { roll, .. } => Some(i32::from(roll.value())),
                    _ => None,
                },
            }
        }
    }

    fn ring(colour: usize, progress: i32) -> Option<usize> {
        (0..=50)
            .contains(&progress)
            .then(|| (START[colour] + progress as usize) % 52)
    }

    fn legal(state: &State, roll: i32) -> Vec<usize> {
        (0..4)
            .filter(|&i| {
                let p = state.planes[state.to_act][i];
                if p == BASE {
                    roll == 6
                } else {
                    p != FINISH && p + roll <= FINISH
                }
            })
            .collect()
    }

    fn pass(state: &State) -> State {
        State {
            to_act: 1 - state.to_act,
            sixes: 0,
            pending: None,
            ..*state
        }
    }

    /// Plays plane `i` for the pending roll; returns the next state, or `None` if the game ended.
    fn play(state: &State, i: usize) -> Option<State> {
        let roll = state.pending.unwrap();
        let me = state.to_act;
        let mut next = State {
            pending: None,
            ..*state
        };
        let from = next.planes[me][i];
        let mut bonus = roll == 6;
        if from == BASE {
            next.planes[me][i] = 0;
        } else {
            let to = from + roll;
            next.planes[me][i] = to;
            if to == FINISH {
                if next.planes[me].iter().all(|p| *p == FINISH) {
                    return None;
                }
                bonus = true;
            }
            if let Some(square) = ring(me, to).filter(|s| !SAFE.contains(s)) {
                for p in next.planes[1 - me].iter_mut() {
                    if ring(1 - me, *p) == Some(square) {
                        *p = BASE;
                        bonus = true;
                    }
                }
            }
        }
        Some(if bonus { next } else { pass(&next) })
    }

    /// Leaves `depth` rolls below `state`, counted the way `tests/data/perft.txt` describes.
    pub(super) fn perft(state: &State, depth: u32) -> u64 {
        if let Some(roll) = state.pending {
            return legal(state, roll)
                .into_iter()
                .map(|i| play(state, i).map_or(1, |next| perft(&next, depth)))
                .sum();
        }
        if depth == 0 {
            return 1;
        }
        (1..=6)
            .map(|roll| {
                let sixes = if roll == 6 { state.sixes + 1 } else { 0 };
                let rolled = State {
                    sixes,
                    pending: Some(roll),
                    ..*state
                };
                if sixes == 3 || legal(&rolled, roll).is_empty() {
                    perft(&pass(state), depth - 1)
                } else {
                    legal(&rolled, roll)
                        .into_iter()
                        .map(|i| play(&rolled, i).map_or(1, |next| perft(&next, depth - 1)))
                        .sum()
                }
            })
            .sum()
    }
}
