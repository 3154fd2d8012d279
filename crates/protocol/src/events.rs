//! From the rules crate's events to numbered wire events.
//!
//! The rules tell a move as several small events (deployed or moved, captured, finished, extra
//! roll); the wire tells it as one `moved` message, so a client animates one thing per event.

use aeroplane_rules::{Event, Position};

use crate::record::ResultRecord;
use crate::server::{
    Capture, DrawAction, DrawDeclined, GameOver, Moved, Rolled, ServerMessage, TurnPassed,
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
}

/// Turns the events of one action into wire events numbered from `next_event` on.
///
/// `reveal` is asked only when the events end the game.
pub fn wire_events(
    events: &[Event],
    next_event: u64,
    reveal: impl FnOnce() -> Reveal,
) -> Vec<ServerMessage> {
    let mut out: Vec<ServerMessage> = Vec::with_capacity(events.len());
    let mut pending: Option<Moved> = None;
    let mut reveal = Some(reveal);
    let number = |out: &Vec<ServerMessage>, pending: &Option<Moved>| {
        next_event + out.len() as u64 + u64::from(pending.is_some())
    };
    for event in events {
        match *event {
            Event::Deployed { colour, plane } => {
                let event = number(&out, &pending);
                pending = Some(Moved {
                    event,
                    colour,
                    plane,
                    from: Position::Base,
                    to: Position::Route(0),
                    captures: Vec::new(),
                    finished: false,
                    extra_roll: false,
                    deadline_ms: None,
                    by_clock: false,
                });
            }
            Event::Moved {
                colour,
                plane,
                from,
                to,
            } => {
                let event = number(&out, &pending);
                pending = Some(Moved {
                    event,
                    colour,
                    plane,
                    from,
                    to,
                    captures: Vec::new(),
                    finished: false,
                    extra_roll: false,
                    deadline_ms: None,
                    by_clock: false,
                });
            }
            Event::Captured {
                colour,
                planes,
                square,
            } => {
                if let Some(moved) = pending.as_mut() {
                    moved.captures.push(Capture {
                        colour,
                        planes,
                        square,
                    });
                }
            }
            Event::Finished { .. } => {
                if let Some(moved) = pending.as_mut() {
                    moved.finished = true;
                }
            }
            Event::ExtraRoll { .. } => {
                if let Some(mut moved) = pending.take() {
                    moved.extra_roll = true;
                    out.push(ServerMessage::Moved(moved));
                }
            }
            other => {
                if let Some(moved) = pending.take() {
                    out.push(ServerMessage::Moved(moved));
                }
                let event = next_event + out.len() as u64;
                let message = match other {
                    Event::Rolled {
                        colour,
                        value,
                        legal,
                    } => ServerMessage::Rolled(Rolled {
                        event,
                        colour,
                        value,
                        legal,
                        deadline_ms: None,
                        by_clock: false,
                    }),
                    Event::TurnPassed { from, to, reason } => {
                        ServerMessage::TurnPassed(TurnPassed {
                            event,
                            from,
                            to,
                            reason,
                            deadline_ms: None,
                        })
                    }
                    Event::DrawOffered { by } => {
                        ServerMessage::DrawOffered(DrawAction { event, by })
                    }
                    Event::DrawAccepted { by } => {
                        ServerMessage::DrawAccepted(DrawAction { event, by })
                    }
                    Event::DrawDeclined { by, implicit } => {
                        ServerMessage::DrawDeclined(DrawDeclined {
                            event,
                            by,
                            implicit,
                        })
                    }
                    Event::DrawWithdrawn { by } => {
                        ServerMessage::DrawWithdrawn(DrawAction { event, by })
                    }
                    // The `game_over` that follows says who resigned through its result.
                    Event::Resigned { .. } => continue,
                    Event::GameOver { outcome } => {
                        let seeds = reveal.take().map(|reveal| reveal()).unwrap_or_else(|| {
                            unreachable!("the rules end a game at most once per action")
                        });
                        ServerMessage::GameOver(GameOver {
                            event,
                            result: ResultRecord {
                                winner: outcome.winner,
                                reason: outcome.reason,
                            },
                            server_seed: seeds.server_seed,
                            commitment: seeds.commitment,
                            red_seed: seeds.red_seed,
                            yellow_seed: seeds.yellow_seed,
                        })
                    }
                    Event::Deployed { .. }
                    | Event::Moved { .. }
                    | Event::Captured { .. }
                    | Event::Finished { .. }
                    | Event::ExtraRoll { .. } => unreachable!("handled above"),
                };
                out.push(message);
            }
        }
    }
    if let Some(moved) = pending.take() {
        out.push(ServerMessage::Moved(moved));
    }
    out
}

/// How many numbered wire events the events of one action become, without building them.
pub fn wire_event_count(events: &[Event]) -> u64 {
    let unrevealed = || Reveal {
        server_seed: String::new(),
        commitment: String::new(),
        red_seed: String::new(),
        yellow_seed: String::new(),
    };
    wire_events(events, 0, unrevealed).len() as u64
}

#[cfg(test)]
mod tests {
    use aeroplane_rules::{Colour, Die, Game, PassReason, Plane};

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
        });
        let [ServerMessage::GameOver(over)] = &wire[..] else {
            panic!("{wire:?}")
        };
        assert_eq!((over.event, over.result.winner), (4, Some(Colour::Yellow)));
        assert_eq!(over.server_seed, "00");
    }
}
