//! The client-message decoder's fuzz harness: whatever a client sends, `decode` answers with a
//! message or a `malformed` / `unknown_type` / `bad_field` error, and never panics.
//!
//! This is a property-based harness (proptest) rather than `cargo fuzz`: the toolchain here is
//! stable-only, and libFuzzer's sanitizers need nightly. It runs a bounded number of cases in
//! every `cargo test`, and draws inputs from three sources: arbitrary text, arbitrary JSON values
//! with the protocol's own field names, and valid messages cut and mutated byte by byte.

use aeroplane_protocol::client::{CLIENT_TYPES, ClientMessage, decode};
use aeroplane_protocol::error::ErrorCode;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Field names the decoder knows, so generated objects often get past the first checks.
const FIELDS: [&str; 10] = [
    "type",
    "id",
    "seen",
    "plane",
    "role",
    "name",
    "colour",
    "token",
    "client_seed",
    "extra",
];

/// Arbitrary JSON values, nested a few levels, with large and negative numbers.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_map(|x| serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)),
        "\\PC{0,12}".prop_map(Value::String),
        prop::sample::select(CLIENT_TYPES.to_vec()).prop_map(|t| json!(t)),
        prop::sample::select(vec!["player", "spectator", "red", "yellow", "green"])
            .prop_map(|t| json!(t)),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(FIELDS.to_vec()), inner), 0..6).prop_map(
                |fields| {
                    Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
                }
            ),
        ]
    })
}

/// A message-shaped object: a known or unknown `type` and arbitrary values in known fields.
fn message_like() -> impl Strategy<Value = Value> {
    let kind = prop_oneof![
        prop::sample::select(CLIENT_TYPES.to_vec()).prop_map(|t| json!(t)),
        json_value(),
    ];
    (
        kind,
        prop::collection::vec((prop::sample::select(FIELDS.to_vec()), json_value()), 0..6),
    )
        .prop_map(|(kind, fields)| {
            let mut object: Map<String, Value> =
                fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            object.insert("type".to_owned(), kind);
            Value::Object(object)
        })
}

const VALID: [&str; 4] = [
    r#"{"type":"join","id":1,"role":"player","name":"Ann","colour":"red","client_seed":"x"}"#,
    r#"{"type":"move","id":7,"seen":12,"plane":2}"#,
    r#"{"type":"roll","id":3,"seen":4}"#,
    r#"{"type":"offer_draw","seen":9}"#,
];

/// Checks the decoder's contract on one frame.
fn check(text: &str) -> Result<(), TestCaseError> {
    // The decoder reads a valid frame straight into its message; it accepts exactly what the
    // slower way through a JSON value accepts, and reads it the same.
    let through_value = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|value| serde_json::from_value::<ClientMessage>(value).ok());
    match decode(text) {
        Ok(message) => {
            prop_assert_eq!(through_value.as_ref(), Some(&message));
            // Whatever was accepted encodes and decodes to itself.
            prop_assert_eq!(decode(&message.to_json()).unwrap(), message);
        }
        Err(error) => {
            prop_assert!(
                through_value.is_none(),
                "refused, yet a value reads: {text}"
            );
            prop_assert!(
                matches!(
                    error.code,
                    ErrorCode::Malformed | ErrorCode::UnknownType | ErrorCode::BadField
                ),
                "unexpected code {:?}",
                error.code
            );
            prop_assert!(!error.message.is_empty());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn arbitrary_text_never_panics_the_decoder(text in "\\PC{0,200}") {
        check(&text)?;
    }

    #[test]
    fn arbitrary_json_values_get_a_message_or_a_decoding_error(value in json_value()) {
        check(&value.to_string())?;
    }

    #[test]
    fn message_shaped_objects_get_a_message_or_a_decoding_error(value in message_like()) {
        check(&value.to_string())?;
    }

    #[test]
    fn cut_and_mutated_valid_messages_never_panic_the_decoder(
        which in 0..VALID.len(),
        cut in any::<prop::sample::Index>(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
    ) {
        let mut bytes = VALID[which].as_bytes().to_vec();
        bytes.truncate(cut.index(bytes.len() + 1));
        for (at, byte) in flips {
            if !bytes.is_empty() {
                let at = at.index(bytes.len());
                bytes[at] = byte;
            }
        }
        check(&String::from_utf8_lossy(&bytes))?;
    }
}

#[test]
fn rolls_and_moves_read_the_fast_way_accept_and_refuse_exactly_what_they_did() {
    for text in [
        r#"{"type":"roll","seen":3}"#,
        r#"{"type":"roll","id":null,"seen":3}"#,
        r#"{"type":"roll","id":4,"seen":3,"plane":null}"#,
        r#"{"type":"roll","id":4,"seen":3,"pl\u0061ne":null}"#,
        r#"{"type":"roll","id":4,"seen":3,"plane":1}"#,
        r#"{"type":"move","seen":3}"#,
        r#"{"type":"move","seen":3,"plane":null}"#,
        r#"{"type":"move","seen":3,"plane":4}"#,
        r#"{"type":"move","seen":3,"plane":2,"extra":1}"#,
        r#"{"type":"move","seen":3,"seen":4,"plane":2}"#,
        r#"{"type":"roll","seen":3}"#,
        r#"{"type":"move","seen":3,"plane":1}"#,
        r#"{"seen":3,"plane":1,"type":"move","id":9}"#,
    ] {
        check(text).unwrap();
    }
}

#[test]
fn deeply_nested_json_is_refused_without_overflowing_the_stack() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(decode(&deep).unwrap_err().code, ErrorCode::Malformed);
    let deep_field = format!(
        r#"{{"type":"roll","seen":{}1{}}}"#,
        "[".repeat(5_000),
        "]".repeat(5_000)
    );
    assert_eq!(decode(&deep_field).unwrap_err().code, ErrorCode::Malformed);
}

#[test]
fn huge_numbers_are_bad_fields_not_crashes() {
    let huge = r#"{"type":"move","seen":1e400,"plane":2}"#;
    assert!(decode(huge).is_err());
    let wide = r#"{"type":"move","seen":184467440737095516160,"plane":2}"#;
    assert_eq!(decode(wide).unwrap_err().code, ErrorCode::BadField);
}
