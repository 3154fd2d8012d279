//! The two messages of nearly every action, `roll` and `move`, read without serde when they
//! come in the plain shape every client of ours sends them in: one JSON object with no
//! whitespace, its keys `type`, `id`, `seen` and `plane` in any order (the Rust client writes
//! `{"type":"roll","id":2,"seen":3}`, the browser `{"type":"roll","seen":3,"id":2}`).
//!
//! Why: serde_json read even these two, as a flat struct, in about 940 instructions a frame,
//! 7% of the server's user-space instructions per action in the closed loop (issue 18, stop
//! 50, `bench/instructions.sh`); this reader takes about 90.
//!
//! It reads a strict subset of JSON and gives up on anything else: whitespace, an escape, a key
//! other than those four or one twice, a number with a sign, a fraction, an exponent, a leading
//! zero or too many digits for a `u64`, a `null`, a `plane` out of range. Then
//! [`decode`](super::decode) reads the frame with serde as before, which decides what it is
//! and says why it is not a message. So every text this reader answers is one serde reads the
//! same way (the tests hold it to serde's answers), and every text it gives up on is read as
//! it always was.

use aeroplane_rules::Plane;

use super::{Act, ClientMessage, MovePlane};

/// A `roll` or a `move` in the plain shape; `None` for any other text.
pub(super) fn roll_or_move(text: &str) -> Option<ClientMessage> {
    let mut rest = text.as_bytes().strip_prefix(b"{")?.strip_suffix(b"}")?;
    let mut fields = Fields::default();
    loop {
        let (name, value) = key(rest)?;
        rest = match name {
            b"type" => {
                let (kind, after) = kind(value)?;
                once(&mut fields.kind, kind)?;
                after
            }
            b"id" | b"seen" => {
                let (number, after) = number(value)?;
                let field = if name == b"id" {
                    &mut fields.id
                } else {
                    &mut fields.seen
                };
                once(field, number)?;
                after
            }
            b"plane" => {
                let (plane, after) = number(value)?;
                once(&mut fields.plane, Plane::new(u8::try_from(plane).ok()?)?)?;
                after
            }
            _ => return None,
        };
        match rest.split_first() {
            None => break,
            Some((b',', after)) => rest = after,
            Some(_) => return None,
        }
    }
    let (id, seen) = (fields.id, fields.seen?);
    match (fields.kind?, fields.plane) {
        (Kind::Roll, None) => Some(ClientMessage::Roll(Act { id, seen })),
        (Kind::Move, Some(plane)) => Some(ClientMessage::Move(MovePlane { id, seen, plane })),
        _ => None,
    }
}

/// The fields read so far.
#[derive(Default)]
struct Fields {
    kind: Option<Kind>,
    id: Option<u64>,
    seen: Option<u64>,
    plane: Option<Plane>,
}

/// Which of the two messages.
#[derive(Clone, Copy)]
enum Kind {
    Roll,
    Move,
}

/// Sets a field read for the first time; `None` when the object had it already.
fn once<T>(field: &mut Option<T>, value: T) -> Option<()> {
    field.is_none().then(|| *field = Some(value))
}

/// A key of lowercase letters in quotes and its colon: the key and what follows the colon.
fn key(text: &[u8]) -> Option<(&[u8], &[u8])> {
    let text = text.strip_prefix(b"\"")?;
    let end = text.iter().position(|byte| !byte.is_ascii_lowercase())?;
    let (name, rest) = text.split_at(end);
    Some((name, rest.strip_prefix(b"\":")?))
}

/// `"roll"` or `"move"`, and what follows it.
fn kind(text: &[u8]) -> Option<(Kind, &[u8])> {
    if let Some(rest) = text.strip_prefix(b"\"roll\"") {
        Some((Kind::Roll, rest))
    } else {
        Some((Kind::Move, text.strip_prefix(b"\"move\"")?))
    }
}

