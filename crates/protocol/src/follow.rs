//! One follower of a room's messages: the room as a client sees it, kept in step event by event.
//!
//! Every client of the protocol (the Rust client library, the integration tests, bots) needs the
//! same thing: start from a snapshot, apply each numbered event to the position through the
//! rules crate, and notice when it missed one. That is written here once. A [`RoomView`] applies
//! `welcome`, `snapshot` and `undone` by adopting their snapshot, and every other room event by
//! turning it back into the rules action that produced it; an event it cannot apply (a gap in
//! the numbering, a position that disagrees, or a kind of event a newer server sends) is reported
//! as [`Followed::Gap`], and the caller sends `sync` and hands the answer to the view.
//!
//! Over 500 lines only with its tests (the follower is under 300 lines): one state machine, whose
//! tests follow real event streams of both protocols, kept beside it.

use aeroplane_rules::{EndReason, Forfeit, Game, Side, TableAction};
use uuid::Uuid;

use crate::board::{Board, BoardEvents, BoardPhase};
use crate::events::Reveal;
use crate::record::ResultRecord;
use crate::server::ServerMessage;
use crate::snapshot::{FairnessView, Snapshot};

/// What applying one message did to a [`RoomView`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Followed {
    /// The view took the message in: a snapshot adopted, or the next event applied.
    Applied,
    /// Nothing changed: the message is not a room event, the view has seen it already, or the
    /// view waits for a snapshot (which will cover it).
    Ignored,
    /// The view cannot follow this event (a gap, a divergence, or an unknown kind of event):
    /// it waits for a snapshot, and the caller should send `sync`.
    Gap,
}

/// A room as its messages describe it. See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct RoomView {
    room_id: Option<Uuid>,
    seen: u64,
    board: Board,
    fairness: Option<FairnessView>,
    result: Option<ResultRecord>,
    resyncing: bool,
    /// The number of the last event of the action taken in last: the room sends an action's
    /// events together, and until the last arrives the position is ahead of the messages.
    last_of_action: u64,
}

impl RoomView {
    /// A view of the room `room_id` before its first snapshot.
    pub fn of_room(room_id: Uuid) -> RoomView {
        RoomView {
            room_id: Some(room_id),
            ..RoomView::default()
        }
    }

    /// The room's id, once a snapshot (or [`RoomView::of_room`]) named it.
    pub fn room_id(&self) -> Option<Uuid> {
        self.room_id
    }

    /// The number of the last room event taken in (the `seen` of the next action).
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// The position as far as the view has followed.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The position of a two-player `plyyard` room (`None` in a table room).
    pub fn game(&self) -> Option<&Game> {
        match &self.board {
            Board::Plyyard(game) => Some(game),
            Board::Table(_) => None,
        }
    }

    /// The dice commitment and seeds as far as they are public.
    pub fn fairness(&self) -> Option<&FairnessView> {
        self.fairness.as_ref()
    }

    /// How the game ended, once it has.
    pub fn result(&self) -> Option<ResultRecord> {
        self.result
    }

    /// Whether every event of the last action taken in has arrived: a roll's `turn_passed`, a
    /// move's `turn_passed` or `game_over`, an accepted draw's `game_over`. Until then the
    /// position already shows the action's end, but the room is still sending its events, so an
    /// action sent with [`RoomView::seen`] would be stale.
    pub fn is_settled(&self) -> bool {
        self.seen >= self.last_of_action
    }

    /// Whether the view waits for a snapshot after a [`Followed::Gap`].
    pub fn is_resyncing(&self) -> bool {
        self.resyncing
    }

    /// Whether the game has started: the client seeds are fixed.
    pub fn has_started(&self) -> bool {
        self.fairness
            .as_ref()
            .is_some_and(|fairness| fairness.red_seed.is_some() && fairness.yellow_seed.is_some())
    }

    /// Marks the view as waiting for a snapshot (the caller sent `sync`): until one arrives,
    /// events are not applied.
    pub fn await_snapshot(&mut self) {
        self.resyncing = true;
    }

    /// Adopts a snapshot: the room as of its event number.
    pub fn adopt(&mut self, snapshot: &Snapshot) {
        self.room_id = Some(snapshot.room_id);
        self.seen = snapshot.event;
        self.board = snapshot.board();
        self.fairness = Some(snapshot.fairness.clone());
        self.result = snapshot.result;
        self.resyncing = false;
        self.last_of_action = snapshot.event;
    }

