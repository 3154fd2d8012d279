//! The tests of `server.rs`: the events written as text are `serde_json`'s text, for every
//! value their fields take.

use aeroplane_rules::PlaneSet;

use super::*;

/// Every set of planes, from none to all four.
fn plane_sets() -> impl Iterator<Item = PlaneSet> {
    (0..16u8).map(|bits| {
        Plane::ALL
            .into_iter()
            .filter(|plane| bits & (1 << plane.number()) != 0)
            .fold(PlaneSet::EMPTY, PlaneSet::with)
    })
}

fn positions() -> impl Iterator<Item = Position> {
    [Position::Base, Position::Finished]
        .into_iter()
        .chain((0..=56).map(Position::Route))
}

/// The message's text from `to_json`, and what `write_json` appends, is `serde_json`'s.
fn same(message: ServerMessage) {
    let expected = serde_json::to_string(&message).unwrap();
    assert_eq!(message.to_json(), expected);
    let mut out = b"[".to_vec();
    message.write_json(&mut out);
    assert_eq!(out, format!("[{expected}").into_bytes());
}

const CLOCKS: [(Option<u64>, bool); 4] = [
    (None, false),
    (Some(0), false),
    (Some(30_000), true),
    (None, true),
];
const EVENTS: [u64; 4] = [0, 9, 1_234, u64::MAX];

#[test]
fn a_rolled_written_by_hand_is_serde_jsons_text() {
    for (event, colour, (deadline_ms, by_clock)) in EVENTS
        .into_iter()
        .flat_map(|event| Side::ALL.map(|colour| (event, colour)))
        .flat_map(|(event, colour)| CLOCKS.map(|clock| (event, colour, clock)))
    {
        for value in Die::ALL {
            for legal in plane_sets() {
                same(ServerMessage::Rolled(Rolled {
                    event,
                    colour,
                    value,
                    legal,
                    deadline_ms,
                    by_clock,
                }));
            }
        }
    }
}

#[test]
fn a_moved_written_by_hand_is_serde_jsons_text() {
    let square = |index| RingIndex::new(index).unwrap();
    let captures = [
        vec![],
        vec![Capture {
            colour: Side::Yellow,
            planes: PlaneSet::EMPTY.with(Plane::ALL[2]),
            square: square(50),
        }],
        vec![
            Capture {
                colour: Side::Blue,
                planes: PlaneSet::EMPTY.with(Plane::ALL[0]).with(Plane::ALL[3]),
                square: square(0),
            },
            Capture {
                colour: Side::Green,
                planes: PlaneSet::EMPTY.with(Plane::ALL[1]),
                square: square(9),
            },
        ],
    ];
    for (event, (deadline_ms, by_clock)) in EVENTS
        .into_iter()
        .flat_map(|event| CLOCKS.map(|clock| (event, clock)))
    {
        for colour in Side::ALL {
            for plane in Plane::ALL {
                for (from, to) in positions()
                    .map(|from| (from, Position::Route(7)))
                    .chain(positions().map(|to| (Position::Base, to)))
                {
                    for captures in &captures {
                        for (finished, extra_roll) in
                            [(false, false), (true, false), (false, true), (true, true)]
                        {
                            same(ServerMessage::Moved(Moved {
                                event,
                                colour,
                                plane,
                                from,
                                to,
                                captures: captures.clone(),
                                finished,
                                extra_roll,
                                deadline_ms,
                                by_clock,
                            }));
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn a_turn_passed_written_by_hand_is_serde_jsons_text() {
    for event in EVENTS {
        for from in Side::ALL {
            for to in Side::ALL {
                for reason in [
                    PassReason::Normal,
                    PassReason::NoLegalMove,
                    PassReason::VoidThirdSix,
                ] {
                    for deadline_ms in [None, Some(0), Some(30_000)] {
                        same(ServerMessage::TurnPassed(TurnPassed {
                            event,
                            from,
                            to,
                            reason,
                            deadline_ms,
                        }));
                    }
                }
            }
        }
    }
}
