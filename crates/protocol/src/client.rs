//! Client → server messages and their decoding.
//!
//! Decoding is two-step on purpose: a frame is first read as a JSON object so that the error can
//! say *what* was wrong (`malformed`, `unknown_type` or `bad_field`) and echo the request `id`
//! even when the rest of the message is unusable.

use aeroplane_rules::{Plane, Side};
use serde::{Deserialize, Serialize};

use crate::error::ErrorCode;

mod plain;

/// The `type` names a client may send.
pub const CLIENT_TYPES: [&str; 15] = [
    "join",
    "roll",
    "move",
    "resign",
    "offer_draw",
    "accept_draw",
    "decline_draw",
    "withdraw_draw",
    "ping",
    "sync",
    "leave",
    "hint",
    "undo",
    "say",
    "rematch",
];

/// One message from a client, tagged by `type`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// Take a seat (or reclaim one with its token) or watch as a spectator. Boxed: a `join` is
    /// three times the size of any other message, and every room's inbox keeps a block of 32
    /// messages (the wire is the same).
    Join(Box<Join>),
    /// Roll the die (the player to act, with no plane choice pending).
    Roll(Act),
    /// Move a plane for the pending roll.
    Move(MovePlane),
    /// Resign; the opponent wins.
    Resign(Act),
    /// Offer a draw.
    OfferDraw(Act),
    /// Accept the opponent's standing draw offer.
    AcceptDraw(Act),
    /// Decline the opponent's standing draw offer.
    DeclineDraw(Act),
    /// Withdraw one's own standing draw offer.
    WithdrawDraw(Act),
    /// Keep-alive at the application level; answered with `pong`.
    Ping(Request),
    /// Ask for a fresh snapshot (after a gap in event numbers).
    Sync(Request),
    /// Leave the room politely; a player's seat is held for the grace period like any disconnect.
    Leave(Request),
    /// Ask which plane the computer would move for the pending roll (computer rooms only);
    /// answered with `hint` to the asking connection alone.
    Hint(Request),
    /// Take back the last plane choice of the human (in a local room: of either colour) and
    /// everything after it (computer and local rooms only).
    Undo(Act),
    /// Send one of the preset quick messages to the room (players of online rooms only; rate
    /// limited). There is no free text.
    Say(Say),
    /// Ask for a rematch once the game is over, or accept the opponent's request (players of
    /// online rooms only). When both asked, each gets `rematch_ready` with a seat in a new room.
    Rematch(RematchRequest),
}

/// The preset quick messages; there is no free text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phrase {
    /// "Good luck!"
    GoodLuck,
    /// "Nice move!"
    NiceMove,
    /// "Oops!"
    Oops,
    /// "Well played!"
    WellPlayed,
    /// "Good game!"
    GoodGame,
    /// "Thanks!"
    Thanks,
}

/// The `say` message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Say {
    /// The client's request id, echoed in an error.
    #[serde(default)]
    pub id: Option<u64>,
    /// Which preset message.
    pub phrase: Phrase,
}

/// The `rematch` message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RematchRequest {
    /// The client's request id, echoed in an error.
    #[serde(default)]
    pub id: Option<u64>,
    /// The player's dice seed for the new game (at most 64 UTF-8 bytes; empty when absent).
    #[serde(default)]
    pub client_seed: Option<String>,
}

/// Whether a joining client wants a seat or only to watch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A seat at the board.
    Player,
    /// Watching; spectators see every event and cannot act.
    Spectator,
}

/// The `join` message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Join {
    /// The client's request id, echoed in the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// Player or spectator.
    pub role: Role,
    /// The display name; a player's must parse as a [`crate::name::PlayerName`].
    pub name: String,
    /// The colour asked for; any free seat when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colour: Option<Side>,
    /// A local room of three or four: the name of each seat in turn order (the first for Red);
    /// seats not named take `name`. Refused in any other room.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// The seat token from an earlier `welcome`, to reclaim that seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// The player's dice seed (at most 64 UTF-8 bytes; empty when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_seed: Option<String>,
    /// The player's credentials, `<player id>.<secret>` (from `POST /api/players`): the seat
    /// taken or reclaimed is tied to that player. Absent: an anonymous seat, as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
}

