//! What only computer and local rooms offer: hints and undo.
//!
//! - `hint` (computer rooms): the plane the computer would move for the human's pending roll, at
//!   the room's level, answered to the asking connection alone.
//! - `undo` (computer and local rooms): before each plane choice that may be taken back (the
//!   human's in a computer room, either colour's in a local room) the room keeps the position,
//!   which awaits that very move, and where the move sits in the action log. Undo goes back to the
//!   latest such position: the same roll is pending again, and the move and every action after it
//!   are marked undone in the log (they stay there, so the record shows them). Repeated undo goes
//!   further back. The die stream is never rewound (`fairness.md`): the next roll takes the next
//!   value. Everyone gets a numbered `undone` event with a full snapshot. Moves the turn clock
//!   played for a player are not theirs, so undo never takes one back by itself.
//!
//! The undo history is not journaled: it follows from the journaled log. Undo pops the latest
//! point and marks its move and everything after it undone, so the points a room holds are
//! exactly its undoable moves that are not undone, and a restored room rebuilds them while it
//! replays the log (`room/restore.rs`).

use aeroplane_protocol::board::BoardPhase;
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::record::Mode;
use aeroplane_protocol::server::{Hint, ServerMessage, Undone};
use aeroplane_rules::{RuleError, Side};

use super::core::Room;
use super::handle::ConnId;
use super::parts::timeline::{Refusal, rule};

impl Room {
    /// Answers `hint` for `colour`'s player with the computer's choice for the pending roll.
    pub(super) fn hint(
        &mut self,
        conn: ConnId,
        id: Option<u64>,
        colour: Side,
    ) -> Result<(), Refusal> {
        // The hint plays at the level of the (first) computer of the room.
        let Some(computer) = self.assist.computers().first().copied() else {
            let text = format!("{} rooms have no hints", self.mode.as_str());
            return Err((ErrorCode::HintsUnavailable, text));
        };
        self.timeline.check_live()?;
        let game = *self.timeline.game();
        if game.to_act() != colour || self.assist.is_computer(colour) {
            return Err(rule(RuleError::NotYourTurn));
        }
        if !matches!(game.phase(), BoardPhase::AwaitingMove { .. }) {
            return Err(rule(RuleError::RollFirst));
        }
        let decision = super::bot::choose(computer.level, &game, self.timeline.event())
            .map_err(|_| rule(RuleError::RollFirst))?;
        let hint = ServerMessage::Hint(Hint {
            id,
            plane: decision.plane,
            explanation: decision.explanation,
            level: computer.level.as_str().to_owned(),
        });
        self.reply(conn, &hint);
        Ok(())
    }

    /// Handles `undo`: back to the position before the latest plane choice that may be taken back.
    pub(super) fn undo(&mut self, seen: u64) -> Result<(), Refusal> {
        if self.mode == Mode::Online {
            return Err((
                ErrorCode::UndoUnavailable,
                "online games cannot be undone".into(),
            ));
        }
        self.timeline.check_live()?;
        self.timeline.check_seen(seen)?;
        let Some((game, index)) = self.assist.pop() else {
            return Err((
                ErrorCode::NothingToUndo,
                "no plane choice is left to take back".into(),
            ));
        };
        let (taken, event) = self.timeline.undo_to(game, index);
        tracing::debug!(actions = taken, "undone");
        let mut snapshot = self.snapshot();
        snapshot.event = event;
        self.publish(vec![ServerMessage::Undone(Undone {
            event,
            colour: self.timeline.game().to_act(),
            actions: taken,
            snapshot: Box::new(snapshot),
        })]);
        Ok(())
    }
}
