//! Taking seats, reclaiming them by token, watching, and leaving.

use aeroplane_dice::{ClientSeed, DieStream, GameKey};
use aeroplane_protocol::PROTOCOL_VERSION;
use aeroplane_protocol::client::{Join, Role};
use aeroplane_protocol::error::{CloseCode, ErrorCode};
use aeroplane_protocol::name::PlayerName;
use aeroplane_protocol::record::Mode;
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
            Role::Spectator => self.admit_spectator(),
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
        target.outbox.mark_joined();
        let colours = self.colours_of(joined);
        let token = colours
            .first()
            .and_then(|colour| self.seat(*colour))
            .map(|seat| seat.token.as_str().to_owned());
        // The player of a local room plays both colours: no single colour is theirs.
        let colour = match colours.as_slice() {
            [colour] => Some(*colour),
            _ => None,
        };
        tracing::info!(conn, seat = colour.map(Colour::as_str), "joined");
        let welcome = ServerMessage::Welcome(Welcome {
            id: join.id,
            protocol: PROTOCOL_VERSION,
            role: joined.wire_role(),
            colour,
            colours: colours.clone(),
            token,
            snapshot: self.snapshot(),
        });
        self.reply(conn, &welcome);
        if !colours.is_empty() {
            self.seats_connected(&colours, conn);
        }
    }

    /// The colours a joined connection plays: both for the player of a local room (who joins as
    /// Red's seat and acts for whichever colour is to act), one for any other player.
    pub(super) fn colours_of(&self, joined: Joined) -> Vec<Colour> {
        match joined {
            Joined::Player(_) if self.mode == Mode::Local => Colour::ALL.to_vec(),
            Joined::Player(colour) => vec![colour],
            Joined::Spectator => Vec::new(),
        }
    }

    /// Admits one more spectator, unless the room has `--max-spectators` already.
    fn admit_spectator(&self) -> Result<Joined, Refusal> {
        let max = self.context.config.max_spectators;
        let watching = self
            .conns
            .values()
            .filter(|conn| conn.role == Some(Joined::Spectator))
            .count();
        if watching >= max {
            let message = format!("this room admits {max} spectators");
            return Err(Refusal(ErrorCode::TooManySpectators, message));
        }
        Ok(Joined::Spectator)
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
        let name = PlayerName::parse(&join.name)
            .map_err(|error| Refusal(ErrorCode::BadField, error.to_string()))?;
        let client_seed = ClientSeed::new(join.client_seed.clone().unwrap_or_default())
            .map_err(|error| Refusal(ErrorCode::SeedTooLong, error.to_string()))?;
        if self.mode == Mode::Local {
            return self.take_both_seats(conn, name, client_seed);
        }
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
            name,
            token,
            client_seed,
            conn: None,
            deadline: None,
        });
        Ok(Joined::Player(colour))
    }

    /// A local room's one player takes both seats, with one token for both. The seats share the
    /// player's name and client seed.
    fn take_both_seats(
        &mut self,
        conn: ConnId,
        name: PlayerName,
        client_seed: ClientSeed,
    ) -> Result<Joined, Refusal> {
        if self.seats.iter().any(Option::is_some) {
            return Err(Refusal(
                ErrorCode::RoomFull,
                "this local room has its player; watch instead".into(),
            ));
        }
        let token = SeatToken::generate().map_err(|error| {
            tracing::error!(conn, error = %error, "no entropy for a seat token");
            Refusal(
                ErrorCode::Internal,
                "the server could not make a seat token".into(),
            )
        })?;
        for colour in Colour::ALL {
            self.seats[colour.index()] = Some(Seat {
                name: name.clone(),
                token: token.clone(),
                client_seed: client_seed.clone(),
                conn: None,
                deadline: None,
            });
        }
        Ok(Joined::Player(Colour::Red))
    }

    /// `conn` is now the live connection of these seats; an older one is replaced.
    fn seats_connected(&mut self, colours: &[Colour], conn: ConnId) {
        let mut connected = Vec::new();
        for colour in colours {
            let Some(seat) = self.seat_mut(*colour) else {
                continue;
            };
            let previous = seat.conn.replace(conn);
            seat.deadline = None;
            let name = seat.name.to_string();
            match previous.filter(|old| *old != conn) {
                Some(old) => {
                    // The seat never looked disconnected to anyone: no event.
                    if let Some(old) = self.conns.remove(&old) {
                        old.outbox.close(CloseCode::Replaced);
                    }
                }
                None => connected.push((*colour, name)),
            }
        }
        for (colour, name) in connected {
            let deadline_ms = self.start_waiting_clock();
            let event = self.next_event();
            self.broadcast(&[ServerMessage::PlayerConnected(PlayerConnected {
                event,
                colour,
                name,
                deadline_ms,
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
        self.context.registry.started(self.id);
        // A seat taken in advance (quick match) whose player has not come yet starts its grace now.
        let deadline = Instant::now() + self.context.config.grace();
        for colour in Colour::ALL {
            // The computer never abandons, even if the human sat down before the bot did.
            let computer = self.is_computer(colour);
            if let Some(seat) = self.seat_mut(colour).filter(|seat| seat.conn.is_none()) {
                seat.deadline = (!computer).then_some(deadline);
            }
        }
        tracing::info!("game started");
        let event = self.next_event();
        let mut started = [ServerMessage::GameStarted(GameStarted {
            event,
            commitment: self.commitment.to_string(),
            red_seed: red_seed.as_str().to_owned(),
            yellow_seed: yellow_seed.as_str().to_owned(),
            deadline_ms: None,
        })];
        self.restart_clock(&mut started);
        self.broadcast(&started);
        self.state_event = self.event;
    }

    /// A connection went away (closed, dropped, or left).
    ///
    /// A player's seat is held for the grace period, then the game ends `abandoned`. The computer
    /// never abandons. A local room has nobody to hand the game to, so it waits much longer for
    /// its one player: the idle room TTL, after which the colour to act abandons.
    pub(super) fn disconnect(&mut self, conn: ConnId) {
        let Some(gone) = self.conns.remove(&conn) else {
            return;
        };
        let Some(joined) = gone.role else {
            return;
        };
        let live = self.is_live();
        let grace = if self.mode == Mode::Local {
            self.context.config.idle_room_ttl()
        } else {
            self.context.config.grace()
        };
        let to_act = self.game.to_act();
        for colour in self.colours_of(joined) {
            let local = self.mode == Mode::Local;
            let held = live && !self.is_computer(colour) && (!local || colour == to_act);
            let Some(seat) = self.seat_mut(colour) else {
                continue;
            };
            if seat.conn != Some(conn) {
                continue;
            }
            seat.conn = None;
            if held {
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
}
