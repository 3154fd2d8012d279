//! The journal's entries, as every journal store keeps them (one JSON line each in the file
//! store). The format is versioned by the setup's `version`; see the module docs of `journal`.

use aeroplane_protocol::record::{LoggedAction, Mode};
use aeroplane_rules::Colour;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

/// The journal format this server writes; it reads every version from 1 up to this one.
pub const VERSION: u32 = 3;

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
    /// The computer's seat, in a computer room (since version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<SavedComputer>,
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
    pub colour: Colour,
    /// The level's name (`random`, `easy`, `normal`, `hard`).
    pub level: String,
}

/// What the turn clock counted: strikes per colour, and the indices in the action log of the
/// actions it played for a player (undo never takes those back).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedClock {
    /// Red's and Yellow's strikes.
    pub strikes: [u32; 2],
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

/// Entries as JSON lines (one entry per line, each line ending in `\n`).
pub(super) fn encode_lines(entries: &[Line]) -> String {
    let mut text = String::new();
    for entry in entries {
        text.push_str(&serde_json::to_string(entry).expect("journal entries encode"));
        text.push('\n');
    }
    text
}

/// Adds the entries of JSON lines to `entries`, up to the first unreadable one (an error).
pub(super) fn decode_lines(text: &str, entries: &mut Vec<Line>) -> serde_json::Result<()> {
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        entries.push(serde_json::from_str(line)?);
    }
    Ok(())
}
