//! The computer player of a computer room: a task that holds its seat like a connection would.
//!
//! The bot has no shortcut into the room. It registers an outbox with [`RoomCommand::Connect`],
//! joins with its seat token and sends `roll` and `move` messages with the `seen` number of the
//! last event it received, so the room validates them exactly as it validates a person's (the
//! stale rule included). It reads the same JSON frames a WebSocket client reads and follows the
//! room with the protocol's one follower (`aeroplane_protocol::follow::RoomView`), which applies
//! each event through the rules; only when it cannot follow (a gap, or a refusal) does it ask for
//! a snapshot (`sync`). It decides only on a position that reflects every event it has seen,
//! once every event of the last action has arrived (a table's move is several events, and the
//! position shows the move's end from its first) and once its own last action has been answered.
//!
//! After a restart the bot of a restored computer room is started again with the seat's
//! journaled token, and rejoins like a person reconnecting (`task.rs` starts every room's bot).
//!
//! Before each action it waits the configured pace (`--bot-pace-ms`), so clients can animate.
//! The wait is cancelled whenever anything changes the game, so it never acts on a stale
//! position, for instance right after an undo.

use std::sync::Arc;
use std::time::Duration;

use aeroplane_protocol::board::{Board, BoardPhase};
use aeroplane_protocol::client::{Act, ClientMessage, Join, MovePlane, Request, Role};
use aeroplane_protocol::follow::{Followed, RoomView};
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::Side;
use tokio::time::{Instant, sleep_until};
use tracing::Instrument;

use super::handle::{ConnId, RoomCommand, RoomHandle};
use super::setup::{ComputerSeat, NAME, RoomContext};
use crate::outgoing::{self, Closer};
use crate::token::SeatToken;

/// The connection id of the bot playing `colour`: the top four ids, one per colour. WebSocket
/// connections are numbered from 1 up, so they never clash with one.
pub fn bot_conn(colour: Side) -> ConnId {
    ConnId::MAX - colour.index() as ConnId
}

/// Whether `conn` is a bot's connection (see [`bot_conn`]).
pub fn is_bot_conn(conn: ConnId) -> bool {
    conn > ConnId::MAX - 4
}

/// The shortest wait after a refused action, so a bot can never spin on a refusal.
const BACKOFF: Duration = Duration::from_millis(200);

/// The bot of one room.
pub(super) struct Bot {
    seat: ComputerSeat,
    token: SeatToken,
    pace: Duration,
    /// The room's outgoing queue length, for the bot's own queue.
    queue: usize,
    /// Varies the `random` level's choices between rooms.
    seed: u64,
}

/// What the bot knows of the room.
#[derive(Debug, Default)]
struct View {
    /// The room as its messages describe it.
    room: RoomView,
    /// Whether the bot's seat was confirmed by a `welcome`.
    joined: bool,
    /// Whether an action of the bot's awaits the room's answer.
    awaiting: bool,
}

impl Bot {
    /// The bot for `computer`'s seat, which it will claim with `token` (the seat's token, new or
    /// restored from a journal); `seed` varies its choices (see [`choice_seed`]).
    pub(super) fn new(
        computer: ComputerSeat,
        token: SeatToken,
        seed: u64,
        context: &RoomContext,
    ) -> Bot {
        Bot {
            seat: computer,
            token,
            pace: context.config.bot_pace(),
            queue: context.config.outgoing_queue.max(1),
            seed,
        }
    }

    /// Starts the bot's task: it joins `room` and plays its seat until the room closes.
    pub(super) fn spawn(self, room: &RoomHandle) {
        let span = tracing::info_span!("bot", room_id = %room.id, seat = self.seat.colour.as_str());
        tokio::spawn(self.run(room.clone()).instrument(span));
    }

