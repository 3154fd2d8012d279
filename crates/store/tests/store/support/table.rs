//! Genuine records of format 2: games of `flights` and `classic` with two to four players,
//! played through the rules crate's `Table` with the real die stream of scheme `v2`
//! (`fairness.md`), so the action log replays to the stored result (`replay_table`) and every
//! roll re-derives from the seeds.
//!
//! Shared by the store suite and the integration suite's test of the games API (which includes
//! this file by path).

use aeroplane_dice::{ClientSeed, DieStream, GameKey, Scheme, ServerSeed};
use aeroplane_protocol::record::{
    FairnessRecord, GameRecord, LoggedAction, Mode, PlayerKind, PlayerRecord, Players, ResultRecord,
};
use aeroplane_rules::{Plane, Rules, Side, Table, TableAction, TablePhase};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

/// How a played table game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableEnding {
    /// Played to its end with the first legal plane every time: the first to finish wins, and in
    /// `classic` the game goes on until every place is decided.
    Finished,
    /// This colour resigns once this many actions are logged; the others play on to the end
    /// (with two players the game ends there).
    Resigns(Side, usize),
    /// Once this many actions are logged Red offers a draw and every other player in play
    /// accepts.
    Agreed(usize),
}

/// The most actions a played game may take before the helper gives up (a bug, not a game).
const MAX_ACTIONS: usize = 50_000;

