//! From the rules crate's events to numbered wire events.
//!
//! In a two-player `plyyard` room the map is one to one: every rules event becomes one wire
//! message, numbered in order, except `resigned`, which the `game_over` that follows tells
//! through its result. A move is one [`Event::Moved`] in the rules and one `moved` message on the
//! wire, so a client animates one thing per event.
//!
//! A table of any other edition tells a move step by step ([`TableEvent`]): the launch or walk,
//! a jump, a flight, planes sent home, arrivals, a player out, the extra roll or the turn
//! passing. [`table_wire_events`] makes each step one numbered message too, again except
//! `resigned`, which the `player_out` that follows tells with its reason.

use aeroplane_rules::{EndReason, Event, Forfeit, TableAction, TableEvent};

use crate::record::ResultRecord;
use crate::server::{
    Arrived, Capture, DrawAction, DrawDeclined, ExtraRoll, GameOver, Launched, Moved, PlayerOut,
    Rolled, SentHome, ServerMessage, Shortcut, ThirdSix, TurnPassed, Walked,
};

/// The seeds a `game_over` reveals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reveal {
    /// The server seed (hex).
    pub server_seed: String,
    /// The commitment (hex).
    pub commitment: String,
    /// Red's client seed.
    pub red_seed: String,
    /// Yellow's client seed.
    pub yellow_seed: String,
    /// Blue's client seed, where Blue is seated.
    pub blue_seed: Option<String>,
    /// Green's client seed, where Green is seated.
    pub green_seed: Option<String>,
}

/// Turns the events of one action into wire events numbered from `next_event` on.
///
/// `reveal` is asked only when the events end the game.
pub fn wire_events(
    events: &[Event],
    next_event: u64,
    reveal: impl FnOnce() -> Reveal,
) -> Vec<ServerMessage> {
    let mut reveal = Some(reveal);
    let mut out = Vec::with_capacity(events.len());
    for event in events.iter().filter(|event| is_numbered(event)) {
        let number = next_event + out.len() as u64;
        out.push(wire_event(*event, number, || {
            reveal
                .take()
                .expect("the rules end a game at most once per action")()
        }));
    }
    out
}

/// How many numbered wire events [`wire_events`] makes of `events`, without making them.
pub fn wire_event_count(events: &[Event]) -> u64 {
    events.iter().filter(|event| is_numbered(event)).count() as u64
}

/// Whether `event` becomes a wire event: all do but `resigned`, whose `game_over` follows.
fn is_numbered(event: &Event) -> bool {
    !matches!(event, Event::Resigned { .. })
}

/// The wire message of one numbered rules event.
fn wire_event(event: Event, number: u64, reveal: impl FnOnce() -> Reveal) -> ServerMessage {
    match event {
        Event::Rolled {
            colour,
            value,
            legal,
        } => ServerMessage::Rolled(Rolled {
            event: number,
            colour: colour.into(),
            value,
            legal,
            deadline_ms: None,
            by_clock: false,
        }),
        Event::Moved {
            colour,
            plane,
            from,
            to,
            capture,
            finished,
            extra_roll,
        } => ServerMessage::Moved(Moved {
            event: number,
            colour: colour.into(),
            plane,
            from,
            to,
            captures: capture.map(Capture::from).into_iter().collect(),
            finished,
            extra_roll,
            deadline_ms: None,
            by_clock: false,
        }),
        Event::TurnPassed { from, to, reason } => ServerMessage::TurnPassed(TurnPassed {
            event: number,
            from: from.into(),
            to: to.into(),
            reason,
            deadline_ms: None,
        }),
        Event::DrawOffered { by } => ServerMessage::DrawOffered(DrawAction {
            event: number,
            by: by.into(),
        }),
        Event::DrawAccepted { by } => ServerMessage::DrawAccepted(DrawAction {
            event: number,
            by: by.into(),
        }),
        Event::DrawDeclined { by, implicit } => ServerMessage::DrawDeclined(DrawDeclined {
            event: number,
            by: by.into(),
            implicit,
        }),
        Event::DrawWithdrawn { by } => ServerMessage::DrawWithdrawn(DrawAction {
            event: number,
            by: by.into(),
        }),
        Event::GameOver { outcome } => game_over(
            number,
            ResultRecord::plyyard(outcome.winner, outcome.reason),
            reveal(),
        ),
        Event::Resigned { .. } => unreachable!("a resignation is told by its game_over"),
    }
}

