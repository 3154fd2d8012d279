//! `verify_record`, `aeroplane verify FILE` and `aeroplane replay FILE` on format-2 records of
//! every edition and player count, genuine and tampered.
//!
//! The records are genuine: each game is played through the rules crate's `Table` with the real
//! die stream of its scheme (`v2`, or `v1` for two-player `plyyard`) from fixed seeds, every
//! player moving its first legal plane, so the games are deterministic and long.

use std::path::Path;
use std::process::Command;

use aeroplane_client::{VerifyError, verify_record};
use aeroplane_dice::{ClientSeed, DieStream, GameKey, Scheme, ServerSeed};
use aeroplane_protocol::record::{
    FairnessRecord, GameRecord, LoggedAction, Mode, PlayerKind, PlayerRecord, Players, ResultRecord,
};
use aeroplane_rules::edition::JUMP_AFTER_SHORTCUT;
use aeroplane_rules::{
    Die, EndReason, Plane, RuleError, Rules, Ruleset, Side, Table, TableAction, TablePhase,
};
use time::OffsetDateTime;
use uuid::Uuid;

/// A game to generate: the edition, how many play, and who resigns after how many rolls.
#[derive(Clone, Copy)]
struct Setup {
    rules: Rules,
    players: usize,
    resigns: Option<(Side, usize)>,
}

impl Setup {
    const fn new(rules: Rules, players: usize) -> Setup {
        Setup {
            rules,
            players,
            resigns: None,
        }
    }

    const fn resigning(self, side: Side, after_rolls: usize) -> Setup {
        Setup {
            resigns: Some((side, after_rolls)),
            ..self
        }
    }
}

/// The client seed of `side` in every generated game (Yellow gives none).
fn seed_of(side: Side) -> String {
    match side {
        Side::Yellow => String::new(),
        other => format!("{other}'s seed"),
    }
}

/// A complete game of `setup`, played with the real die stream of its scheme from fixed seeds.
fn genuine(setup: Setup) -> GameRecord {
    let Setup {
        rules,
        players,
        resigns,
    } = setup;
    let server = ServerSeed::from_bytes(std::array::from_fn(|i| (i as u8).wrapping_mul(13)));
    let seated = Rules::seating(players);
    let seeds: Vec<(Side, ClientSeed)> = seated
        .iter()
        .map(|side| (*side, ClientSeed::new(seed_of(*side)).unwrap()))
        .collect();
    let scheme = Scheme::for_game(rules.ruleset(), players);
    let key = match scheme {
        Scheme::V1 => GameKey::derive(&server, &seeds[0].1, &seeds[1].1),
        Scheme::V2 => {
            let seats: Vec<(Side, &ClientSeed)> = seeds.iter().map(|(s, c)| (*s, c)).collect();
            GameKey::derive_v2(&server, rules.ruleset(), &seats).unwrap()
        }
    };
    let mut stream = DieStream::new(key);
    let mut table = Table::new(rules, players).unwrap();
    let mut actions = Vec::new();
    let mut event = 3;
    let mut rolls = 0;
    while !table.is_over() {
        assert!(actions.len() < 100_000, "the game of {rules} never ends");
        let side = table.to_act();
        let action = match (resigns, table.phase()) {
            (Some((quitter, after)), _) if rolls == after && table.in_play(quitter) => {
                TableAction::Resign { colour: quitter }
            }
            (_, TablePhase::AwaitingRoll) => {
                rolls += 1;
                TableAction::Roll {
                    colour: side,
                    value: stream.next_die(),
                }
            }
            (_, TablePhase::AwaitingMove { legal, .. }) => TableAction::Move {
                colour: side,
                plane: legal.iter().next().unwrap(),
            },
            (_, TablePhase::Over(_)) => unreachable!(),
        };
        let events = table.apply(action).unwrap();
        actions.push(LoggedAction {
            event,
            action,
            undone: false,
        });
        event += events.len() as u64;
    }
    let result = match scheme {
        Scheme::V1 => {
            let outcome = table.outcome().unwrap();
            ResultRecord::plyyard(outcome.winner.and_then(Side::colour), outcome.reason)
        }
        Scheme::V2 => ResultRecord::of_table(&table).unwrap(),
    };
    let count = |roll: bool| {
        actions
            .iter()
            .filter(|a| match a.action {
                TableAction::Roll { .. } => roll,
                TableAction::Move { .. } => !roll,
                _ => false,
            })
            .count() as u32
    };
    let player = |side: Side| PlayerRecord {
        name: format!("{side} player"),
        kind: PlayerKind::Human,
        level: None,
        player_id: None,
    };
    let seated_player = |side: Side| seated.contains(&side).then(|| player(side));
    let seated_seed = |side: Side| seated.contains(&side).then(|| seed_of(side));
    GameRecord {
        format: GameRecord::format_for(rules, players),
        id: Uuid::from_u128(0xed17_0000 + players as u128),
        ruleset: rules.ruleset().as_str().into(),
        house_rules: match rules.jump_after_shortcut() {
            true => vec![JUMP_AFTER_SHORTCUT.into()],
            false => Vec::new(),
        },
        mode: Mode::Online,
        created_at: OffsetDateTime::UNIX_EPOCH,
        started_at: OffsetDateTime::UNIX_EPOCH,
        ended_at: OffsetDateTime::UNIX_EPOCH,
        players: Players {
            red: player(Side::Red),
            yellow: player(Side::Yellow),
            blue: seated_player(Side::Blue),
            green: seated_player(Side::Green),
        },
        rated: false,
        result,
        rolls: count(true),
        moves: count(false),
        actions,
        fairness: FairnessRecord {
            scheme: scheme.as_str().into(),
            commitment: server.commitment().to_string(),
            server_seed: server.to_hex(),
            red_seed: seed_of(Side::Red),
            yellow_seed: seed_of(Side::Yellow),
            blue_seed: seated_seed(Side::Blue),
            green_seed: seated_seed(Side::Green),
        },
    }
}