    async fn run(self, room: RoomHandle) {
        let queue = self.queue;
        let closer = Arc::new(Closer::default());
        let (outbox, mut frames) = outgoing::queue(queue, closer.clone());
        let conn = bot_conn(self.seat.colour);
        let connect = RoomCommand::Connect { conn, outbox };
        let join = ClientMessage::Join(Box::new(Join {
            id: None,
            role: Role::Player,
            name: NAME.to_owned(),
            colour: None,
            names: Vec::new(),
            token: Some(self.token.as_str().to_owned()),
            client_seed: None,
            player: None,
        }));
        if room.inbox.send(connect).await.is_err() || !send(&room, conn, join).await {
            return;
        }
        let mut view = View::default();
        let mut due: Option<Instant> = None;
        let mut not_before = Instant::now();
        loop {
            tokio::select! {
                biased;
                code = closer.closed() => {
                    tracing::warn!(code = code.reason(), "the room closed the bot's connection");
                    break;
                }
                frame = frames.recv() => {
                    // The room dropped its end: it has closed.
                    let Some(frame) = frame else { break };
                    let message = match ServerMessage::from_json(&frame) {
                        Ok(message) => message,
                        Err(error) => {
                            tracing::error!(%error, "the bot could not read a frame");
                            break;
                        }
                    };
                    if let ServerMessage::Error(error) = &message {
                        tracing::warn!(code = %error.code, message = %error.message, "the room refused the bot");
                        not_before = Instant::now() + BACKOFF.max(self.pace);
                    }
                    let Some(resync) = self.follow(&mut view, &message) else {
                        break;
                    };
                    due = None;
                    let sync = ClientMessage::Sync(Request { id: None });
                    if resync && !send(&room, conn, sync).await {
                        break;
                    }
                }
                () = sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => {
                    due = None;
                    if let Some(action) = self.action(&view) {
                        // Until the room answers, the bot's view is not the room's any more.
                        view.awaiting = true;
                        if !send(&room, conn, action).await {
                            break;
                        }
                    }
                }
            }
            if due.is_none() && self.action(&view).is_some() {
                due = Some((Instant::now() + self.pace).max(not_before));
            }
        }
        tracing::debug!("bot stopped");
    }

    /// Updates the view with one message: `Some(true)` when the bot must ask for a snapshot,
    /// `None` when it cannot go on.
    fn follow(&self, view: &mut View, message: &ServerMessage) -> Option<bool> {
        match message {
            ServerMessage::Error(error) if !view.joined => {
                tracing::error!(code = %error.code, "the bot could not join its seat");
                return None;
            }
            ServerMessage::Error(_) => {
                // A refused action: the bot's view and the room's differ. Start again from a
                // snapshot.
                view.awaiting = false;
                view.room.await_snapshot();
                return Some(true);
            }
            ServerMessage::Welcome(_) => view.joined = true,
            _ => {}
        }
        match view.room.follow(message) {
            Followed::Gap => Some(true),
            Followed::Applied => {
                // Presence events change no position, so they answer no action.
                let presence = matches!(
                    message,
                    ServerMessage::PlayerConnected(_) | ServerMessage::PlayerDisconnected(_)
                );
                if !presence {
                    view.awaiting = false;
                }
                Some(false)
            }
            Followed::Ignored => Some(false),
        }
    }

    /// What the bot would do now, if it is to act on a position it fully knows.
    fn action(&self, view: &View) -> Option<ClientMessage> {
        let room = &view.room;
        // Not before every event of the last action has arrived: the position already shows the
        // action's end (a table's move is several events), so an action sent earlier is stale.
        if view.awaiting
            || room.is_resyncing()
            || !room.is_settled()
            || !room.has_started()
            || room.result().is_some()
        {
            return None;
        }
        let board = *room.board();
        if board.to_act() != self.seat.colour {
            return None;
        }
        let seen = room.seen();
        match board.phase() {
            BoardPhase::AwaitingRoll => Some(ClientMessage::Roll(Act { id: None, seen })),
            BoardPhase::AwaitingMove { .. } => {
                let seed = self.seed.wrapping_add(seen);
                let decision = choose(self.seat.level, &board, seed).ok()?;
                tracing::debug!(plane = decision.plane.number(), why = %decision.explanation, "bot moves");
                Some(ClientMessage::Move(MovePlane {
                    id: None,
                    seen,
                    plane: decision.plane,
                }))
            }
            BoardPhase::Over => None,
        }
    }
}

/// A fresh seed for a bot's choices, from the operating system. It only varies how the `random`
/// level picks between rooms; it decides nothing about fairness, so it is not journaled.
pub(super) fn choice_seed() -> Result<u64, getrandom::Error> {
    let mut choices = [0u8; 8];
    getrandom::fill(&mut choices)?;
    Ok(u64::from_le_bytes(choices))
}

