//! Joining (taking a seat, reclaiming it by token, watching), the start of the game, and
//! leaving. The seats decide who may sit where (`seats.rs`); this turns it into answers and
//! presence events.

use aeroplane_protocol::client::{Join, Role};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::record::Mode;
use aeroplane_protocol::server::{PlayerConnected, PlayerDisconnected, ServerMessage, Welcome};
use aeroplane_rules::Side;
use tokio::time::Instant;
use uuid::Uuid;

use super::core::Room;
use super::handle::ConnId;
use super::parts::seats::{Joined, millis};
use super::registry::PlayerSeat;
use crate::token::SeatToken;

impl Room {
    /// Handles a `join` by `player` (an identified player, credentials checked; `None`:
    /// anonymous).
    pub(super) fn join(&mut self, conn: ConnId, join: Box<Join>, player: Option<Uuid>) {
        if self.seats.role_of(conn).is_some() {
            let error = ServerMessage::error(join.id, ErrorCode::AlreadyJoined, "already joined");
            return self.reply(conn, &error);
        }
        let joined = match join.role {
            Role::Spectator => self
                .seats
                .admit_spectator(self.context.config.max_spectators),
            Role::Player => {
                let open = !self.timeline.game().is_over();
                let untied = !self.timeline.has_started();
                self.seats.take(&join, open, player, untied)
            }
        };
        let joined = match joined {
            Ok(joined) => joined,
            Err((code, message)) => {
                return self.reply(conn, &ServerMessage::error(join.id, code, message));
            }
        };
        if !self.seats.joined(conn, joined) {
            return;
        }
        let colours = self.seats.colours_of(joined);
        if let Joined::Player(colour) = joined
            && let Some(seat) = self.seats.get(colour)
            && let Some(player) = seat.player
        {
            let token = seat.token.clone();
            self.seat_held(player, colour, &token);
        }
        let token = colours
            .first()
            .and_then(|colour| self.seats.get(*colour))
            .map(|seat| seat.token.as_str().to_owned());
        // The player of a local room plays every colour: no single colour is theirs.
        let colour = match colours.as_slice() {
            [colour] => Some(*colour),
            _ => None,
        };
        tracing::info!(conn, seat = colour.map(Side::as_str), "joined");
        let welcome = ServerMessage::Welcome(Welcome {
            id: join.id,
            protocol: self.timeline.game().protocol(),
            role: joined.wire_role(),
            colour,
            colours: colours.clone(),
            token,
            snapshot: Box::new(self.snapshot()),
        });
        self.reply(conn, &welcome);
        if !colours.is_empty() {
            self.seats_connected(&colours, conn);
        }
    }

    /// Tells the registry that `player` holds `colour`'s seat (`GET /api/players/me/live`).
    pub(super) fn seat_held(&self, player: Uuid, colour: Side, token: &SeatToken) {
        let seat = PlayerSeat {
            room_id: self.id,
            colour,
            token: token.clone(),
            mode: self.mode,
        };
        self.context.registry.seat_held(player, seat);
    }

    /// `conn` is now the live connection of these seats: tell everyone who connected, and start
    /// the game once every seat is taken.
    fn seats_connected(&mut self, colours: &[Side], conn: ConnId) {
        for (colour, name) in self.seats.seats_connected(colours, conn) {
            let deadline_ms = self.start_waiting_clock();
            let event = self.timeline.presence();
            self.publish(vec![ServerMessage::PlayerConnected(PlayerConnected {
                event,
                colour,
                name,
                deadline_ms,
            })]);
        }
        self.start();
    }

    /// Every seat is taken: fix the client seeds, key the die and tell everyone.
    pub(super) fn start(&mut self) {
        if self.timeline.has_started() || self.timeline.game().is_over() {
            return;
        }
        if !self.seats.all_taken() {
            return;
        }
        let started = self.timeline.start(&self.seats.client_seeds());
        self.retire_at = None;
        self.context.registry.started(self.id);
        // A seat taken in advance (quick match) whose player has not come yet starts its grace now.
        let deadline = Instant::now() + self.context.config.grace();
        let assist = &self.assist;
        self.seats.set_deadlines(|colour, seat| {
            // A computer never abandons, even if the human sat down before the bot did.
            match seat.conn {
                Some(_) => seat.deadline(),
                None => (!assist.is_computer(colour)).then_some(deadline),
            }
        });
        tracing::info!("game started");
        let mut started = vec![started];
        self.restart_clock(&mut started);
        self.publish(started);
    }

    /// A connection went away (closed, dropped, or left).
    ///
    /// A player's seat is held for the grace period, then the game ends `abandoned`. The computer
    /// never abandons. A local room has nobody to hand the game to, so it waits much longer for
    /// its one player: the idle room TTL, after which the colour to act abandons.
    pub(super) fn disconnect(&mut self, conn: ConnId) {
        let Some(joined) = self.seats.remove(conn) else {
            return;
        };
        let live = self.is_live();
        let local = self.mode == Mode::Local;
        let grace = if local {
            self.context.config.idle_room_ttl()
        } else {
            self.context.config.grace()
        };
        let to_act = self.timeline.game().to_act();
        for colour in self.seats.colours_of(joined) {
            let held = live
                && !self.is_computer(colour)
                && self.timeline.game().in_play(colour)
                && (!local || colour == to_act);
            let deadline = held.then(|| Instant::now() + grace);
            if !self.seats.seat_left(colour, conn, deadline) {
                continue;
            }
            tracing::info!(conn, seat = colour.as_str(), "player disconnected");
            let event = self.timeline.presence();
            self.publish(vec![ServerMessage::PlayerDisconnected(
                PlayerDisconnected {
                    event,
                    colour,
                    grace_ms: millis(grace),
                },
            )]);
        }
    }

    /// Holds the seats of a restored game as if every player had just disconnected: each
    /// person's seat for the grace period from now, the computer's never, and in a local room,
    /// whose one player has nobody to hand the game to, only the colour to act, for the idle
    /// room TTL.
    pub(super) fn hold_seats_after_restart(&mut self) {
        let now = Instant::now();
        let to_act = self.timeline.game().to_act();
        let local = self.mode == Mode::Local;
        let grace = if local {
            self.context.config.idle_room_ttl()
        } else {
            self.context.config.grace()
        };
        let (assist, board) = (&self.assist, *self.timeline.game());
        self.seats.set_deadlines(|colour, _| {
            let held = !assist.is_computer(colour)
                && board.in_play(colour)
                && (!local || colour == to_act);
            held.then_some(now + grace)
        });
    }
}
