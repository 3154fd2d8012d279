//! What two people playing online share besides the game: preset quick messages and the rematch.
//!
//! None of these are room events: they carry no event number, are not journaled and never make
//! an action stale, so a client that knows only the game's messages ignores them and keeps
//! working. (The spectator count is in every snapshot and in `GET /api/rooms/{id}`; it is not
//! pushed, so that watchers coming and going never interleave with a player's game messages.) Quick messages are a fixed set of phrases (no free text, so nothing to moderate) and
//! a seat may send one every [`SAY_INTERVAL`]. A rematch needs both players to ask after the
//! game (every player, in a room of three or four); it opens a new room of the same edition with
//! the seats taken in advance (as a quick match does), every player moved one colour on in turn
//! order (the two colours swapped, with two), new seeds, and tells each player its new seat
//! token.

use std::collections::BTreeMap;

use aeroplane_dice::{ClientSeed, ServerSeed};
use aeroplane_protocol::board::Board;
use aeroplane_protocol::client::Phrase;
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::name::PlayerName;
use aeroplane_protocol::record::Mode;
use aeroplane_protocol::server::{RematchOffered, RematchReady, Said, ServerMessage};
use aeroplane_rules::Side;
use tokio::time::Instant;
use uuid::Uuid;

use super::core::Room;
use super::parts::social::SAY_INTERVAL;
use super::setup::{RoomSetup, SeatSetup};
use super::task::open;
use crate::token::SeatToken;

type Refused = (ErrorCode, String);

impl Room {
    /// Sends a preset quick message of `colour` to everyone in the room.
    pub(super) fn say(&mut self, colour: Side, phrase: Phrase) -> Result<(), Refused> {
        self.check_online("quick messages")?;
        let now = Instant::now();
        let last = self.social.last_said.get(&colour);
        if last.is_some_and(|at| now < *at + SAY_INTERVAL) {
            let text = format!("one quick message every {} s", SAY_INTERVAL.as_secs());
            return Err((ErrorCode::RateLimited, text));
        }
        self.social.last_said.insert(colour, now);
        self.broadcast(&[ServerMessage::Said(Said { colour, phrase })]);
        Ok(())
    }

    /// `colour` asks for (or accepts) a rematch; when every player has, the new room opens.
    pub(super) fn rematch(&mut self, colour: Side, seed: Option<String>) -> Result<(), Refused> {
        self.check_online("rematches")?;
        if !self.timeline.game().is_over() {
            return Err((
                ErrorCode::NotOver,
                "a rematch is for a finished game".into(),
            ));
        }
        if let Some(ready) = &self.social.ready {
            // Asked again after the room opened (e.g. after a reconnect): the same answer.
            if let Some(answer) = ready.get(&colour) {
                let answer = ServerMessage::RematchReady(answer.clone());
                self.send_to_seat(colour, &answer);
            }
            return Ok(());
        }
        let seed = ClientSeed::new(seed.unwrap_or_default())
            .map_err(|error| (ErrorCode::SeedTooLong, error.to_string()))?;
        self.social.rematch.insert(colour, seed);
        if self
            .seats
            .sides()
            .iter()
            .any(|colour| !self.social.rematch.contains_key(colour))
        {
            self.broadcast(&[ServerMessage::RematchOffered(RematchOffered { by: colour })]);
            return Ok(());
        }
        self.open_rematch()
    }

    fn check_online(&self, what: &str) -> Result<(), Refused> {
        if self.mode == Mode::Online {
            return Ok(());
        }
        let text = format!("{} games have no {what}", self.mode.as_str());
        Err((ErrorCode::OnlineOnly, text))
    }

    /// Opens the rematch's room (colours swapped, new seeds) and tells everyone.
    fn open_rematch(&mut self) -> Result<(), Refused> {
        let internal = |error: getrandom::Error| {
            tracing::error!(%error, "no entropy for a rematch");
            (
                ErrorCode::Internal,
                "the server could not open the rematch".to_owned(),
            )
        };
        let server_seed = ServerSeed::generate().map_err(internal)?;
        let id = Uuid::new_v4();
        let ws_path = format!("/ws/rooms/{id}");
        let mut seats = Vec::new();
        let mut answers = BTreeMap::new();
        // Everyone moves one seat on, so that another player rolls first.
        let sides = self.seats.sides();
        for (index, old) in sides.iter().copied().enumerate() {
            let new = sides[(index + 1) % sides.len()];
            let token = SeatToken::generate().map_err(internal)?;
            // A finished online game had both seats taken; the fallback is never shown.
            let name = self
                .seats
                .get(old)
                .map(|seat| seat.name.clone())
                .unwrap_or_else(|| PlayerName::lossy("Player"));
            let client_seed = self.social.rematch.remove(&old).unwrap_or_default();
            let answer = RematchReady {
                room_id: id,
                ws_path: ws_path.clone(),
                colour: Some(new),
                token: Some(token.as_str().to_owned()),
            };
            answers.insert(old, answer);
            seats.push(SeatSetup {
                colour: new,
                name,
                client_seed,
                token,
                player: self.seats.player(old),
            });
        }
        let board = self.timeline.game();
        let setup = RoomSetup {
            id,
            mode: Mode::Online,
            board: Board::new(board.rules(), board.players())
                .expect("a room's own edition seats its own players"),
            server_seed,
            seats,
            turn_clock: self.clock.per_decision(),
            computers: Vec::new(),
        };
        open(setup, self.context.clone());
        tracing::info!(rematch_room = %id, "rematch opened");
        for (colour, answer) in &answers {
            self.send_to_seat(*colour, &ServerMessage::RematchReady(answer.clone()));
        }
        let watchers = RematchReady {
            room_id: id,
            ws_path,
            colour: None,
            token: None,
        };
        for conn in self.seats.spectators() {
            self.reply(conn, &ServerMessage::RematchReady(watchers.clone()));
        }
        self.social.ready = Some(answers);
        Ok(())
    }

    /// Sends one message to the live connection of `colour`'s seat, if any.
    fn send_to_seat(&mut self, colour: Side, message: &ServerMessage) {
        if let Some(conn) = self.seats.get(colour).and_then(|seat| seat.conn) {
            self.reply(conn, message);
        }
    }
}
