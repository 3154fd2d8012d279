//! The room itself: its parts, how it looks from outside, and the one way its events go out.
//!
//! A room is made of parts that each own their state: the [`Seats`] (who sits where, the
//! connections), the [`Timeline`] (the game, the dice, the action log, the event numbers), the
//! turn [`Clock`], the [`Assist`] of computer and local rooms (hints, undo), the [`Social`] side
//! of online rooms (quick messages, rematch) and the journal [`Writer`]. The room routes each
//! client message to the part it concerns (`play.rs`, `join.rs`) and sends what comes back.
//! Every numbered event goes out through [`Room::publish`], which holds it until the command is
//! handled; then [`Room::flush`] awaits the journal (which may be a broker's acknowledged append)
//! and only then sends the held events to every joined connection, so a restart never forgets an
//! event anyone saw. A finished game's record leaves at the same point, once its last action is
//! journaled.

use aeroplane_protocol::api::{RoomStatus, TableRules};
use aeroplane_protocol::board::Board;
use aeroplane_protocol::error::CloseCode;
use aeroplane_protocol::record::Mode;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::{ComputerView, FairnessView, RoomPhase, Snapshot};
use aeroplane_rules::Side;
use tokio::time::Instant;
use uuid::Uuid;

use super::bot::is_bot_conn;
use super::handle::ConnId;
use super::journal::{
    JournalState, Lost, SavedComputer, SavedSeat, Setup, TABLE_VERSION, VERSION, Writer,
};
use super::parts::assist::Assist;
use super::parts::clock::Clock;
use super::parts::seats::{Joined, Seats};
use super::parts::social::Social;
use super::parts::timeline::Timeline;
use super::setup::RoomContext;
use crate::metrics::RoomView;
use crate::outgoing::{SendError, encode};

/// Everything a room owns.
pub(super) struct Room {
    /// The room id.
    pub(super) id: Uuid,
    /// Online, computer or local.
    pub(super) mode: Mode,
    /// What the room shares with the server.
    pub(super) context: RoomContext,
    /// Who sits where, and the connections.
    pub(super) seats: Seats,
    /// The game and everything numbered about it.
    pub(super) timeline: Timeline,
    /// The turn clock and the strikes it counted.
    pub(super) clock: Clock,
    /// The computer's seat, hints and the undo history (computer and local rooms).
    pub(super) assist: Assist,
    /// Quick messages and the rematch (online rooms).
    pub(super) social: Social,
    /// The room's journal.
    pub(super) journal: Writer,
    /// When the room closes by itself (finished, or idle with nobody there).
    pub(super) retire_at: Option<Instant>,
    /// Numbered events published by the command being handled, sent once journaled.
    pub(super) pending: Vec<ServerMessage>,
    /// Whether the game just ended and its record is still to be kept.
    pub(super) finishing: bool,
}

impl Room {
    /// Waiting, playing or over.
    pub(super) fn phase(&self) -> RoomPhase {
        self.timeline.phase()
    }

    /// Whether the game is being played now.
    pub(super) fn is_live(&self) -> bool {
        self.timeline.is_live()
    }

    /// Whether `colour`'s seat is a computer's.
    pub(super) fn is_computer(&self, colour: Side) -> bool {
        self.assist.is_computer(colour)
    }

    /// The whole room as a client should see it now.
    pub(super) fn snapshot(&self) -> Snapshot {
        let started = self.timeline.has_started();
        let board = *self.timeline.game();
        let over = board.is_over();
        let seed = |colour: Side| {
            (started && board.sides().contains(&colour))
                .then(|| self.seats.client_seed(colour).as_str().to_owned())
        };
        let computers = self.assist.computers().iter().map(|computer| ComputerView {
            colour: computer.colour,
            level: computer.level.as_str().to_owned(),
        });
        let (game, table) = match board {
            Board::Plyyard(game) => (Some(game), None),
            Board::Table(table) => (None, Some(table)),
        };
        Snapshot {
            room_id: self.id,
            mode: self.mode,
            phase: self.phase(),
            event: self.timeline.event(),
            game,
            table,
            notation: (!over).then(|| board.notation()),
            seats: self.seats.views(self.is_live()),
            fairness: FairnessView {
                scheme: self.timeline.scheme().as_str().to_owned(),
                commitment: self.timeline.commitment().to_string(),
                red_seed: seed(Side::Red),
                yellow_seed: seed(Side::Yellow),
                blue_seed: seed(Side::Blue),
                green_seed: seed(Side::Green),
                server_seed: over.then(|| self.timeline.server_seed().to_hex()),
            },
            result: board.result(),
            // A two-player room names its one computer as it always has; a table lists them.
            computer: computers.clone().next().filter(|_| !board.is_table()),
            computers: computers.filter(|_| board.is_table()).collect(),
            clock: self.clock.view(self.context.config.max_strikes),
            spectators: self.seats.spectator_count(),
        }
    }

    /// What a table room plays, for its status and creation answer (`None` for two-player
    /// `plyyard`).
    pub(super) fn table_rules(&self) -> Option<TableRules> {
        let board = self.timeline.game();
        board.is_table().then(|| TableRules {
            rules: board.rules(),
            seats: board.sides().to_vec(),
        })
    }

    /// The public status for the HTTP API.
    pub(super) fn status(&self) -> RoomStatus {
        RoomStatus {
            id: self.id,
            mode: self.mode,
            phase: self.phase(),
            seats: self.seats.views(self.is_live()),
            table: self.table_rules(),
            spectators: self.seats.spectator_count(),
            event: self.timeline.event(),
        }
    }

