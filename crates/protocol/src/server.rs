//! Server → client messages.
//!
//! Two kinds: answers to one connection (`welcome`, `snapshot`, `pong`, `hint`, `error`) and room
//! events,
//! which go to everyone in the room and carry consecutive event numbers (`event`). A client that
//! sees a gap in the numbers sends `sync` and gets a snapshot.
//!
//! One file over 500 lines on purpose: every server → client message type, one struct each with
//! its field docs, in the order of `docs/protocol.md` §4 and §12; the wire vocabulary is read as
//! one list, and splitting it by protocol version would separate messages both versions share.
//! The three events written as text (`rolled`, `moved`, `turn_passed`) are written beside their
//! types, so a field added to one is seen next to its writer; the tests are in `server/tests.rs`.

use aeroplane_rules::{Die, PassReason, Plane, PlaneSet, Position, RingIndex, Side};
use serde::{Deserialize, Serialize};

use crate::client::{Phrase, Role};
use crate::error::ErrorCode;
use crate::record::ResultRecord;
use crate::snapshot::Snapshot;
use crate::text::{self, Out};

/// One message from the server, tagged by `type`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The answer to a successful `join`.
    Welcome(Welcome),
    /// The answer to `sync`.
    Snapshot(SnapshotMessage),
    /// The answer to `ping`.
    Pong(Pong),
    /// The answer to `hint`: the plane the computer would move, and why.
    Hint(Hint),
    /// A refused request; nothing changed.
    Error(ErrorMessage),
    /// A player took a seat or came back.
    PlayerConnected(PlayerConnected),
    /// A player's connection went away; the seat is held for `grace_ms`.
    PlayerDisconnected(PlayerDisconnected),
    /// Both seats are taken; the client seeds are fixed and Red rolls first.
    GameStarted(GameStarted),
    /// The player to act rolled.
    Rolled(Rolled),
    /// A plane moved (or deployed), with what that move caused.
    Moved(Moved),
    /// The turn went to the other player.
    TurnPassed(TurnPassed),
    /// A player offered a draw.
    DrawOffered(DrawAction),
    /// The receiver accepted the standing offer (a `game_over` follows).
    DrawAccepted(DrawAction),
    /// The receiver declined the standing offer, by saying so or by rolling.
    DrawDeclined(DrawDeclined),
    /// The offerer withdrew its offer.
    DrawWithdrawn(DrawAction),
    /// The game ended; the server seed is revealed.
    GameOver(GameOver),
    /// Plane choices were taken back (computer and local rooms); the snapshot is the room now.
    Undone(Undone),
    /// A player sent a preset quick message (not a room event: it has no event number).
    Said(Said),
    /// A player asked for a rematch after the game (not a room event).
    RematchOffered(RematchOffered),
    /// Table rooms: a plane left its hangar for its start square.
    Launched(Launched),
    /// Table rooms: planes (one, or a `classic` stack) walked the number rolled.
    Walked(Walked),
    /// Table rooms: planes jumped to the next square of their colour.
    Jumped(Shortcut),
    /// Table rooms: planes took the flight (`flights`) or the shortcut (`classic`).
    Flew(Shortcut),
    /// Table rooms: opposing planes went back to their hangar.
    SentHome(SentHome),
    /// Table rooms: planes reached the centre.
    Arrived(Arrived),
    /// Table rooms: a third six in a row: void, and `returned` went back to the hangar.
    ThirdSix(ThirdSix),
    /// Table rooms: the player who just moved rolls again.
    ExtraRoll(ExtraRoll),
    /// Table rooms: a player left play with a final place (finished, resigned or forfeited);
    /// the others play on unless one is left.
    PlayerOut(PlayerOut),
    /// Table rooms: a standing draw offer lapsed because a player left play.
    DrawLapsed(DrawAction),
    /// Both players asked for a rematch: the new room (not a room event). Each player gets its
    /// own seat token; spectators get the room id only, to follow.
    RematchReady(RematchReady),
}

