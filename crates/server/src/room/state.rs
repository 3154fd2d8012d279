//! A room's state, how it looks from outside (snapshot, status), and how it reaches everyone.

use std::collections::HashMap;

use aeroplane_dice::{ClientSeed, Commitment, DieStream, SCHEME, ServerSeed};
use aeroplane_protocol::api::RoomStatus;
use aeroplane_protocol::client::Role;
use aeroplane_protocol::error::CloseCode;
use aeroplane_protocol::name::PlayerName;
use aeroplane_protocol::record::{LoggedAction, Mode, ResultRecord};
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::{
    ComputerView, FairnessView, RoomPhase, SeatView, Seats, Snapshot,
};
use aeroplane_rules::{Colour, Game};
use time::OffsetDateTime;
use tokio::time::Instant;
use uuid::Uuid;

use super::{ConnId, RoomContext};
use crate::token::SeatToken;
use crate::ws::outbox::{Outbox, SendError, encode};

/// One taken seat.
#[derive(Debug)]
pub(super) struct Seat {
    pub(super) name: PlayerName,
    pub(super) token: SeatToken,
    pub(super) client_seed: ClientSeed,
    /// The seat's live connection, if any.
    pub(super) conn: Option<ConnId>,
    /// When the seat is forfeited if its player is still away (only while the game is live).
    pub(super) deadline: Option<Instant>,
}

/// One connection in the room.
#[derive(Debug)]
pub(super) struct Conn {
    pub(super) outbox: Outbox,
    /// `None` until the connection has joined.
    pub(super) role: Option<Joined>,
}

/// What a joined connection is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Joined {
    Player(Colour),
    Spectator,
}

/// Everything a room owns.
pub(super) struct Room {
    pub(super) id: Uuid,
    pub(super) mode: Mode,
    pub(super) context: RoomContext,
    pub(super) game: Game,
    pub(super) server_seed: ServerSeed,
    pub(super) commitment: Commitment,
    /// The die, from the moment the game starts (the client seeds are fixed then).
    pub(super) dice: Option<DieStream>,
    pub(super) seats: [Option<Seat>; 2],
    pub(super) conns: HashMap<ConnId, Conn>,
    /// The number of the last room event sent.
    pub(super) event: u64,
    /// The number of the last event that changed the game; actions must have seen it.
    pub(super) state_event: u64,
    pub(super) actions: Vec<LoggedAction>,
    pub(super) created_at: OffsetDateTime,
    pub(super) started_at: Option<OffsetDateTime>,
    /// When the room closes by itself (finished, or idle with nobody there).
    pub(super) retire_at: Option<Instant>,
    /// The computer's seat and the undo history (computer and local rooms).
    pub(super) assist: super::assist::Assist,
    /// The turn clock and the strikes it counted.
    pub(super) clock: super::clock::Clock,
    /// Quick messages and the rematch (online rooms).
    pub(super) social: super::social::Social,
}

impl Room {
    /// The seat of `colour`.
    pub(super) fn seat(&self, colour: Colour) -> Option<&Seat> {
        self.seats[colour.index()].as_ref()
    }

    /// The seat of `colour`, to change it.
    pub(super) fn seat_mut(&mut self, colour: Colour) -> Option<&mut Seat> {
        self.seats[colour.index()].as_mut()
    }

    /// Waiting, playing or over.
    pub(super) fn phase(&self) -> RoomPhase {
        if self.game.is_over() {
            RoomPhase::Over
        } else if self.dice.is_some() {
            RoomPhase::Playing
        } else {
            RoomPhase::Waiting
        }
    }

    /// Whether the game is being played now.
    pub(super) fn is_live(&self) -> bool {
        self.phase() == RoomPhase::Playing
    }

    fn seat_views(&self) -> Seats {
        let now = Instant::now();
        let live = self.is_live();
        let view = |colour: Colour| {
            self.seat(colour).map(|seat| SeatView {
                name: seat.name.to_string(),
                connected: seat.conn.is_some(),
                grace_ms: seat
                    .deadline
                    .filter(|_| live && seat.conn.is_none())
                    .map(|deadline| {
                        let left = deadline.saturating_duration_since(now);
                        u64::try_from(left.as_millis()).unwrap_or(u64::MAX)
                    }),
            })
        };
        Seats {
            red: view(Colour::Red),
            yellow: view(Colour::Yellow),
        }
    }

