//! Game actions: who may act, the stale rule, applying the rules, and the end of the game.
//!
//! The stale rule: an action carries `seen`, the last event number its client saw. It is
//! refused (`stale`) when `seen` is older than the last event that changed the game, or newer
//! than the last event sent. A duplicate of an accepted action is therefore always stale, since
//! the original produced a newer game event. Presence events (a player connecting or
//! disconnecting) do not make actions stale.

use aeroplane_dice::SCHEME;
use aeroplane_protocol::client::ClientMessage;
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::events::{Reveal, wire_events};
use aeroplane_protocol::record::{
    FairnessRecord, GameRecord, LoggedAction, Mode, PlayerKind, PlayerRecord, Players, ResultRecord,
};
use aeroplane_protocol::server::{Pong, ServerMessage, SnapshotMessage};
use aeroplane_rules::{Action, Colour, Forfeit, RULESET};
use time::OffsetDateTime;
use tokio::time::Instant;

use super::ConnId;
use super::state::{Joined, Room};

impl Room {
    /// Handles one decoded client message.
    pub(super) fn handle(&mut self, conn: ConnId, message: ClientMessage) {
        let id = message.request_id();
        let colour = match message {
            ClientMessage::Join(join) => return self.join(conn, join),
            ClientMessage::Ping(request) => {
                return self.reply(conn, &ServerMessage::Pong(Pong { id: request.id }));
            }
            ClientMessage::Sync(request) => {
                let snapshot = self.snapshot();
                let answer = ServerMessage::Snapshot(SnapshotMessage {
                    id: request.id,
                    snapshot,
                });
                return self.reply(conn, &answer);
            }
            ClientMessage::Leave(_) => {
                if let Some(leaving) = self.conns.get(&conn) {
                    leaving
                        .outbox
                        .close(aeroplane_protocol::error::CloseCode::RoomClosed);
                }
                return self.disconnect(conn);
            }
            _ => match self.role_of(conn) {
                None => {
                    let error = ServerMessage::error(id, ErrorCode::NotJoined, "join first");
                    return self.reply(conn, &error);
                }
                Some(Joined::Spectator) => {
                    let error = ServerMessage::error(
                        id,
                        ErrorCode::SpectatorCannotAct,
                        "spectators cannot act",
                    );
                    return self.reply(conn, &error);
                }
                // The player of a local room acts for whichever colour is to act.
                Some(Joined::Player(_)) if self.mode == Mode::Local => self.game.to_act(),
                Some(Joined::Player(colour)) => colour,
            },
        };
        let result = match message {
            ClientMessage::Hint(request) => self.hint(conn, request.id, colour),
            ClientMessage::Undo(undo) => self.undo(undo.seen),
            ClientMessage::Say(say) => self.say(colour, say.phrase),
            ClientMessage::Rematch(rematch) => self.rematch(colour, rematch.client_seed),
            _ => self.act(colour, &message),
        };
        if let Err((code, text)) = result {
            self.reply(conn, &ServerMessage::error(id, code, text));
        }
    }

    /// Refuses an action whose `seen` is not the current state (the stale rule).
    pub(super) fn check_seen(&self, seen: u64) -> Result<(), (ErrorCode, String)> {
        if seen < self.state_event || seen > self.event {
            let text = format!(
                "you saw event {seen}, but the game is at event {} (last change {})",
                self.event, self.state_event
            );
            return Err((ErrorCode::Stale, text));
        }
        Ok(())
    }

    /// Checks and applies a game action of `colour`.
    fn act(&mut self, colour: Colour, message: &ClientMessage) -> Result<(), (ErrorCode, String)> {
        let draw = matches!(
            message,
            ClientMessage::OfferDraw(_)
                | ClientMessage::AcceptDraw(_)
                | ClientMessage::DeclineDraw(_)
                | ClientMessage::WithdrawDraw(_)
        );
        if draw && self.mode != Mode::Online {
            let text = format!("{} games have no draw offers", self.mode.as_str());
            return Err((ErrorCode::DrawsUnavailable, text));
        }
        self.check_live()?;
        self.check_seen(message.seen().unwrap_or_default())?;
        let action = match *message {
            ClientMessage::Roll(_) => {
                // Validate before drawing, so a refused roll never consumes a die value.
                self.game
                    .check_roll(colour)
                    .map_err(|error| (error.into(), error.to_string()))?;
                let dice = self.dice.as_mut().expect("a live game has a die");
                Action::Roll {
                    colour,
                    value: dice.next_die(),
                }
            }
            ClientMessage::Move(movement) => Action::Move {
                colour,
                plane: movement.plane,
            },
            ClientMessage::Resign(_) => Action::Resign { colour },
            ClientMessage::OfferDraw(_) => Action::OfferDraw { colour },
            ClientMessage::AcceptDraw(_) => Action::AcceptDraw { colour },
            ClientMessage::DeclineDraw(_) => Action::DeclineDraw { colour },
            ClientMessage::WithdrawDraw(_) => Action::WithdrawDraw { colour },
            ClientMessage::Join(_)
            | ClientMessage::Ping(_)
            | ClientMessage::Sync(_)
            | ClientMessage::Leave(_)
            | ClientMessage::Hint(_)
            | ClientMessage::Undo(_)
            | ClientMessage::Say(_)
            | ClientMessage::Rematch(_) => unreachable!("not game actions"),
        };
        let (before, index) = (self.game, self.actions.len());
        self.apply(action)
            .map_err(|error| (error.into(), error.to_string()))?;
        self.remember_for_undo(before, action, index);
        Ok(())
    }