    /// Takes in one message from the room.
    pub fn follow(&mut self, message: &ServerMessage) -> Followed {
        match message {
            ServerMessage::Welcome(welcome) => {
                self.adopt(&welcome.snapshot);
                return Followed::Applied;
            }
            ServerMessage::Snapshot(snapshot) => {
                self.adopt(&snapshot.snapshot);
                return Followed::Applied;
            }
            _ => {}
        }
        let Some(event) = message.event() else {
            return Followed::Ignored;
        };
        if event <= self.seen {
            return Followed::Ignored;
        }
        if self.resyncing {
            return Followed::Ignored;
        }
        if event != self.seen + 1 || !self.apply(event, message) {
            self.resyncing = true;
            return Followed::Gap;
        }
        self.seen = event;
        Followed::Applied
    }

    /// Applies the next room event, number `event`; `false` when the view cannot follow it.
    fn apply(&mut self, event: u64, message: &ServerMessage) -> bool {
        let action = match message {
            // An undo rewinds the position: the event carries the room as of itself.
            ServerMessage::Undone(undone) => {
                self.adopt(&undone.snapshot);
                return true;
            }
            ServerMessage::GameStarted(started) => {
                if let Some(fairness) = self.fairness.as_mut() {
                    fairness.red_seed = Some(started.red_seed.clone());
                    fairness.yellow_seed = Some(started.yellow_seed.clone());
                    fairness.blue_seed.clone_from(&started.blue_seed);
                    fairness.green_seed.clone_from(&started.green_seed);
                }
                return true;
            }
            ServerMessage::Rolled(rolled) => TableAction::Roll {
                colour: rolled.colour,
                value: rolled.value,
            },
            ServerMessage::Moved(moved) => TableAction::Move {
                colour: moved.colour,
                plane: moved.plane,
            },
            // A table's move starts with its launch or walk; what follows is its consequences.
            ServerMessage::Launched(launched) if self.awaits_move() => TableAction::Move {
                colour: launched.colour,
                plane: launched.plane,
            },
            ServerMessage::Walked(walked) if self.awaits_move() => {
                let Some(plane) = walked.planes.iter().next() else {
                    return false;
                };
                TableAction::Move {
                    colour: walked.colour,
                    plane,
                }
            }
            ServerMessage::PlayerOut(out) if self.board.in_play(out.colour) => {
                match leaving_action(out.colour, out.reason) {
                    Some(action) => action,
                    None => return false,
                }
            }
            ServerMessage::DrawOffered(draw) => TableAction::OfferDraw { colour: draw.by },
            ServerMessage::DrawAccepted(draw) => TableAction::AcceptDraw { colour: draw.by },
            ServerMessage::DrawWithdrawn(draw) => TableAction::WithdrawDraw { colour: draw.by },
            ServerMessage::DrawDeclined(declined) if !declined.implicit => {
                TableAction::DeclineDraw {
                    colour: declined.by,
                }
            }
            ServerMessage::GameOver(over) => {
                self.result = Some(over.result);
                if let Some(fairness) = self.fairness.as_mut() {
                    fairness.server_seed = Some(over.server_seed.clone());
                }
                match ending_action(&self.board, over.result) {
                    Some(action) => action,
                    None => return true,
                }
            }
            // Seat changes, implicit declines (made by a roll), turn passes (made by a roll or a
            // move) and a table move's later steps change nothing the rules track separately.
            ServerMessage::PlayerConnected(_)
            | ServerMessage::PlayerDisconnected(_)
            | ServerMessage::DrawDeclined(_)
            | ServerMessage::TurnPassed(_)
            | ServerMessage::Jumped(_)
            | ServerMessage::Flew(_)
            | ServerMessage::SentHome(_)
            | ServerMessage::Arrived(_)
            | ServerMessage::ThirdSix(_)
            | ServerMessage::ExtraRoll(_)
            | ServerMessage::PlayerOut(_)
            | ServerMessage::DrawLapsed(_) => return true,
            _ => return false,
        };
        match self.board.apply(action) {
            Ok(events) => {
                self.last_of_action = event + events_after(&self.board, action, &events, message);
                true
            }
            Err(_) => false,
        }
    }

    /// Whether the board waits for a plane choice.
    fn awaits_move(&self) -> bool {
        matches!(self.board.phase(), BoardPhase::AwaitingMove { .. })
    }
}

/// How many wire events the room sends after `message` for `action`, whose rules events are
/// `events` (a `turn_passed` or `game_over` after a `rolled` or `moved`, for instance).
fn events_after(
    board: &Board,
    action: TableAction,
    events: &BoardEvents,
    message: &ServerMessage,
) -> u64 {
    let wire = board.wire_events(action, events, 0, || Reveal {
        server_seed: String::new(),
        commitment: String::new(),
        red_seed: String::new(),
        yellow_seed: String::new(),
        blue_seed: None,
        green_seed: None,
    });
    let kind = std::mem::discriminant(message);
    wire.iter()
        .position(|sent| std::mem::discriminant(sent) == kind)
        .map_or(0, |at| (wire.len() - at - 1) as u64)
}

