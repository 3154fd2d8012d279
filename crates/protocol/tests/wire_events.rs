//! `wire_events` pinned over thousands of seeded random games: the wire messages of every action
//! are compared, as JSON, with the golden hashes in `tests/data/wire_events.txt`, each rules event
//! but a resignation is one wire event, and `wire_event_count` counts them. `to_json`, which
//! writes the events of nearly every action by hand, gives `serde_json`'s text for every message.
//!
//! The golden file was written by the state machine that folded the rules' small events (deployed
//! or moved, captured, finished, extra roll) into one `moved` message, before the rules told a
//! move as one event; the browser and stored games depend on the wire staying byte for byte the
//! same. Regenerate it only for a deliberate wire change:
//! `BLESS_WIRE_EVENTS=1 cargo test -p aeroplane-protocol --test wire_events`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use aeroplane_protocol::events::{Reveal, wire_event_count, wire_events};
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::{Colour, Die, Event, Events, Forfeit, Game, Phase, RuleError};

/// Games per line of the golden file.
const GAMES_PER_GROUP: u64 = 64;
/// Lines of the golden file.
const GROUPS: u64 = 64;
/// The longest game played; games that last longer are cut off (none does with these seeds).
const MAX_ACTIONS: usize = 5_000;

/// A tiny deterministic generator (splitmix64), so the games never depend on a crate's RNG.
struct Sequence(u64);

impl Sequence {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn colour(&mut self) -> Colour {
        if self.below(2) == 0 {
            Colour::Red
        } else {
            Colour::Yellow
        }
    }
}

/// FNV-1a, 64 bits: a hash that is the same on every platform and every Rust version.
fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// One random action for the game: mostly rolls and moves, sometimes draw actions, rarely a
/// resignation or a forfeit. Refused actions are simply not taken.
fn random_action(game: &mut Game, sequence: &mut Sequence) -> Result<Events, RuleError> {
    let colour = game.to_act();
    match sequence.below(1_000) {
        0 => game.resign(sequence.colour()),
        1 => {
            let reason = if sequence.below(2) == 0 {
                Forfeit::Abandoned
            } else {
                Forfeit::Timeout
            };
            game.forfeit(sequence.colour(), reason)
        }
        2..=11 => game.offer_draw(sequence.colour()),
        12..=16 => game.accept_draw(sequence.colour()),
        17..=21 => game.decline_draw(sequence.colour()),
        22..=26 => game.withdraw_draw(sequence.colour()),
        _ => match game.phase() {
            Phase::AwaitingRoll => {
                let die = Die::new(sequence.below(6) as u8 + 1).expect("1 to 6 is a die value");
                game.roll(colour, die)
            }
            Phase::AwaitingMove { legal, .. } => {
                let choice = sequence.below(legal.len() as u64) as usize;
                let plane = legal.iter().nth(choice).expect("the choice is in range");
                game.move_plane(colour, plane)
            }
            Phase::Over(_) => Err(RuleError::GameOver),
        },
    }
}

/// What one game's wire messages looked like, for the coverage check.
#[derive(Default)]
struct Seen {
    kinds: BTreeSet<String>,
}

impl Seen {
    fn note(&mut self, message: &ServerMessage, line: &str) {
        let kind = match message {
            ServerMessage::Moved(moved) => format!(
                "moved from_base={} captures={} finished={} extra_roll={}",
                moved.from == aeroplane_rules::Position::Base,
                moved.captures.len(),
                moved.finished,
                moved.extra_roll
            ),
            ServerMessage::GameOver(over) => format!("game_over {}", over.result.reason.as_str()),
            // An internally tagged message writes its tag first: `{"type":"rolled",…`.
            _ => line.split('"').nth(3).unwrap_or("untyped").to_owned(),
        };
        self.kinds.insert(kind);
    }
}

/// Plays game `index`, returning the hash of its wire messages' JSON lines and their count.
fn play(index: u64, seen: &mut Seen) -> (u64, u64) {
    let mut sequence = Sequence(index);
    let mut game = Game::new();
    let mut next_event = 1;
    let mut hash = FNV_OFFSET;
    for _ in 0..MAX_ACTIONS {
        if game.is_over() {
            break;
        }
        let Ok(events) = random_action(&mut game, &mut sequence) else {
            continue;
        };
        let wire = wire_events(&events, next_event, || Reveal {
            server_seed: format!("{index:064x}"),
            commitment: format!("{:064x}", index + 1),
            red_seed: format!("red-{index}"),
            yellow_seed: String::new(),
            blue_seed: None,
            green_seed: None,
        });
        for (offset, message) in wire.iter().enumerate() {
            assert_eq!(message.event(), Some(next_event + offset as u64));
            let line = serde_json::to_string(message).expect("a message serializes");
            // What the server sends: the hot events are written by hand, to the same text.
            assert_eq!(message.to_json(), line);
            let mut written = Vec::new();
            message.write_json(&mut written);
            assert_eq!(written, line.as_bytes());
            seen.note(message, &line);
            hash = fnv1a(hash, line.as_bytes());
            hash = fnv1a(hash, b"\n");
        }
        assert_eq!(wire_event_count(&events), wire.len() as u64, "{events:?}");
        assert_eq!(
            wire.len(),
            events.len() - usize::from(matches!(events[0], Event::Resigned { .. })),
            "every rules event but a resignation is one wire event: {events:?}"
        );
        next_event += wire.len() as u64;
    }
    assert!(game.is_over(), "game {index} did not end");
    (hash, next_event - 1)
}

fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/wire_events.txt")
}

#[test]
fn the_wire_messages_of_random_games_match_the_golden_hashes() {
    let mut seen = Seen::default();
    let mut actual = String::new();
    for group in 0..GROUPS {
        let mut hash = FNV_OFFSET;
        let mut messages = 0;
        for index in group * GAMES_PER_GROUP..(group + 1) * GAMES_PER_GROUP {
            let (game_hash, game_messages) = play(index, &mut seen);
            hash = fnv1a(hash, &game_hash.to_le_bytes());
            messages += game_messages;
        }
        writeln!(actual, "{group} {hash:016x} {messages}").expect("writing to a string");
    }
    for kind in [
        "moved from_base=true captures=0 finished=false extra_roll=true",
        "moved from_base=false captures=0 finished=false extra_roll=false",
        "moved from_base=false captures=1 finished=false extra_roll=true",
        "moved from_base=false captures=0 finished=true extra_roll=true",
        "moved from_base=false captures=0 finished=true extra_roll=false",
        "rolled",
        "turn_passed",
        "draw_offered",
        "draw_accepted",
        "draw_declined",
        "draw_withdrawn",
        "game_over finished",
        "game_over resigned",
        "game_over agreed",
        "game_over abandoned",
        "game_over timeout",
    ] {
        assert!(seen.kinds.contains(kind), "no game produced {kind}");
    }
    if std::env::var_os("BLESS_WIRE_EVENTS").is_some() {
        std::fs::write(golden_path(), &actual).expect("the golden file is writable");
        return;
    }
    let golden = std::fs::read_to_string(golden_path()).expect("the golden file is readable");
    for (line, (actual, golden)) in actual.lines().zip(golden.lines()).enumerate() {
        assert_eq!(
            actual, golden,
            "group {line} (games {line}×{GAMES_PER_GROUP}…)"
        );
    }
    assert_eq!(actual.lines().count(), golden.lines().count());
}