/// Every edition with every player count it seats.
fn every_setup() -> Vec<Setup> {
    let mut setups = vec![Setup::new(Rules::PLYYARD, 2)];
    for rules in [
        Rules::FLIGHTS,
        Rules::CLASSIC,
        Rules::classic_with_jump_after_shortcut(),
    ] {
        setups.extend((2..=4).map(|players| Setup::new(rules, players)));
    }
    setups
}

/// A four-player `flights` game in which Green resigns after 40 rolls.
fn flights_with_a_resignation() -> GameRecord {
    genuine(Setup::new(Rules::FLIGHTS, 4).resigning(Side::Green, 40))
}

/// A four-player `classic` game, played on to the last loser.
fn classic_to_the_full_ranking() -> GameRecord {
    genuine(Setup::new(Rules::CLASSIC, 4))
}

fn other_die(die: Die) -> Die {
    Die::new(die.value() % 6 + 1).unwrap()
}

#[test]
fn every_edition_with_two_three_and_four_players_verifies() {
    for setup in every_setup() {
        let record = genuine(setup);
        let what = format!("{} with {}", setup.rules, setup.players);
        let report = verify_record(&record).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(report.rules, setup.rules, "{what}");
        assert_eq!(report.players, setup.players, "{what}");
        assert_eq!(report.rolls, record.rolls as usize, "{what}");
        assert_eq!(report.moves, record.moves as usize, "{what}");
        assert_eq!(report.result, record.result, "{what}");
        assert!(report.rolls > 20, "{what}: only {} rolls", report.rolls);
        let plyyard = setup.rules == Rules::PLYYARD;
        let expected = if plyyard { Scheme::V1 } else { Scheme::V2 };
        assert_eq!(report.scheme, expected, "{what}");
        assert_eq!(record.result.places.is_some(), !plyyard, "{what}");
    }
}

#[test]
fn a_four_player_game_in_which_green_resigns_verifies_with_green_last() {
    let record = flights_with_a_resignation();
    assert!(record.actions.iter().any(|a| a.action
        == TableAction::Resign {
            colour: Side::Green
        }));
    let report = verify_record(&record).unwrap();
    let places = report.result.places.unwrap();
    assert_eq!(places.green, Some(4));
    assert_eq!(report.result.reason, EndReason::Finished);
    let winner = report.result.winner.unwrap();
    assert_ne!(winner, Side::Green);
    assert_eq!(places.get(winner), Some(1));
}

#[test]
fn a_classic_game_is_played_to_the_full_ranking_and_verifies() {
    let record = classic_to_the_full_ranking();
    let report = verify_record(&record).unwrap();
    let places = report.result.places.unwrap();
    let mut ranked: Vec<u8> = Side::ALL.iter().map(|s| places.get(*s).unwrap()).collect();
    ranked.sort_unstable();
    assert_eq!(ranked, [1, 2, 3, 4]);
    assert_eq!(report.result.reason, EndReason::Finished);
    assert!(report.to_string().contains("places      1 "), "{report}");
}

