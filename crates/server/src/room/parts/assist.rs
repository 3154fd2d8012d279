//! What computer and local rooms keep for hints and undo: the computer's seat and the undo
//! points. How the room answers `hint` and `undo` is `room/assist.rs`.

use aeroplane_protocol::board::Board;
use aeroplane_protocol::record::Mode;
use aeroplane_rules::{Side, TableAction};

use crate::room::setup::ComputerSeat;

/// What a room keeps for hints and undo.
#[derive(Debug, Default)]
pub(in crate::room) struct Assist {
    /// The computers' seats, in a computer room.
    computers: Vec<ComputerSeat>,
    /// The positions undo can go back to, oldest first.
    undo: Vec<UndoPoint>,
}

/// The position just before a plane choice that may be taken back.
#[derive(Clone, Copy, Debug)]
struct UndoPoint {
    /// The game awaiting that move, its roll pending.
    game: Board,
    /// The index of the move in the action log.
    action: usize,
}

impl Assist {
    /// The assistant of a room, with the computers' seats in a computer room.
    pub(in crate::room) fn new(computers: Vec<ComputerSeat>) -> Assist {
        Assist {
            computers,
            undo: Vec::new(),
        }
    }

    /// The computers' seats, in a computer room (none elsewhere).
    pub(in crate::room) fn computers(&self) -> &[ComputerSeat] {
        &self.computers
    }

    /// The computer playing `colour`, if a computer does.
    pub(in crate::room) fn computer_of(&self, colour: Side) -> Option<ComputerSeat> {
        self.computers
            .iter()
            .copied()
            .find(|computer| computer.colour == colour)
    }

    /// Whether `colour`'s seat is a computer's.
    pub(in crate::room) fn is_computer(&self, colour: Side) -> bool {
        self.computer_of(colour).is_some()
    }

    /// Takes the latest undo point: the position and the index of its move in the log.
    pub(in crate::room) fn pop(&mut self) -> Option<(Board, usize)> {
        self.undo.pop().map(|point| (point.game, point.action))
    }

    /// Remembers `before`, the position before `action` (just logged at index `index`), if the
    /// action is a plane choice that undo may take back in a room of this `mode`.
    pub(in crate::room) fn remember(
        &mut self,
        mode: Mode,
        before: Board,
        action: TableAction,
        index: usize,
    ) {
        let TableAction::Move { colour, .. } = action else {
            return;
        };
        let undoable = match mode {
            Mode::Online => false,
            Mode::Computer => !self.is_computer(colour),
            Mode::Local => true,
        };
        if undoable {
            self.undo.push(UndoPoint {
                game: before,
                action: index,
            });
        }
    }
}
