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
    FairnessRecord, GameRecord, LoggedAction, PlayerKind, PlayerRecord, Players, ResultRecord,
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
                    leaving.outbox.close(aeroplane_protocol::error::CloseCode::RoomClosed);
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
                Some(Joined::Player(colour)) => colour,
            },
        };
        if let Err((code, text)) = self.act(colour, &message) {
            self.reply(conn, &ServerMessage::error(id, code, text));
        }
    }

    /// Checks and applies a game action of `colour`.
    fn act(&mut self, colour: Colour, message: &ClientMessage) -> Result<(), (ErrorCode, String)> {
        if self.game.is_over() {
            let error = aeroplane_rules::RuleError::GameOver;
            return Err((error.into(), error.to_string()));
        }
        if !self.is_live() {
            return Err((
                ErrorCode::NotStarted,
                "the game starts when both seats are taken".into(),
            ));
        }
        let seen = message.seen().unwrap_or_default();
        if seen < self.state_event || seen > self.event {
            let text = format!(
                "you saw event {seen}, but the game is at event {} (last change {})",
                self.event, self.state_event
            );
            return Err((ErrorCode::Stale, text));
        }
        let action = match *message {
            ClientMessage::Roll(_) => {
                // Validate before drawing, so a refused roll never consumes a die value.
                let mut probe = self.game;
                let any_value = aeroplane_rules::Die::new(1).expect("1 is a die value");
                probe
                    .roll(colour, any_value)
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
            | ClientMessage::Leave(_) => unreachable!("not game actions"),
        };
        self.apply(action)
            .map_err(|error| (error.into(), error.to_string()))
    }

    /// Applies an action through the rules, logs it, tells everyone, and ends the game if over.
    fn apply(&mut self, action: Action) -> Result<(), aeroplane_rules::RuleError> {
        let events = self.game.apply(action)?;
        let first = self.next_event();
        self.actions.push(LoggedAction {
            event: first,
            action,
            undone: false,
        });
        let reveal = || self.reveal();
        let messages = wire_events(&events, first, reveal);
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

    /// The game is over: hand the record to the store without waiting, and plan retirement.
    fn finish(&mut self) {
        for seat in self.seats.iter_mut().flatten() {
            seat.deadline = None;
        }
        self.retire_at = Some(Instant::now() + self.context.config.finished_room_ttl());
        let Some(record) = self.record() else { return };
        let store = self.context.store.clone();
        let id = self.id;
        tracing::info!(result = ?record.result, "game over");
        tokio::spawn(async move {
            match store.save(&record).await {
                Ok(saved) => tracing::info!(room_id = %id, ?saved, "game record stored"),
                Err(error) => {
                    tracing::error!(room_id = %id, error = %error, "storing the game record failed");
                }
            }
        });
    }

    /// The complete record of the finished game.
    fn record(&self) -> Option<GameRecord> {
        let outcome = self.game.outcome()?;
        let player = |colour: Colour| PlayerRecord {
            name: self
                .seat(colour)
                .map(|seat| seat.name.clone())
                .unwrap_or_default(),
            kind: PlayerKind::Human,
            level: None,
        };
        let count = |pred: fn(&Action) -> bool| {
            u32::try_from(
                self.actions
                    .iter()
                    .filter(|logged| pred(&logged.action))
                    .count(),
            )
            .unwrap_or(u32::MAX)
        };
        let now = OffsetDateTime::now_utc();
        Some(GameRecord {
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
            rolls: count(|action| matches!(action, Action::Roll { .. })),
            moves: count(|action| matches!(action, Action::Move { .. })),
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