#[test]
fn a_changed_roll_is_named_by_its_index() {
    let mut record = genuine(Setup::new(Rules::FLIGHTS, 3));
    let (at, rolls_before) = record
        .actions
        .iter()
        .enumerate()
        .filter(|(_, a)| matches!(a.action, TableAction::Roll { .. }))
        .map(|(at, _)| at)
        .zip(0..)
        .nth(17)
        .unwrap();
    let TableAction::Roll { colour, value } = record.actions[at].action else {
        unreachable!()
    };
    record.actions[at].action = TableAction::Roll {
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
fn a_changed_blue_seed_gives_other_rolls() {
    let mut record = classic_to_the_full_ranking();
    record.fairness.blue_seed = Some("another seed".into());
    assert!(matches!(
        verify_record(&record),
        Err(VerifyError::RollMismatch { .. })
    ));
}

#[test]
fn a_missing_or_unseated_seed_is_refused() {
    let mut record = genuine(Setup::new(Rules::FLIGHTS, 3));
    record.fairness.blue_seed = None;
    assert_eq!(
        verify_record(&record),
        Err(VerifyError::MissingSeed(Side::Blue))
    );
    let mut record = genuine(Setup::new(Rules::FLIGHTS, 3));
    record.fairness.green_seed = Some(String::new());
    assert_eq!(
        verify_record(&record),
        Err(VerifyError::UnexpectedSeed(Side::Green))
    );
}

#[test]
fn a_wrong_place_is_refused_naming_the_colour() {
    let mut record = classic_to_the_full_ranking();
    let places = record.result.places.as_mut().unwrap();
    let second = Side::ALL
        .into_iter()
        .find(|s| places.get(*s) == Some(2))
        .unwrap();
    let third = Side::ALL
        .into_iter()
        .find(|s| places.get(*s) == Some(3))
        .unwrap();
    *places.get_mut(second) = Some(3);
    *places.get_mut(third) = Some(2);
    // The first colour in turn order whose place differs is named.
    let (colour, recorded, replayed) = if second < third {
        (second, 3, 2)
    } else {
        (third, 2, 3)
    };
    let error = verify_record(&record).unwrap_err();
    assert_eq!(
        error,
        VerifyError::PlaceMismatch {
            colour,
            recorded: Some(recorded),
            replayed: Some(replayed),
        }
    );
    assert!(error.to_string().contains(&colour.to_string()), "{error}");

    let mut record = classic_to_the_full_ranking();
    record.result.places = None;
    assert_eq!(verify_record(&record), Err(VerifyError::MissingPlaces));
}

#[test]
fn a_wrong_winner_is_a_result_mismatch() {
    let mut record = flights_with_a_resignation();
    record.result.winner = Some(Side::Green);
    assert!(matches!(
        verify_record(&record),
        Err(VerifyError::ResultMismatch { .. })
    ));
}

#[test]
fn a_scheme_that_does_not_fit_the_game_is_refused() {
    let mut record = genuine(Setup::new(Rules::FLIGHTS, 3));
    record.fairness.scheme = "v1".into();
    let error = verify_record(&record).unwrap_err();
    assert_eq!(
        error,
        VerifyError::WrongScheme {
            recorded: "v1".into(),
            expected: Scheme::V2,
            rules: "flights".into(),
            players: 3,
        }
    );
    assert_eq!(
        error.to_string(),
        "the record names dice scheme `v1`, but a 3-player flights game uses `v2`"
    );

    let mut record = genuine(Setup::new(Rules::PLYYARD, 2));
    record.fairness.scheme = "v2".into();
    assert!(matches!(
        verify_record(&record),
        Err(VerifyError::WrongScheme {
            expected: Scheme::V1,
            ..
        })
    ));

    let mut record = genuine(Setup::new(Rules::CLASSIC, 2));
    record.fairness.scheme = "v3".into();
    assert_eq!(
        verify_record(&record),
        Err(VerifyError::UnknownScheme("v3".into()))
    );
}

#[test]
fn seats_formats_and_player_counts_that_do_not_fit_are_refused() {
    let mut record = genuine(Setup::new(Rules::FLIGHTS, 3));
    record.players.green = record.players.blue.take();
    assert_eq!(
        verify_record(&record),
        Err(VerifyError::WrongSeats { players: 3 })
    );

    let mut record = genuine(Setup::new(Rules::FLIGHTS, 3));
    record.format = 1;
    assert!(matches!(
        verify_record(&record),
        Err(VerifyError::WrongFormat {
            recorded: 1,
            expected: 2,
            ..
        })
    ));

    let mut record = genuine(Setup::new(Rules::FLIGHTS, 3));
    record.ruleset = Ruleset::Plyyard.as_str().into();
    assert!(matches!(
        verify_record(&record),
        Err(VerifyError::UnsupportedPlayers { players: 3, .. })
    ));

    let mut record = genuine(Setup::new(Rules::FLIGHTS, 3));
    record.ruleset = "ludo".into();
    assert_eq!(
        verify_record(&record),
        Err(VerifyError::UnknownRuleset("ludo".into()))
    );
}

#[test]
fn a_move_of_an_illegal_plane_is_refused_by_the_table_replay() {
    for setup in [Setup::new(Rules::FLIGHTS, 4), Setup::new(Rules::CLASSIC, 3)] {
        let mut record = genuine(setup);
        let (index, side, illegal) = first_move_with_an_illegal_plane(&record);
        record.actions[index].action = TableAction::Move {
            colour: side,
            plane: illegal,
        };
        assert_eq!(
            verify_record(&record),
            Err(VerifyError::IllegalTableAction {
                index,
                action: TableAction::Move {
                    colour: side,
                    plane: illegal,
                },
                error: RuleError::IllegalPlane,
            }),
            "{}",
            setup.rules
        );
    }
}

/// The index of the first move for which some plane is not legal, its player and such a plane.
fn first_move_with_an_illegal_plane(record: &GameRecord) -> (usize, Side, Plane) {
    let mut table = Table::new(record.rules().unwrap(), record.players.count()).unwrap();
    for (index, logged) in record.actions.iter().enumerate() {
        if let TablePhase::AwaitingMove { legal, .. } = table.phase()
            && let Some(illegal) = Plane::ALL.into_iter().find(|p| !legal.contains(*p))
        {
            return (index, table.to_act(), illegal);
        }
        table.apply(logged.action).unwrap();
    }
    panic!("no move had an illegal plane");
}

#[test]
fn the_cli_verifies_every_edition_and_names_what_a_tampered_record_got_wrong() {
    let dir = tempfile::tempdir().unwrap();
    for setup in every_setup() {
        let path = write(dir.path(), "genuine.json", &genuine(setup));
        let (stdout, code) = run(&["verify"], &path);
        assert_eq!(code, 0, "{}: {stdout}", setup.rules);
        assert!(stdout.contains("verified"), "{stdout}");
        assert!(
            stdout.contains(&format!("{}, {} players", setup.rules, setup.players)),
            "{stdout}"
        );
    }

    let mut wrong_place = flights_with_a_resignation();
    wrong_place.result.places.as_mut().unwrap().green = Some(3);
    let mut wrong_scheme = genuine(Setup::new(Rules::CLASSIC, 3));
    wrong_scheme.fairness.scheme = "v1".into();
    let mut wrong_seed = classic_to_the_full_ranking();
    wrong_seed.fairness.blue_seed = Some("another seed".into());
    for (name, record, says) in [
        ("place.json", wrong_place, "places Green place 4"),
        ("scheme.json", wrong_scheme, "uses `v2`"),
        ("seed.json", wrong_seed, "roll"),
    ] {
        let (stdout, code) = run(&["verify"], &write(dir.path(), name, &record));
        assert_eq!(code, 1, "{name}: {stdout}");
        assert!(
            stdout.contains("NOT verified") && stdout.contains(says),
            "{name}: {stdout}"
        );
    }
}

#[test]
fn the_cli_replays_a_four_player_game_to_its_ranking_without_colour() {
    let dir = tempfile::tempdir().unwrap();
    let record = flights_with_a_resignation();
    let path = write(dir.path(), "flights.json", &record);
    let (stdout, code) = run(&["replay", "--all"], &path);
    assert_eq!(code, 0, "{stdout}");
    assert!(!stdout.contains('\x1b'), "NO_COLOR means no escapes");
    let positions = record.actions.len() + 1;
    assert!(
        stdout.lines().next().unwrap().contains(&format!(
            "flights, Red player (Red) v Green player (Green) v Yellow player (Yellow) \
             v Blue player (Blue), {positions} positions"
        )),
        "{}",
        stdout.lines().next().unwrap()
    );
    assert!(stdout.contains("Green resigns"), "the resignation is shown");
    assert!(stdout.contains("Green   out place 4"), "Green's legend");
    let winner = record.result.winner.unwrap();
    let ranking = stdout
        .split("ranking:\n")
        .nth(1)
        .expect("a ranking at the end");
    assert!(
        ranking.starts_with(&format!("   1. {winner} player ({winner})\n")),
        "{ranking}"
    );
    assert!(ranking.contains(" 4. Green player (Green)"), "{ranking}");

    // A three-player classic game draws Blue's planes by its letter.
    let record = genuine(Setup::new(Rules::CLASSIC, 3));
    let (stdout, code) = run(&["replay", "--all"], &write(dir.path(), "c.json", &record));
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains(" B1 "), "Blue's hangar is drawn");
    assert!(stdout.contains("Blue to roll"), "{stdout}");
}

fn write(dir: &Path, name: &str, record: &GameRecord) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(record).unwrap()).unwrap();
    path
}

fn run(command: &[&str], path: &Path) -> (String, i32) {
    let output = Command::new(env!("CARGO_BIN_EXE_aeroplane"))
        .args(command)
        .arg(path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (stdout, output.status.code().unwrap())
}
