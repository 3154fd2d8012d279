//! What nodes send each other to forward a room's connections: the subjects, the headers and
//! the bodies. Internal to the cluster (every node runs the same build); clients never see it.
//!
//! - `aeroplane.node.<owner>.conns` (edge → owner, published): a [`ToOwner`] as JSON: a
//!   connection connects, joins, sends a message or goes away. One subject for all of it, so a
//!   connection's messages keep their order (NATS keeps one publisher's order on a subject).
//! - `aeroplane.node.<owner>.alive` (edge → owner, request/reply): an [`Alive`] every third of
//!   a lease for each forwarded room, answered with an [`AliveReply`]; it keeps the owner's
//!   virtual connections and tells the edge the owner is there.
//! - `aeroplane.node.<owner>.status` (request/reply): a [`StatusAsk`], answered with the room's
//!   `RoomStatus` as JSON, or `null` when the room is not there.
//! - `aeroplane.edge.<edge>.<room>` (owner → edge, published): the room's frames for one
//!   connection, the frame as the payload, unchanged; the headers [`SESSION`] and [`KIND`] say
//!   whose and what ([`FromOwner`]), [`CLOSE`] the close code.

use aeroplane_protocol::client::{ClientMessage, Join};
use aeroplane_protocol::error::CloseCode;
use async_nats::HeaderMap;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The header naming the forwarded connection (its session) a message from the owner is for.
pub(super) const SESSION: &str = "Aeroplane-Session";

/// The header saying what a message from the owner is ([`FromOwner`]).
pub(super) const KIND: &str = "Aeroplane-Forward";

/// The header carrying the close code of a [`FromOwner::Close`].
pub(super) const CLOSE: &str = "Aeroplane-Close";

/// The subject on which node `node` hears `what` (`conns`, `alive`, `status`).
pub(super) fn owner_subject(node: &str, what: &str) -> String {
    format!("aeroplane.node.{node}.{what}")
}

/// Every subject node `node` hears as an owner.
pub(super) fn owner_subjects(node: &str) -> String {
    format!("aeroplane.node.{node}.*")
}

/// The subject on which node `edge` hears the frames of room `room`'s forwarded connections.
pub(super) fn edge_subject(edge: &str, room: Uuid) -> String {
    format!("aeroplane.edge.{edge}.{room}")
}

/// A forwarded connection's step, from the edge to the owner. A connection is named by its
/// session, new at every route: frames of an older session are ignored by the edge.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(super) enum ToOwner {
    /// A WebSocket on the edge connected to room `room`; its frames go to `reply`.
    Connect {
        room: Uuid,
        session: Uuid,
        reply: String,
    },
    /// Its `join`, the player's credentials checked by the edge.
    Join {
        session: Uuid,
        join: Box<Join>,
        player: Option<Uuid>,
    },
    /// Another message.
    Message {
        session: Uuid,
        message: ClientMessage,
    },
    /// It went away.
    Disconnect { session: Uuid },
}

/// The edge's keep-alive for the connections of one room.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Alive {
    pub(super) room: Uuid,
    pub(super) sessions: Vec<Uuid>,
}

/// The owner's answer to an [`Alive`].
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct AliveReply {
    /// Whether the room is open on the owner.
    pub(super) here: bool,
    /// Sessions the owner does not know (it dropped them, or never heard of them).
    pub(super) unknown: Vec<Uuid>,
}

/// A room status asked of its owner.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct StatusAsk {
    pub(super) room: Uuid,
}

/// What a message from the owner to the edge is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FromOwner {
    /// One frame for the connection, the payload as is.
    Frame,
    /// The room closed the connection with the code in [`CLOSE`].
    Close(CloseCode),
    /// The room is not on this node (any more): the edge looks for it again.
    Gone,
}

impl FromOwner {
    /// The headers of this message for `session`.
    pub(super) fn headers(self, session: Uuid) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(SESSION, session.to_string());
        let kind = match self {
            FromOwner::Frame => "frame",
            FromOwner::Close(code) => {
                headers.insert(CLOSE, code.code().to_string());
                "close"
            }
            FromOwner::Gone => "gone",
        };
        headers.insert(KIND, kind);
        headers
    }

    /// The session and kind of a message from the owner; `None` when it is not one.
    pub(super) fn read(headers: Option<&HeaderMap>) -> Option<(Uuid, FromOwner)> {
        let headers = headers?;
        let session = headers.get(SESSION)?.as_str().parse().ok()?;
        let kind = match headers.get(KIND)?.as_str() {
            "frame" => FromOwner::Frame,
            "gone" => FromOwner::Gone,
            "close" => {
                let code: u16 = headers.get(CLOSE)?.as_str().parse().ok()?;
                FromOwner::Close(close_code(code)?)
            }
            _ => return None,
        };
        Some((session, kind))
    }
}

/// Every close code a room may ask for.
const CLOSE_CODES: [CloseCode; 8] = [
    CloseCode::RoomClosed,
    CloseCode::TooBig,
    CloseCode::ProtocolViolation,
    CloseCode::Replaced,
    CloseCode::TooSlow,
    CloseCode::Timeout,
    CloseCode::ShuttingDown,
    CloseCode::RateLimited,
];

/// The close code numbered `code`.
fn close_code(code: u16) -> Option<CloseCode> {
    CLOSE_CODES.into_iter().find(|known| known.code() == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_from_the_owner_reads_back_as_itself() {
        let session = Uuid::new_v4();
        let mut kinds = vec![FromOwner::Frame, FromOwner::Gone];
        kinds.extend(CLOSE_CODES.map(FromOwner::Close));
        for kind in kinds {
            let headers = kind.headers(session);
            assert_eq!(FromOwner::read(Some(&headers)), Some((session, kind)));
        }
        assert_eq!(FromOwner::read(None), None);
    }

    #[test]
    fn a_join_goes_to_the_owner_and_back_unchanged() {
        let join: ClientMessage = aeroplane_protocol::client::decode(
            r#"{"type":"join","id":3,"role":"player","name":"Ann","token":"abc"}"#,
        )
        .expect("a join");
        let ClientMessage::Join(join) = join else {
            panic!("not a join");
        };
        let sent = ToOwner::Join {
            session: Uuid::new_v4(),
            join: join.clone(),
            player: None,
        };
        let text = serde_json::to_string(&sent).expect("encodes");
        let ToOwner::Join { join: back, .. } = serde_json::from_str(&text).expect("decodes") else {
            panic!("not a join");
        };
        assert_eq!(back, join);
    }
}
