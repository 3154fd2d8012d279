//! A [`Table`] of any edition drawn as text, for up to four colours (`docs/rules/README.md`).
//!
//! The same 15×15 cross as the `plyyard` board of the parent module, three characters a square,
//! so the two read alike: Red's hangar in the top-left corner, Green's top-right, Yellow's
//! bottom-right, Blue's bottom-left (each colour's corner is beside its start square), each lane
//! (five squares in `plyyard`, a runway of six in `flights` and `classic`) runs along the middle
//! row or column to the centre, and the planes at the centre are counted in the centre's corner
//! cells (`R:2`). A plane is its colour's letter and number (`B3`), a `classic` stack its letter
//! and count (`G×2`), colours sharing a `plyyard` safe square their letters (`RY`). The legend
//! under the board says where every plane is and which place a seat out of play took, so
//! nothing depends on colour or on reading the picture.

use std::fmt::Write as _;

use aeroplane_protocol::record::Places;
use aeroplane_rules::board::LAST_RING_PROGRESS;
use aeroplane_rules::{Plane, Position, RingIndex, Side, Table, TablePhase};

use super::{DIM, RESET, SIDE, label, ring_cell};

/// The (row, column) of the four hangar slots of each colour, by [`Side::index`].
const HANGARS: [[(usize, usize); 4]; 4] = [
    [(2, 2), (2, 3), (3, 2), (3, 3)],
    [(2, 11), (2, 12), (3, 11), (3, 12)],
    [(11, 11), (11, 12), (12, 11), (12, 12)],
    [(11, 2), (11, 3), (12, 2), (12, 3)],
];
/// Where the planes of each colour that reached the centre are counted, by [`Side::index`].
const CENTRE_CELLS: [(usize, usize); 4] = [(6, 6), (6, 8), (8, 8), (8, 6)];

/// The board with a legend line per seat and a status line.
pub fn render_table(table: &Table, colour: bool) -> String {
    let mut out = render_table_board(table, colour);
    out.push('\n');
    for side in table.sides() {
        out.push_str(&table_legend_line(table, side, colour));
        out.push('\n');
    }
    out.push_str(&table_status_line(table));
    out.push('\n');
    out
}

