//! The game record's format: a record written before records carried one still reads (as
//! format 1), a record written now says its format, and a format newer than this build knows is
//! refused by name instead of misread.

use aeroplane_protocol::record::{GameRecord, PLYYARD_FORMAT, RECORD_FORMAT};
use aeroplane_rules::{Colour, EndReason};
use serde_json::Value;

/// A record as servers wrote it before records carried a format: the rolls are the real die
/// stream of its seeds (server seed `00 01 … 1f`, client seeds `ann` and `bob`).
const UNVERSIONED: &str = include_str!("records/format-1-unversioned.json");

fn unversioned() -> Value {
    serde_json::from_str(UNVERSIONED).expect("the fixture is JSON")
}

fn with_format(format: Value) -> Value {
    let mut record = unversioned();
    record["format"] = format;
    record
}

#[test]
fn a_record_written_before_records_carried_a_format_reads_as_format_one() {
    assert!(
        unversioned().get("format").is_none(),
        "the fixture is unversioned"
    );
    let record: GameRecord = serde_json::from_str(UNVERSIONED).expect("an old record decodes");
    assert_eq!(record.format, 1);
    assert_eq!(record.result.plyyard_winner(), Some(Colour::Yellow));
    assert_eq!(record.result.reason, EndReason::Resigned);
    assert_eq!(record.actions.len(), 8);
    let game = record.replay().expect("the old record replays");
    assert_eq!(
        game.outcome().map(|outcome| outcome.winner),
        Some(Some(Colour::Yellow))
    );
}

#[test]
fn a_plyyard_record_written_now_says_format_one_and_changes_nothing_else() {
    let record: GameRecord = serde_json::from_str(UNVERSIONED).unwrap();
    let written = serde_json::to_value(&record).unwrap();
    assert_eq!(written["format"], PLYYARD_FORMAT);
    assert_eq!(written, with_format(PLYYARD_FORMAT.into()));
    let again: GameRecord = serde_json::from_value(written).unwrap();
    assert_eq!(again, record);
}

#[test]
fn a_record_written_with_its_log_by_hand_is_serde_jsons_text_and_is_left_as_it_was() {
    let mut record: GameRecord = serde_json::from_str(UNVERSIONED).unwrap();
    assert!(!record.actions.is_empty());
    // Names that hold the key's text, and a house rule too: inside a string every `"` is
    // escaped, so the log still goes in one place only.
    record.players.red.name = r#""actions":[]"#.to_owned();
    record.players.yellow.name = r#"x","actions":[],"y"#.to_owned();
    record.house_rules = vec![r#"actions":[]"#.to_owned()];
    for actions in [
        record.actions.clone(),
        Vec::new(),
        record.actions[..1].to_vec(),
    ] {
        record.actions = actions;
        let before = record.clone();
        let written = record.to_json_vec().unwrap();
        assert_eq!(written, serde_json::to_vec(&record).unwrap());
        assert_eq!(record, before);
        let again: GameRecord = serde_json::from_slice(&written).unwrap();
        assert_eq!(again, record);
    }
}

#[test]
fn a_record_of_a_newer_format_is_refused_naming_the_format() {
    let newer = RECORD_FORMAT + 1;
    let error = serde_json::from_value::<GameRecord>(with_format(newer.into())).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains(&format!("game record format {newer} is newer")),
        "{message}"
    );
    assert!(
        message.contains(&format!("up to {RECORD_FORMAT}")),
        "{message}"
    );
}

#[test]
fn format_zero_and_a_format_that_is_not_a_number_are_refused() {
    let error = serde_json::from_value::<GameRecord>(with_format(0.into())).unwrap_err();
    assert!(error.to_string().contains("format 0"), "{error}");
    assert!(serde_json::from_value::<GameRecord>(with_format("1".into())).is_err());
}