impl ServerMessage {
    /// The event number, for room events (`None` for answers to one connection).
    pub const fn event(&self) -> Option<u64> {
        match self {
            ServerMessage::Welcome(_)
            | ServerMessage::Snapshot(_)
            | ServerMessage::Pong(_)
            | ServerMessage::Hint(_)
            | ServerMessage::Error(_)
            | ServerMessage::Said(_)
            | ServerMessage::RematchOffered(_)
            | ServerMessage::RematchReady(_) => None,
            ServerMessage::PlayerConnected(m) => Some(m.event),
            ServerMessage::PlayerDisconnected(m) => Some(m.event),
            ServerMessage::GameStarted(m) => Some(m.event),
            ServerMessage::Rolled(m) => Some(m.event),
            ServerMessage::Moved(m) => Some(m.event),
            ServerMessage::TurnPassed(m) => Some(m.event),
            ServerMessage::DrawOffered(m)
            | ServerMessage::DrawAccepted(m)
            | ServerMessage::DrawWithdrawn(m) => Some(m.event),
            ServerMessage::DrawDeclined(m) => Some(m.event),
            ServerMessage::GameOver(m) => Some(m.event),
            ServerMessage::Undone(m) => Some(m.event),
            ServerMessage::Launched(m) => Some(m.event),
            ServerMessage::Walked(m) => Some(m.event),
            ServerMessage::Jumped(m) | ServerMessage::Flew(m) => Some(m.event),
            ServerMessage::SentHome(m) => Some(m.event),
            ServerMessage::Arrived(m) => Some(m.event),
            ServerMessage::ThirdSix(m) => Some(m.event),
            ServerMessage::ExtraRoll(m) => Some(m.event),
            ServerMessage::PlayerOut(m) => Some(m.event),
            ServerMessage::DrawLapsed(m) => Some(m.event),
        }
    }

    /// An `error` answering request `id`.
    pub fn error(id: Option<u64>, code: ErrorCode, message: impl Into<String>) -> ServerMessage {
        ServerMessage::Error(ErrorMessage {
            id,
            code,
            message: message.into(),
        })
    }

    /// Encodes the message as a JSON text frame.
    ///
    /// The events of nearly every action (`rolled`, `moved`, `turn_passed`) are written
    /// directly (`text.rs`; the same text `serde_json` writes, which the tests check), every
    /// other message through `serde_json`.
    pub fn to_json(&self) -> String {
        /// The text `write` makes, in a string with room for an event.
        fn event(write: impl FnOnce(&mut String)) -> String {
            let mut out = String::with_capacity(EVENT_BYTES);
            write(&mut out);
            out
        }
        match self {
            ServerMessage::Rolled(rolled) => event(|out| rolled.write_json(out)),
            ServerMessage::Moved(moved) => event(|out| moved.write_json(out)),
            ServerMessage::TurnPassed(passed) => event(|out| passed.write_json(out)),
            _ => serde_json::to_string(self).expect("server messages always serialize"),
        }
    }

    /// Appends the message's JSON text (the same as [`ServerMessage::to_json`]) to `out`: a
    /// server encodes every frame into one reused buffer rather than a string of its own.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            ServerMessage::Rolled(rolled) => rolled.write_json(out),
            ServerMessage::Moved(moved) => moved.write_json(out),
            ServerMessage::TurnPassed(passed) => passed.write_json(out),
            _ => serde_json::to_writer(out, self).expect("server messages always serialize"),
        }
    }

    /// Decodes a frame (for clients and tests).
    pub fn from_json(text: &str) -> Result<ServerMessage, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// The answer to `join`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Welcome {
    /// The request id of the `join`.
    pub id: Option<u64>,
    /// The protocol version of this room: [`crate::PROTOCOL_VERSION`] (1) in a two-player
    /// `plyyard` room, [`crate::TABLE_PROTOCOL_VERSION`] (2) in a room of any other edition or
    /// player count, whose messages are those of `docs/protocol.md` §12.
    pub protocol: u32,
    /// Player or spectator.
    pub role: Role,
    /// The seat's colour, for a player; `null` for the player of a local room, who controls both.
    pub colour: Option<Side>,
    /// Every colour this connection plays: one for a player, both for the player of a local
    /// room, none for a spectator.
    #[serde(default)]
    pub colours: Vec<Side>,
    /// The seat token, for a player: it authorises every action of the seat and reconnects.
    pub token: Option<String>,
    /// The room as it is now.
    pub snapshot: Box<Snapshot>,
}

