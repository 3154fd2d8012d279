//! The board drawn as text: the 15×15 cross of `rules.md` §1, three characters a square.
//!
//! Ring squares show `·`, safe squares (starts and stars) `*`, home lanes `-`, and a plane shows
//! as its colour's letter and number (`R2`, `Y0`). Several planes of one colour on a square show
//! as the letter and the count (`R×2`); Red and Yellow together on a safe square show as `RY`.
//! Planes in base sit in their corner, finished planes beside the centre (`R:2`). A legend under
//! the board says where every plane is, so nothing depends on reading the picture.
//!
//! A [`Table`](aeroplane_rules::Table) of any edition, with up to four colours, is drawn on the
//! same cross by [`render_table`] (module `table`); the two-player `plyyard` [`Game`] keeps its
//! own drawing, unchanged.
//!
//! Colour is ANSI escapes, used only when asked for (see [`colour_wanted`]).

mod steps;
mod table;

pub use table::{ranking, render_table, render_table_board, table_legend_line, table_status_line};

use std::fmt::Write as _;
use std::io::IsTerminal;

use aeroplane_protocol::record::ResultRecord;
use aeroplane_protocol::server::ServerMessage;

use crate::terminal::escape;
use aeroplane_rules::board::LAST_RING_PROGRESS;
use aeroplane_rules::{Colour, Game, PassReason, Phase, Plane, PlaneSet, Position, RingIndex};

/// The board's side in squares.
const SIDE: usize = 15;
/// Where the finished planes of each colour are drawn (beside the finish, at the lane's end).
const FINISHED_CELL: [(usize, usize); 2] = [(7, 6), (7, 8)];
/// The four base slots of Red (top-left corner) and Yellow (bottom-right corner).
const BASE_SLOTS: [[(usize, usize); 4]; 2] = [
    [(2, 2), (2, 3), (3, 2), (3, 3)],
    [(11, 11), (11, 12), (12, 11), (12, 12)],
];

const RESET: &str = "\x1b[0m";
const DIM: &str = "\x1b[2m";

/// Whether to colour output: stdout is a terminal and `NO_COLOR` is unset or empty.
pub fn colour_wanted() -> bool {
    let no_colour = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
    !no_colour && std::io::stdout().is_terminal()
}

/// The board with a legend and a status line, e.g. for a terminal.
pub fn render(game: &Game, colour: bool) -> String {
    let mut out = render_board(game, colour);
    out.push('\n');
    for side in Colour::ALL {
        out.push_str(&legend_line(game, side, colour));
        out.push('\n');
    }
    out.push_str(&status_line(game));
    out.push('\n');
    out
}