/// The action that took `side` out of play for `reason` (none for a finish, which a move made).
fn leaving_action(side: Side, reason: EndReason) -> Option<TableAction> {
    match reason {
        EndReason::Resigned => Some(TableAction::Resign { colour: side }),
        EndReason::Abandoned => Some(TableAction::Forfeit {
            colour: side,
            reason: Forfeit::Abandoned,
        }),
        EndReason::Timeout => Some(TableAction::Forfeit {
            colour: side,
            reason: Forfeit::Timeout,
        }),
        EndReason::Finished | EndReason::Agreed => None,
    }
}

/// The rules action behind a two-player `plyyard` `game_over`, if the game had not already ended
/// by a move or an accepted draw. (A table's leaving players are told by `player_out`.)
fn ending_action(board: &Board, result: ResultRecord) -> Option<TableAction> {
    if board.is_over() || board.is_table() {
        return None;
    }
    let loser = result.winner?.colour()?.opponent();
    leaving_action(loser.into(), result.reason)
}

#[cfg(test)]
mod tests {
    use aeroplane_rules::{Action, Colour, Die, Phase, Plane, Position};

    use super::*;
    use crate::events::{Reveal, wire_events};
    use crate::record::Mode;
    use crate::server::{PlayerConnected, SnapshotMessage};
    use crate::snapshot::{RoomPhase, Seats};

    fn snapshot(event: u64, game: Game) -> Snapshot {
        Snapshot {
            room_id: Uuid::nil(),
            mode: Mode::Online,
            phase: RoomPhase::Playing,
            event,
            game: Some(game),
            table: None,
            notation: None,
            seats: Seats::default(),
            fairness: FairnessView {
                scheme: "v1".into(),
                commitment: "00".into(),
                red_seed: Some(String::new()),
                yellow_seed: Some(String::new()),
                blue_seed: None,
                green_seed: None,
                server_seed: None,
            },
            result: None,
            computer: None,
            computers: Vec::new(),
            clock: None,
            spectators: 0,
        }
    }

    fn started_view() -> RoomView {
        let mut view = RoomView::default();
        let message = ServerMessage::Snapshot(SnapshotMessage {
            id: None,
            snapshot: Box::new(snapshot(3, Game::new())),
        });
        assert_eq!(view.follow(&message), Followed::Applied);
        view
    }

    /// The wire events the server would send for `action` on `game`, numbered from `next`.
    fn wire(game: &mut Game, action: Action, next: u64) -> Vec<ServerMessage> {
        let events = game.apply(action).unwrap();
        wire_events(&events, next, || Reveal {
            server_seed: "00".into(),
            commitment: "00".into(),
            red_seed: String::new(),
            yellow_seed: String::new(),
            blue_seed: None,
            green_seed: None,
        })
    }

    #[test]
    fn the_view_follows_a_deployment_event_by_event_to_the_same_position() {
        let mut view = started_view();
        let mut server = Game::new();
        let six = Die::new(6).unwrap();
        let mut messages = wire(
            &mut server,
            Action::Roll {
                colour: Colour::Red,
                value: six,
            },
            4,
        );
        let plane = Plane::new(0).unwrap();
        messages.extend(wire(
            &mut server,
            Action::Move {
                colour: Colour::Red,
                plane,
            },
            5,
        ));
        for message in &messages {
            assert_eq!(view.follow(message), Followed::Applied);
        }
        assert_eq!(view.seen(), 5);
        assert_eq!(*view.game().unwrap(), server);
        assert_eq!(
            view.game().unwrap().planes(Colour::Red)[0],
            Position::Route(0)
        );
    }

    #[test]
    fn a_roll_without_a_move_is_settled_only_once_its_turn_passed_arrives() {
        let mut view = started_view();
        assert!(view.is_settled(), "a snapshot is settled");
        let mut server = Game::new();
        let three = Die::new(3).unwrap();
        let messages = wire(
            &mut server,
            Action::Roll {
                colour: Colour::Red,
                value: three,
            },
            4,
        );
        assert_eq!(messages.len(), 2, "rolled, turn_passed");
        assert_eq!(view.follow(&messages[0]), Followed::Applied);
        assert!(!view.is_settled(), "the turn_passed is still to come");
        assert_eq!(view.follow(&messages[1]), Followed::Applied);
        assert!(view.is_settled());
        assert_eq!(view.game().unwrap().to_act(), Colour::Yellow);
    }

