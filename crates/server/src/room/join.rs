//! Taking seats, reclaiming them by token, watching, and leaving.

use aeroplane_dice::{ClientSeed, DieStream, GameKey};
use aeroplane_protocol::PROTOCOL_VERSION;
use aeroplane_protocol::client::{Join, Role};
use aeroplane_protocol::error::{CloseCode, ErrorCode};
use aeroplane_protocol::server::{
    GameStarted, PlayerConnected, PlayerDisconnected, ServerMessage, Welcome,
};
use aeroplane_rules::Colour;
use time::OffsetDateTime;
use tokio::time::Instant;

use super::ConnId;
use super::state::{Conn, Joined, Room, Seat};
use crate::token::SeatToken;
use crate::ws::outbox::Outbox;

/// The longest display name, in characters.
const MAX_NAME_CHARS: usize = 32;

/// Why a join was refused.
struct Refusal(ErrorCode, String);

impl Room {
    /// A WebSocket connected; it receives nothing until it joins.
    pub(super) fn connect(&mut self, conn: ConnId, outbox: Outbox) {
        self.conns.insert(conn, Conn { outbox, role: None });
    }

    /// Handles a `join`.
    pub(super) fn join(&mut self, conn: ConnId, join: Join) {
        if self.role_of(conn).is_some() {
            let error = ServerMessage::error(join.id, ErrorCode::AlreadyJoined, "already joined");
            return self.reply(conn, &error);
        }
        let joined = match join.role {
            Role::Spectator => Ok(Joined::Spectator),
            Role::Player => self.take_seat(conn, &join),
        };
        let joined = match joined {
            Ok(joined) => joined,
            Err(Refusal(code, message)) => {
                return self.reply(conn, &ServerMessage::error(join.id, code, message));
            }
        };
        let Some(target) = self.conns.get_mut(&conn) else {
            return;
        };
        target.role = Some(joined);
        self.retire_at = None;
        let (colour, token) = match joined {
            Joined::Player(colour) => (
                Some(colour),
                self.seat(colour).map(|seat| seat.token.as_str().to_owned()),
            ),
            Joined::Spectator => (None, None),
        };
        tracing::info!(conn, seat = colour.map(Colour::as_str), "joined");
        let welcome = ServerMessage::Welcome(Welcome {
            id: join.id,
            protocol: PROTOCOL_VERSION,
            role: joined.wire_role(),
            colour,
            token,
            snapshot: self.snapshot(),
        });
        self.reply(conn, &welcome);
        if let Joined::Player(colour) = joined {
            self.seat_connected(colour, conn);
        }
    }

