//! The room's loop: one inbox, the seat deadlines and the retirement timer, nothing else.

use std::collections::HashMap;

use aeroplane_protocol::error::CloseCode;
use time::OffsetDateTime;
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep_until};
use tracing::Instrument;

use super::state::{Room, Seat};
use super::{RoomCommand, RoomContext, RoomSetup};
use crate::metrics::RoomView;

/// Runs a built room's loop in a task of its own.
pub(super) fn launch(mut room: Room, inbox: mpsc::Receiver<RoomCommand>) {
    room.account(RoomView::default());
    spawn(room, inbox);
}

/// Runs a room rebuilt from its journal. It counts as an open room again, but not as a game
/// started nor as actions played: the run that journaled it counted those already.
pub(super) fn relaunch(room: Room, inbox: mpsc::Receiver<RoomCommand>) {
    crate::metrics::room_restored(room.mode, room.view());
    spawn(room, inbox);
}

fn spawn(room: Room, inbox: mpsc::Receiver<RoomCommand>) {
    let span = tracing::info_span!(parent: None, "room", room_id = %room.id);
    tokio::spawn(room.run(inbox).instrument(span));
}

/// A new room's state, with the game started if both seats are set already. `computer` is the
/// computer's seat of a computer room; it is known before the game starts, so the computer's
/// seat is never held for a grace period.
pub(super) fn build(
    setup: RoomSetup,
    computer: Option<super::ComputerSeat>,
    context: RoomContext,
) -> Room {
    let span = tracing::info_span!(parent: None, "room", room_id = %setup.id);
    let _entered = span.enter();
    let commitment = setup.server_seed.commitment();
    let mut room = Room {
        id: setup.id,
        mode: setup.mode,
        context,
        game: aeroplane_rules::Game::new(),
        server_seed: setup.server_seed,
        commitment,
        dice: None,
        seats: [None, None],
        conns: HashMap::new(),
        event: 0,
        state_event: 0,
        actions: Vec::new(),
        created_at: OffsetDateTime::now_utc(),
        started_at: None,
        retire_at: None,
        assist: Default::default(),
        clock: super::clock::Clock::new(setup.turn_clock),
        social: super::social::Social::default(),
    };
    room.assist.computer = computer;
    for seat in setup.seats {
        room.seats[seat.colour.index()] = Some(Seat {
            name: seat.name,
            token: seat.token,
            client_seed: seat.client_seed,
            conn: None,
            deadline: None,
        });
    }
    room.start();
    if !room.is_live() {
        // A room waits for its game this long after it opened, whoever is connected.
        room.retire_at = Some(Instant::now() + room.context.config.waiting_room_ttl());
    }
    room
}

impl Room {
    async fn run(mut self, mut inbox: mpsc::Receiver<RoomCommand>) {
        tracing::info!(mode = self.mode.as_str(), "room opened");
        let mut stopping = self.context.lifecycle.stopping();
        let mut shutting_down = false;
        loop {
            let wake = self.next_wake();
            let before = self.view();
            tokio::select! {
                command = inbox.recv() => match command {
                    Some(command) => self.command(command),
                    None => break,
                },
                () = sleep_until(wake.unwrap_or_else(Instant::now)), if wake.is_some() => {
                    let now = Instant::now();
                    self.expire_seats(now);
                    self.expire_clock(now);
                    if self.retire_at.is_some_and(|at| at <= now) {
                        self.account(before);
                        break;
                    }
                }
                _ = stopping.wait_for(|stop| *stop) => {
                    // The server is shutting down: the journal keeps the game for the restart.
                    shutting_down = true;
                    self.account(before);
                    break;
                }
            }
            self.account(before);
        }
        self.context.registry.remove(self.id);
        if !shutting_down && self.phase() == aeroplane_protocol::snapshot::RoomPhase::Waiting {
            // Closed unplayed: nothing to restore. (A finished game's journal goes once its
            // record is in the outbox; a shutdown keeps every journal for the restart.)
            self.context.journals.remove(self.id);
        }
        let code = if shutting_down {
            CloseCode::ShuttingDown
        } else {
            CloseCode::RoomClosed
        };
        for conn in self.conns.values() {
            conn.outbox.close(code);
        }
        let view = self.view();
        crate::metrics::room_changed(self.mode, view, RoomView::default(), &[]);
        tracing::info!(shutting_down, "room closed");
    }

    fn command(&mut self, command: RoomCommand) {
        match command {
            RoomCommand::Connect { conn, outbox } => self.connect(conn, outbox),
            RoomCommand::Message { conn, message } => self.handle(conn, message),
            RoomCommand::Disconnect { conn } => self.disconnect(conn),
            RoomCommand::Status { reply } => {
                let _ = reply.send(self.status());
            }
        }
    }

    /// The earliest timer: a seat deadline or the retirement.
    fn next_wake(&self) -> Option<Instant> {
        let deadlines = self.seats.iter().flatten().filter_map(|seat| seat.deadline);
        deadlines
            .chain(self.retire_at)
            .chain(self.clock.deadline)
            .min()
    }
}