    #[test]
    fn a_six_and_a_move_that_earns_another_roll_are_settled_at_once() {
        let mut view = started_view();
        let mut server = Game::new();
        let six = Die::new(6).unwrap();
        let rolled = wire(
            &mut server,
            Action::Roll {
                colour: Colour::Red,
                value: six,
            },
            4,
        );
        assert_eq!(view.follow(&rolled[0]), Followed::Applied);
        assert!(view.is_settled(), "a plane choice waits");
        let plane = Plane::new(0).unwrap();
        let moved = wire(
            &mut server,
            Action::Move {
                colour: Colour::Red,
                plane,
            },
            5,
        );
        assert_eq!(view.follow(&moved[0]), Followed::Applied);
        assert!(view.is_settled(), "the deployment earns another roll");
    }

    #[test]
    fn a_roll_that_declines_a_draw_is_settled_once_the_decline_arrives() {
        let mut view = started_view();
        let mut server = Game::new();
        let offer = wire(
            &mut server,
            Action::OfferDraw {
                colour: Colour::Yellow,
            },
            4,
        );
        assert_eq!(view.follow(&offer[0]), Followed::Applied);
        assert!(view.is_settled());
        let six = Die::new(6).unwrap();
        let messages = wire(
            &mut server,
            Action::Roll {
                colour: Colour::Red,
                value: six,
            },
            5,
        );
        assert!(matches!(messages[1], ServerMessage::DrawDeclined(_)));
        assert_eq!(view.follow(&messages[0]), Followed::Applied);
        assert!(!view.is_settled(), "the implicit decline is still to come");
        assert_eq!(view.follow(&messages[1]), Followed::Applied);
        assert!(view.is_settled());
        assert_eq!(*view.game().unwrap(), server);
    }

    #[test]
    fn a_missed_event_is_a_gap_until_a_snapshot_arrives() {
        let mut view = started_view();
        let mut server = Game::new();
        let three = Die::new(3).unwrap();
        let messages = wire(
            &mut server,
            Action::Roll {
                colour: Colour::Red,
                value: three,
            },
            4,
        );
        // `rolled` (4) is lost; `turn_passed` (5) arrives.
        assert_eq!(view.follow(&messages[1]), Followed::Gap);
        assert!(view.is_resyncing());
        assert_eq!(view.seen(), 3, "nothing taken in");
        let presence = ServerMessage::PlayerConnected(PlayerConnected {
            event: 6,
            colour: Side::Yellow,
            name: "Bob".into(),
            deadline_ms: None,
        });
        assert_eq!(
            view.follow(&presence),
            Followed::Ignored,
            "the snapshot will cover it"
        );
        let resync = ServerMessage::Snapshot(SnapshotMessage {
            id: Some(1),
            snapshot: Box::new(snapshot(6, server)),
        });
        assert_eq!(view.follow(&resync), Followed::Applied);
        assert!(!view.is_resyncing());
        assert_eq!(view.game().unwrap().phase(), Phase::AwaitingRoll);
        assert_eq!(view.game().unwrap().to_act(), Colour::Yellow);
    }

    #[test]
    fn an_event_seen_before_is_ignored() {
        let mut view = started_view();
        let old = ServerMessage::PlayerConnected(PlayerConnected {
            event: 2,
            colour: Side::Red,
            name: "Ann".into(),
            deadline_ms: None,
        });
        assert_eq!(view.follow(&old), Followed::Ignored);
        assert_eq!(view.seen(), 3);
    }

    #[test]
    fn an_event_that_the_position_refuses_is_a_gap() {
        let mut view = started_view();
        let mut other = Game::new();
        let six = Die::new(6).unwrap();
        // The view never saw the six, so the move it is told of is illegal in its position.
        other
            .apply(Action::Roll {
                colour: Colour::Red,
                value: six,
            })
            .unwrap();
        let mut messages = wire(
            &mut other,
            Action::Move {
                colour: Colour::Red,
                plane: Plane::new(0).unwrap(),
            },
            4,
        );
        assert_eq!(view.follow(&messages.remove(0)), Followed::Gap);
    }

    #[test]
    fn a_resignation_ends_the_followed_game_with_its_result() {
        let mut view = started_view();
        let mut server = Game::new();
        let messages = wire(
            &mut server,
            Action::Resign {
                colour: Colour::Red,
            },
            4,
        );
        assert_eq!(view.follow(&messages[0]), Followed::Applied);
        assert!(view.game().unwrap().is_over());
        assert_eq!(
            view.result().unwrap().winner,
            Some(aeroplane_rules::Side::Yellow)
        );
        assert_eq!(view.fairness().unwrap().server_seed.as_deref(), Some("00"));
    }
}
