//! Actions as values, so a game can be recorded as a log and replayed.

use crate::board::{Colour, Die, Plane};
use crate::error::RuleError;
use crate::event::Events;
use crate::game::{Forfeit, Game};

/// One action by one player, as stored in a game's action log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "action", rename_all = "snake_case"))]
pub enum Action {
    /// `colour` rolled `value`.
    Roll {
        /// Who rolled.
        colour: Colour,
        /// The value rolled.
        value: Die,
    },
    /// `colour` moved `plane` for the pending roll.
    Move {
        /// Who moved.
        colour: Colour,
        /// The plane moved.
        plane: Plane,
    },
    /// `colour` resigned.
    Resign {
        /// Who resigned.
        colour: Colour,
    },
    /// `colour` offered a draw.
    OfferDraw {
        /// The offerer.
        colour: Colour,
    },
    /// `colour` accepted the standing draw offer.
    AcceptDraw {
        /// The receiver.
        colour: Colour,
    },
    /// `colour` declined the standing draw offer.
    DeclineDraw {
        /// The receiver.
        colour: Colour,
    },
    /// `colour` withdrew its draw offer.
    WithdrawDraw {
        /// The offerer.
        colour: Colour,
    },
    /// The server ended the game against `colour` by a policy (abandonment or turn clock).
    Forfeit {
        /// The player who forfeits.
        colour: Colour,
        /// Which policy.
        reason: Forfeit,
    },
}

impl Action {
    /// The player who took the action.
    pub const fn colour(&self) -> Colour {
        match *self {
            Action::Roll { colour, .. }
            | Action::Move { colour, .. }
            | Action::Resign { colour }
            | Action::OfferDraw { colour }
            | Action::AcceptDraw { colour }
            | Action::DeclineDraw { colour }
            | Action::WithdrawDraw { colour }
            | Action::Forfeit { colour, .. } => colour,
        }
    }
}

impl Game {
    /// Applies one action; on error the game is unchanged.
    pub fn apply(&mut self, action: Action) -> Result<Events, RuleError> {
        match action {
            Action::Roll { colour, value } => self.roll(colour, value),
            Action::Move { colour, plane } => self.move_plane(colour, plane),
            Action::Resign { colour } => self.resign(colour),
            Action::OfferDraw { colour } => self.offer_draw(colour),
            Action::AcceptDraw { colour } => self.accept_draw(colour),
            Action::DeclineDraw { colour } => self.decline_draw(colour),
            Action::WithdrawDraw { colour } => self.withdraw_draw(colour),
            Action::Forfeit { colour, reason } => self.forfeit(colour, reason),
        }
    }

    /// Replays an action log from the initial position, returning the final game and the events
    /// of each action in order; stops at the first refused action.
    pub fn replay<I>(actions: I) -> Result<(Game, Vec<Events>), ReplayError>
    where
        I: IntoIterator<Item = Action>,
    {
        let mut game = Game::new();
        let mut events = Vec::new();
        for (index, action) in actions.into_iter().enumerate() {
            let produced = game.apply(action).map_err(|error| ReplayError {
                index,
                action,
                error,
            })?;
            events.push(produced);
        }
        Ok((game, events))
    }
}

/// An action in a log that the rules refused at its point in the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("action {index} ({action:?}) was refused: {error}")]
pub struct ReplayError {
    /// The position of the refused action in the log, from 0.
    pub index: usize,
    /// The refused action.
    pub action: Action,
    /// Why it was refused.
    pub error: RuleError,
}