/// The answer to `sync`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotMessage {
    /// The request id of the `sync`.
    pub id: Option<u64>,
    /// The room as it is now.
    pub snapshot: Box<Snapshot>,
}

/// The answer to `ping`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pong {
    /// The request id of the `ping`.
    pub id: Option<u64>,
}

/// The answer to `hint`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hint {
    /// The request id of the `hint`.
    pub id: Option<u64>,
    /// The plane the computer would move for the pending roll.
    pub plane: Plane,
    /// Why, as one short lower-case sentence, e.g. "captures Yellow's plane on square 17".
    pub explanation: String,
    /// The level that chose it: the computer's level in this room.
    pub level: String,
}

/// A refused request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorMessage {
    /// The request id of the refused message, when it had a readable one.
    pub id: Option<u64>,
    /// The stable code.
    pub code: ErrorCode,
    /// What went wrong, for people.
    pub message: String,
}

/// A player took a seat or reconnected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerConnected {
    /// The event number.
    pub event: u64,
    /// The seat.
    pub colour: Side,
    /// The player's display name.
    pub name: String,
    /// Rooms with a turn clock: set when this connection started the clock of the first decision
    /// (which waits for the player to act to be there), in ms from when this event was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
}

/// A player's connection went away.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerDisconnected {
    /// The event number.
    pub event: u64,
    /// The seat.
    pub colour: Side,
    /// How long the seat is held before the game ends `abandoned` (while the game is live).
    pub grace_ms: u64,
}

/// The game started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameStarted {
    /// The event number.
    pub event: u64,
    /// The dice commitment (as in every snapshot).
    pub commitment: String,
    /// Red's client seed, now fixed.
    pub red_seed: String,
    /// Yellow's client seed, now fixed.
    pub yellow_seed: String,
    /// Table rooms that seat Blue: Blue's client seed, now fixed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blue_seed: Option<String>,
    /// Table rooms that seat Green: Green's client seed, now fixed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub green_seed: Option<String>,
    /// Rooms with a turn clock: how long the player to act has for the decision now pending,
    /// in ms from when this event was sent (absent without a clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
}

/// A roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rolled {
    /// The event number.
    pub event: u64,
    /// Who rolled.
    pub colour: Side,
    /// The value.
    pub value: Die,
    /// The planes that may move for it (empty when the turn passes at once).
    pub legal: PlaneSet,
    /// Rooms with a turn clock: how long the player to act has for the decision now pending,
    /// in ms from when this event was sent (absent without a clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    /// Whether the turn clock ran out and the server played this for the player (absent when
    /// the player did).
    #[serde(default, skip_serializing_if = "is_false")]
    pub by_clock: bool,
}

/// Opposing planes sent back to base by a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capture {
    /// The captured planes' owner.
    pub colour: Side,
    /// The captured planes.
    pub planes: PlaneSet,
    /// The ring square of the capture.
    pub square: RingIndex,
}

impl From<aeroplane_rules::Capture> for Capture {
    fn from(capture: aeroplane_rules::Capture) -> Self {
        Capture {
            colour: capture.colour.into(),
            planes: capture.planes,
            square: capture.square,
        }
    }
}

/// A move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moved {
    /// The event number.
    pub event: u64,
    /// The mover.
    pub colour: Side,
    /// The plane moved.
    pub plane: Plane,
    /// Where it was (`base` for a deployment).
    pub from: Position,
    /// Where it is now (`finished` at the finish).
    pub to: Position,
    /// Planes it captured (at most one entry).
    pub captures: Vec<Capture>,
    /// Whether the plane reached the finish.
    pub finished: bool,
    /// Whether the mover rolls again.
    pub extra_roll: bool,
    /// Rooms with a turn clock: how long the player to act has for the decision now pending,
    /// in ms from when this event was sent (absent without a clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    /// Whether the turn clock ran out and the server played this for the player (absent when
    /// the player did).
    #[serde(default, skip_serializing_if = "is_false")]
    pub by_clock: bool,
}