    /// Applies an action through the rules, logs it, tells everyone, and ends the game if over.
    pub(super) fn apply(&mut self, action: Action) -> Result<(), aeroplane_rules::RuleError> {
        let events = self.game.apply(action)?;
        let first = self.next_event();
        self.actions.push(LoggedAction {
            event: first,
            action,
            undone: false,
        });
        // Journaled before anyone hears of it, so a restart never forgets a seen action.
        self.journal();
        let reveal = || self.reveal();
        let mut messages = wire_events(&events, first, reveal);
        // The turn clock restarts with every roll and move, and stops when the game ends.
        if matches!(action, Action::Roll { .. } | Action::Move { .. }) || self.game.is_over() {
            self.restart_clock(&mut messages);
        }
        tracing::debug!(?action, events = messages.len(), "applied");
        self.broadcast(&messages);
        self.state_event = self.event;
        if self.game.is_over() {
            self.finish();
        }
        Ok(())
    }

    /// The seeds a `game_over` reveals.
    fn reveal(&self) -> Reveal {
        Reveal {
            server_seed: self.server_seed.to_hex(),
            commitment: self.commitment.to_string(),
            red_seed: self.client_seed(Colour::Red),
            yellow_seed: self.client_seed(Colour::Yellow),
        }
    }

    /// Forfeits every live seat whose player stayed away past its grace period.
    pub(super) fn expire_seats(&mut self, now: Instant) {
        if !self.is_live() {
            return;
        }
        let expired = Colour::ALL.into_iter().find(|colour| {
            self.seat(*colour).is_some_and(|seat| {
                seat.conn.is_none() && seat.deadline.is_some_and(|deadline| deadline <= now)
            })
        });
        if let Some(colour) = expired {
            tracing::info!(seat = colour.as_str(), "seat abandoned");
            let forfeit = Action::Forfeit {
                colour,
                reason: Forfeit::Abandoned,
            };
            if let Err(error) = self.apply(forfeit) {
                tracing::error!(error = %error, "the rules refused an abandonment");
                self.seats
                    .iter_mut()
                    .flatten()
                    .for_each(|seat| seat.deadline = None);
            }
        }
    }

    /// The game is over: hand the record to the outbox without waiting, and plan retirement.
    pub(super) fn finish(&mut self) {
        for seat in self.seats.iter_mut().flatten() {
            seat.deadline = None;
        }
        self.retire_at = Some(Instant::now() + self.context.config.finished_room_ttl());
        let Some(record) = self.record() else { return };
        tracing::info!(result = ?record.result, "game over");
        // The durable outbox writes it to the store; the room never waits for the database.
        self.context.keep_record(record);
    }

    /// The complete record of the finished game.
    fn record(&self) -> Option<GameRecord> {
        let outcome = self.game.outcome()?;
        let player = |colour: Colour| {
            let computer = self
                .assist
                .computer
                .filter(|computer| computer.colour == colour);
            PlayerRecord {
                name: self
                    .seat(colour)
                    .map(|seat| seat.name.to_string())
                    .unwrap_or_default(),
                kind: match computer {
                    Some(_) => PlayerKind::Computer,
                    None => PlayerKind::Human,
                },
                level: computer.map(|computer| computer.level.as_str().to_owned()),
            }
        };
        let count = |pred: fn(&LoggedAction) -> bool| {
            u32::try_from(self.actions.iter().filter(|logged| pred(logged)).count())
                .unwrap_or(u32::MAX)
        };
        let now = OffsetDateTime::now_utc();
        Some(GameRecord {
            format: aeroplane_protocol::record::RECORD_FORMAT,
            id: self.id,
            ruleset: RULESET.to_owned(),
            mode: self.mode,
            created_at: self.created_at,
            started_at: self.started_at.unwrap_or(now),
            ended_at: now,
            players: Players {
                red: player(Colour::Red),
                yellow: player(Colour::Yellow),
            },
            result: ResultRecord {
                winner: outcome.winner,
                reason: outcome.reason,
            },
            // Undone rolls still count: each consumed a value of the die stream.
            rolls: count(|logged| matches!(logged.action, Action::Roll { .. })),
            moves: count(|logged| !logged.undone && matches!(logged.action, Action::Move { .. })),
            actions: self.actions.clone(),
            fairness: FairnessRecord {
                scheme: SCHEME.to_owned(),
                commitment: self.commitment.to_string(),
                server_seed: self.server_seed.to_hex(),
                red_seed: self.client_seed(Colour::Red),
                yellow_seed: self.client_seed(Colour::Yellow),
            },
        })
    }
}
