//! One short sentence saying what a chosen move does and, where it matters, why.
//!
//! Sentences use the players' numbering, the same as the browser's move buttons: planes are
//! numbered from 1, and a square is given as the moving plane's steps from its own start square
//! (its progress), not as a ring index, so "plane 2 to square 23" reads the same for either colour.

use aeroplane_rules::{Capture, Colour, Event, Game, Phase, Plane, Position, RingIndex};

use crate::Level;
use crate::eval::hitting_values;
use crate::search::after_move;

/// Explains moving `plane` in `game` (which awaits a move and allows it), as `level` would.
pub(crate) fn explain(level: Level, game: &Game, plane: Plane) -> String {
    let me = game.to_act();
    let them = me.opponent();
    let after = after_move(game, plane);
    let mut events = *game;
    let events = events
        .move_plane(me, plane)
        .expect("only legal planes are explained");
    let number = plane.number() + 1;
    let landed = after.position(me, plane).progress().unwrap_or(0);
    let Some(Event::Moved {
        capture, finished, ..
    }) = events.first().copied()
    else {
        unreachable!("a move's events start with the move")
    };
    if let Some(Capture { colour, planes, .. }) = capture {
        return match planes.len() {
            1 => format!("captures {colour}'s plane on square {landed}"),
            n => format!("captures {n} of {colour}'s planes on square {landed}"),
        };
    }
    if finished {
        return if after.is_over() {
            format!("finishes plane {number} and wins the game")
        } else {
            format!("finishes plane {number} and rolls again")
        };
    }
    let from = game.position(me, plane);
    let to = after.position(me, plane);
    if from == Position::Base {
        return format!("deploys plane {number} onto its start square");
    }
    let threatened_before = hitting_values(game, me, from) != 0;
    let threatened_after = nearest_attacker(&after, me, to);
    if to.is_in_home_lane() && !from.is_in_home_lane() {
        return if threatened_before {
            format!("moves threatened plane {number} to safety in its home lane")
        } else {
            format!("moves plane {number} into its home lane")
        };
    }
    if to.is_in_home_lane() {
        return format!("advances plane {number} up its home lane");
    }
    let square = to
        .ring_index(me)
        .expect("a plane not in its lane or finished is on the ring");
    let progress = landed;
    if threatened_before && threatened_after.is_none() {
        return format!(
            "moves plane {number} out of {them}'s reach to {}",
            describe(square, progress)
        );
    }
    if level >= Level::Normal
        && threatened_after.is_none()
        && let Some(sentence) = avoided_danger(game, plane)
    {
        return sentence;
    }
    if let Some(distance) = threatened_after {
        return format!(
            "advances plane {number} to square {progress} although {them} is {} behind it",
            squares(distance)
        );
    }
    if level == Level::Easy {
        return format!(
            "advances its leading plane {number} to {}",
            describe(square, progress)
        );
    }
    format!("advances plane {number} to {}", describe(square, progress))
}

/// When another legal move would have left a plane in reach of the opponent, says so.
fn avoided_danger(game: &Game, chosen: Plane) -> Option<String> {
    let Phase::AwaitingMove { legal, .. } = game.phase() else {
        return None;
    };
    let me = game.to_act();
    let them = me.opponent();
    for other in legal.iter().filter(|other| *other != chosen) {
        let after = after_move(game, other);
        let from = game.position(me, other);
        let Some(distance) = nearest_attacker(&after, me, after.position(me, other)) else {
            continue;
        };
        let in_front = squares(distance);
        let number = other.number() + 1;
        return Some(match (from.ring_index(me), from.progress()) {
            (Some(square), Some(progress)) if square.is_safe() => format!(
                "leaves plane {number} safe on {} instead of {in_front} in front of {them}",
                describe(square, progress)
            ),
            _ => format!("keeps plane {number} back instead of {in_front} in front of {them}"),
        });
    }
    None
}

/// How far behind the closest opposing plane that could capture `colour`'s plane at `position`
/// next roll stands, if any.
fn nearest_attacker(game: &Game, colour: Colour, position: Position) -> Option<u8> {
    let hits = hitting_values(game, colour, position);
    (1..=6).find(|value| hits & 1 << value != 0)
}

/// A ring square in the players' numbering: the kind of square (star, start) comes from the
/// board, the number is the plane's progress.
fn describe(square: RingIndex, progress: u8) -> String {
    if square.is_safe() {
        format!("{} {progress}", kind(square))
    } else {
        format!("square {progress}")
    }
}

fn kind(square: RingIndex) -> &'static str {
    if square.value() % 13 == 8 {
        "the star on square"
    } else {
        "the start square"
    }
}

fn squares(distance: u8) -> String {
    if distance == 1 {
        "1 square".to_owned()
    } else {
        format!("{distance} squares")
    }
}
