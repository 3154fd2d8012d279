//! The journal's entries, as every journal store keeps them (one JSON line each in the file
//! store). The format is versioned by the setup's `version`; see the module docs of `journal`.

use aeroplane_protocol::record::{LoggedAction, Mode};
use aeroplane_rules::{Rules, Side};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

/// The journal format this server writes for a two-player `plyyard` room; it reads every version
/// from 1 up to [`TABLE_VERSION`].
pub const VERSION: u32 = 3;

/// The journal format of a table room (any other edition or player count): version 3 with the
/// edition, the player count, Blue's and Green's seats and every computer. A server that knows
/// only version 3 refuses it rather than restore it as a two-player `plyyard` game.
pub const TABLE_VERSION: u32 = 4;

/// The first entry of a journal: the room's fixed facts and its seats.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// The journal format.
    pub version: u32,
    /// The room id.
    pub id: Uuid,
    /// The kind of room.
    pub mode: Mode,
    /// When the room was created.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When the game started; absent while the room waits for players (since version 3).
    #[serde(
        default,
        with = "time::serde::rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub started_at: Option<OffsetDateTime>,
    /// The secret server seed, hex (the journal is as secret as the seat tokens).
    pub server_seed: String,
    /// The commitment to the server seed, hex.
    pub commitment: String,
    /// Red's seat; a waiting room's may lack it (since version 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red: Option<SavedSeat>,
    /// Yellow's seat; a waiting room's may lack it (since version 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yellow: Option<SavedSeat>,
    /// Blue's seat, in a table room of three or four (version 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blue: Option<SavedSeat>,
    /// Green's seat, in a table room of four (version 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub green: Option<SavedSeat>,
    /// The edition with its house rules, in a table room (version 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Rules>,
    /// How many players, in a table room (version 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<u8>,
    /// The computer's seat, in a two-player `plyyard` computer room (since version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<SavedComputer>,
    /// Every computer's seat, in a table computer room (version 4).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub computers: Vec<SavedComputer>,
    /// The turn clock's length in ms, in a room with a clock (since version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_clock_ms: Option<u64>,
}

/// A taken seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedSeat {
    /// The player's display name.
    pub name: String,
    /// The seat token.
    pub token: String,
    /// The player's dice seed.
    pub client_seed: String,
    /// The identified player the seat is tied to; absent for an anonymous seat (and in
    /// journals written before identities existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<uuid::Uuid>,
}

/// The computer's seat of a computer room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedComputer {
    /// The computer's colour.
    pub colour: Side,
    /// The level's name (`random`, `easy`, `normal`, `hard`).
    pub level: String,
}

/// What the turn clock counted: strikes per colour, and the indices in the action log of the
/// actions it played for a player (undo never takes those back).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedClock {
    /// The strikes of the colours that play, in turn order (Red's and Yellow's in a two-player
    /// `plyyard` room, as journals always had them).
    pub strikes: Vec<u32>,
    /// The indices of the actions the clock played.
    pub played: Vec<usize>,
}

/// One entry of a journal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Line {
    /// The setup (always the first entry).
    Setup(Box<Setup>),
    /// One accepted action.
    Action(LoggedAction),
    /// The events of every action undone so far (after an undo).
    Undone(Vec<u64>),
    /// The turn clock's count so far, whenever it changes (since version 2).
    Clock(SavedClock),
}

impl Line {
    /// Appends the entry's JSON to `out` (no newline). An action's, one per action played, is
    /// written by hand as the text `serde_json` gives it ([`LoggedAction::write_json`]); the
    /// other entries go through `serde_json`.
    pub(super) fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Line::Action(logged) => {
                out.extend_from_slice(b"{\"action\":");
                logged.write_json(out);
                out.push(b'}');
            }
            Line::Setup(_) | Line::Undone(_) | Line::Clock(_) => {
                serde_json::to_writer(&mut *out, self).expect("journal entries encode");
            }
        }
    }
}

/// Entries as JSON lines (one entry per line, each line ending in `\n`).
pub(super) fn encode_lines(entries: &[Line]) -> String {
    let mut text = Vec::new();
    for entry in entries {
        entry.write_json(&mut text);
        text.push(b'\n');
    }
    String::from_utf8(text).expect("JSON is UTF-8")
}

/// Adds the entries of JSON lines to `entries`, up to the first unreadable one (an error).
pub(super) fn decode_lines(text: &str, entries: &mut Vec<Line>) -> serde_json::Result<()> {
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        entries.push(serde_json::from_str(line)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use aeroplane_rules::{Die, Forfeit, Plane, TableAction};

    use super::*;

    #[test]
    fn every_entry_is_written_as_serde_json_writes_it_and_read_back() {
        let logged = |event, action, undone| {
            Line::Action(LoggedAction {
                event,
                action,
                undone,
            })
        };
        let entries = [
            logged(
                3,
                TableAction::Roll {
                    colour: Side::Red,
                    value: Die::SIX,
                },
                false,
            ),
            logged(
                40,
                TableAction::Move {
                    colour: Side::Blue,
                    plane: Plane::ALL[2],
                },
                true,
            ),
            logged(
                u64::MAX,
                TableAction::Forfeit {
                    colour: Side::Yellow,
                    reason: Forfeit::Abandoned,
                },
                false,
            ),
            Line::Undone(vec![4, 5]),
            Line::Clock(SavedClock {
                strikes: vec![1, 0],
                played: vec![7],
            }),
        ];
        for entry in &entries {
            let mut written = Vec::new();
            entry.write_json(&mut written);
            assert_eq!(written, serde_json::to_vec(entry).unwrap(), "{entry:?}");
        }
        let text = encode_lines(&entries);
        assert_eq!(text.lines().count(), entries.len());
        let mut read = Vec::new();
        decode_lines(&text, &mut read).unwrap();
        assert_eq!(read, entries);
    }
}
