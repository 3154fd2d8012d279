//! Helpers shared by the integration tests: positions from notation, die values and plane numbers
//! from plain numbers, and a check that a refused action leaves the game exactly as it was.
#![allow(dead_code)]

use aeroplane_rules::{
    Capture, Colour, Die, Event, Events, Game, PassReason, Plane, PlaneSet, RuleError,
};

pub(crate) const RED: Colour = Colour::Red;
pub(crate) const YELLOW: Colour = Colour::Yellow;

/// The position written in the notation of `rules.md` §7; panics with the parser's reason.
pub(crate) fn position(notation: &str) -> Game {
    notation
        .parse()
        .unwrap_or_else(|error| panic!("`{notation}` does not parse: {error}"))
}

/// The die showing `value`.
pub(crate) fn die(value: u8) -> Die {
    Die::new(value).expect("a die value is 1..=6")
}

/// Plane number `number`.
pub(crate) fn plane(number: u8) -> Plane {
    Plane::new(number).expect("a plane number is 0..=3")
}

/// The set of the planes with these numbers.
pub(crate) fn planes(numbers: &[u8]) -> PlaneSet {
    numbers.iter().map(|n| plane(*n)).collect()
}

/// The player to act rolls `value`; the roll must be accepted.
pub(crate) fn roll(game: &mut Game, value: u8) -> Events {
    let colour = game.to_act();
    game.roll(colour, die(value))
        .unwrap_or_else(|error| panic!("{colour} rolling {value} in `{game}` was refused: {error}"))
}

/// The player to act moves plane `number`; the move must be accepted.
pub(crate) fn move_plane(game: &mut Game, number: u8) -> Events {
    let colour = game.to_act();
    game.move_plane(colour, plane(number))
        .unwrap_or_else(|error| panic!("{colour} moving {number} in `{game}` was refused: {error}"))
}

/// Runs `action` on `game`, which must refuse it with `code` and leave the game unchanged.
pub(crate) fn assert_refused(
    game: &mut Game,
    code: &str,
    action: impl FnOnce(&mut Game) -> Result<Events, RuleError>,
) {
    let before = *game;
    match action(game) {
        Ok(events) => panic!("expected `{code}`, but the action was accepted: {events:?}"),
        Err(error) => assert_eq!(error.code(), code, "wrong error ({error})"),
    }
    assert_eq!(*game, before, "a refused action changed the game");
}

/// How many extra rolls the list's events earned (a move earns at most one).
pub(crate) fn extra_rolls(events: &Events) -> usize {
    events
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::Moved {
                    extra_roll: true,
                    ..
                }
            )
        })
        .count()
}

/// What the move in the list captured, if it captured.
pub(crate) fn capture(events: &Events) -> Option<Capture> {
    events.iter().find_map(|e| match e {
        Event::Moved { capture, .. } => *capture,
        _ => None,
    })
}

/// Whether the move in the list finished its plane.
pub(crate) fn finished(events: &Events) -> bool {
    events
        .iter()
        .any(|e| matches!(e, Event::Moved { finished: true, .. }))
}

/// The reason of the `TurnPassed` event in the list, if there is one.
pub(crate) fn pass_reason(events: &Events) -> Option<PassReason> {
    events.iter().find_map(|e| match e {
        Event::TurnPassed { reason, .. } => Some(*reason),
        _ => None,
    })
}