/// The turn passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnPassed {
    /// The event number.
    pub event: u64,
    /// Whose turn ended.
    pub from: Side,
    /// Who acts now.
    pub to: Side,
    /// Why: `normal`, `no_legal_move` or `void_third_six`.
    pub reason: PassReason,
    /// Rooms with a turn clock: how long the player to act has for the decision now pending,
    /// in ms from when this event was sent (absent without a clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
}

/// A draw offer, acceptance or withdrawal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawAction {
    /// The event number.
    pub event: u64,
    /// Who did it.
    pub by: Side,
}

/// A declined draw offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawDeclined {
    /// The event number.
    pub event: u64,
    /// The receiver.
    pub by: Side,
    /// Whether it was declined by rolling.
    pub implicit: bool,
}

/// The end of the game, with the revealed server seed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameOver {
    /// The event number.
    pub event: u64,
    /// Winner (`null` for a draw) and reason.
    pub result: ResultRecord,
    /// The server seed, revealed (lower-case hex).
    pub server_seed: String,
    /// The commitment it must hash to.
    pub commitment: String,
    /// Red's client seed.
    pub red_seed: String,
    /// Yellow's client seed.
    pub yellow_seed: String,
    /// Table rooms that seat Blue: Blue's client seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blue_seed: Option<String>,
    /// Table rooms that seat Green: Green's client seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub green_seed: Option<String>,
}

/// Plane choices were taken back by `undo`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undone {
    /// The event number.
    pub event: u64,
    /// The colour whose plane choice is pending again.
    pub colour: Side,
    /// How many logged actions were taken back (the move and everything after it).
    pub actions: u32,
    /// The room after the undo, as of this event: the earlier position with the same roll
    /// pending. Clients render it instead of applying anything.
    pub snapshot: Box<Snapshot>,
}

/// A preset quick message from a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Said {
    /// Who said it.
    pub colour: Side,
    /// What.
    pub phrase: Phrase,
}

/// A player asked for a rematch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RematchOffered {
    /// Who asked.
    pub by: Side,
}

/// The rematch's new room: same players, colours swapped, new seeds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RematchReady {
    /// The new room's id.
    pub room_id: uuid::Uuid,
    /// Its WebSocket path.
    pub ws_path: String,
    /// The receiver's colour in the new room (`null` for a spectator).
    pub colour: Option<Side>,
    /// The receiver's seat token in the new room (`null` for a spectator).
    pub token: Option<String>,
}

/// Table rooms: a plane left its hangar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launched {
    /// The event number.
    pub event: u64,
    /// The plane's owner.
    pub colour: Side,
    /// The plane launched.
    pub plane: Plane,
    /// Whether the turn clock ran out and the server played this move for the player.
    #[serde(default, skip_serializing_if = "is_false")]
    pub by_clock: bool,
}

/// Table rooms: planes walked the number rolled (bouncing back in the runway in `flights`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Walked {
    /// The event number.
    pub event: u64,
    /// Their owner.
    pub colour: Side,
    /// The planes that moved together (one, or a `classic` stack).
    pub planes: PlaneSet,
    /// Where they were.
    pub from: Position,
    /// Where the walk ended, before any jump or flight (`finished` at the centre).
    pub to: Position,
    /// Whether the turn clock ran out and the server played this move for the player.
    #[serde(default, skip_serializing_if = "is_false")]
    pub by_clock: bool,
}

/// Table rooms: a jump or a flight, as progress along the planes' own route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shortcut {
    /// The event number.
    pub event: u64,
    /// Their owner.
    pub colour: Side,
    /// The planes that jumped or flew.
    pub planes: PlaneSet,
    /// Progress before.
    pub from: u8,
    /// Progress after.
    pub to: u8,
}