/// Sends a message into the room's inbox; `false` once the room has closed.
async fn send(room: &RoomHandle, conn: ConnId, message: ClientMessage) -> bool {
    room.inbox
        .send(RoomCommand::Message { conn, message })
        .await
        .is_ok()
}

/// The bot's choice for the pending roll of `board` at `level`: the `plyyard` bot for a
/// two-player `plyyard` game, the table bot for any other.
pub(super) fn choose(
    level: aeroplane_bot::Level,
    board: &Board,
    seed: u64,
) -> Result<aeroplane_bot::Decision, aeroplane_bot::NotAwaitingMove> {
    match board {
        Board::Plyyard(game) => aeroplane_bot::choose(level, game, seed),
        Board::Table(table) => aeroplane_bot::choose_table(level, table, seed),
    }
}

#[cfg(test)]
mod tests {
    use aeroplane_bot::Level;
    use aeroplane_protocol::board::Board;
    use aeroplane_protocol::events::Reveal;
    use aeroplane_protocol::record::Mode;
    use aeroplane_protocol::server::SnapshotMessage;
    use aeroplane_protocol::snapshot::{FairnessView, RoomPhase, Seats, Snapshot};
    use aeroplane_rules::{Die, Plane, Rules, Table, TableAction};

    use super::*;

    fn bot(colour: Side) -> Bot {
        Bot {
            seat: ComputerSeat {
                colour,
                level: Level::Easy,
            },
            token: SeatToken::from_saved("t".into()),
            pace: Duration::ZERO,
            queue: 8,
            seed: 1,
        }
    }

    fn snapshot(table: Table, event: u64) -> ServerMessage {
        let seed = Some(String::new());
        ServerMessage::Snapshot(SnapshotMessage {
            id: None,
            snapshot: Box::new(Snapshot {
                room_id: uuid::Uuid::nil(),
                mode: Mode::Computer,
                phase: RoomPhase::Playing,
                event,
                game: None,
                table: Some(table),
                notation: None,
                seats: Seats::default(),
                fairness: FairnessView {
                    scheme: "v2".into(),
                    commitment: String::new(),
                    red_seed: seed.clone(),
                    yellow_seed: seed.clone(),
                    blue_seed: seed,
                    green_seed: None,
                    server_seed: None,
                },
                result: None,
                computer: None,
                computers: Vec::new(),
                clock: None,
                spectators: 0,
            }),
        })
    }

    /// The wire events of `action` at `table`, numbered from `next`.
    fn wire(table: &mut Table, action: TableAction, next: u64) -> Vec<ServerMessage> {
        let mut board = Board::Table(*table);
        let events = board.apply(action).unwrap();
        let Board::Table(after) = board else {
            unreachable!()
        };
        *table = after;
        board.wire_events(action, &events, next, || Reveal {
            server_seed: String::new(),
            commitment: String::new(),
            red_seed: String::new(),
            yellow_seed: String::new(),
            blue_seed: None,
            green_seed: None,
        })
    }

    #[test]
    fn a_bot_waits_for_every_event_of_a_move_before_it_rolls_again() {
        // Blue launches with a six: `launched`, then `extra_roll`. From the first event on the
        // position says Blue rolls again; a roll sent before `extra_roll` arrived is stale.
        let mut table = Table::new(Rules::FLIGHTS, 3).unwrap();
        let six = Die::new(6).unwrap();
        let three = Die::new(3).unwrap();
        let mut event = 1;
        for (colour, value) in [(Side::Red, three), (Side::Yellow, three), (Side::Blue, six)] {
            let roll = TableAction::Roll { colour, value };
            event += wire(&mut table, roll, event + 1).len() as u64;
        }
        let blue = bot(Side::Blue);
        let mut view = View {
            joined: true,
            ..View::default()
        };
        blue.follow(&mut view, &snapshot(table, event));
        assert!(matches!(blue.action(&view), Some(ClientMessage::Move(_))));
        let launch = TableAction::Move {
            colour: Side::Blue,
            plane: Plane::new(0).unwrap(),
        };
        let messages = wire(&mut table, launch, event + 1);
        assert_eq!(messages.len(), 2, "{messages:?}");
        blue.follow(&mut view, &messages[0]);
        assert_eq!(blue.action(&view), None, "the extra roll has not arrived");
        blue.follow(&mut view, &messages[1]);
        assert!(matches!(blue.action(&view), Some(ClientMessage::Roll(_))));
    }
}