/// A game action with no argument: `roll`, `resign`, `undo` and the draw actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Act {
    /// The client's request id, echoed in an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// The last event number the client saw.
    pub seen: u64,
}

/// The `move` message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovePlane {
    /// The client's request id, echoed in an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// The last event number the client saw.
    pub seen: u64,
    /// The plane to move, `0..=3`.
    pub plane: Plane,
}

/// A message with nothing but an optional request id: `ping`, `sync`, `leave`, `hint`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// The client's request id, echoed in the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
}

impl ClientMessage {
    /// The request id the client attached, if any.
    pub const fn request_id(&self) -> Option<u64> {
        match self {
            ClientMessage::Join(join) => join.id,
            ClientMessage::Roll(act)
            | ClientMessage::Resign(act)
            | ClientMessage::OfferDraw(act)
            | ClientMessage::AcceptDraw(act)
            | ClientMessage::DeclineDraw(act)
            | ClientMessage::WithdrawDraw(act)
            | ClientMessage::Undo(act) => act.id,
            ClientMessage::Move(movement) => movement.id,
            ClientMessage::Ping(request)
            | ClientMessage::Sync(request)
            | ClientMessage::Leave(request)
            | ClientMessage::Hint(request) => request.id,
            ClientMessage::Say(say) => say.id,
            ClientMessage::Rematch(rematch) => rematch.id,
        }
    }

    /// The event number the client saw, for game actions and `undo` (`None` for join, ping,
    /// sync, leave, hint).
    pub const fn seen(&self) -> Option<u64> {
        match self {
            ClientMessage::Roll(act)
            | ClientMessage::Resign(act)
            | ClientMessage::OfferDraw(act)
            | ClientMessage::AcceptDraw(act)
            | ClientMessage::DeclineDraw(act)
            | ClientMessage::WithdrawDraw(act)
            | ClientMessage::Undo(act) => Some(act.seen),
            ClientMessage::Move(movement) => Some(movement.seen),
            _ => None,
        }
    }

    /// Encodes the message as a JSON text frame.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("client messages always serialize")
    }
}

/// Why a frame could not be decoded into a [`ClientMessage`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct DecodeError {
    /// `malformed`, `unknown_type` or `bad_field`.
    pub code: ErrorCode,
    /// What was wrong, for people.
    pub message: String,
    /// The request id, when the frame carried a readable one.
    pub id: Option<u64>,
}

/// Decodes one text frame.
///
/// A frame that is a valid message is decoded straight into it; only one that is not goes
/// through a JSON value first, to say why (and to find its request id). The value was a
/// second pass over every frame, about 2% of the server's CPU per action (issue 18). The two
/// messages of nearly every action, `roll` and `move`, are read without serde first when they
/// come in the plain shape our clients send (`client/plain.rs` says why and what that shape
/// is); serde reads everything else.
pub fn decode(text: &str) -> Result<ClientMessage, DecodeError> {
    if let Some(message) = plain::roll_or_move(text) {
        return Ok(message);
    }
    if let Ok(message) = serde_json::from_str(text) {
        return Ok(message);
    }
    explain(text)
}

