//! Opening a room, and its loop: one inbox, the seat deadlines, the turn clock and the
//! retirement timer, nothing else.
//!
//! Every room starts through [`launch`]: a new one ([`open`]: online, computer, local, quick
//! match, rematch) and one restored from its journal (`room/restore.rs`) alike. It creates
//! the inbox, registers the room, spawns its task and, in a computer room whose game is not over,
//! the computers' bots (one per computer seat). The task's first step writes (or, restored, rewrites) the journal;
//! [`open_journaled`] waits for it, so an HTTP answer never names a room a crash could forget,
//! nor one whose journal went unacknowledged (in cluster mode: that room stops at once and the
//! request is refused).

use aeroplane_protocol::error::CloseCode;
use aeroplane_protocol::record::Mode;
use aeroplane_protocol::snapshot::RoomPhase;
use aeroplane_rules::Side;
use time::OffsetDateTime;
use tokio::sync::oneshot;
use tokio::time::{Instant, sleep_until};
use tracing::Instrument;

use super::bot::{Bot, choice_seed};
use super::core::Room;
use super::handle::{RoomCommand, RoomHandle};
use super::inbox;
use super::journal::{RoomJournal, Writer};
use super::parts::assist::Assist;
use super::parts::clock::Clock;
use super::parts::seats::{Seat, Seats};
use super::parts::social::Social;
use super::parts::timeline::Timeline;
use super::setup::{RoomContext, RoomSetup};
use crate::metrics::RoomView;

/// Opens a new room: builds it from `setup` (starting its game if every seat is set already)
/// and launches it. Its journal is written at once by its task.
pub fn open(setup: RoomSetup, context: RoomContext) -> RoomHandle {
    let room = build(setup, OffsetDateTime::now_utc(), None, context);
    launch(room, false).0
}

/// The first write of a new room's journal could not be acknowledged or was fenced (in cluster
/// mode: its NATS broker did not take it): the room stopped at once and serves nobody. (A file
/// journal that cannot be written is logged and the room goes on, see `journal/writer.rs`.)
#[derive(Debug, thiserror::Error)]
#[error("the new room's journal could not be written")]
pub struct NotJournaled;

/// Opens a new room like [`open`] and waits until its journal is written; `Err` when that
/// write went unacknowledged or was fenced, so that no answer names a room which never served
/// anyone.
pub async fn open_journaled(
    setup: RoomSetup,
    context: RoomContext,
) -> Result<RoomHandle, NotJournaled> {
    let room = build(setup, OffsetDateTime::now_utc(), None, context);
    let (handle, journaled) = launch(room, false);
    // The room's task always answers unless it panicked; a panicked room is open no more.
    match journaled.await {
        Ok(true) => Ok(handle),
        Ok(false) | Err(_) => Err(NotJournaled),
    }
}

/// A room's state from its setup, with the game started if every seat is set already. The
/// computer's seat of a computer room is known before the game starts, so it is never held for
/// a grace period. `journal` is the journal a restored room goes on writing.
pub(super) fn build(
    setup: RoomSetup,
    created_at: OffsetDateTime,
    journal: Option<Box<dyn RoomJournal>>,
    context: RoomContext,
) -> Room {
    let span = tracing::info_span!(parent: None, "room", room_id = %setup.id);
    let _entered = span.enter();
    let journals = context.journals.clone();
    let journal = match journal {
        Some(journal) => Writer::resumed(journals, setup.id, journal),
        None => Writer::new(journals, setup.id),
    };
    let mut room = Room {
        id: setup.id,
        mode: setup.mode,
        seats: Seats::new(setup.mode == Mode::Local, setup.board.sides()),
        timeline: Timeline::new(setup.board, setup.server_seed, created_at),
        clock: Clock::new(setup.turn_clock, setup.board.sides()),
        assist: Assist::new(setup.computers),
        social: Social::default(),
        journal,
        retire_at: None,
        pending: Vec::new(),
        finishing: false,
        context,
    };
    for seat in setup.seats {
        // A local room's player is listed once, by Red's seat (the one they join through).
        let listed = room.mode != Mode::Local || seat.colour == Side::Red;
        if let Some(player) = seat.player.filter(|_| listed) {
            room.seat_held(player, seat.colour, &seat.token);
        }
        let taken = Seat::new(seat.name, seat.token, seat.client_seed, seat.player);
        room.seats.put(seat.colour, taken);
    }
    room.start();
    if !room.is_live() {
        // A room waits for its game this long after it opened, whoever is connected.
        room.retire_at = Some(Instant::now() + room.context.config.waiting_room_ttl());
    }
    room
}

/// Starts a built room: its inbox, its place in the registry, its task and its bot; answers
/// the handle and a receiver told once the task has written the journal (`true`) or failed to
/// (`false`, the room then stopped). A `restored` room counts as an open room again, but not
/// as a game started nor as actions played: the run that journaled it counted those already.
pub(super) fn launch(room: Room, restored: bool) -> (RoomHandle, oneshot::Receiver<bool>) {
    let context = room.context.clone();
    let (inbox, commands) = inbox::channel(context.config.room_inbox);
    let handle = RoomHandle { id: room.id, inbox };
    context
        .registry
        .insert(handle.clone(), room.phase() == RoomPhase::Waiting);
    if restored {
        crate::metrics::room_restored(room.mode, room.view());
    }
    let bots: Vec<Bot> = room
        .assist
        .computers()
        .iter()
        .filter_map(|computer| {
            let seat = room.seats.get(computer.colour)?;
            // The choice seed only varies the `random` level; without entropy, the room id will
            // do.
            let seed = choice_seed().unwrap_or_else(|_| room.id.as_u64_pair().0);
            Some(Bot::new(*computer, seat.token.clone(), seed, &context))
        })
        .collect();
    let over = room.timeline.game().is_over();
    let span = tracing::info_span!(parent: None, "room", room_id = %room.id);
    let (journaled, written) = oneshot::channel();
    // Boxed: the task's future then holds a pointer to the room, not the room itself (which an
    // `async fn` taking it by value would keep more than once in its state).
    tokio::spawn(
        Box::new(room)
            .run(commands, restored, journaled)
            .instrument(span),
    );
    if !over {
        for bot in bots {
            bot.spawn(&handle);
        }
    }
    (handle, written)
}

