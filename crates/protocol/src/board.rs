//! [`Board`]: the game a room plays, of any edition and player count, as one type.
//!
//! A two-player `plyyard` room plays the rules crate's [`Game`] and speaks protocol 1, exactly as
//! it always has; a room of any other edition or player count plays a [`Table`] and speaks
//! protocol 2 (`docs/protocol.md` §12). Everything above the rules (the server's timeline, the
//! follower of a room, the clients) asks a `Board`, so the difference between the two is written
//! once, here: which rules type applies an action, which wire events tell it, and how the
//! result reads.

use aeroplane_rules::{
    Die, Events, Game, Phase, PlaneSet, RuleError, Rules, Side, Table, TableAction, TableEvents,
    TablePhase, TablePositionError,
};

use crate::events::{
    Reveal, table_wire_event_count, table_wire_events, wire_event_count, wire_events,
};
use crate::record::ResultRecord;
use crate::server::ServerMessage;

/// The game of a room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Board {
    /// A two-player `plyyard` game (protocol 1).
    Plyyard(Game),
    /// A game of any other edition or player count (protocol 2).
    Table(Table),
}

/// What one action did, as the rules told it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardEvents {
    /// A `plyyard` game's events.
    Plyyard(Events),
    /// A table's events.
    Table(TableEvents),
}

/// What a board waits for, in either edition's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardPhase {
    /// The player to act must roll.
    AwaitingRoll,
    /// The player to act must choose one of `legal` for `roll`.
    AwaitingMove {
        /// The value rolled and not yet played.
        roll: Die,
        /// The planes that may move for it (every plane of a `classic` stack).
        legal: PlaneSet,
    },
    /// The game has ended.
    Over,
}

impl Default for Board {
    fn default() -> Board {
        Board::Plyyard(Game::new())
    }
}

impl Board {
    /// The initial position of `rules` with `players` players: a [`Game`] for two-player
    /// `plyyard`, a [`Table`] otherwise.
    pub fn new(rules: Rules, players: usize) -> Result<Board, TablePositionError> {
        if rules == Rules::PLYYARD && players == 2 {
            return Ok(Board::Plyyard(Game::new()));
        }
        Table::new(rules, players).map(Board::Table)
    }

    /// Whether this is a table (protocol 2) rather than a two-player `plyyard` game.
    pub const fn is_table(&self) -> bool {
        matches!(self, Board::Table(_))
    }

    /// The protocol version of a room playing this board.
    pub const fn protocol(&self) -> u32 {
        match self {
            Board::Plyyard(_) => crate::PROTOCOL_VERSION,
            Board::Table(_) => crate::TABLE_PROTOCOL_VERSION,
        }
    }

    /// The edition and its options.
    pub const fn rules(&self) -> Rules {
        match self {
            Board::Plyyard(_) => Rules::PLYYARD,
            Board::Table(table) => table.rules(),
        }
    }

    /// How many players sit at the board.
    pub fn players(&self) -> usize {
        match self {
            Board::Plyyard(_) => 2,
            Board::Table(table) => table.players(),
        }
    }

