//! `verify_record` and `aeroplane verify FILE` on a genuine record and on tampered copies.

use std::path::PathBuf;
use std::process::Command;

use aeroplane_client::{VerifyError, verify_record};
use aeroplane_dice::{ClientSeed, DieStream, GameKey, SCHEME, ServerSeed};
use aeroplane_protocol::record::{
    FairnessRecord, GameRecord, LoggedAction, Mode, PlayerKind, PlayerRecord, Players, ResultRecord,
};
use aeroplane_rules::{Action, Die, Game, Phase, Plane, RULESET, TableAction};
use time::OffsetDateTime;
use uuid::Uuid;

/// A complete game played with the real die stream from fixed seeds: each player moves the
/// rearmost legal plane, so games are long and capture-rich.
fn genuine_record() -> GameRecord {
    let server = ServerSeed::from_bytes(std::array::from_fn(|i| i as u8 * 7));
    let (red_seed, yellow_seed) = ("red's seed", "");
    let key = GameKey::derive(
        &server,
        &ClientSeed::new(red_seed).unwrap(),
        &ClientSeed::new(yellow_seed).unwrap(),
    );
    let mut stream = DieStream::new(key);
    let mut game = Game::new();
    let mut actions = Vec::new();
    let mut event = 3;
    while !game.is_over() {
        let colour = game.to_act();
        let action = match game.phase() {
            Phase::AwaitingRoll => Action::Roll {
                colour,
                value: stream.next_die(),
            },
            Phase::AwaitingMove { legal, .. } => {
                let rearmost = legal
                    .iter()
                    .min_by_key(|plane| game.position(colour, *plane).progress().unwrap_or(0))
                    .unwrap();
                Action::Move {
                    colour,
                    plane: rearmost,
                }
            }
            Phase::Over(_) => unreachable!(),
        };
        let events = game.apply(action).unwrap();
        actions.push(LoggedAction {
            event,
            action: action.into(),
            undone: false,
        });
        event += events.len() as u64;
    }
    let outcome = game.outcome().unwrap();
    let count = |roll: bool| {
        actions
            .iter()
            .filter(|a| matches!(a.action, TableAction::Roll { .. }) == roll)
            .count() as u32
    };
    let player = |name: &str| PlayerRecord {
        name: name.into(),
        kind: PlayerKind::Human,
        level: None,
        player_id: None,
    };
    GameRecord {
        format: aeroplane_protocol::record::PLYYARD_FORMAT,
        id: Uuid::from_u128(0x5eed),
        ruleset: RULESET.into(),
        house_rules: Vec::new(),
        mode: Mode::Online,
        created_at: OffsetDateTime::UNIX_EPOCH,
        started_at: OffsetDateTime::UNIX_EPOCH,
        ended_at: OffsetDateTime::UNIX_EPOCH,
        players: Players {
            red: player("Ann"),
            yellow: player("Bob"),
            blue: None,
            green: None,
        },
        rated: false,
        result: ResultRecord::plyyard(outcome.winner, outcome.reason),
        rolls: count(true),
        moves: count(false),
        actions,
        fairness: FairnessRecord {
            scheme: SCHEME.into(),
            commitment: server.commitment().to_string(),
            server_seed: server.to_hex(),
            red_seed: red_seed.into(),
            yellow_seed: yellow_seed.into(),
            blue_seed: None,
            green_seed: None,
        },
    }
}

fn index_of(record: &GameRecord, wanted: impl Fn(&TableAction) -> bool) -> usize {
    record
        .actions
        .iter()
        .position(|logged| wanted(&logged.action))
        .unwrap()
}

fn other_die(die: Die) -> Die {
    Die::new(die.value() % 6 + 1).unwrap()
}

#[test]
fn a_genuine_record_verifies_with_every_roll_and_move_counted() {
    let record = genuine_record();
    let report = verify_record(&record).unwrap();
    assert_eq!(report.rolls, record.rolls as usize);
    assert_eq!(report.moves, record.moves as usize);
    assert!(
        report.rolls > 50,
        "a full game has many rolls, got {}",
        report.rolls
    );
    assert_eq!(report.result, record.result);
    assert_eq!(report.commitment, record.fairness.commitment);
}

#[test]
fn a_changed_roll_is_named_by_its_index() {
    let mut record = genuine_record();
    let rolls_before = 10;
    let index = record
        .actions
        .iter()
        .enumerate()
        .filter(|(_, a)| matches!(a.action, TableAction::Roll { .. }))
        .nth(rolls_before)
        .unwrap()
        .0;
    let TableAction::Roll { colour, value } = record.actions[index].action else {
        unreachable!()
    };
    record.actions[index].action = TableAction::Roll {
        colour,
        value: other_die(value),
    };
    assert_eq!(
        verify_record(&record),
        Err(VerifyError::RollMismatch {
            index: rolls_before,
            recorded: other_die(value).value(),
            expected: value.value(),
        })
    );
}

#[test]
fn a_changed_server_seed_breaks_the_commitment() {
    let mut record = genuine_record();
    record.fairness.server_seed = ServerSeed::from_bytes([1; 32]).to_hex();
    assert!(matches!(
        verify_record(&record),
        Err(VerifyError::CommitmentMismatch { .. })
    ));
}