/// What the loop does after a command or a timer.
enum Step {
    /// Goes on.
    Go,
    /// Closes the room (retired, or nobody can reach it any more).
    Close,
    /// Stops for a shutdown, keeping the journal.
    Stop,
    /// Lets the room go: its journal has another owner now (see [`Ending::Lost`]).
    Lost,
}

/// Why a room's task ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// Retired, or nobody can reach it any more.
    Closed,
    /// The server is shutting down; the journal keeps the game for the restart.
    ShuttingDown,
    /// Another node owns the room now (this node lost its lease, or its journal refused a
    /// write): the room stops at once, sends nothing more and leaves the journal to its owner.
    /// Its clients are closed like at a shutdown, so they reconnect.
    Lost,
}

impl Room {
    async fn run(
        mut self: Box<Self>,
        mut inbox: inbox::Receiver<RoomCommand>,
        restored: bool,
        journaled: oneshot::Sender<bool>,
    ) {
        tracing::info!(mode = self.mode.as_str(), "room opened");
        let first = self.flush().await;
        let _ = journaled.send(first.is_ok());
        if first.is_err() {
            self.close(Ending::Lost).await;
            return;
        }
        if !restored {
            self.account(RoomView::default());
        }
        let ending = loop {
            let wake = self.next_wake();
            let before = self.view();
            let revoked = self.journal.revoked();
            let step = tokio::select! {
                command = inbox.recv() => match command {
                    Some(command) => self.command(command),
                    None => Step::Close,
                },
                () = until(wake) => {
                    let now = Instant::now();
                    self.expire_seats(now);
                    self.expire_clock(now);
                    if self.retire_at.is_some_and(|at| at <= now) {
                        Step::Close
                    } else {
                        Step::Go
                    }
                }
                // The journal was taken from this node (its lease lapsed).
                () = cancelled(revoked) => Step::Lost,
            };
            if matches!(step, Step::Lost) || self.flush().await.is_err() {
                break Ending::Lost;
            }
            self.account(before);
            match step {
                Step::Go => {}
                Step::Close => break Ending::Closed,
                Step::Stop => break Ending::ShuttingDown,
                Step::Lost => break Ending::Lost,
            }
        };
        self.close(ending).await;
    }

    /// Leaves the registry, deletes the journal of a room closing unplayed (a finished game's
    /// goes once its record is in the outbox; a shutdown keeps every journal for the restart, and
    /// a lost room's journal is its new owner's) and closes every connection.
    async fn close(&mut self, ending: Ending) {
        self.context.registry.remove(self.id);
        if ending == Ending::Closed && self.phase() == RoomPhase::Waiting {
            self.journal.delete().await;
        }
        let code = match ending {
            Ending::Closed => CloseCode::RoomClosed,
            Ending::ShuttingDown | Ending::Lost => CloseCode::ShuttingDown,
        };
        self.seats.close_all(code);
        let view = self.view();
        crate::metrics::room_changed(self.mode, view, RoomView::default(), &[]);
        tracing::info!(?ending, "room closed");
    }

    /// Does what `command` asks; [`Step::Stop`] for a shutdown's stop, else [`Step::Go`].
    fn command(&mut self, command: RoomCommand) -> Step {
        match command {
            RoomCommand::Connect { conn, outbox } => self.seats.connect(conn, outbox),
            RoomCommand::Message { conn, message } => self.handle(conn, message),
            RoomCommand::Join { conn, join, player } => self.join(conn, join, player),
            RoomCommand::Disconnect { conn } => self.disconnect(conn),
            RoomCommand::Status { reply } => {
                let _ = reply.send(self.status());
            }
            // The journal write after every command rewrites the journal its store wants moved.
            RoomCommand::Rejournal => {}
            // The server is shutting down: the journal keeps the game for the restart.
            RoomCommand::Stop => return Step::Stop,
        }
        Step::Go
    }

    /// The earliest timer: a seat deadline, the turn clock or the retirement.
    fn next_wake(&self) -> Option<Instant> {
        [
            self.seats.next_deadline(),
            self.retire_at,
            self.clock.deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }
}

/// Waits until `wake`; forever without one. (A `select!` makes every branch's future, so a
/// timer made only to be disabled cost a clock read and a timer at every command.)
async fn until(wake: Option<Instant>) {
    match wake {
        Some(wake) => sleep_until(wake).await,
        None => std::future::pending().await,
    }
}

/// Waits until `token` is cancelled; forever without one.
async fn cancelled(token: Option<tokio_util::sync::CancellationToken>) {
    match token {
        Some(token) => token.cancelled_owned().await,
        None => std::future::pending().await,
    }
}