/// A finished game of `rules` with `players` players, played from `seed` (which picks the
/// server seed), ending as `ending`.
///
/// Red's first roll (and move, if it had one) is taken back, as in a game against the
/// computer, so the log holds undone actions too: the undone roll still used a value of the die
/// stream. Blue, when seated, is the server's bot; the other seats are people.
pub fn play_table(seed: u64, rules: Rules, players: usize, ending: TableEnding) -> GameRecord {
    let mut server_bytes = [0u8; 32];
    server_bytes[..8].copy_from_slice(&seed.to_be_bytes());
    server_bytes[31] = players as u8;
    let server = ServerSeed::from_bytes(server_bytes);
    let sides = Rules::seating(players);
    let seeds: Vec<(Side, ClientSeed)> = sides
        .iter()
        .map(|side| {
            // Yellow gives no seed; the others name themselves.
            let text = match side {
                Side::Yellow => String::new(),
                side => format!("{}-{seed}", side.as_str()),
            };
            (*side, ClientSeed::new(text).expect("a short seed"))
        })
        .collect();
    let scheme = Scheme::for_game(rules.ruleset(), players);
    let key = match scheme {
        Scheme::V1 => GameKey::derive(&server, &seeds[0].1, &seeds[1].1),
        Scheme::V2 => {
            let framed: Vec<(Side, &ClientSeed)> =
                seeds.iter().map(|(side, seed)| (*side, seed)).collect();
            GameKey::derive_v2(&server, rules.ruleset(), &framed).expect("distinct seats")
        }
    };
    let mut die = DieStream::new(key);
    let new_table = || Table::new(rules, players).expect("the edition seats this many");

    let mut log = Log::default();
    // Red rolls (and moves, if it can), then takes it back.
    let mut scratch = new_table();
    let value = die.next_die();
    log.note(
        &mut scratch,
        TableAction::Roll {
            colour: Side::Red,
            value,
        },
        true,
    );
    if let TablePhase::AwaitingMove { legal, .. } = scratch.phase() {
        let plane = legal.iter().next().expect("a legal plane");
        log.note(
            &mut scratch,
            TableAction::Move {
                colour: Side::Red,
                plane,
            },
            true,
        );
    }

    let mut table = new_table();
    let mut ended_early = false;
    while !table.is_over() {
        assert!(log.actions.len() < MAX_ACTIONS, "the game never ends");
        match ending {
            TableEnding::Resigns(side, after)
                if !ended_early && log.actions.len() >= after && table.in_play(side) =>
            {
                log.note(&mut table, TableAction::Resign { colour: side }, false);
                ended_early = true;
                continue;
            }
            TableEnding::Agreed(after) if !ended_early && log.actions.len() >= after => {
                log.note(
                    &mut table,
                    TableAction::OfferDraw { colour: Side::Red },
                    false,
                );
                let receivers: Vec<Side> = table
                    .sides()
                    .filter(|side| *side != Side::Red && table.in_play(*side))
                    .collect();
                for side in receivers {
                    log.note(&mut table, TableAction::AcceptDraw { colour: side }, false);
                }
                ended_early = true;
                continue;
            }
            _ => {}
        }
        let colour = table.to_act();
        let action = match table.phase() {
            TablePhase::AwaitingRoll => TableAction::Roll {
                colour,
                value: die.next_die(),
            },
            TablePhase::AwaitingMove { legal, .. } => {
                let plane: Plane = legal.iter().next().expect("a legal plane");
                TableAction::Move { colour, plane }
            }
            TablePhase::Over(_) => unreachable!("the loop stops at game over"),
        };
        log.note(&mut table, action, false);
    }
    let result = ResultRecord::of_table(&table).expect("the game is over");

    let created_at = OffsetDateTime::from_unix_timestamp(1_760_000_000).expect("a valid time")
        + Duration::microseconds((seed % 1_000_000_007) as i64 * 1_000_003);
    let started_at = created_at + Duration::seconds(11);
    let ended_at = started_at + Duration::milliseconds(1_500 * log.actions.len() as i64);
    let seat = |side: Side| {
        sides.contains(&side).then(|| match side {
            Side::Blue => PlayerRecord {
                name: "bot".to_owned(),
                kind: PlayerKind::Computer,
                level: Some("hard".to_owned()),
                player_id: None,
            },
            side => PlayerRecord {
                name: format!("{}-{}", side.as_str(), seed % 7),
                kind: PlayerKind::Human,
                level: None,
                player_id: None,
            },
        })
    };
    let seed_of = |side: Side| {
        seeds
            .iter()
            .find(|(seated, _)| *seated == side)
            .map(|(_, seed)| seed.as_str().to_owned())
    };
    GameRecord {
        format: GameRecord::format_for(rules, players),
        id: Uuid::new_v4(),
        ruleset: rules.ruleset().as_str().to_owned(),
        house_rules: rules
            .house_rules()
            .iter()
            .map(|rule| (*rule).to_owned())
            .collect(),
        mode: Mode::Online,
        created_at,
        started_at,
        ended_at,
        players: Players {
            red: seat(Side::Red).expect("Red sits"),
            yellow: seat(Side::Yellow).expect("Yellow sits"),
            blue: seat(Side::Blue),
            green: seat(Side::Green),
        },
        rated: false,
        result,
        rolls: log.rolls,
        moves: log.moves,
        actions: log.actions,
        fairness: FairnessRecord {
            scheme: scheme.as_str().to_owned(),
            commitment: server.commitment().to_string(),
            server_seed: server.to_hex(),
            red_seed: seed_of(Side::Red).expect("Red sits"),
            yellow_seed: seed_of(Side::Yellow).expect("Yellow sits"),
            blue_seed: seed_of(Side::Blue),
            green_seed: seed_of(Side::Green),
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
    /// Applies `action` to `table` and logs it with the number of its first event.
    fn note(&mut self, table: &mut Table, action: TableAction, undone: bool) {
        let events = table
            .apply(action)
            .unwrap_or_else(|error| panic!("{action:?} is legal at {table}: {error}"));
        self.actions.push(LoggedAction {
            event: self.next_event,
            action,
            undone,
        });
        self.next_event += events.len() as u64;
        match action {
            TableAction::Roll { .. } => self.rolls += 1,
            TableAction::Move { .. } if !undone => self.moves += 1,
            _ => {}
        }
    }
}