/// The `game_over` message of `result`, revealing `seeds`.
fn game_over(number: u64, result: ResultRecord, seeds: Reveal) -> ServerMessage {
    ServerMessage::GameOver(GameOver {
        event: number,
        result,
        server_seed: seeds.server_seed,
        commitment: seeds.commitment,
        red_seed: seeds.red_seed,
        yellow_seed: seeds.yellow_seed,
        blue_seed: seeds.blue_seed,
        green_seed: seeds.green_seed,
    })
}

/// Turns the events of one action at a table into wire events numbered from `next_event` on.
/// `action` says why a player left play (`player_out`'s reason); `result` is the finished
/// table's result and `reveal` its seeds, asked only when the events end the game.
pub fn table_wire_events(
    action: TableAction,
    events: &[TableEvent],
    next_event: u64,
    result: impl FnOnce() -> ResultRecord,
    reveal: impl FnOnce() -> Reveal,
) -> Vec<ServerMessage> {
    let mut ending = Some((result, reveal));
    let mut out = Vec::with_capacity(events.len());
    let leaving = match action {
        TableAction::Resign { .. } => EndReason::Resigned,
        TableAction::Forfeit {
            reason: Forfeit::Abandoned,
            ..
        } => EndReason::Abandoned,
        TableAction::Forfeit {
            reason: Forfeit::Timeout,
            ..
        } => EndReason::Timeout,
        _ => EndReason::Finished,
    };
    for event in events.iter().filter(|event| is_numbered_step(event)) {
        let number = next_event + out.len() as u64;
        let message = match *event {
            TableEvent::Rolled { side, value, legal } => ServerMessage::Rolled(Rolled {
                event: number,
                colour: side,
                value,
                legal,
                deadline_ms: None,
                by_clock: false,
            }),
            TableEvent::Launched { side, plane } => ServerMessage::Launched(Launched {
                event: number,
                colour: side,
                plane,
                by_clock: false,
            }),
            TableEvent::Moved {
                side,
                planes,
                from,
                to,
            } => ServerMessage::Walked(Walked {
                event: number,
                colour: side,
                planes,
                from,
                to,
                by_clock: false,
            }),
            TableEvent::Jumped {
                side,
                planes,
                from,
                to,
            } => ServerMessage::Jumped(Shortcut {
                event: number,
                colour: side,
                planes,
                from,
                to,
            }),
            TableEvent::Flew {
                side,
                planes,
                from,
                to,
            } => ServerMessage::Flew(Shortcut {
                event: number,
                colour: side,
                planes,
                from,
                to,
            }),
            TableEvent::SentHome {
                side,
                planes,
                square,
            } => ServerMessage::SentHome(SentHome {
                event: number,
                colour: side,
                planes,
                square,
            }),
            TableEvent::Finished { side, planes } => ServerMessage::Arrived(Arrived {
                event: number,
                colour: side,
                planes,
            }),
            TableEvent::ThirdSix { side, returned } => ServerMessage::ThirdSix(ThirdSix {
                event: number,
                colour: side,
                returned,
            }),
            TableEvent::ExtraRoll { side } => ServerMessage::ExtraRoll(ExtraRoll {
                event: number,
                colour: side,
                deadline_ms: None,
            }),
            TableEvent::TurnPassed { from, to, reason } => ServerMessage::TurnPassed(TurnPassed {
                event: number,
                from,
                to,
                reason,
                deadline_ms: None,
            }),
            TableEvent::Out { side, place } => ServerMessage::PlayerOut(PlayerOut {
                event: number,
                colour: side,
                place,
                // The one player left in play is out by the others leaving: it finished.
                reason: if side == action.side() {
                    leaving
                } else {
                    EndReason::Finished
                },
            }),
            TableEvent::DrawOffered { by } => {
                ServerMessage::DrawOffered(DrawAction { event: number, by })
            }
            TableEvent::DrawAccepted { by } => {
                ServerMessage::DrawAccepted(DrawAction { event: number, by })
            }
            TableEvent::DrawDeclined { by, implicit } => {
                ServerMessage::DrawDeclined(DrawDeclined {
                    event: number,
                    by,
                    implicit,
                })
            }
            TableEvent::DrawWithdrawn { by } => {
                ServerMessage::DrawWithdrawn(DrawAction { event: number, by })
            }
            TableEvent::DrawLapsed { by } => {
                ServerMessage::DrawLapsed(DrawAction { event: number, by })
            }
            TableEvent::GameOver { .. } => {
                let (result, reveal) = ending
                    .take()
                    .expect("the rules end a game at most once per action");
                game_over(number, result(), reveal())
            }
            TableEvent::Resigned { .. } => unreachable!("filtered: player_out tells it"),
        };
        out.push(message);
    }
    out
}