/// Table rooms: planes sent back to their hangar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentHome {
    /// The event number.
    pub event: u64,
    /// The planes' owner.
    pub colour: Side,
    /// The planes sent home.
    pub planes: PlaneSet,
    /// The ring square, or `null` for the lane square a `classic` shortcut crosses.
    pub square: Option<RingIndex>,
}

/// Table rooms: planes reached the centre.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arrived {
    /// The event number.
    pub event: u64,
    /// Their owner.
    pub colour: Side,
    /// The planes that arrived.
    pub planes: PlaneSet,
}

/// Table rooms: a void third six.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThirdSix {
    /// The event number.
    pub event: u64,
    /// Who rolled it.
    pub colour: Side,
    /// The planes sent back to the hangar (maybe none).
    pub returned: PlaneSet,
}

/// Table rooms: the mover rolls again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtraRoll {
    /// The event number.
    pub event: u64,
    /// Who rolls again.
    pub colour: Side,
    /// Rooms with a turn clock: the time for the roll now pending, in ms from when this event
    /// was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
}

/// Table rooms: a player is out of play with its final place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerOut {
    /// The event number.
    pub event: u64,
    /// Who.
    pub colour: Side,
    /// The final place, from 1.
    pub place: u8,
    /// Why: `finished` (all four planes at the centre, or the last one left in play),
    /// `resigned`, `abandoned` or `timeout`.
    pub reason: aeroplane_rules::EndReason,
}

/// Room for a `rolled`, a `moved` or a `turn_passed` without growing.
const EVENT_BYTES: usize = 192;

impl Rolled {
    /// Appends the message's JSON, `type` first, as `serde_json` writes it.
    fn write_json(&self, out: &mut impl Out) {
        out.put("{\"type\":\"rolled\",\"event\":");
        text::number(out, self.event);
        out.put(",\"colour\":");
        text::side(out, self.colour);
        out.put(",\"value\":");
        text::digit(out, self.value.value());
        out.put(",\"legal\":");
        text::planes(out, self.legal);
        text::clock(out, self.deadline_ms, self.by_clock);
        out.put("}");
    }
}

impl Moved {
    /// Appends the message's JSON, `type` first, as `serde_json` writes it.
    fn write_json(&self, out: &mut impl Out) {
        out.put("{\"type\":\"moved\",\"event\":");
        text::number(out, self.event);
        out.put(",\"colour\":");
        text::side(out, self.colour);
        out.put(",\"plane\":");
        text::digit(out, self.plane.number());
        out.put(",\"from\":");
        text::position(out, self.from);
        out.put(",\"to\":");
        text::position(out, self.to);
        out.put(",\"captures\":[");
        for (index, capture) in self.captures.iter().enumerate() {
            if index > 0 {
                out.put(",");
            }
            out.put("{\"colour\":");
            text::side(out, capture.colour);
            out.put(",\"planes\":");
            text::planes(out, capture.planes);
            out.put(",\"square\":");
            text::number(out, u64::from(capture.square.value()));
            out.put("}");
        }
        out.put("],\"finished\":");
        text::boolean(out, self.finished);
        out.put(",\"extra_roll\":");
        text::boolean(out, self.extra_roll);
        text::clock(out, self.deadline_ms, self.by_clock);
        out.put("}");
    }
}

impl TurnPassed {
    /// Appends the message's JSON, `type` first, as `serde_json` writes it.
    fn write_json(&self, out: &mut impl Out) {
        out.put("{\"type\":\"turn_passed\",\"event\":");
        text::number(out, self.event);
        out.put(",\"from\":");
        text::side(out, self.from);
        out.put(",\"to\":");
        text::side(out, self.to);
        out.put(",\"reason\":");
        match self.reason {
            PassReason::Normal => text::quoted(out, "\"normal\""),
            PassReason::NoLegalMove => text::quoted(out, "\"no_legal_move\""),
            PassReason::VoidThirdSix => text::quoted(out, "\"void_third_six\""),
        }
        text::clock(out, self.deadline_ms, false);
        out.put("}");
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_false(value: &bool) -> bool {
    !*value
}

#[cfg(test)]
mod tests;