/// The 15×15 board alone, one line per row, each square three characters wide.
pub fn render_table_board(table: &Table, colour: bool) -> String {
    let rules = table.rules();
    let lane_length = rules.finish() - 1 - LAST_RING_PROGRESS;
    let mut grid = vec![vec!["   ".to_owned(); SIDE]; SIDE];
    for index in 0..52 {
        let square = RingIndex::new(index).expect("0..52 are ring squares");
        let (row, col) = ring_cell(square);
        let mark = if rules.is_safe(square) { " * " } else { " · " };
        grid[row][col] = dim(mark, colour);
    }
    grid[7][7] = " # ".to_owned();
    for side in table.sides() {
        for step in 1..=lane_length {
            let (row, col) = lane_cell(side, step);
            grid[row][col] = paint(" - ", &[side], colour);
        }
        for (row, col) in HANGARS[side.index()] {
            grid[row][col] = paint(" o ", &[side], colour);
        }
        let home = table
            .planes(side)
            .iter()
            .filter(|p| **p == Position::Finished)
            .count();
        if home > 0 {
            let (row, col) = CENTRE_CELLS[side.index()];
            grid[row][col] = paint(&format!("{}:{home}", letter(side)), &[side], colour);
        }
    }

    let mut occupants: Vec<Vec<Vec<(Side, Plane)>>> = vec![vec![Vec::new(); SIDE]; SIDE];
    for side in table.sides().filter(|side| !has_left(table, *side)) {
        for plane in Plane::ALL {
            let cell = match table.position(side, plane) {
                Position::Base => HANGARS[side.index()][plane.index()],
                Position::Finished => continue,
                Position::Route(progress) => route_cell(side, progress),
            };
            occupants[cell.0][cell.1].push((side, plane));
        }
    }

    let mut out = String::new();
    for (row, cells) in grid.iter().enumerate() {
        let mut line = String::new();
        for (col, text) in cells.iter().enumerate() {
            match occupants[row][col].as_slice() {
                [] => line.push_str(text),
                planes => line.push_str(&draw_planes(planes, colour)),
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// One line saying where each plane of `side` is (planes 1–4, squares counted from the side's
/// own start), and the place of a seat that is out, e.g.
/// `Blue    1 square 12  2 lane 3     3 home       4 base`.
pub fn table_legend_line(table: &Table, side: Side, colour: bool) -> String {
    let mut line = paint(&format!("{:<7}", side.to_string()), &[side], colour);
    if has_left(table, side) {
        let _ = write!(line, " out");
    } else {
        for plane in Plane::ALL {
            let place = match table.position(side, plane) {
                Position::Base => "base".to_owned(),
                Position::Finished => "home".to_owned(),
                Position::Route(progress) if progress <= LAST_RING_PROGRESS => {
                    format!("square {progress}")
                }
                Position::Route(progress) => format!("lane {}", progress - LAST_RING_PROGRESS),
            };
            let _ = write!(line, " {} {place:<10}", label(plane));
        }
    }
    if let Some(place) = table.place(side) {
        let _ = write!(line, " place {place}");
    }
    line.trim_end().to_owned()
}

/// What the table waits for, in words, e.g. `Blue to move a 4: planes 2, 3`.
pub fn table_status_line(table: &Table) -> String {
    let side = table.to_act();
    match table.phase() {
        TablePhase::AwaitingRoll => format!("{side} to roll"),
        TablePhase::AwaitingMove { roll, legal } => {
            let planes: Vec<String> = legal.iter().map(|p| label(p).to_string()).collect();
            let noun = if planes.len() == 1 { "plane" } else { "planes" };
            format!("{side} to move a {roll}: {noun} {}", planes.join(", "))
        }
        TablePhase::Over(outcome) => match outcome.winner {
            Some(winner) => format!("game over: {winner} won ({})", outcome.reason.as_str()),
            None => format!("game over: draw ({})", outcome.reason.as_str()),
        },
    }
}

/// The places of `sides` best first, e.g. `1 Red, 2 Blue, 3 Green, 4 Yellow`; a colour without
/// a place (still in play when a `flights` game ended at its first finisher, or when a draw was
/// agreed) comes last as `Yellow (no place)`.
pub fn ranking(places: &Places, sides: impl IntoIterator<Item = Side>) -> String {
    let mut sides: Vec<Side> = sides.into_iter().collect();
    sides.sort_by_key(|side| places.get(*side).unwrap_or(u8::MAX));
    let entries: Vec<String> = sides
        .into_iter()
        .map(|side| match places.get(side) {
            Some(place) => format!("{place} {side}"),
            None => format!("{side} (no place)"),
        })
        .collect();
    entries.join(", ")
}

/// Whether `side` resigned or forfeited: it is out of play and its planes left the board.
fn has_left(table: &Table, side: Side) -> bool {
    !table.in_play(side) && table.planes(side) == [Position::Base; 4]
}

fn draw_planes(planes: &[(Side, Plane)], colour: bool) -> String {
    let mut sides: Vec<Side> = planes.iter().map(|(side, _)| *side).collect();
    sides.dedup();
    let text = match (sides.as_slice(), planes) {
        ([side], [(_, plane)]) => format!("{}{} ", letter(*side), label(*plane)),
        ([side], many) => format!("{}×{}", letter(*side), many.len()),
        (several, _) => format!(
            "{:<3}",
            several.iter().map(|s| letter(*s)).collect::<String>()
        ),
    };
    paint(&text, &sides, colour)
}

/// The colour's letter on the board: `R`, `G`, `Y`, `B`.
const fn letter(side: Side) -> char {
    match side {
        Side::Red => 'R',
        Side::Green => 'G',
        Side::Yellow => 'Y',
        Side::Blue => 'B',
    }
}

/// `text` in the colour of `sides` (magenta when several share it), when colour is asked for.
fn paint(text: &str, sides: &[Side], colour: bool) -> String {
    if !colour {
        return text.to_owned();
    }
    let code = match sides {
        [Side::Red] => "\x1b[1;31m",
        [Side::Green] => "\x1b[1;32m",
        [Side::Yellow] => "\x1b[1;33m",
        [Side::Blue] => "\x1b[1;34m",
        _ => "\x1b[1;35m",
    };
    format!("{code}{text}{RESET}")
}

/// `text` dimmed when colour is on.
pub(super) fn dim(text: &str, colour: bool) -> String {
    if colour {
        format!("{DIM}{text}{RESET}")
    } else {
        text.to_owned()
    }
}

/// The (row, column) of a plane of `side` at route `progress`.
pub(super) fn route_cell(side: Side, progress: u8) -> (usize, usize) {
    if progress <= LAST_RING_PROGRESS {
        ring_cell(side.start_square().advanced(progress))
    } else {
        lane_cell(side, progress - LAST_RING_PROGRESS)
    }
}

/// The (row, column) of lane square `step` (from 1) of `side`: Red's runs right along the middle
/// row, Green's down the middle column, Yellow's left, Blue's up.
pub(super) fn lane_cell(side: Side, step: u8) -> (usize, usize) {
    let step = usize::from(step);
    match side {
        Side::Red => (7, step),
        Side::Green => (step, 7),
        Side::Yellow => (7, 14 - step),
        Side::Blue => (14 - step, 7),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_hangars_sit_in_four_corners_and_each_lane_leads_from_its_mouth() {
        let table = Table::new(aeroplane_rules::Rules::FLIGHTS, 4).unwrap();
        let board = render_table_board(&table, false);
        let lines: Vec<&str> = board.lines().collect();
        assert!(
            lines[2].contains("R1 R2") && lines[2].contains("G1 G2"),
            "{board}"
        );
        assert!(
            lines[12].contains("B3 B4") && lines[12].contains("Y3 Y4"),
            "{board}"
        );
        for side in Side::ALL {
            // The ring square before the lane (progress 50) touches the lane's first square.
            let mouth = ring_cell(side.start_square().advanced(LAST_RING_PROGRESS));
            let first = lane_cell(side, 1);
            assert_eq!(mouth.0.abs_diff(first.0) + mouth.1.abs_diff(first.1), 1);
            // A runway of six ends beside the centre.
            let last = lane_cell(side, 6);
            assert_eq!(last.0.abs_diff(7) + last.1.abs_diff(7), 1);
        }
    }

    #[test]
    fn a_known_classic_position_is_drawn_with_stacks_places_and_no_colour() {
        let table: Table = "classic red=1:f,f,f,f yellow:40,b,b,56 blue:2,2,b,b yellow - 0 -"
            .parse()
            .unwrap();
        let text = render_table(&table, false);
        assert!(!text.contains('\x1b'));
        assert!(text.contains("R:4"), "{text}");
        assert!(text.contains("B×2"), "{text}");
        assert_eq!(
            table_legend_line(&table, Side::Red, false),
            "Red     1 home       2 home       3 home       4 home       place 1"
        );
        assert_eq!(
            table_legend_line(&table, Side::Yellow, false),
            "Yellow  1 square 40  2 base       3 base       4 lane 6"
        );
        assert_eq!(table_status_line(&table), "Yellow to roll");
        let coloured = render_table(&table, true);
        assert!(coloured.contains("\x1b[1;34mB×2\x1b[0m"), "{coloured}");
    }

    #[test]
    fn the_ranking_lists_places_best_first_and_unplaced_colours_last() {
        let places = Places {
            red: Some(2),
            green: None,
            yellow: Some(1),
            blue: Some(3),
        };
        assert_eq!(
            ranking(&places, Side::ALL),
            "1 Yellow, 2 Red, 3 Blue, Green (no place)"
        );
    }
}
