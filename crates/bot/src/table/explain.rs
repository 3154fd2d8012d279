//! One short sentence saying what a table bot's move does, in the players' numbering: planes from
//! 1, squares as steps from the plane's own start square, runway squares from 1.

use aeroplane_rules::{Plane, PlaneSet, Position, Side, Table, TableEvent};

use super::after_move;
use crate::Level;

/// The longest hint before the shortcuts of a move are left out of it.
const MAX_LEN: usize = 100;

/// Explains moving `plane` at `table` (which awaits a move and allows it), as `level` would.
pub(crate) fn explain(level: Level, table: &Table, plane: Plane) -> String {
    let me = table.to_act();
    let stack = table.stack_of(me, plane);
    let subject = subject(stack);
    let (after, events) = after_move(table, plane);
    let mut sentence = String::new();
    let mut shortcuts = Vec::new();
    for event in &events {
        match *event {
            TableEvent::Launched { .. } => sentence = format!("launches {subject}"),
            TableEvent::Moved { to, .. } => sentence = format!("moves {subject} to {}", spot(to)),
            TableEvent::Jumped { to, .. } => shortcuts.push(format!("jumps to square {to}")),
            TableEvent::Flew { to, .. } => shortcuts.push(format!("flies to square {to}")),
            _ => {}
        }
    }
    match shortcuts.as_slice() {
        [] => {}
        [only] => sentence = format!("{sentence} and {only}"),
        [first @ .., last] => sentence = format!("{sentence}, {} and {last}", first.join(", ")),
    }
    if after.place(me) == Some(1) {
        return format!("brings {subject} to the centre and wins the game");
    }
    if after.place(me).is_some() {
        return format!("brings {subject} to the centre, its last");
    }
    let sent = sent_home(&events);
    let tail = if !sent.is_empty() {
        format!(", sending {sent} home")
    } else if level >= Level::Normal
        && let Some(attacker) = attacker(&after, me, plane)
    {
        format!(" although {attacker} could reach it")
    } else {
        String::new()
    };
    // Too long for a hint: leave out the jumps and flights, then the reason.
    let short = format!("moves {subject} to {}", spot(after.position(me, plane)));
    [format!("{sentence}{tail}"), format!("{short}{tail}"), short]
        .into_iter()
        .find(|text| text.len() <= MAX_LEN)
        .unwrap_or(sentence)
}

fn subject(stack: PlaneSet) -> String {
    let numbers: Vec<String> = stack.iter().map(|p| (p.number() + 1).to_string()).collect();
    match numbers.as_slice() {
        [one] => format!("plane {one}"),
        [rest @ .., last] => format!("the stack of planes {} and {last}", rest.join(", ")),
        [] => unreachable!("a stack holds its plane"),
    }
}

fn spot(position: Position) -> String {
    match position {
        Position::Route(progress) if progress > 50 => format!("runway square {}", progress - 50),
        Position::Route(progress) => format!("square {progress}"),
        Position::Finished => "the centre".to_owned(),
        Position::Base => "its hangar".to_owned(),
    }
}

/// "Yellow's plane", "2 of Blue's planes" or "3 planes" (of several colours).
fn sent_home(events: &[TableEvent]) -> String {
    let mut sides: Vec<(Side, usize)> = Vec::new();
    for event in events {
        if let TableEvent::SentHome { side, planes, .. } = *event {
            match sides.iter_mut().find(|(s, _)| *s == side) {
                Some((_, count)) => *count += planes.len(),
                None => sides.push((side, planes.len())),
            }
        }
    }
    match sides.as_slice() {
        [] => String::new(),
        [(side, 1)] => format!("{side}'s plane"),
        [(side, n)] => format!("{n} of {side}'s planes"),
        many => format!("{} planes", many.iter().map(|(_, n)| n).sum::<usize>()),
    }
}

/// An opponent that could send the moved plane home with its next roll, if any.
fn attacker(after: &Table, me: Side, plane: Plane) -> Option<Side> {
    let target = after.position(me, plane);
    Table::ring_square(me, target)?;
    after
        .sides()
        .filter(|side| *side != me && after.in_play(*side))
        .find(|attacker| {
            aeroplane_rules::Die::ALL.into_iter().any(|die| {
                Plane::ALL.into_iter().any(|p| {
                    after.preview(*attacker, p, die).is_some_and(|(_, events)| {
                        events.iter().any(|e| {
                            matches!(*e, TableEvent::SentHome { side, planes, .. }
                                if side == me && planes.contains(plane))
                        })
                    })
                })
            })
        })
}
