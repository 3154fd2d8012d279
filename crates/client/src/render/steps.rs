//! The events only table rooms send (`docs/protocol.md` §12) in words, so that `watch` and
//! `play` print a readable log of a game of any edition: a move is told step by step (launched,
//! walked, jumped, flew, sent home, arrived), and a game of three or four has players leaving
//! play with a place before it is over.
//!
//! Squares are counted as the board's legend counts them, from the mover's own start, so a log
//! line and the legend agree; a plane sent home is placed on its owner's route the same way.

use aeroplane_protocol::record::Places;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::board::LAST_RING_PROGRESS;
use aeroplane_rules::{EndReason, PlaneSet, Position, RingIndex, Side};

use super::label;

/// One event of a table room in words, e.g. `Blue walks plane 1 to square 20`; `None` for
/// messages every room sends (the parent module's `describe` words those).
pub(super) fn describe_step(message: &ServerMessage) -> Option<String> {
    let text = match message {
        ServerMessage::Launched(m) => {
            format!(
                "{} launches plane {} to its start",
                m.colour,
                label(m.plane)
            )
        }
        ServerMessage::Walked(m) => {
            let stack = if m.planes.len() > 1 { " (a stack)" } else { "" };
            format!(
                "{} walks {}{stack} to {}",
                m.colour,
                planes(m.planes),
                place(m.to)
            )
        }
        ServerMessage::Jumped(m) => format!(
            "{} jumps {} from {} to {}",
            m.colour,
            planes(m.planes),
            progress(m.from),
            progress(m.to)
        ),
        ServerMessage::Flew(m) => format!(
            "{} flies {} across from {} to {}",
            m.colour,
            planes(m.planes),
            progress(m.from),
            progress(m.to)
        ),
        ServerMessage::SentHome(m) => {
            let whence = match m.square {
                Some(square) => format!("from its {}", progress(own_progress(m.colour, square))),
                None => "from the runway square the shortcut crosses".to_owned(),
            };
            format!(
                "{}'s {} sent back to the hangar {whence}",
                m.colour,
                were(m.planes)
            )
        }
        ServerMessage::Arrived(m) => {
            format!("{}'s {} reached the centre", m.colour, planes(m.planes))
        }
        ServerMessage::ThirdSix(m) if m.returned.is_empty() => {
            format!("{} rolled a third six in a row: void", m.colour)
        }
        ServerMessage::ThirdSix(m) => format!(
            "{} rolled a third six in a row: void, and {} back in the hangar",
            m.colour,
            were(m.returned)
        ),
        ServerMessage::ExtraRoll(m) => format!("{} rolls again", m.colour),
        ServerMessage::PlayerOut(m) => match m.reason {
            EndReason::Finished => format!("{} is out of play in place {}", m.colour, m.place),
            EndReason::Resigned => format!("{} resigns and takes place {}", m.colour, m.place),
            EndReason::Abandoned => {
                format!(
                    "{} abandoned the game and takes place {}",
                    m.colour, m.place
                )
            }
            EndReason::Timeout => {
                format!("{} ran out of time and takes place {}", m.colour, m.place)
            }
            EndReason::Agreed => format!("{} leaves play in place {}", m.colour, m.place),
        },
        ServerMessage::DrawLapsed(m) => {
            format!("{}'s draw offer lapses: a player left play", m.by)
        }
        _ => return None,
    };
    Some(text)
}

/// The places of a table game's result best first, e.g. `places: 1 Yellow, 2 Blue, 3 Red`,
/// naming only the colours that have a place.
pub(super) fn places_line(places: &Places) -> String {
    let placed = Side::ALL
        .into_iter()
        .filter(|side| places.get(*side).is_some());
    format!("places: {}", super::ranking(places, placed))
}

/// `plane 2` or `planes 1, 3`.
fn planes(set: PlaneSet) -> String {
    let numbers: Vec<String> = set.iter().map(|p| label(p).to_string()).collect();
    let noun = if numbers.len() == 1 {
        "plane"
    } else {
        "planes"
    };
    format!("{noun} {}", numbers.join(", "))
}