    /// The seated colours in turn order.
    pub fn sides(&self) -> &'static [Side] {
        Rules::seating(self.players())
    }

    /// The player to act (after the game: the one who would have).
    pub fn to_act(&self) -> Side {
        match self {
            Board::Plyyard(game) => game.to_act().into(),
            Board::Table(table) => table.to_act(),
        }
    }

    /// What the board waits for.
    pub fn phase(&self) -> BoardPhase {
        match self {
            Board::Plyyard(game) => match game.phase() {
                Phase::AwaitingRoll => BoardPhase::AwaitingRoll,
                Phase::AwaitingMove { roll, legal } => BoardPhase::AwaitingMove { roll, legal },
                Phase::Over(_) => BoardPhase::Over,
            },
            Board::Table(table) => match table.phase() {
                TablePhase::AwaitingRoll => BoardPhase::AwaitingRoll,
                TablePhase::AwaitingMove { roll, legal } => {
                    BoardPhase::AwaitingMove { roll, legal }
                }
                TablePhase::Over(_) => BoardPhase::Over,
            },
        }
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        match self {
            Board::Plyyard(game) => game.is_over(),
            Board::Table(table) => table.is_over(),
        }
    }

    /// Whether `side` is seated and still playing (not out with a place).
    pub fn in_play(&self, side: Side) -> bool {
        match self {
            Board::Plyyard(game) => side.colour().is_some() && !game.is_over(),
            Board::Table(table) => table.in_play(side),
        }
    }

    /// Refuses a roll by `side` that the rules would refuse, without rolling.
    pub fn check_roll(&self, side: Side) -> Result<(), RuleError> {
        match self {
            Board::Plyyard(game) => game.check_roll(side.colour().ok_or(RuleError::NotYourTurn)?),
            Board::Table(table) => table.check_roll(side),
        }
    }

    /// Applies one action; on error the board is unchanged. A `plyyard` game refuses an action
    /// of a colour it does not seat as not that player's turn.
    pub fn apply(&mut self, action: TableAction) -> Result<BoardEvents, RuleError> {
        match self {
            Board::Plyyard(game) => {
                let action = action.to_plyyard().ok_or(RuleError::NotYourTurn)?;
                game.apply(action).map(BoardEvents::Plyyard)
            }
            Board::Table(table) => table.apply(action).map(BoardEvents::Table),
        }
    }

    /// How the game ended, once it has: the winner and reason, and at a table every place.
    pub fn result(&self) -> Option<ResultRecord> {
        match self {
            Board::Plyyard(game) => game
                .outcome()
                .map(|outcome| ResultRecord::plyyard(outcome.winner, outcome.reason)),
            Board::Table(table) => ResultRecord::of_table(table),
        }
    }

    /// The position in its notation: `rules.md` §7 for `plyyard`, the editions' line
    /// (`docs/rules/README.md`) for a table.
    pub fn notation(&self) -> String {
        match self {
            Board::Plyyard(game) => game.to_string(),
            Board::Table(table) => table.notation(),
        }
    }

    /// The wire events of `action`, whose rules events are `events`, numbered from
    /// `next_event`; the board is the position after the action. `reveal` is asked only when
    /// the events end the game.
    pub fn wire_events(
        &self,
        action: TableAction,
        events: &BoardEvents,
        next_event: u64,
        reveal: impl FnOnce() -> Reveal,
    ) -> Vec<ServerMessage> {
        match events {
            BoardEvents::Plyyard(events) => wire_events(events, next_event, reveal),
            BoardEvents::Table(events) => table_wire_events(
                action,
                events,
                next_event,
                || {
                    self.result()
                        .expect("a game_over comes from a finished table")
                },
                reveal,
            ),
        }
    }
}

impl BoardEvents {
    /// How many numbered wire events these make.
    pub fn wire_event_count(&self) -> u64 {
        match self {
            BoardEvents::Plyyard(events) => wire_event_count(events),
            BoardEvents::Table(events) => table_wire_event_count(events),
        }
    }
}

#[cfg(test)]
mod tests {
    use aeroplane_rules::{Plane, Ruleset};

    use super::*;

    #[test]
    fn two_player_plyyard_is_a_game_and_everything_else_a_table() {
        assert!(!Board::new(Rules::PLYYARD, 2).unwrap().is_table());
        for ruleset in [Ruleset::Flights, Ruleset::Classic] {
            for players in 2..=4 {
                let board = Board::new(Rules::new(ruleset), players).unwrap();
                assert!(board.is_table());
                assert_eq!(board.protocol(), 2);
                assert_eq!(board.sides().len(), players);
            }
        }
        assert!(Board::new(Rules::PLYYARD, 3).is_err());
    }

    #[test]
    fn a_plyyard_board_refuses_blue_and_a_table_tells_a_launch_step_by_step() {
        let mut board = Board::default();
        let blue = TableAction::Resign { colour: Side::Blue };
        assert_eq!(board.apply(blue), Err(RuleError::NotYourTurn));

        let mut board = Board::new(Rules::FLIGHTS, 4).unwrap();
        let six = Die::new(6).unwrap();
        let roll = TableAction::Roll {
            colour: Side::Red,
            value: six,
        };
        let events = board.apply(roll).unwrap();
        assert_eq!(events.wire_event_count(), 1);
        let launch = TableAction::Move {
            colour: Side::Red,
            plane: Plane::new(0).unwrap(),
        };
        let events = board.apply(launch).unwrap();
        let wire = board.wire_events(launch, &events, 5, || unreachable!());
        assert!(matches!(wire[0], ServerMessage::Launched(_)), "{wire:?}");
        assert!(
            matches!(wire.last(), Some(ServerMessage::ExtraRoll(_))),
            "{wire:?}"
        );
        assert_eq!(wire[0].event(), Some(5));
    }

    #[test]
    fn a_resignation_of_one_of_four_is_a_player_out_and_play_goes_on() {
        let mut board = Board::new(Rules::CLASSIC, 4).unwrap();
        let resign = TableAction::Resign {
            colour: Side::Green,
        };
        let events = board.apply(resign).unwrap();
        let wire = board.wire_events(resign, &events, 1, || unreachable!());
        let ServerMessage::PlayerOut(out) = &wire[0] else {
            panic!("{wire:?}")
        };
        assert_eq!((out.colour, out.place), (Side::Green, 4));
        assert_eq!(out.reason, aeroplane_rules::EndReason::Resigned);
        assert!(!board.is_over());
    }
}
