//! The running log that `play` and `watch` print: every room event in words, and the board each
//! time a move is complete, so a person reads what happened and then where the planes stand.
//!
//! A two-player `plyyard` move is one `moved` event, after which the board is drawn. A table
//! room tells a move step by step (`launched`, `walked`, `jumped`, ...); drawing the board after
//! each step would repeat it up to five times, so it is drawn once, when the first event that is
//! not a step (`extra_roll`, `turn_passed`, `player_out`, `game_over`) follows them.

use aeroplane_client::render::describe;
use aeroplane_protocol::board::Board;
use aeroplane_protocol::server::ServerMessage;

/// Prints room events as a log, with the board after each complete move.
pub(crate) struct GameLog {
    /// Whether to colour the board (ANSI).
    colour: bool,
    /// Whether steps of a move were printed since the board was last drawn.
    moved: bool,
}

impl GameLog {
    /// A log that colours the board when `colour` is set.
    pub(crate) const fn new(colour: bool) -> GameLog {
        GameLog {
            colour,
            moved: false,
        }
    }

    /// Prints `message` if it is a room event, drawing `board` (the room after it) where a move
    /// is complete. Returns whether anything was printed.
    pub(crate) fn print(&mut self, board: &Board, message: &ServerMessage) -> bool {
        let Some(text) = describe(message).filter(|_| message.event().is_some()) else {
            return false;
        };
        match message {
            ServerMessage::Moved(_) | ServerMessage::Undone(_) => {
                print!("{}", crate::show_board(board, self.colour));
                self.moved = false;
            }
            ServerMessage::Launched(_)
            | ServerMessage::Walked(_)
            | ServerMessage::Jumped(_)
            | ServerMessage::Flew(_)
            | ServerMessage::SentHome(_)
            | ServerMessage::Arrived(_)
            | ServerMessage::ThirdSix(_) => self.moved = true,
            _ if self.moved => {
                print!("{}", crate::show_board(board, self.colour));
                self.moved = false;
            }
            _ => {}
        }
        println!("{text}");
        true
    }
}