/// `plane 2 is` or `planes 1, 3 are`.
fn were(set: PlaneSet) -> String {
    let verb = if set.len() == 1 { "is" } else { "are" };
    format!("{} {verb}", planes(set))
}

/// Where a walk ended: a square counted from the mover's start, a runway square, the centre.
fn place(position: Position) -> String {
    match position {
        Position::Base => "its hangar".to_owned(),
        Position::Finished => "the centre".to_owned(),
        Position::Route(step) => progress(step),
    }
}

/// A progress along the mover's route: `square 20` on the ring, `runway 3` past it.
fn progress(step: u8) -> String {
    if step <= LAST_RING_PROGRESS {
        format!("square {step}")
    } else {
        format!("runway {}", step - LAST_RING_PROGRESS)
    }
}

/// The ring square `square` counted from `side`'s start square.
fn own_progress(side: Side, square: RingIndex) -> u8 {
    let start = side.start_square().value();
    (square.value() + 52 - start) % 52
}

#[cfg(test)]
mod tests {
    use aeroplane_protocol::server::{
        Arrived, DrawAction, ExtraRoll, Launched, PlayerOut, SentHome, Shortcut, ThirdSix, Walked,
    };
    use aeroplane_rules::Plane;

    use super::*;
    use crate::render::describe;

    fn set(planes: &[u8]) -> PlaneSet {
        planes
            .iter()
            .map(|p| Plane::new(*p).unwrap())
            .fold(PlaneSet::EMPTY, |set, plane| set.with(plane))
    }

    fn words(message: ServerMessage) -> String {
        describe(&message).expect("a room event is described")
    }

    #[test]
    fn a_launch_and_a_walk_are_told_in_the_movers_numbering() {
        let launched = ServerMessage::Launched(Launched {
            event: 6,
            colour: Side::Red,
            plane: Plane::new(0).unwrap(),
            by_clock: false,
        });
        assert_eq!(words(launched), "Red launches plane 1 to its start");
        let walked = ServerMessage::Walked(Walked {
            event: 73,
            colour: Side::Blue,
            planes: set(&[0]),
            from: Position::Route(15),
            to: Position::Route(20),
            by_clock: false,
        });
        assert_eq!(words(walked), "Blue walks plane 1 to square 20");
    }

    #[test]
    fn a_classic_stack_walks_as_one_and_a_walk_may_end_on_the_runway_or_the_centre() {
        let stack = ServerMessage::Walked(Walked {
            event: 9,
            colour: Side::Green,
            planes: set(&[1, 3]),
            from: Position::Route(48),
            to: Position::Route(53),
            by_clock: false,
        });
        assert_eq!(
            words(stack),
            "Green walks planes 2, 4 (a stack) to runway 3"
        );
        let home = ServerMessage::Walked(Walked {
            event: 10,
            colour: Side::Yellow,
            planes: set(&[2]),
            from: Position::Route(54),
            to: Position::Finished,
            by_clock: false,
        });
        assert_eq!(words(home), "Yellow walks plane 3 to the centre");
    }

    #[test]
    fn jumps_and_flights_name_both_ends() {
        let jumped = ServerMessage::Jumped(Shortcut {
            event: 88,
            colour: Side::Blue,
            planes: set(&[0]),
            from: 44,
            to: 48,
        });
        assert_eq!(
            words(jumped),
            "Blue jumps plane 1 from square 44 to square 48"
        );
        let flew = ServerMessage::Flew(Shortcut {
            event: 74,
            colour: Side::Blue,
            planes: set(&[0]),
            from: 20,
            to: 32,
        });
        assert_eq!(
            words(flew),
            "Blue flies plane 1 across from square 20 to square 32"
        );
    }