    /// The client seed of `colour` (empty for a seat never taken).
    pub(super) fn client_seed(&self, colour: Colour) -> String {
        self.seat(colour)
            .map(|seat| seat.client_seed.as_str().to_owned())
            .unwrap_or_default()
    }

    /// The whole room as a client should see it now.
    pub(super) fn snapshot(&self) -> Snapshot {
        let started = self.dice.is_some();
        let over = self.game.is_over();
        Snapshot {
            room_id: self.id,
            mode: self.mode,
            phase: self.phase(),
            event: self.event,
            game: self.game,
            notation: (!over).then(|| self.game.to_string()),
            seats: self.seat_views(),
            fairness: FairnessView {
                scheme: SCHEME.to_owned(),
                commitment: self.commitment.to_string(),
                red_seed: started.then(|| self.client_seed(Colour::Red)),
                yellow_seed: started.then(|| self.client_seed(Colour::Yellow)),
                server_seed: over.then(|| self.server_seed.to_hex()),
            },
            result: self.game.outcome().map(|outcome| ResultRecord {
                winner: outcome.winner,
                reason: outcome.reason,
            }),
            computer: self.assist.computer.map(|computer| ComputerView {
                colour: computer.colour,
                level: computer.level.as_str().to_owned(),
            }),
            clock: self.clock_view(),
            spectators: self.spectator_count(),
        }
    }

    /// How many connections watch the room.
    pub(super) fn spectator_count(&self) -> u32 {
        let watching = self
            .conns
            .values()
            .filter(|conn| conn.role == Some(Joined::Spectator))
            .count();
        u32::try_from(watching).unwrap_or(u32::MAX)
    }

    /// The public status for the HTTP API.
    pub(super) fn status(&self) -> RoomStatus {
        RoomStatus {
            id: self.id,
            mode: self.mode,
            phase: self.phase(),
            seats: self.seat_views(),
            spectators: self.spectator_count(),
            event: self.event,
        }
    }

    /// The next event number (events must then be sent in order).
    pub(super) fn next_event(&self) -> u64 {
        self.event + 1
    }

    /// Sends room events to every joined connection, in order, advancing the event number.
    pub(super) fn broadcast(&mut self, messages: &[ServerMessage]) {
        let mut dropped: Vec<(ConnId, SendError)> = Vec::new();
        for message in messages {
            if let Some(event) = message.event() {
                debug_assert_eq!(event, self.event + 1, "room events are consecutive");
                self.event = event;
            }
            let frame = encode(message);
            for (id, conn) in &self.conns {
                if conn.role.is_none() || dropped.iter().any(|(gone, _)| gone == id) {
                    continue;
                }
                if let Err(error) = conn.outbox.send_frame(frame.clone()) {
                    dropped.push((*id, error));
                }
            }
        }
        for (conn, error) in dropped {
            self.drop_conn(conn, error);
        }
    }

    /// Sends one answer to one connection.
    pub(super) fn reply(&mut self, conn: ConnId, message: &ServerMessage) {
        let Some(target) = self.conns.get(&conn) else {
            return;
        };
        if let Err(error) = target.outbox.send(message) {
            self.drop_conn(conn, error);
        }
    }

    /// Drops a connection that is too slow or gone.
    fn drop_conn(&mut self, conn: ConnId, error: SendError) {
        if let Some(target) = self.conns.get(&conn) {
            tracing::info!(conn, error = %error, "dropping a connection");
            target.outbox.close(CloseCode::TooSlow);
        }
        self.disconnect(conn);
    }

    /// The role a connection joined with.
    pub(super) fn role_of(&self, conn: ConnId) -> Option<Joined> {
        self.conns.get(&conn).and_then(|conn| conn.role)
    }
}

impl Joined {
    /// The wire role.
    pub(super) fn wire_role(self) -> Role {
        match self {
            Joined::Player(_) => Role::Player,
            Joined::Spectator => Role::Spectator,
        }
    }
}
