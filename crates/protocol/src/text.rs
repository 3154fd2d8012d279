//! JSON text written directly, for the few messages and lines written at every action.
//!
//! `serde_json` writes every key and every name through its escape table, a byte at a time,
//! and that was the largest part of encoding an action's events, its journal line and its
//! stored row (issue 18). The hot shapes are a few fixed ASCII keys and names around numbers,
//! so they are written here as text; every other message still goes through `serde_json`.
//! Each writer's output is held to `serde_json`'s, byte for byte, by the tests of the type it
//! writes (`server.rs`, `record.rs`, and `tests/wire_events.rs` over thousands of games): the
//! wire and the files are unchanged.
//!
//! Every piece is written as a `&str` ([`Out`]), so a frame is built as a `String` without
//! checking its bytes again as UTF-8.

use aeroplane_rules::{PlaneSet, Position, Side};

/// Where JSON text goes: a `String` (a frame, a stored action log) or the bytes of a journal's
/// lines.
pub(crate) trait Out {
    /// Appends `text`.
    fn put(&mut self, text: &str);
}

impl Out for String {
    fn put(&mut self, text: &str) {
        self.push_str(text);
    }
}

impl Out for Vec<u8> {
    fn put(&mut self, text: &str) {
        self.extend_from_slice(text.as_bytes());
    }
}

/// Appends `value` in decimal.
pub(crate) fn number(out: &mut impl Out, value: u64) {
    out.put(itoa::Buffer::new().format(value));
}

/// Appends a one-digit number (a die value, a plane).
pub(crate) fn digit(out: &mut impl Out, value: u8) {
    const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
    out.put(DIGITS[usize::from(value)]);
}

/// Appends a JSON string given with its quotes (`"\"red\""`): one of the crate's fixed names
/// (lower-case ASCII and `_`), which need no escaping. Each caller names its strings as
/// constants, one per `match` arm, so that the copy is one of a known length, made in place:
/// the quotes and the word appended apart were three appends and a call to `memcpy`, about
/// 2% of the instructions per action (issue 18, stop 53).
pub(crate) fn quoted(out: &mut impl Out, quoted: &'static str) {
    debug_assert!(
        quoted.len() > 2
            && quoted.starts_with('"')
            && quoted.ends_with('"')
            && quoted[1..quoted.len() - 1]
                .bytes()
                .all(|byte| byte.is_ascii_lowercase() || byte == b'_'),
        "{quoted} is a quoted name that needs no escaping"
    );
    out.put(quoted);
}

/// Appends a colour's name.
pub(crate) fn side(out: &mut impl Out, side: Side) {
    match side {
        Side::Red => quoted(out, "\"red\""),
        Side::Green => quoted(out, "\"green\""),
        Side::Yellow => quoted(out, "\"yellow\""),
        Side::Blue => quoted(out, "\"blue\""),
    }
}

/// Appends a plane's position: `"base"`, its route progress, or `"finished"`.
pub(crate) fn position(out: &mut impl Out, position: Position) {
    match position {
        Position::Base => quoted(out, "\"base\""),
        Position::Route(progress) => number(out, u64::from(progress)),
        Position::Finished => quoted(out, "\"finished\""),
    }
}

/// Appends a set of planes as the array of their numbers.
pub(crate) fn planes(out: &mut impl Out, planes: PlaneSet) {
    out.put("[");
    for (index, plane) in planes.iter().enumerate() {
        if index > 0 {
            out.put(",");
        }
        digit(out, plane.number());
    }
    out.put("]");
}

/// Appends `true` or `false`.
pub(crate) fn boolean(out: &mut impl Out, value: bool) {
    out.put(if value { "true" } else { "false" });
}

/// Appends the turn clock's fields of an event, as `serde_json` leaves them out when unset.
pub(crate) fn clock(out: &mut impl Out, deadline_ms: Option<u64>, by_clock: bool) {
    if let Some(deadline_ms) = deadline_ms {
        out.put(",\"deadline_ms\":");
        number(out, deadline_ms);
    }
    if by_clock {
        out.put(",\"by_clock\":true");
    }
}