/// How many numbered wire events [`table_wire_events`] makes of `events`, without making them.
pub fn table_wire_event_count(events: &[TableEvent]) -> u64 {
    events
        .iter()
        .filter(|event| is_numbered_step(event))
        .count() as u64
}

/// Whether a table's `event` becomes a wire event: all do but `resigned`, which the
/// `player_out` that follows tells.
fn is_numbered_step(event: &TableEvent) -> bool {
    !matches!(event, TableEvent::Resigned { .. })
}

#[cfg(test)]
mod tests {
    use aeroplane_rules::{Colour, Die, Game, PassReason, Plane, Position, Side};

    use super::*;

    fn no_reveal() -> Reveal {
        panic!("nothing ended")
    }

    #[test]
    fn a_deploying_six_is_one_moved_event_with_an_extra_roll() {
        let mut game = Game::new();
        let rolled = game.roll(Colour::Red, Die::new(6).unwrap()).unwrap();
        let wire = wire_events(&rolled, 1, no_reveal);
        assert!(matches!(
            &wire[..],
            [ServerMessage::Rolled(Rolled { event: 1, .. })]
        ));
        let moved = game
            .move_plane(Colour::Red, Plane::new(0).unwrap())
            .unwrap();
        let wire = wire_events(&moved, 2, no_reveal);
        let [ServerMessage::Moved(moved)] = &wire[..] else {
            panic!("{wire:?}")
        };
        assert_eq!(
            (moved.event, moved.from, moved.to),
            (2, Position::Base, Position::Route(0))
        );
        assert!(moved.extra_roll);
    }

    #[test]
    fn a_roll_with_no_legal_move_is_numbered_rolled_then_turn_passed() {
        let mut game = Game::new();
        let events = game.roll(Colour::Red, Die::new(3).unwrap()).unwrap();
        let wire = wire_events(&events, 10, no_reveal);
        let numbers: Vec<_> = wire.iter().map(|m| m.event().unwrap()).collect();
        assert_eq!(numbers, [10, 11]);
        assert!(matches!(
            wire[1],
            ServerMessage::TurnPassed(TurnPassed {
                reason: PassReason::NoLegalMove,
                ..
            })
        ));
    }

    #[test]
    fn a_resignation_is_one_game_over_with_the_seeds() {
        let mut game = Game::new();
        let events = game.resign(Colour::Red).unwrap();
        let wire = wire_events(&events, 4, || Reveal {
            server_seed: "00".into(),
            commitment: "11".into(),
            red_seed: String::new(),
            yellow_seed: "y".into(),
            blue_seed: None,
            green_seed: None,
        });
        let [ServerMessage::GameOver(over)] = &wire[..] else {
            panic!("{wire:?}")
        };
        assert_eq!((over.event, over.result.winner), (4, Some(Side::Yellow)));
        assert_eq!(over.server_seed, "00");
    }

    #[test]
    fn the_count_of_a_resignation_is_its_one_game_over() {
        let mut game = Game::new();
        let events = game.resign(Colour::Yellow).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(wire_event_count(&events), 1);
    }
}