#[test]
fn a_changed_client_seed_gives_other_rolls() {
    let mut record = genuine_record();
    record.fairness.yellow_seed = "yellow's seed".into();
    assert!(matches!(
        verify_record(&record),
        Err(VerifyError::RollMismatch { .. })
    ));
}

#[test]
fn a_move_of_an_illegal_plane_is_refused_by_the_replay() {
    let mut record = genuine_record();
    let (game, index, illegal) = first_move_with_an_illegal_plane(&record);
    let colour = game.to_act().into();
    record.actions[index].action = TableAction::Move {
        colour,
        plane: illegal,
    };
    let Err(VerifyError::IllegalAction(error)) = verify_record(&record) else {
        panic!("an illegal plane must fail the replay")
    };
    assert_eq!(error.index, index);
}

#[test]
fn a_move_changed_to_another_legal_plane_fails_verification() {
    let mut record = genuine_record();
    // Find the first move where another legal plane would land somewhere else, and move it.
    let mut game = Game::new();
    for index in 0..record.actions.len() {
        let action = record.actions[index].action;
        if let (TableAction::Move { colour, plane }, Phase::AwaitingMove { legal, .. }) =
            (action, game.phase())
        {
            let here = game.position(colour.colour().unwrap(), plane);
            if let Some(other) = legal
                .iter()
                .find(|p| game.position(colour.colour().unwrap(), *p) != here)
            {
                record.actions[index].action = TableAction::Move {
                    colour,
                    plane: other,
                };
                let result = verify_record(&record);
                assert!(
                    matches!(
                        result,
                        Err(VerifyError::IllegalAction(_)
                            | VerifyError::ResultMismatch { .. }
                            | VerifyError::NotOver)
                    ),
                    "{result:?}"
                );
                return;
            }
        }
        game.apply(action.to_plyyard().unwrap()).unwrap();
    }
    panic!("the game never offered a real choice");
}

#[test]
fn a_wrong_result_or_count_is_reported() {
    let mut record = genuine_record();
    record.result.winner = record
        .result
        .winner
        .map(|w| w.colour().unwrap().opponent().into());
    assert!(matches!(
        verify_record(&record),
        Err(VerifyError::ResultMismatch { .. })
    ));

    let mut record = genuine_record();
    record.moves += 1;
    assert!(matches!(
        verify_record(&record),
        Err(VerifyError::CountMismatch { what: "moves", .. })
    ));

    let mut record = genuine_record();
    record.actions.truncate(record.actions.len() - 1);
    record.moves -= 1;
    assert_eq!(verify_record(&record), Err(VerifyError::NotOver));
}

#[test]
fn the_cli_exits_zero_only_for_a_genuine_record() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, record: &GameRecord| {
        let path = dir.path().join(name);
        std::fs::write(&path, serde_json::to_string_pretty(record).unwrap()).unwrap();
        path
    };
    let genuine = genuine_record();
    let good = write("good.json", &genuine);
    let (stdout, code) = run_verify(&good);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("verified"), "{stdout}");

    let mut tampered_roll = genuine.clone();
    let index = index_of(&tampered_roll, |a| matches!(a, TableAction::Roll { .. }));
    let TableAction::Roll { colour, value } = tampered_roll.actions[index].action else {
        unreachable!()
    };
    tampered_roll.actions[index].action = TableAction::Roll {
        colour,
        value: other_die(value),
    };

    let mut tampered_seed = genuine.clone();
    tampered_seed.fairness.red_seed = "another seed".into();

    let mut tampered_move = genuine.clone();
    let (game, index, illegal) = first_move_with_an_illegal_plane(&tampered_move);
    tampered_move.actions[index].action = TableAction::Move {
        colour: game.to_act().into(),
        plane: illegal,
    };

    for (name, record, says) in [
        ("roll.json", tampered_roll, "roll 0 was recorded"),
        ("seed.json", tampered_seed, "roll"),
        ("move.json", tampered_move, "replay refused"),
    ] {
        let (stdout, code) = run_verify(&write(name, &record));
        assert_eq!(code, 1, "{name}: {stdout}");
        assert!(
            stdout.contains("NOT verified") && stdout.contains(says),
            "{name}: {stdout}"
        );
    }

    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "{}").unwrap();
    assert_eq!(run_verify(&garbage).1, 2);
}

/// The position before the first move for which some plane is not legal, that move's index in
/// the log, and such a plane.
fn first_move_with_an_illegal_plane(record: &GameRecord) -> (Game, usize, Plane) {
    let mut game = Game::new();
    for (index, logged) in record.actions.iter().enumerate() {
        if let Phase::AwaitingMove { legal, .. } = game.phase()
            && let Some(illegal) = Plane::ALL.into_iter().find(|p| !legal.contains(*p))
        {
            return (game, index, illegal);
        }
        game.apply(logged.action.to_plyyard().unwrap()).unwrap();
    }
    panic!("no move had an illegal plane");
}

fn run_verify(path: &PathBuf) -> (String, i32) {
    let output = Command::new(env!("CARGO_BIN_EXE_aeroplane"))
        .arg("verify")
        .arg(path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (stdout, output.status.code().unwrap())
}