    /// Holds these numbered events until the command is handled: [`Room::flush`] journals what
    /// the room gained, then sends them to every joined connection, in order. Taken by value: an
    /// action's events become the held list as they are, neither copied nor cloned.
    pub(super) fn publish(&mut self, mut messages: Vec<ServerMessage>) {
        if self.pending.is_empty() {
            self.pending = messages;
        } else {
            self.pending.append(&mut messages);
        }
    }

    /// Brings the journal up to date and waits for it, then sends the held events (sending may
    /// drop a connection, whose `player_disconnected` is journaled and sent in turn); last, a game
    /// that just ended hands its record and its journal to the outbox. When the journal has
    /// another owner now ([`Lost`]), nothing held is sent and no record is kept: the room must
    /// stop acting (`task.rs`), since what it holds was never journaled.
    pub(super) async fn flush(&mut self) -> Result<(), Lost> {
        loop {
            if let Err(lost) = self.journal_now().await {
                self.pending.clear();
                self.finishing = false;
                return Err(lost);
            }
            if self.pending.is_empty() {
                break;
            }
            let pending = std::mem::take(&mut self.pending);
            self.broadcast(&pending);
        }
        // Every frame the command queued (events, answers) leaves now, from the room's task.
        self.seats.flush_all();
        if std::mem::take(&mut self.finishing) {
            self.keep_record();
        }
        Ok(())
    }

    /// Sends messages to every joined connection, in order, dropping a connection that cannot
    /// take them. Room events must come through [`Room::publish`].
    pub(super) fn broadcast(&mut self, messages: &[ServerMessage]) {
        let mut dropped: Vec<(ConnId, SendError)> = Vec::new();
        for message in messages {
            self.seats.send_all(&encode(message), &mut dropped);
        }
        for (conn, error) in dropped {
            self.drop_conn(conn, error);
        }
    }

    /// Sends one answer to one connection.
    pub(super) fn reply(&mut self, conn: ConnId, message: &ServerMessage) {
        if let Err(error) = self.seats.send(conn, message) {
            self.drop_conn(conn, error);
        }
    }

    /// Drops a connection that is too slow or gone.
    fn drop_conn(&mut self, conn: ConnId, error: SendError) {
        tracing::info!(conn, error = %error, "dropping a connection");
        self.seats.close(conn, CloseCode::TooSlow);
        self.disconnect(conn);
    }

    /// Brings the room's journal up to date (see `journal`).
    pub(super) async fn journal_now(&mut self) -> Result<(), Lost> {
        let state = JournalState {
            actions: self.timeline.actions(),
            undos: self.timeline.undos(),
            clock: self.clock.saved(),
            clock_changes: self.clock.changes(),
            over: self.timeline.game().is_over(),
        };
        let setup = || {
            Room::setup(
                self.id,
                self.mode,
                &self.timeline,
                &self.seats,
                &self.assist,
                &self.clock,
            )
        };
        self.journal.update(&state, setup).await
    }

    /// The journal's setup entry for the room as it is now (from the parts, so that the journal
    /// writer, another part, can be updated meanwhile).
    fn setup(
        id: Uuid,
        mode: Mode,
        timeline: &Timeline,
        seats: &Seats,
        assist: &Assist,
        clock: &Clock,
    ) -> Setup {
        let seat = |colour: Side| {
            seats.get(colour).map(|seat| SavedSeat {
                name: seat.name.to_string(),
                token: seat.token.as_str().to_owned(),
                client_seed: seat.client_seed.as_str().to_owned(),
                player_id: seat.player,
            })
        };
        let board = timeline.game();
        let table = board.is_table();
        let mut computers = assist.computers().iter().map(|computer| SavedComputer {
            colour: computer.colour,
            level: computer.level.as_str().to_owned(),
        });
        Setup {
            version: if table { TABLE_VERSION } else { VERSION },
            id,
            mode,
            created_at: timeline.created_at(),
            started_at: timeline.started_at(),
            server_seed: timeline.server_seed().to_hex(),
            commitment: timeline.commitment().to_string(),
            red: seat(Side::Red),
            yellow: seat(Side::Yellow),
            blue: seat(Side::Blue),
            green: seat(Side::Green),
            rules: table.then(|| board.rules()),
            players: table.then(|| u8::try_from(board.players()).unwrap_or(4)),
            computer: if table { None } else { computers.next() },
            computers: if table {
                computers.collect()
            } else {
                Vec::new()
            },
            turn_clock_ms: clock.length_ms(),
        }
    }

    /// What the metrics follow of this room now.
    pub(super) fn view(&self) -> RoomView {
        let people = |wanted: fn(Joined) -> bool| self.seats.count_except(is_bot_conn, wanted);
        RoomView {
            phase: Some(self.phase()),
            players: people(|role| matches!(role, Joined::Player(_))),
            spectators: people(|role| role == Joined::Spectator),
            actions: self.timeline.actions().len(),
            ended: self
                .timeline
                .game()
                .result()
                .map(|result| result.reason.as_str()),
        }
    }

    /// Counts what changed since `before` (after [`Room::flush`]).
    pub(super) fn account(&mut self, before: RoomView) {
        let after = self.view();
        if after != before {
            let actions = self.timeline.actions();
            let new = actions.get(before.actions..).unwrap_or_default();
            crate::metrics::room_changed(self.mode, before, after, new);
        }
    }
}
