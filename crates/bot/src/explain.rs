//! One short sentence saying what a chosen move does and, where it matters, why.

use aeroplane_rules::{Colour, Event, Game, Phase, Plane, Position, RingIndex};

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
    for event in &events {
        if let Event::Captured {
            colour,
            planes,
            square,
        } = event
        {
            return match planes.len() {
                1 => format!("captures {colour}'s plane on square {square}"),
                n => format!("captures {n} of {colour}'s planes on square {square}"),
            };
        }
    }
    if events.iter().any(|e| matches!(e, Event::Finished { .. })) {
        return if after.is_over() {
            format!("finishes plane {plane} and wins the game")
        } else {
            format!("finishes plane {plane} and rolls again")
        };
    }
    let from = game.position(me, plane);
    let to = after.position(me, plane);
    if from == Position::Base {
        return format!("deploys plane {plane} onto its start square");
    }
    let threatened_before = hitting_values(game, me, from) != 0;
    let threatened_after = nearest_attacker(&after, me, to);
    if to.is_in_home_lane() && !from.is_in_home_lane() {
        return if threatened_before {
            format!("moves threatened plane {plane} to safety in its home lane")
        } else {
            format!("moves plane {plane} into its home lane")
        };
    }
    if to.is_in_home_lane() {
        return format!("advances plane {plane} up its home lane");
    }
    let square = to
        .ring_index(me)
        .expect("a plane not in its lane or finished is on the ring");
    if threatened_before && threatened_after.is_none() {
        return format!(
            "moves plane {plane} out of {them}'s reach to {}",
            describe(square)
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
            "advances plane {plane} to square {square} although {them} is {} behind it",
            squares(distance)
        );
    }
    if level == Level::Easy {
        return format!("advances its leading plane {plane} to {}", describe(square));
    }
    format!("advances plane {plane} to {}", describe(square))
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
        return Some(match from.ring_index(me) {
            Some(square) if square.is_safe() => format!(
                "leaves plane {other} safe on {} instead of {in_front} in front of {them}",
                describe(square)
            ),
            _ => format!("keeps plane {other} back instead of {in_front} in front of {them}"),
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

fn describe(square: RingIndex) -> String {
    if square.is_safe() {
        format!("{} {square}", kind(square))
    } else {
        format!("square {square}")
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
