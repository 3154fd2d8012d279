//! The room's loop: one inbox, the seat deadlines and the retirement timer, nothing else.

use std::collections::HashMap;

use aeroplane_protocol::error::CloseCode;
use time::OffsetDateTime;
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep_until};
use tracing::Instrument;

use super::state::{Room, Seat};
use super::{RoomCommand, RoomContext, RoomSetup};

/// Spawns the task of a new room.
pub(super) fn spawn(setup: RoomSetup, context: RoomContext, inbox: mpsc::Receiver<RoomCommand>) {
    let span = tracing::info_span!("room", room_id = %setup.id);
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
    };
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
        room.retire_at = Some(Instant::now() + room.context.config.idle_room_ttl());
    }
    tokio::spawn(room.run(inbox).instrument(span));
}

impl Room {
    async fn run(mut self, mut inbox: mpsc::Receiver<RoomCommand>) {
        tracing::info!(mode = self.mode.as_str(), "room opened");
        loop {
            let wake = self.next_wake();
            tokio::select! {
                command = inbox.recv() => match command {
                    Some(command) => self.command(command),
                    None => break,
                },
                () = sleep_until(wake.unwrap_or_else(Instant::now)), if wake.is_some() => {
                    let now = Instant::now();
                    self.expire_seats(now);
                    if self.retire_at.is_some_and(|at| at <= now) {
                        break;
                    }
                }
            }
        }
        self.context.registry.remove(self.id);
        for conn in self.conns.values() {
            conn.outbox.close(CloseCode::RoomClosed);
        }
        tracing::info!("room closed");
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
        self.plan_idle_retirement();
    }

    /// A room where no game is live and nobody is connected closes after a while.
    fn plan_idle_retirement(&mut self) {
        if self.game.is_over() || self.is_live() {
            return;
        }
        if self.conns.is_empty() {
            if self.retire_at.is_none() {
                self.retire_at = Some(Instant::now() + self.context.config.idle_room_ttl());
            }
        } else {
            self.retire_at = None;
        }
    }

    /// The earliest timer: a seat deadline or the retirement.
    fn next_wake(&self) -> Option<Instant> {
        let deadlines = self.seats.iter().flatten().filter_map(|seat| seat.deadline);
        deadlines.chain(self.retire_at).min()
    }
}
