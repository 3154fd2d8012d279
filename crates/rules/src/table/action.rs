//! [`TableAction`]: one action at a table of any edition, so a game can be logged and replayed.
//!
//! It is [`Action`](crate::Action) with a [`Side`] for a colour. Written as JSON (feature
//! `serde`) the two read the same for Red and Yellow, so one action log format serves every
//! edition: a two-player `plyyard` log reads as table actions and back.

use crate::action::Action;
use crate::board::{Die, Plane};
use crate::edition::{Rules, Side};
use crate::error::RuleError;
use crate::game::Forfeit;

use super::{Table, TableEvents, TablePositionError};

/// One action by one player at a table, as stored in a game's action log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "action", rename_all = "snake_case"))]
pub enum TableAction {
    /// `colour` rolled `value`.
    Roll {
        /// Who rolled.
        colour: Side,
        /// The value rolled.
        value: Die,
    },
    /// `colour` moved `plane` (with its stack, in `classic`) for the pending roll.
    Move {
        /// Who moved.
        colour: Side,
        /// The plane chosen.
        plane: Plane,
    },
    /// `colour` resigned.
    Resign {
        /// Who resigned.
        colour: Side,
    },
    /// `colour` offered a draw.
    OfferDraw {
        /// The offerer.
        colour: Side,
    },
    /// `colour` accepted the standing draw offer.
    AcceptDraw {
        /// The receiver.
        colour: Side,
    },
    /// `colour` declined the standing draw offer.
    DeclineDraw {
        /// The receiver.
        colour: Side,
    },
    /// `colour` withdrew its draw offer.
    WithdrawDraw {
        /// The offerer.
        colour: Side,
    },
    /// The server took `colour` out of the game by a policy (abandonment or turn clock).
    Forfeit {
        /// The player who forfeits.
        colour: Side,
        /// Which policy.
        reason: Forfeit,
    },
}

impl TableAction {
    /// Every action's name, in the enum's order: the `action` tag of its JSON form, and the
    /// `kind` label of the server's action counters.
    pub const NAMES: [&'static str; 8] = [
        "roll",
        "move",
        "resign",
        "offer_draw",
        "accept_draw",
        "decline_draw",
        "withdraw_draw",
        "forfeit",
    ];

    /// Where the action's name is in [`TableAction::NAMES`].
    pub const fn index(&self) -> usize {
        match self {
            TableAction::Roll { .. } => 0,
            TableAction::Move { .. } => 1,
            TableAction::Resign { .. } => 2,
            TableAction::OfferDraw { .. } => 3,
            TableAction::AcceptDraw { .. } => 4,
            TableAction::DeclineDraw { .. } => 5,
            TableAction::WithdrawDraw { .. } => 6,
            TableAction::Forfeit { .. } => 7,
        }
    }

    /// The action's name (its JSON `action` tag; `aeroplane-protocol`'s record tests hold every
    /// name to the tag).
    pub const fn name(&self) -> &'static str {
        Self::NAMES[self.index()]
    }

    /// The player who took the action.
    pub const fn side(&self) -> Side {
        match *self {
            TableAction::Roll { colour, .. }
            | TableAction::Move { colour, .. }
            | TableAction::Resign { colour }
            | TableAction::OfferDraw { colour }
            | TableAction::AcceptDraw { colour }
            | TableAction::DeclineDraw { colour }
            | TableAction::WithdrawDraw { colour }
            | TableAction::Forfeit { colour, .. } => colour,
        }
    }

    /// The same action of a two-player `plyyard` game, if its player has a `plyyard` colour.
    pub const fn to_plyyard(self) -> Option<Action> {
        let Some(colour) = self.side().colour() else {
            return None;
        };
        Some(match self {
            TableAction::Roll { value, .. } => Action::Roll { colour, value },
            TableAction::Move { plane, .. } => Action::Move { colour, plane },
            TableAction::Resign { .. } => Action::Resign { colour },
            TableAction::OfferDraw { .. } => Action::OfferDraw { colour },
            TableAction::AcceptDraw { .. } => Action::AcceptDraw { colour },
            TableAction::DeclineDraw { .. } => Action::DeclineDraw { colour },
            TableAction::WithdrawDraw { .. } => Action::WithdrawDraw { colour },
            TableAction::Forfeit { reason, .. } => Action::Forfeit { colour, reason },
        })
    }
}

