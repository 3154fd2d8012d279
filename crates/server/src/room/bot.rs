//! The computer player of a computer room: a task that holds its seat like a connection would.
//!
//! The bot has no shortcut into the room. It registers an outbox with [`RoomCommand::Connect`],
//! joins with its seat token and sends `roll` and `move` messages with the `seen` number of the
//! last event it received, so the room validates them exactly as it validates a person's (the
//! stale rule included). It reads the same JSON frames a WebSocket client reads; after every
//! event that may change the game it asks for a fresh snapshot (`sync`) and decides only on a
//! position that reflects every event it has seen. An `undone` event carries its own snapshot.
//!
//! After a restart the bot of a restored computer room is started again with the seat's
//! journaled token, and rejoins like a person reconnecting (`journal::restore`).
//!
//! Before each action it waits the configured pace (`--bot-pace-ms`), so clients can animate.
//! The wait is cancelled whenever anything changes the game, so it never acts on a stale
//! position, for instance right after an undo.

use std::sync::Arc;
use std::time::Duration;

use aeroplane_bot::Level;
use aeroplane_dice::ClientSeed;
use aeroplane_protocol::client::{Act, ClientMessage, Join, MovePlane, Request, Role};
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::{RoomPhase, Snapshot};
use aeroplane_rules::{Colour, Game, Phase};
use tokio::time::{Instant, sleep_until};
use tracing::Instrument;

use super::{ConnId, RoomCommand, RoomContext, RoomHandle, RoomSetup, SeatSetup};
use crate::token::SeatToken;
use crate::ws::outbox::{self, Closer};

/// The connection id of a computer room's bot. WebSocket connections are numbered from 1, so it
/// never clashes with one.
pub const BOT_CONN: ConnId = 0;

/// The display name of the computer's seat.
pub(super) const NAME: &str = "Computer";

/// The shortest wait after a refused action, so a bot can never spin on a refusal.
const BACKOFF: Duration = Duration::from_millis(200);

/// The seat the computer plays in a computer room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComputerSeat {
    /// The computer's colour (the human plays the other).
    pub colour: Colour,
    /// How strongly it plays.
    pub level: Level,
}

/// Opens a computer room: takes the computer's seat (its client seed drawn by the server from the
/// operating system's CSPRNG, as `fairness.md` asks), opens the room and starts the bot, which
/// joins like any player.
pub fn open_computer(
    mut setup: RoomSetup,
    computer: ComputerSeat,
    context: RoomContext,
) -> Result<RoomHandle, getrandom::Error> {
    let token = SeatToken::generate()?;
    let mut seed = [0u8; 16];
    getrandom::fill(&mut seed)?;
    let client_seed = ClientSeed::new(hex::encode(seed)).expect("32 hex digits fit a client seed");
    let bot = Bot::new(computer, token.clone(), choice_seed()?, &context);
    setup.seats.push(SeatSetup {
        colour: computer.colour,
        name: NAME.to_owned(),
        client_seed,
        token,
    });
    let room = super::open_room(setup, Some(computer), context);
    bot.spawn(&room);
    Ok(room)
}

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
    /// The position of the last snapshot, once joined.
    game: Option<Game>,
    /// Whether the game is being played.
    live: bool,
    /// The last event number received.
    seen: u64,
    /// Whether `game` reflects every event received.
    fresh: bool,
    /// Whether a `sync` is on its way.
    syncing: bool,
}

impl View {
    fn take_snapshot(&mut self, snapshot: &Snapshot) {
        self.game = Some(snapshot.game);
        self.live = snapshot.phase == RoomPhase::Playing;
        self.seen = self.seen.max(snapshot.event);
        self.fresh = true;
    }
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
        let (outbox, mut frames) = outbox::queue(queue, closer.clone());
        let connect = RoomCommand::Connect {
            conn: BOT_CONN,
            outbox,
        };
        let join = ClientMessage::Join(Join {
            id: None,
            role: Role::Player,
            name: NAME.to_owned(),
            colour: None,
            token: Some(self.token.as_str().to_owned()),
            client_seed: None,
        });
        if room.inbox.send(connect).await.is_err() || !send(&room, join).await {
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
                    if !self.follow(&mut view, &message) {
                        break;
                    }
                    due = None;
                    if !view.fresh && !view.syncing {
                        view.syncing = true;
                        if !send(&room, ClientMessage::Sync(Request { id: None })).await {
                            break;
                        }
                    }
                }
                () = sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => {
                    due = None;
                    if let Some(action) = self.action(&view) {
                        // Until the room answers, the bot's view is not the room's any more.
                        view.fresh = false;
                        if !send(&room, action).await {
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

    /// Updates the view with one message; `false` when the bot cannot go on.
    fn follow(&self, view: &mut View, message: &ServerMessage) -> bool {
        match message {
            ServerMessage::Welcome(welcome) => view.take_snapshot(&welcome.snapshot),
            ServerMessage::Snapshot(answer) => {
                view.syncing = false;
                view.take_snapshot(&answer.snapshot);
            }
            ServerMessage::Undone(undone) => view.take_snapshot(&undone.snapshot),
            ServerMessage::Error(error) if view.game.is_none() => {
                tracing::error!(code = %error.code, "the bot could not join its seat");
                return false;
            }
            ServerMessage::Error(_) => view.fresh = false,
            ServerMessage::PlayerConnected(_) | ServerMessage::PlayerDisconnected(_) => {}
            ServerMessage::Pong(_) | ServerMessage::Hint(_) => {}
            ServerMessage::Said(_)
            | ServerMessage::RematchOffered(_)
            | ServerMessage::RematchReady(_) => {}
            ServerMessage::GameStarted(_)
            | ServerMessage::Rolled(_)
            | ServerMessage::Moved(_)
            | ServerMessage::TurnPassed(_)
            | ServerMessage::DrawOffered(_)
            | ServerMessage::DrawAccepted(_)
            | ServerMessage::DrawDeclined(_)
            | ServerMessage::DrawWithdrawn(_)
            | ServerMessage::GameOver(_) => view.fresh = false,
        }
        if let Some(event) = message.event() {
            view.seen = view.seen.max(event);
        }
        true
    }

    /// What the bot would do now, if it is to act on a position it fully knows.
    fn action(&self, view: &View) -> Option<ClientMessage> {
        let game = view.game.filter(|_| view.fresh && view.live)?;
        if game.to_act() != self.seat.colour {
            return None;
        }
        let seen = view.seen;
        match game.phase() {
            Phase::AwaitingRoll => Some(ClientMessage::Roll(Act { id: None, seen })),
            Phase::AwaitingMove { .. } => {
                let seed = self.seed.wrapping_add(seen);
                let decision = aeroplane_bot::choose(self.seat.level, &game, seed).ok()?;
                tracing::debug!(plane = decision.plane.number(), why = %decision.explanation, "bot moves");
                Some(ClientMessage::Move(MovePlane {
                    id: None,
                    seen,
                    plane: decision.plane,
                }))
            }
            Phase::Over(_) => None,
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
async fn send(room: &RoomHandle, message: ClientMessage) -> bool {
    room.inbox
        .send(RoomCommand::Message {
            conn: BOT_CONN,
            message,
        })
        .await
        .is_ok()
}