/// Decodes a frame through a JSON value, saying why it is no message.
fn explain(text: &str) -> Result<ClientMessage, DecodeError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|error| DecodeError {
        code: ErrorCode::Malformed,
        message: format!("not valid JSON: {error}"),
        id: None,
    })?;
    let serde_json::Value::Object(object) = &value else {
        return Err(DecodeError {
            code: ErrorCode::Malformed,
            message: "a message is a JSON object".to_owned(),
            id: None,
        });
    };
    let id = object.get("id").and_then(serde_json::Value::as_u64);
    let Some(kind) = object.get("type").and_then(serde_json::Value::as_str) else {
        return Err(DecodeError {
            code: ErrorCode::Malformed,
            message: "a message has a string field `type`".to_owned(),
            id,
        });
    };
    if !CLIENT_TYPES.contains(&kind) {
        return Err(DecodeError {
            code: ErrorCode::UnknownType,
            message: format!("unknown message type `{kind}`"),
            id,
        });
    }
    serde_json::from_value(value).map_err(|error| DecodeError {
        code: ErrorCode::BadField,
        message: error.to_string(),
        id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_decodes_with_its_plane_and_seen() {
        let message = decode(r#"{"type":"move","id":7,"seen":12,"plane":2}"#).unwrap();
        assert_eq!(
            message,
            ClientMessage::Move(MovePlane {
                id: Some(7),
                seen: 12,
                plane: Plane::new(2).unwrap()
            })
        );
    }

    #[test]
    fn a_join_needs_only_role_and_name() {
        let message = decode(r#"{"type":"join","role":"spectator","name":"Eve"}"#).unwrap();
        let ClientMessage::Join(join) = message else {
            panic!("not a join")
        };
        assert_eq!(join.role, Role::Spectator);
        assert_eq!(join.token, None);
    }

    #[test]
    fn hint_needs_no_seen_and_undo_needs_one() {
        assert_eq!(
            decode(r#"{"type":"hint","id":5}"#).unwrap(),
            ClientMessage::Hint(Request { id: Some(5) })
        );
        assert_eq!(
            decode(r#"{"type":"undo","seen":8}"#).unwrap().seen(),
            Some(8)
        );
        assert_eq!(
            decode(r#"{"type":"undo"}"#).unwrap_err().code,
            ErrorCode::BadField
        );
    }

    #[test]
    fn say_accepts_only_preset_phrases() {
        assert_eq!(
            decode(r#"{"type":"say","phrase":"well_played"}"#).unwrap(),
            ClientMessage::Say(Say {
                id: None,
                phrase: Phrase::WellPlayed
            })
        );
        let free_text = decode(r#"{"type":"say","phrase":"you are bad"}"#).unwrap_err();
        assert_eq!(free_text.code, ErrorCode::BadField);
    }

    #[test]
    fn errors_distinguish_malformed_unknown_and_bad_fields() {
        assert_eq!(decode("{nope").unwrap_err().code, ErrorCode::Malformed);
        assert_eq!(decode("[1,2]").unwrap_err().code, ErrorCode::Malformed);
        assert_eq!(
            decode(r#"{"type":"dance","id":3}"#).unwrap_err().code,
            ErrorCode::UnknownType
        );
        let bad = decode(r#"{"type":"move","id":4,"seen":1,"plane":9}"#).unwrap_err();
        assert_eq!((bad.code, bad.id), (ErrorCode::BadField, Some(4)));
        let bad = decode(r#"{"type":"roll","seen":"one"}"#).unwrap_err();
        assert_eq!(bad.code, ErrorCode::BadField);
    }

    #[test]
    fn every_message_round_trips_through_json() {
        let messages = [
            ClientMessage::Roll(Act {
                id: Some(1),
                seen: 0,
            }),
            ClientMessage::Ping(Request { id: None }),
            ClientMessage::Hint(Request { id: Some(3) }),
            ClientMessage::Say(Say {
                id: Some(5),
                phrase: Phrase::GoodGame,
            }),
            ClientMessage::Rematch(RematchRequest {
                id: None,
                client_seed: Some("again".into()),
            }),
            ClientMessage::Undo(Act {
                id: Some(4),
                seen: 17,
            }),
            ClientMessage::Join(Box::new(Join {
                id: Some(2),
                role: Role::Player,
                name: "Ann".into(),
                colour: Some(Side::Yellow),
                names: Vec::new(),
                token: None,
                client_seed: Some("lucky".into()),
                player: None,
            })),
        ];
        for message in messages {
            assert_eq!(decode(&message.to_json()).unwrap(), message);
        }
    }
}
