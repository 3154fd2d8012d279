//! Realistic game records: real games played through the rules crate with the real die stream,
//! so the action log replays to the stored result and every roll re-derives from the seeds.
//!
//! Shared by the test suite and the write benchmark (`examples/write_bench.rs`).

use aeroplane_dice::{ClientSeed, DieStream, GameKey, SCHEME, ServerSeed};
use aeroplane_protocol::record::{
    FairnessRecord, GameRecord, LoggedAction, Mode, PlayerKind, PlayerRecord, Players, ResultRecord,
};
use aeroplane_rules::{Action, Colour, Game, Phase, Plane};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

/// How a played game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Played to the finish: the first legal plane every time.
    Finished,
    /// This colour resigns after this many actions.
    Resigns(Colour, usize),
    /// Red offers a draw after this many actions and Yellow accepts.
    Agreed(usize),
}

/// A finished game played from `seed` (which picks the server seed), ending as `ending`.
///
/// Its first roll and move are taken back (undone), as in a game against the computer, so the
/// log holds undone actions too; the rest is played with the first legal plane.
pub fn play(seed: u64, ending: Ending) -> GameRecord {
    let mut server_bytes = [0u8; 32];
    server_bytes[..8].copy_from_slice(&seed.to_be_bytes());
    let server = ServerSeed::from_bytes(server_bytes);
    let red_seed = ClientSeed::new(format!("red-{seed}")).expect("a short seed");
    let yellow_seed = ClientSeed::new("").expect("the empty seed");
    let mut die = DieStream::new(GameKey::derive(&server, &red_seed, &yellow_seed));

    let mut log = Log::default();
    // Red rolls and moves, then takes both back: the roll still used a value of the stream.
    let mut scratch = Game::new();
    loop {
        let value = die.next_die();
        log.note(
            &mut scratch,
            Action::Roll {
                colour: Colour::Red,
                value,
            },
            true,
        );
        if let Phase::AwaitingMove { legal, .. } = scratch.phase() {
            let plane = legal.iter().next().expect("a legal plane");
            log.note(
                &mut scratch,
                Action::Move {
                    colour: Colour::Red,
                    plane,
                },
                true,
            );
            break;
        }
        // No legal move: the turn passed, which the undo takes back as well.
        scratch = Game::new();
    }

    let mut game = Game::new();
    while !game.is_over() {
        match ending {
            Ending::Resigns(colour, after) if log.actions.len() >= after => {
                log.note(&mut game, Action::Resign { colour }, false);
                continue;
            }
            Ending::Agreed(after) if log.actions.len() >= after => {
                log.note(
                    &mut game,
                    Action::OfferDraw {
                        colour: Colour::Red,
                    },
                    false,
                );
                log.note(
                    &mut game,
                    Action::AcceptDraw {
                        colour: Colour::Yellow,
                    },
                    false,
                );
                continue;
            }
            _ => {}
        }
        let colour = game.to_act();
        let action = match game.phase() {
            Phase::AwaitingRoll => Action::Roll {
                colour,
                value: die.next_die(),
            },
            Phase::AwaitingMove { legal, .. } => {
                let plane: Plane = legal.iter().next().expect("a legal plane");
                Action::Move { colour, plane }
            }
            Phase::Over(_) => unreachable!("the loop stops at game over"),
        };
        log.note(&mut game, action, false);
    }
    let outcome = game.outcome().expect("the game is over");

    let created_at = OffsetDateTime::from_unix_timestamp(1_750_000_000).expect("a valid time")
        + Duration::microseconds((seed % 1_000_000_007) as i64 * 1_000_003);
    let started_at = created_at + Duration::seconds(7);
    let ended_at = started_at + Duration::milliseconds(1_500 * log.actions.len() as i64);
    GameRecord {
        format: aeroplane_protocol::record::PLYYARD_FORMAT,
        id: Uuid::new_v4(),
        ruleset: "plyyard".to_owned(),
        house_rules: Vec::new(),
        mode: Mode::Computer,
        created_at,
        started_at,
        ended_at,
        players: Players {
            red: PlayerRecord {
                name: format!("ada-{}", seed % 7),
                kind: PlayerKind::Human,
                level: None,
                player_id: None,
            },
            yellow: PlayerRecord {
                name: "bot".to_owned(),
                kind: PlayerKind::Computer,
                level: Some("normal".to_owned()),
                player_id: None,
            },
            blue: None,
            green: None,
        },
        rated: false,
        result: ResultRecord::plyyard(outcome.winner, outcome.reason),
        rolls: log.rolls,
        moves: log.moves,
        actions: log.actions,
        fairness: FairnessRecord {
            scheme: SCHEME.to_owned(),
            commitment: server.commitment().to_string(),
            server_seed: server.to_hex(),
            red_seed: red_seed.as_str().to_owned(),
            yellow_seed: yellow_seed.as_str().to_owned(),
            blue_seed: None,
            green_seed: None,
        },
    }
}

/// The action log being written, with the room's event counter.
#[derive(Default)]
struct Log {
    actions: Vec<LoggedAction>,
    next_event: u64,
    rolls: u32,
    moves: u32,
}

impl Log {
    /// Applies `action` to `game` and logs it with the number of its first event.
    fn note(&mut self, game: &mut Game, action: Action, undone: bool) {
        let events = game
            .apply(action)
            .expect("the player only takes legal actions");
        self.actions.push(LoggedAction {
            event: self.next_event,
            action: action.into(),
            undone,
        });
        self.next_event += events.len() as u64;
        match action {
            Action::Roll { .. } => self.rolls += 1,
            Action::Move { .. } if !undone => self.moves += 1,
            _ => {}
        }
    }
}
