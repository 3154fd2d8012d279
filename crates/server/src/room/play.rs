//! Routing a client's message, game actions, and the end of the game.
//!
//! Who may act: a joined player for its colour (the one player of a local room for whichever
//! colour is to act); never a spectator. The stale rule is the timeline's (`timeline.rs`).

use aeroplane_protocol::client::ClientMessage;
use aeroplane_protocol::error::{CloseCode, ErrorCode};
use aeroplane_protocol::record::Mode;
use aeroplane_protocol::server::{Pong, ServerMessage, SnapshotMessage};
use aeroplane_rules::{Forfeit, Side, TableAction};
use tokio::time::Instant;

use super::core::Room;
use super::handle::ConnId;
use super::parts::seats::Joined;
use super::parts::timeline::{Refusal, rule};

impl Room {
    /// Handles one decoded client message.
    pub(super) fn handle(&mut self, conn: ConnId, message: ClientMessage) {
        let id = message.request_id();
        let colour = match message {
            ClientMessage::Join(join) => return self.join(conn, join, None),
            ClientMessage::Ping(request) => {
                return self.reply(conn, &ServerMessage::Pong(Pong { id: request.id }));
            }
            ClientMessage::Sync(request) => {
                let snapshot = self.snapshot();
                let answer = ServerMessage::Snapshot(SnapshotMessage {
                    id: request.id,
                    snapshot: Box::new(snapshot),
                });
                return self.reply(conn, &answer);
            }
            ClientMessage::Leave(_) => {
                self.seats.close(conn, CloseCode::RoomClosed);
                return self.disconnect(conn);
            }
            _ => match self.seats.role_of(conn) {
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
                Some(Joined::Player(_)) if self.mode == Mode::Local => {
                    self.timeline.game().to_act()
                }
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

    /// Checks and applies a game action of `colour`.
    fn act(&mut self, colour: Side, message: &ClientMessage) -> Result<(), Refusal> {
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
        self.timeline.check_live()?;
        self.timeline
            .check_seen(message.seen().unwrap_or_default())?;
        let action = match *message {
            ClientMessage::Roll(_) => TableAction::Roll {
                colour,
                value: self.timeline.draw(colour).map_err(rule)?,
            },
            ClientMessage::Move(movement) => TableAction::Move {
                colour,
                plane: movement.plane,
            },
            ClientMessage::Resign(_) => TableAction::Resign { colour },
            ClientMessage::OfferDraw(_) => TableAction::OfferDraw { colour },
            ClientMessage::AcceptDraw(_) => TableAction::AcceptDraw { colour },
            ClientMessage::DeclineDraw(_) => TableAction::DeclineDraw { colour },
            ClientMessage::WithdrawDraw(_) => TableAction::WithdrawDraw { colour },
            ClientMessage::Join(_)
            | ClientMessage::Ping(_)
            | ClientMessage::Sync(_)
            | ClientMessage::Leave(_)
            | ClientMessage::Hint(_)
            | ClientMessage::Undo(_)
            | ClientMessage::Say(_)
            | ClientMessage::Rematch(_) => unreachable!("not game actions"),
        };
        let (before, index) = (*self.timeline.game(), self.timeline.actions().len());
        self.apply(action).map_err(rule)?;
        self.assist.remember(self.mode, before, action, index);
        Ok(())
    }

    /// Applies an action through the timeline, publishes its events (journaled before anyone
    /// hears of them), and ends the game if it is over.
    pub(super) fn apply(&mut self, action: TableAction) -> Result<(), aeroplane_rules::RuleError> {
        let seats = &self.seats;
        let seeds = || {
            seats
                .client_seeds()
                .into_iter()
                .map(|(side, seed)| (side, seed.as_str().to_owned()))
                .collect()
        };
        let mut messages = self.timeline.apply(action, seeds)?;
        let over = self.timeline.game().is_over();
        // The turn clock restarts with every roll and move, and stops when the game ends.
        if matches!(action, TableAction::Roll { .. } | TableAction::Move { .. }) || over {
            self.restart_clock(&mut messages);
        }
        tracing::debug!(?action, events = messages.len(), "applied");
        self.publish(messages);
        if over {
            self.finish();
        }
        Ok(())
    }

    /// Forfeits a live seat whose player stayed away past its grace period.
    pub(super) fn expire_seats(&mut self, now: Instant) {
        if !self.is_live() {
            return;
        }
        let Some(colour) = self.seats.expired(now) else {
            return;
        };
        if !self.timeline.game().in_play(colour) {
            // A player who left play (resigned, forfeited) at a table that plays on has nothing
            // to abandon.
            self.seats.clear_deadline(colour);
            return self.expire_seats(now);
        }
        tracing::info!(seat = colour.as_str(), "seat abandoned");
        let forfeit = TableAction::Forfeit {
            colour,
            reason: Forfeit::Abandoned,
        };
        if let Err(error) = self.apply(forfeit) {
            tracing::error!(error = %error, "the rules refused an abandonment");
            self.seats.clear_deadlines();
        }
    }

    /// The game is over: plan retirement; the record leaves once the last action is journaled
    /// ([`Room::keep_record`], from `Room::flush`).
    pub(super) fn finish(&mut self) {
        self.seats.clear_deadlines();
        self.retire_at = Some(Instant::now() + self.context.config.finished_room_ttl());
        self.finishing = true;
    }

    /// Hands the finished game's record and the journal to the outbox without waiting (the
    /// journal is deleted once the record is there).
    pub(super) fn keep_record(&mut self) {
        let Some(record) = super::record::of(self) else {
            return;
        };
        tracing::info!(result = ?record.result, "game over");
        // The durable outbox writes it to the store; the room never waits for the database.
        self.context.keep_record(record, self.journal.hand_off());
    }
}
