//! The wire format pinned by its documentation: every JSON example in `docs/protocol.md` decodes
//! into the protocol type it shows, and encoding that value gives the same JSON again.
//!
//! Each ```` ```json ```` block in the document is preceded by a marker naming its type:
//! `<!-- wire: ServerMessage, one per line -->` for a block of one-line examples, or
//! `<!-- wire: Snapshot -->` for a block holding one value. A block without a marker fails the
//! test, so a new example cannot escape the check. The comparison is of JSON values (key order is
//! free, but every field, `null`s included, must be what the type writes), so a serde rename, a
//! dropped field or a changed default fails here before it breaks a browser.

use aeroplane_protocol::api::{
    ApiError, CreatePlayer, CreateRoom, GameList, Leaderboard, LiveRooms, PlayerCreated,
    PlayerProfile, QuickMatchRequest, QuickMatched, RenamePlayer, Replay, RoomCreated, RoomStatus,
};
use aeroplane_protocol::record::{GameRecord, Players};
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::Snapshot;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// One JSON example of the document, with where it is.
struct Example {
    line: usize,
    type_name: String,
    json: String,
}

/// Decodes `json` as `T` and encodes it again.
fn round_trip<T: DeserializeOwned + Serialize>(json: &str) -> Result<Value, String> {
    let value: T = serde_json::from_str(json).map_err(|error| error.to_string())?;
    serde_json::to_value(&value).map_err(|error| error.to_string())
}

/// Decodes `json` as the named type and encodes it again.
fn round_trip_as(type_name: &str, json: &str) -> Result<Value, String> {
    match type_name {
        "ClientMessage" => {
            let message =
                aeroplane_protocol::client::decode(json).map_err(|error| error.to_string())?;
            serde_json::to_value(&message).map_err(|error| error.to_string())
        }
        "ServerMessage" => round_trip::<ServerMessage>(json),
        "Snapshot" => round_trip::<Snapshot>(json),
        "ApiError" => round_trip::<ApiError>(json),
        "CreateRoom" => round_trip::<CreateRoom>(json),
        "RoomCreated" => round_trip::<RoomCreated>(json),
        "RoomStatus" => round_trip::<RoomStatus>(json),
        "QuickMatchRequest" => round_trip::<QuickMatchRequest>(json),
        "QuickMatched" => round_trip::<QuickMatched>(json),
        "GameList" => round_trip::<GameList>(json),
        "Replay" => round_trip::<Replay>(json),
        "GameRecord" => round_trip::<GameRecord>(json),
        "Players" => round_trip::<Players>(json),
        "CreatePlayer" => round_trip::<CreatePlayer>(json),
        "PlayerCreated" => round_trip::<PlayerCreated>(json),
        "RenamePlayer" => round_trip::<RenamePlayer>(json),
        "PlayerProfile" => round_trip::<PlayerProfile>(json),
        "LiveRooms" => round_trip::<LiveRooms>(json),
        "Leaderboard" => round_trip::<Leaderboard>(json),
        other => Err(format!("the test knows no wire type `{other}`")),
    }
}

/// Every example of `markdown`, or the reasons some blocks cannot be read.
fn examples(markdown: &str) -> Result<Vec<Example>, Vec<String>> {
    let lines: Vec<&str> = markdown.lines().collect();
    let (mut found, mut problems) = (Vec::new(), Vec::new());
    let mut index = 0;
    while index < lines.len() {
        if lines[index].trim() != "```json" {
            index += 1;
            continue;
        }
        let start = index + 1;
        let end = (start..lines.len())
            .find(|&i| lines[i].trim() == "```")
            .expect("every json block is closed");
        let marker = lines[..index]
            .iter()
            .rev()
            .find(|line| !line.trim().is_empty())
            .and_then(|line| line.trim().strip_prefix("<!-- wire: "))
            .and_then(|rest| rest.strip_suffix(" -->"));
        match marker {
            None => problems.push(format!(
                "line {}: a json block without a `<!-- wire: Type -->` marker",
                index + 1
            )),
            Some(marker) => {
                let (type_name, per_line) = match marker.strip_suffix(", one per line") {
                    Some(type_name) => (type_name, true),
                    None => (marker, false),
                };
                if per_line {
                    for (offset, line) in lines[start..end].iter().enumerate() {
                        found.push(Example {
                            line: start + offset + 1,
                            type_name: type_name.to_owned(),
                            json: (*line).to_owned(),
                        });
                    }
                } else {
                    found.push(Example {
                        line: start + 1,
                        type_name: type_name.to_owned(),
                        json: lines[start..end].join("\n"),
                    });
                }
            }
        }
        index = end + 1;
    }
    if problems.is_empty() {
        Ok(found)
    } else {
        Err(problems)
    }
}

/// What is wrong with one example, if anything.
fn check(example: &Example) -> Option<String> {
    let written: Value = match serde_json::from_str(&example.json) {
        Ok(value) => value,
        Err(error) => return Some(format!("not JSON: {error}")),
    };
    match round_trip_as(&example.type_name, &example.json) {
        Err(error) => Some(format!("does not decode as {}: {error}", example.type_name)),
        Ok(encoded) if encoded != written => Some(format!(
            "encodes differently as {}:\n    written: {written}\n    encoded: {encoded}",
            example.type_name
        )),
        Ok(_) => None,
    }
}

#[test]
fn every_json_example_of_the_protocol_document_decodes_and_encodes_to_the_same_json() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/protocol.md");
    let markdown = std::fs::read_to_string(path).expect("docs/protocol.md is readable");
    let examples = examples(&markdown).unwrap_or_else(|problems| panic!("{problems:#?}"));
    assert!(
        examples.len() > 40,
        "only {} examples found",
        examples.len()
    );
    let failures: Vec<String> = examples
        .iter()
        .filter_map(|example| {
            check(example).map(|problem| format!("docs/protocol.md:{}: {problem}", example.line))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_renamed_field_fails_the_golden_check() {
    let example = Example {
        line: 1,
        type_name: "ServerMessage".to_owned(),
        json: r#"{ "type": "pong", "request": 8 }"#.to_owned(),
    };
    assert!(check(&example).is_some());
}

#[test]
fn a_json_block_without_a_marker_is_reported() {
    let markdown = "text\n\n```json\n{ \"type\": \"pong\", \"id\": 8 }\n```\n";
    assert!(examples(markdown).is_err());
}