impl From<Action> for TableAction {
    fn from(action: Action) -> TableAction {
        match action {
            Action::Roll { colour, value } => TableAction::Roll {
                colour: colour.into(),
                value,
            },
            Action::Move { colour, plane } => TableAction::Move {
                colour: colour.into(),
                plane,
            },
            Action::Resign { colour } => TableAction::Resign {
                colour: colour.into(),
            },
            Action::OfferDraw { colour } => TableAction::OfferDraw {
                colour: colour.into(),
            },
            Action::AcceptDraw { colour } => TableAction::AcceptDraw {
                colour: colour.into(),
            },
            Action::DeclineDraw { colour } => TableAction::DeclineDraw {
                colour: colour.into(),
            },
            Action::WithdrawDraw { colour } => TableAction::WithdrawDraw {
                colour: colour.into(),
            },
            Action::Forfeit { colour, reason } => TableAction::Forfeit {
                colour: colour.into(),
                reason,
            },
        }
    }
}

impl Table {
    /// Applies one action; on error the table is unchanged.
    pub fn apply(&mut self, action: TableAction) -> Result<TableEvents, RuleError> {
        match action {
            TableAction::Roll { colour, value } => self.roll(colour, value),
            TableAction::Move { colour, plane } => self.move_plane(colour, plane),
            TableAction::Resign { colour } => self.resign(colour),
            TableAction::OfferDraw { colour } => self.offer_draw(colour),
            TableAction::AcceptDraw { colour } => self.accept_draw(colour),
            TableAction::DeclineDraw { colour } => self.decline_draw(colour),
            TableAction::WithdrawDraw { colour } => self.withdraw_draw(colour),
            TableAction::Forfeit { colour, reason } => self.forfeit(colour, reason),
        }
    }

    /// Replays an action log from the initial position of `rules` with `players` players,
    /// returning the final table; stops at the first refused action.
    pub fn replay<I>(rules: Rules, players: usize, actions: I) -> Result<Table, TableReplayError>
    where
        I: IntoIterator<Item = TableAction>,
    {
        let mut table = Table::new(rules, players).map_err(TableReplayError::Table)?;
        for (index, action) in actions.into_iter().enumerate() {
            table
                .apply(action)
                .map_err(|error| TableReplayError::Refused {
                    index,
                    action,
                    error,
                })?;
        }
        Ok(table)
    }
}

/// Why a table's action log does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableReplayError {
    /// The edition does not seat that many players.
    #[error("{0}")]
    Table(TablePositionError),
    /// An action the rules refused at its point in the game.
    #[error("action {index} ({action:?}) was refused: {error}")]
    Refused {
        /// The position of the refused action in the log, from 0.
        index: usize,
        /// The refused action.
        action: TableAction,
        /// Why it was refused.
        error: RuleError,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Colour;

    #[test]
    fn a_plyyard_action_goes_to_a_table_action_and_back() {
        let action = Action::Forfeit {
            colour: Colour::Yellow,
            reason: Forfeit::Timeout,
        };
        assert_eq!(TableAction::from(action).to_plyyard(), Some(action));
        let blue = TableAction::Resign { colour: Side::Blue };
        assert_eq!(blue.to_plyyard(), None);
    }

    #[test]
    fn a_four_player_log_replays_and_a_refused_action_is_named() {
        let six = Die::new(6).unwrap();
        let log = [
            TableAction::Roll {
                colour: Side::Red,
                value: six,
            },
            TableAction::Move {
                colour: Side::Red,
                plane: Plane::new(0).unwrap(),
            },
            TableAction::Resign {
                colour: Side::Green,
            },
        ];
        let table = Table::replay(Rules::FLIGHTS, 4, log).unwrap();
        assert!(!table.in_play(Side::Green));
        assert_eq!(table.place(Side::Green), Some(4));
        let error = Table::replay(Rules::FLIGHTS, 4, [log[1]]).unwrap_err();
        assert!(matches!(error, TableReplayError::Refused { index: 0, .. }));
        assert!(Table::replay(Rules::PLYYARD, 3, []).is_err());
    }
}