    #[test]
    fn planes_sent_home_are_placed_on_their_owners_route() {
        // Ring square 32 is Red's square 32 (Red starts on ring 0), and Blue's square 25.
        let red = ServerMessage::SentHome(SentHome {
            event: 89,
            colour: Side::Red,
            planes: set(&[0]),
            square: Some(RingIndex::new(32).unwrap()),
        });
        assert_eq!(
            words(red),
            "Red's plane 1 is sent back to the hangar from its square 32"
        );
        let start = Side::Blue.start_square().value();
        let blue = ServerMessage::SentHome(SentHome {
            event: 90,
            colour: Side::Blue,
            planes: set(&[1, 2]),
            square: Some(RingIndex::new((start + 25) % 52).unwrap()),
        });
        assert_eq!(
            words(blue),
            "Blue's planes 2, 3 are sent back to the hangar from its square 25"
        );
        let crossed = ServerMessage::SentHome(SentHome {
            event: 91,
            colour: Side::Green,
            planes: set(&[3]),
            square: None,
        });
        assert_eq!(
            words(crossed),
            "Green's plane 4 is sent back to the hangar from the runway square the shortcut crosses"
        );
    }

    #[test]
    fn arrivals_third_sixes_and_extra_rolls_are_told() {
        let arrived = ServerMessage::Arrived(Arrived {
            event: 230,
            colour: Side::Yellow,
            planes: set(&[2]),
        });
        assert_eq!(words(arrived), "Yellow's plane 3 reached the centre");
        let void = ServerMessage::ThirdSix(ThirdSix {
            event: 120,
            colour: Side::Green,
            returned: PlaneSet::EMPTY,
        });
        assert_eq!(words(void), "Green rolled a third six in a row: void");
        let returned = ServerMessage::ThirdSix(ThirdSix {
            event: 120,
            colour: Side::Green,
            returned: set(&[1]),
        });
        assert_eq!(
            words(returned),
            "Green rolled a third six in a row: void, and plane 2 is back in the hangar"
        );
        let again = ServerMessage::ExtraRoll(ExtraRoll {
            event: 7,
            colour: Side::Red,
            deadline_ms: None,
        });
        assert_eq!(words(again), "Red rolls again");
    }

    #[test]
    fn a_player_out_of_play_is_told_with_its_place_and_why() {
        let out = |reason, place| {
            words(ServerMessage::PlayerOut(PlayerOut {
                event: 9,
                colour: Side::Green,
                place,
                reason,
            }))
        };
        assert_eq!(
            out(EndReason::Finished, 1),
            "Green is out of play in place 1"
        );
        assert_eq!(
            out(EndReason::Resigned, 4),
            "Green resigns and takes place 4"
        );
        assert_eq!(
            out(EndReason::Abandoned, 3),
            "Green abandoned the game and takes place 3"
        );
        assert_eq!(
            out(EndReason::Timeout, 4),
            "Green ran out of time and takes place 4"
        );
        let lapsed = ServerMessage::DrawLapsed(DrawAction {
            event: 10,
            by: Side::Red,
        });
        assert_eq!(words(lapsed), "Red's draw offer lapses: a player left play");
    }

    #[test]
    fn a_table_game_over_names_every_place() {
        let over: ServerMessage = ServerMessage::from_json(
            r#"{ "type": "game_over", "event": 412, "result": { "winner": "yellow", "reason": "finished", "places": { "red": 3, "green": 4, "yellow": 1, "blue": 2 } }, "server_seed": "00", "commitment": "00", "red_seed": "ann", "yellow_seed": "bob", "blue_seed": "cid", "green_seed": "dee" }"#,
        )
        .unwrap();
        assert_eq!(
            words(over),
            "game over: Yellow wins (finished); places: 1 Yellow, 2 Blue, 3 Red, 4 Green"
        );
        let agreed: ServerMessage = ServerMessage::from_json(
            r#"{ "type": "game_over", "event": 50, "result": { "winner": null, "reason": "agreed", "places": { "red": 1 } }, "server_seed": "00", "commitment": "00", "red_seed": "a", "yellow_seed": "b", "blue_seed": "c" }"#,
        )
        .unwrap();
        assert_eq!(words(agreed), "game over: draw (agreed); places: 1 Red");
    }
}
