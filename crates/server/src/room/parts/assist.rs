//! What computer and local rooms keep for hints and undo: the computer's seat and the undo
//! points. How the room answers `hint` and `undo` is `room/assist.rs`.

use aeroplane_protocol::record::Mode;
use aeroplane_rules::{Action, Colour, Game};

use crate::room::setup::ComputerSeat;

/// What a room keeps for hints and undo.
#[derive(Debug, Default)]
pub(in crate::room) struct Assist {
    /// The computer's seat, in a computer room.
    computer: Option<ComputerSeat>,
    /// The positions undo can go back to, oldest first.
    undo: Vec<UndoPoint>,
}

/// The position just before a plane choice that may be taken back.
#[derive(Clone, Copy, Debug)]
struct UndoPoint {
    /// The game awaiting that move, its roll pending.
    game: Game,
    /// The index of the move in the action log.
    action: usize,
}

impl Assist {
    /// The assistant of a room, with the computer's seat in a computer room.
    pub(in crate::room) fn new(computer: Option<ComputerSeat>) -> Assist {
        Assist {
            computer,
            undo: Vec::new(),
        }
    }

    /// The computer's seat, in a computer room.
    pub(in crate::room) fn computer(&self) -> Option<ComputerSeat> {
        self.computer
    }

    /// Whether `colour`'s seat is the computer's.
    pub(in crate::room) fn is_computer(&self, colour: Colour) -> bool {
        self.computer
            .is_some_and(|computer| computer.colour == colour)
    }

    /// Takes the latest undo point: the position and the index of its move in the log.
    pub(in crate::room) fn pop(&mut self) -> Option<(Game, usize)> {
        self.undo.pop().map(|point| (point.game, point.action))
    }

    /// Remembers `before`, the position before `action` (just logged at index `index`), if the
    /// action is a plane choice that undo may take back in a room of this `mode`.
    pub(in crate::room) fn remember(
        &mut self,
        mode: Mode,
        before: Game,
        action: Action,
        index: usize,
    ) {
        let Action::Move { colour, .. } = action else {
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