/// An unsigned integer in JSON's own form (no sign, no leading zero) that fits a `u64`, and
/// what follows it.
fn number(text: &[u8]) -> Option<(u64, &[u8])> {
    let digits = text
        .iter()
        .position(|byte| !byte.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, rest) = text.split_at(digits);
    if number.is_empty() || (number.len() > 1 && number[0] == b'0') {
        return None;
    }
    // Not `str::from_utf8` and `str::parse`: with them `decode` took 727 instructions per
    // action instead of 506, for the same numbers (`bench/instructions.sh`, stop 50).
    let value = number.iter().try_fold(0u64, |value, digit| {
        value.checked_mul(10)?.checked_add(u64::from(digit - b'0'))
    })?;
    Some((value, rest))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// What serde reads `text` as, the way [`super::super::decode`] falls back to.
    fn by_serde(text: &str) -> Option<ClientMessage> {
        serde_json::from_str(text).ok()
    }

    #[test]
    fn our_clients_actions_are_read_plainly_and_as_serde_reads_them() {
        let texts = [
            r#"{"type":"roll","id":2,"seen":3}"#,
            r#"{"type":"move","id":3,"seen":4,"plane":0}"#,
            r#"{"type":"roll","seen":3,"id":2}"#,
            r#"{"type":"move","plane":3,"seen":18446744073709551615,"id":0}"#,
            r#"{"seen":0,"type":"roll"}"#,
            r#"{"plane":1,"seen":10,"type":"move"}"#,
        ];
        for text in texts {
            let plain = roll_or_move(text);
            assert!(plain.is_some(), "{text}");
            assert_eq!(plain, by_serde(text), "{text}");
        }
    }

    #[test]
    fn anything_else_is_left_to_serde() {
        let texts = [
            r#"{ "type":"roll","seen":3}"#,
            r#"{"type": "roll","seen":3}"#,
            r#"{"type":"roll","seen":3,"id":null}"#,
            r#"{"type":"roll","seen":03}"#,
            r#"{"type":"roll","seen":-3}"#,
            r#"{"type":"roll","seen":3.0}"#,
            r#"{"type":"roll","seen":3e2}"#,
            r#"{"type":"roll","seen":18446744073709551616}"#,
            r#"{"type":"roll","seen":3,"seen":4}"#,
            r#"{"type":"roll","type":"roll","seen":3}"#,
            r#"{"type":"roll","seen":3,"plane":1}"#,
            r#"{"type":"move","seen":3}"#,
            r#"{"type":"move","seen":3,"plane":4}"#,
            r#"{"type":"move","seen":3,"plane":256}"#,
            r#"{"type":"ro\u006cl","seen":3}"#,
            r#"{"typ\u0065":"roll","seen":3}"#,
            r#"{"type":"roll","seen":3,"extra":1}"#,
            r#"{"type":"roll","seen":3,}"#,
            r#"{"type":"roll"}"#,
            r#"{"type":"resign","seen":3}"#,
            r#"{"type":"roll","seen":"3"}"#,
            r#"{}"#,
            "",
            "{",
            r#"{"type":"roll","seen":3}} "#,
        ];
        for text in texts {
            assert_eq!(roll_or_move(text), None, "{text}");
        }
    }

    /// A `roll` or a `move` as a client might write it, fields in the given order, some of
    /// them mangled.
    fn text(fields: &[(&str, String)]) -> String {
        let members: Vec<String> = fields
            .iter()
            .map(|(name, value)| format!("\"{name}\":{value}"))
            .collect();
        format!("{{{}}}", members.join(","))
    }

    /// A key of a `roll` or a `move`, or one neither has.
    fn name() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            Just("type"),
            Just("id"),
            Just("seen"),
            Just("plane"),
            Just("undo")
        ]
    }

    /// A value such a key might hold, or one it may not.
    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            (0u64..20).prop_map(|n| n.to_string()),
            any::<u64>().prop_map(|n| n.to_string()),
            Just("18446744073709551616".to_owned()),
            Just("00".to_owned()),
            Just("-1".to_owned()),
            Just("1.5".to_owned()),
            Just("null".to_owned()),
            Just("\"roll\"".to_owned()),
            Just("\"move\"".to_owned()),
            Just("\"hint\"".to_owned()),
        ]
    }

    proptest! {
        /// Whatever the plain reader answers, serde answers too.
        #[test]
        fn the_plain_reader_never_disagrees_with_serde(
            fields in proptest::collection::vec((name(), value()), 0..6),
        ) {
            let fields: Vec<(&str, String)> = fields;
            let text = text(&fields);
            if let Some(message) = roll_or_move(&text) {
                prop_assert_eq!(Some(message), by_serde(&text), "{}", text);
            }
        }

        /// A well-formed `roll` or `move`, its fields in any order, is read plainly, as serde
        /// reads it.
        #[test]
        fn every_plain_action_is_read_as_serde_reads_it(
            is_move in any::<bool>(),
            id in proptest::option::of(any::<u64>()),
            seen in any::<u64>(),
            plane in 0u8..4,
            order in Just((0..4).collect::<Vec<usize>>()).prop_shuffle(),
        ) {
            let mut fields = vec![
                ("type", (if is_move { "\"move\"" } else { "\"roll\"" }).to_owned()),
                ("seen", seen.to_string()),
            ];
            fields.extend(id.map(|id| ("id", id.to_string())));
            if is_move {
                fields.push(("plane", plane.to_string()));
            }
            let fields: Vec<(&str, String)> = order
                .iter()
                .filter_map(|&index| fields.get(index).cloned())
                .collect();
            let text = text(&fields);
            let plain = roll_or_move(&text);
            prop_assert!(plain.is_some(), "{}", text);
            prop_assert_eq!(plain, by_serde(&text), "{}", text);
        }
    }
}