/// The 15×15 board alone, one line per row, each square three characters wide.
pub fn render_board(game: &Game, colour: bool) -> String {
    let mut grid: Vec<Vec<Cell>> = vec![vec![Cell::Blank; SIDE]; SIDE];
    for index in 0..52 {
        let square = RingIndex::new(index).expect("0..52 are ring squares");
        let (row, col) = ring_cell(square);
        grid[row][col] = Cell::Ring {
            safe: square.is_safe(),
        };
    }
    for side in Colour::ALL {
        for step in 1..=5 {
            let (row, col) = lane_cell(side, step);
            grid[row][col] = Cell::Lane(side);
        }
        for (row, col) in BASE_SLOTS[side.index()] {
            grid[row][col] = Cell::BaseSlot(side);
        }
    }
    grid[7][7] = Cell::Finish;

    let mut occupants: Vec<Vec<Vec<(Colour, Plane)>>> = vec![vec![Vec::new(); SIDE]; SIDE];
    for side in Colour::ALL {
        let mut finished = 0;
        for plane in Plane::ALL {
            match game.position(side, plane) {
                Position::Base => {
                    let (row, col) = BASE_SLOTS[side.index()][plane.index()];
                    occupants[row][col].push((side, plane));
                }
                Position::Finished => finished += 1,
                Position::Route(progress) => {
                    let (row, col) = route_cell(side, progress);
                    occupants[row][col].push((side, plane));
                }
            }
        }
        if finished > 0 {
            let (row, col) = FINISHED_CELL[side.index()];
            grid[row][col] = Cell::Finished(side, finished);
        }
    }

    let mut out = String::new();
    for row in 0..SIDE {
        let mut line = String::new();
        for col in 0..SIDE {
            let text = match occupants[row][col].as_slice() {
                [] => grid[row][col].draw(colour),
                planes => draw_planes(planes, colour),
            };
            line.push_str(&text);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// One line saying where each plane of `side` is, in the players' numbering (planes 1–4, squares
/// counted from the side's own start, as the browser and the hints say), e.g.
/// `Red     1 base  2 square 12  3 lane 3  4 home`.
pub fn legend_line(game: &Game, side: Colour, colour: bool) -> String {
    let mut line = paint(&format!("{:<7}", side.to_string()), Some(side), colour);
    for plane in Plane::ALL {
        let place = match game.position(side, plane) {
            Position::Base => "base".to_owned(),
            Position::Finished => "home".to_owned(),
            Position::Route(progress) if progress <= LAST_RING_PROGRESS => {
                format!("square {progress}")
            }
            Position::Route(progress) => format!("lane {}", progress - LAST_RING_PROGRESS),
        };
        let _ = write!(line, " {} {place:<10}", label(plane));
    }
    line.trim_end().to_owned()
}

/// What the game waits for, in words, e.g. `Yellow to move a 4: planes 1, 2`.
pub fn status_line(game: &Game) -> String {
    let side = game.to_act();
    match game.phase() {
        Phase::AwaitingRoll => format!("{side} to roll"),
        Phase::AwaitingMove { roll, legal } => {
            let planes: Vec<String> = legal.iter().map(|p| label(p).to_string()).collect();
            let noun = if planes.len() == 1 { "plane" } else { "planes" };
            format!("{side} to move a {roll}: {noun} {}", planes.join(", "))
        }
        Phase::Over(outcome) => match outcome.winner {
            Some(winner) => format!("game over: {winner} won ({})", outcome.reason.as_str()),
            None => format!("game over: draw ({})", outcome.reason.as_str()),
        },
    }
}

/// One room event of any room in words, e.g. `Red rolled a 6 (may move 1, 2)` or, in a table
/// room, `Blue walks plane 1 to square 20`; `None` for answers that are not room events
/// (`welcome`, `pong`, ...).
pub fn describe(message: &ServerMessage) -> Option<String> {
    let planes = |set: PlaneSet| {
        set.iter()
            .map(|p| label(p).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let text = match message {
        ServerMessage::PlayerConnected(m) => {
            format!("{} sits down as {}", escape(&m.name), m.colour)
        }
        ServerMessage::PlayerDisconnected(m) => {
            format!(
                "{} lost the connection; the seat is held {} s",
                m.colour,
                m.grace_ms / 1000
            )
        }
        ServerMessage::GameStarted(_) => "the game starts: Red rolls first".to_owned(),
        ServerMessage::Rolled(m) if m.legal.is_empty() => {
            format!("{} rolled a {}", m.colour, m.value)
        }
        ServerMessage::Rolled(m) => {
            format!(
                "{} rolled a {} (may move {})",
                m.colour,
                m.value,
                planes(m.legal)
            )
        }
        ServerMessage::Moved(m) => {
            let mut text = match m.from {
                Position::Base => format!("{} deploys plane {}", m.colour, label(m.plane)),
                _ => format!(
                    "{} moves plane {} to {}",
                    m.colour,
                    label(m.plane),
                    place(m.to)
                ),
            };
            for capture in &m.captures {
                let _ = write!(
                    text,
                    ", capturing {}'s plane {}",
                    capture.colour,
                    planes(capture.planes),
                );
            }
            if m.finished {
                text.push_str(", which reaches the finish");
            }
            if m.extra_roll {
                text.push_str("; rolls again");
            }
            text
        }
        ServerMessage::TurnPassed(m) => match m.reason {
            PassReason::Normal => format!("{}'s turn", m.to),
            PassReason::NoLegalMove => format!("no plane can move: {}'s turn", m.to),
            PassReason::VoidThirdSix => format!("a third six is void: {}'s turn", m.to),
        },
        ServerMessage::DrawOffered(m) => format!("{} offers a draw", m.by),
        ServerMessage::DrawAccepted(m) => format!("{} accepts the draw", m.by),
        ServerMessage::DrawDeclined(m) => format!("{} declines the draw", m.by),
        ServerMessage::DrawWithdrawn(m) => format!("{} withdraws the draw offer", m.by),
        ServerMessage::Undone(m) => format!(
            "{} takes back a plane choice ({} action{} undone); the same roll is pending",
            m.colour,
            m.actions,
            if m.actions == 1 { "" } else { "s" }
        ),
        ServerMessage::GameOver(m) => format!("game over: {}", describe_result(&m.result)),
        // The steps of a table room's moves, and its players leaving play.
        other => return steps::describe_step(other),
    };
    Some(text)
}

/// How a game ended, in words: `Yellow wins (finished)` or `draw (agreed)`, and for a table game
/// every place, e.g. `Yellow wins (finished); places: 1 Yellow, 2 Blue, 3 Red`.
pub fn describe_result(result: &ResultRecord) -> String {
    let mut text = match result.winner {
        Some(winner) => format!("{winner} wins ({})", result.reason.as_str()),
        None => format!("draw ({})", result.reason.as_str()),
    };
    if let Some(places) = &result.places {
        let _ = write!(text, "; {}", steps::places_line(places));
    }
    text
}

/// What a square is when no plane stands on it.
#[derive(Clone, Copy)]
enum Cell {
    Blank,
    Ring { safe: bool },
    Lane(Colour),
    BaseSlot(Colour),
    Finish,
    Finished(Colour, u8),
}

impl Cell {
    fn draw(self, colour: bool) -> String {
        match self {
            Cell::Blank => "   ".to_owned(),
            Cell::Ring { safe: false } => table::dim(" · ", colour),
            Cell::Ring { safe: true } => table::dim(" * ", colour),
            Cell::Lane(side) => paint(" - ", Some(side), colour),
            Cell::BaseSlot(side) => paint(" o ", Some(side), colour),
            Cell::Finish => " # ".to_owned(),
            Cell::Finished(side, count) => {
                paint(&format!("{}:{count}", letter(side)), Some(side), colour)
            }
        }
    }
}

fn draw_planes(planes: &[(Colour, Plane)], colour: bool) -> String {
    let red = planes.iter().any(|(side, _)| *side == Colour::Red);
    let yellow = planes.iter().any(|(side, _)| *side == Colour::Yellow);
    if red && yellow {
        return paint("RY ", None, colour);
    }
    let side = planes[0].0;
    let text = match planes {
        [(_, plane)] => format!("{}{} ", letter(side), label(*plane)),
        many => format!("{}×{}", letter(side), many.len()),
    };
    paint(&text, Some(side), colour)
}

fn letter(side: Colour) -> char {
    match side {
        Colour::Red => 'R',
        Colour::Yellow => 'Y',
    }
}

fn paint(text: &str, side: Option<Colour>, colour: bool) -> String {
    if !colour {
        return text.to_owned();
    }
    let code = match side {
        Some(Colour::Red) => "\x1b[1;31m",
        Some(Colour::Yellow) => "\x1b[1;33m",
        None => "\x1b[1;35m",
    };
    format!("{code}{text}{RESET}")
}

/// The (row, column) of a plane of `side` at route `progress` (`0..=55`): the table board's.
fn route_cell(side: Colour, progress: u8) -> (usize, usize) {
    table::route_cell(side.into(), progress)
}

/// The (row, column) of home-lane square `step` (`1..=5`) of `side`: the table board's.
fn lane_cell(side: Colour, step: u8) -> (usize, usize) {
    table::lane_cell(side.into(), step)
}

/// The (row, column) of a ring square. Index 0 (Red's start) is the second square of row 6 from
/// the left; travel is clockwise: right along row 6, up column 6, across the top, and so on.
fn ring_cell(square: RingIndex) -> (usize, usize) {
    // Each quarter of the ring is 13 squares: 5 along an arm towards the centre column, 6 out
    // along the next arm, then 2 across its end. Quarter 0 runs from Red's start at (6, 1).
    let index = usize::from(square.value());
    let (quarter, step) = (index / 13, index % 13);
    let (row, col) = match step {
        0..=4 => (6, 1 + step),
        5..=10 => (10 - step, 6),
        11 => (0, 7),
        _ => (0, 8),
    };
    // Rotate the first quarter's cells a quarter turn clockwise per quarter.
    let mut cell = (row, col);
    for _ in 0..quarter {
        cell = (cell.1, SIDE - 1 - cell.0);
    }
    cell
}

/// A plane's number for people: 1 to 4 (the protocol counts 0 to 3).
pub fn label(plane: Plane) -> u8 {
    plane.number() + 1
}

/// Where a plane is after a move, for people: a square counted from its own start, a step of its
/// home lane, or home.
fn place(position: Position) -> String {
    match position {
        Position::Base => "its base".to_owned(),
        Position::Finished => "home".to_owned(),
        Position::Route(progress) if progress <= LAST_RING_PROGRESS => format!("square {progress}"),
        Position::Route(progress) => format!("lane {}", progress - LAST_RING_PROGRESS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watch_and_play_describe_a_hostile_name_escaped() {
        let message = ServerMessage::PlayerConnected(aeroplane_protocol::server::PlayerConnected {
            event: 1,
            colour: Colour::Red.into(),
            name: "\u{1b}]0;owned\u{7}".to_owned(),
            deadline_ms: None,
        });
        let text = describe(&message).unwrap();
        assert_eq!(text, "\\u{1b}]0;owned\\u{7} sits down as Red");
    }

    #[test]
    fn the_ring_visits_fifty_two_distinct_touching_squares_in_a_loop() {
        let cells: Vec<(usize, usize)> = (0..52)
            .map(|i| ring_cell(RingIndex::new(i).unwrap()))
            .collect();
        let mut distinct = cells.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 52);
        for (i, a) in cells.iter().enumerate() {
            let b = cells[(i + 1) % 52];
            // Squares touch by a side, or by a corner where the path turns around the centre.
            let distance = a.0.abs_diff(b.0).max(a.1.abs_diff(b.1));
            assert_eq!(
                distance,
                1,
                "squares {i} {a:?} and {} {b:?} do not touch",
                i + 1
            );
        }
    }

    #[test]
    fn the_starts_and_lane_mouths_sit_where_the_cross_puts_them() {
        let at = |i| ring_cell(RingIndex::new(i).unwrap());
        assert_eq!(at(0), (6, 1));
        assert_eq!(at(13), (1, 8));
        assert_eq!(at(26), (8, 13));
        assert_eq!(at(39), (13, 6));
        // Red's lane mouth (ring 50) leads into row 7 from the left, Yellow's (ring 24) from the right.
        assert_eq!(at(50), (7, 0));
        assert_eq!(at(24), (7, 14));
        assert_eq!(lane_cell(Colour::Red, 1), (7, 1));
        assert_eq!(lane_cell(Colour::Yellow, 5), (7, 9));
    }

    #[test]
    fn a_known_position_is_drawn_square_by_square() {
        let game: Game = "b,b,12,f b,30,52,b yellow 4 0".parse().unwrap();
        let board = render_board(&game, false);
        let expected = [
            "                   ·  · R3",
            "                   ·     *",
            "      R1 R2        *     ·",
            "       o  o        ·     ·",
            "                   ·     ·",
            "                   ·     ·",
            " ·  *  ·  ·  · Y2           ·  ·  ·  *  ·  ·",
            " ·  -  -  -  -  - R:1 #     -  -  - Y3  -  ·",
            " ·  ·  *  ·  ·  ·           ·  ·  ·  ·  *  ·",
            "                   ·     ·",
            "                   ·     ·",
            "                   ·     ·       Y1  o",
            "                   ·     *        o Y4",
            "                   *     ·",
            "                   ·  ·  ·",
        ];
        assert_eq!(board.lines().collect::<Vec<_>>(), expected, "\n{board}");
    }

    #[test]
    fn the_legend_and_status_say_where_every_plane_is_and_what_is_awaited() {
        let game: Game = "b,b,12,f b,30,52,b yellow 4 0".parse().unwrap();
        assert_eq!(
            legend_line(&game, Colour::Red, false),
            "Red     1 base       2 base       3 square 12  4 home"
        );
        assert_eq!(
            legend_line(&game, Colour::Yellow, false),
            "Yellow  1 base       2 square 30  3 lane 2     4 base"
        );
        assert_eq!(status_line(&game), "Yellow to move a 4: planes 2, 3");
    }

    #[test]
    fn colour_is_ansi_only_when_asked_for() {
        let game = Game::new();
        assert!(!render(&game, false).contains('\x1b'));
        let coloured = render(&game, true);
        assert!(coloured.contains("\x1b[1;31mR1 \x1b[0m"), "{coloured}");
        assert!(coloured.contains("\x1b[1;33mY4 \x1b[0m"));
    }

    #[test]
    fn stacked_and_shared_squares_are_marked() {
        // Two Red planes on ring 12, and Red and Yellow together on the safe star at ring 8.
        let game: Game = "12,12,8,b 34,b,b,b red - 0".parse().unwrap();
        let board = render_board(&game, false);
        assert_eq!(
            square_text(&board, ring_cell(RingIndex::new(12).unwrap())),
            "R×2"
        );
        assert_eq!(
            square_text(&board, ring_cell(RingIndex::new(8).unwrap())),
            "RY "
        );
        assert_eq!(
            square_text(&board, FINISHED_CELL[0]),
            "   ",
            "nothing has finished"
        );
    }

    /// The three characters drawn for the square at (row, column).
    fn square_text(board: &str, (row, col): (usize, usize)) -> String {
        let line: Vec<char> = board.lines().nth(row).unwrap().chars().collect();
        line.iter()
            .chain([' '; 3].iter())
            .skip(col * 3)
            .take(3)
            .collect()
    }
}