    /// Finds the seat a player's `join` asks for and checks that it may have it.
    fn take_seat(&mut self, conn: ConnId, join: &Join) -> Result<Joined, Refusal> {
        if let Some(presented) = &join.token {
            let colour = Colour::ALL
                .into_iter()
                .find(|colour| {
                    self.seat(*colour)
                        .is_some_and(|seat| seat.token.matches(presented))
                })
                .ok_or_else(|| {
                    Refusal(
                        ErrorCode::BadToken,
                        "the token matches no seat of this room".into(),
                    )
                })?;
            return Ok(Joined::Player(colour));
        }
        if self.game.is_over() {
            return Err(Refusal(
                ErrorCode::RoomFull,
                "the game is over; watch instead".into(),
            ));
        }
        let name = join.name.trim();
        if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
            let message = format!("a name has 1 to {MAX_NAME_CHARS} characters");
            return Err(Refusal(ErrorCode::BadField, message));
        }
        let client_seed = ClientSeed::new(join.client_seed.clone().unwrap_or_default())
            .map_err(|error| Refusal(ErrorCode::SeedTooLong, error.to_string()))?;
        let colour = match join.colour {
            Some(colour) if self.seat(colour).is_some() => {
                let message = format!("the {} seat is taken", colour.as_str());
                return Err(Refusal(ErrorCode::SeatTaken, message));
            }
            Some(colour) => colour,
            None => Colour::ALL
                .into_iter()
                .find(|colour| self.seat(*colour).is_none())
                .ok_or_else(|| {
                    Refusal(
                        ErrorCode::RoomFull,
                        "both seats are taken; watch instead".into(),
                    )
                })?,
        };
        let token = SeatToken::generate().map_err(|error| {
            tracing::error!(conn, error = %error, "no entropy for a seat token");
            Refusal(
                ErrorCode::Internal,
                "the server could not make a seat token".into(),
            )
        })?;
        self.seats[colour.index()] = Some(Seat {
            name: name.to_owned(),
            token,
            client_seed,
            conn: None,
            deadline: None,
        });
        Ok(Joined::Player(colour))
    }

    /// `conn` is now the live connection of `colour`'s seat; an older one is replaced.
    fn seat_connected(&mut self, colour: Colour, conn: ConnId) {
        let Some(seat) = self.seat_mut(colour) else {
            return;
        };
        let previous = seat.conn.replace(conn);
        seat.deadline = None;
        let name = seat.name.clone();
        if let Some(old) = previous.filter(|old| *old != conn) {
            if let Some(old) = self.conns.remove(&old) {
                old.outbox.close(CloseCode::Replaced);
            }
            // The seat never looked disconnected to anyone: no event.
        } else {
            let event = self.next_event();
            self.broadcast(&[ServerMessage::PlayerConnected(PlayerConnected {
                event,
                colour,
                name,
            })]);
        }
        if self.dice.is_none() && self.seats.iter().all(Option::is_some) {
            self.start();
        }
    }

    /// Both seats are taken: fix the client seeds, key the die and tell everyone.
    pub(super) fn start(&mut self) {
        if self.dice.is_some() || self.game.is_over() {
            return;
        }
        let red_seed = self.seat(Colour::Red).map(|seat| seat.client_seed.clone());
        let yellow_seed = self
            .seat(Colour::Yellow)
            .map(|seat| seat.client_seed.clone());
        let (Some(red_seed), Some(yellow_seed)) = (red_seed, yellow_seed) else {
            return;
        };
        let key = GameKey::derive(&self.server_seed, &red_seed, &yellow_seed);
        self.dice = Some(DieStream::new(key));
        self.started_at = Some(OffsetDateTime::now_utc());
        self.retire_at = None;
        // A seat taken in advance (quick match) whose player has not come yet starts its grace now.
        let deadline = Instant::now() + self.context.config.grace();
        for seat in self.seats.iter_mut().flatten() {
            if seat.conn.is_none() {
                seat.deadline = Some(deadline);
            }
        }
        tracing::info!("game started");
        let event = self.next_event();
        self.broadcast(&[ServerMessage::GameStarted(GameStarted {
            event,
            commitment: self.commitment.to_string(),
            red_seed: red_seed.as_str().to_owned(),
            yellow_seed: yellow_seed.as_str().to_owned(),
        })]);
        self.state_event = self.event;
    }

    /// A connection went away (closed, dropped, or left).
    pub(super) fn disconnect(&mut self, conn: ConnId) {
        let Some(gone) = self.conns.remove(&conn) else {
            return;
        };
        let Some(Joined::Player(colour)) = gone.role else {
            return;
        };
        let live = self.is_live();
        let grace = self.context.config.grace();
        let Some(seat) = self.seat_mut(colour) else {
            return;
        };
        if seat.conn != Some(conn) {
            return;
        }
        seat.conn = None;
        if live {
            seat.deadline = Some(Instant::now() + grace);
        }
        tracing::info!(conn, seat = colour.as_str(), "player disconnected");
        let event = self.next_event();
        let grace_ms = u64::try_from(grace.as_millis()).unwrap_or(u64::MAX);
        self.broadcast(&[ServerMessage::PlayerDisconnected(PlayerDisconnected {
            event,
            colour,
            grace_ms,
        })]);
    }
}
