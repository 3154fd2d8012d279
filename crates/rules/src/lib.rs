//! The rulesets of Aeroplane Chess: the one place that decides what is legal.
//!
//! This crate implements `shared/spec/rules.md` (`plyyard`) and the editions of `docs/rules/`. It is pure on purpose: no I/O,
//! no clock and no randomness (die values come in as arguments), so the server, the bots, the
//! native client's verifier and the tests all ask the same code and always get the same answer.
//!
//! - [`board`]: colours, planes, die values, ring squares, positions.
//! - [`Table`]: the one engine, of every edition (`plyyard`, `flights`, `classic`; `docs/rules/`)
//!   with two to four players: rolls, moves, resignations, forfeits and draw offers, its events,
//!   its notation and [`table_perft`]; [`edition`] holds what differs between the editions as
//!   data.
//! - [`Game`]: a two-player `plyyard` game, the type the server, the bots and the clients play: a
//!   facade over a `plyyard` `Table` that speaks of [`Colour`]s. [`Game::roll`],
//!   [`Game::move_plane`], [`Game::resign`] and the draw actions change it and return [`Events`],
//!   or a [`RuleError`] that leaves it untouched.
//! - [`Action`] and [`Game::replay`]: a game as a log.
//! - [`Game::threats`]: which opposing planes could hit a square next roll.
//! - [`perft()`]: leaf counts of the game tree, which pin the move generator.
//! - The notation of `rules.md` §7 via `Display`/`FromStr`, and (feature `serde`) a stable JSON
//!   form described in `docs/state-json.md`.
#![forbid(unsafe_code)]

mod action;
pub mod board;
pub mod edition;
mod error;
mod event;
mod game;
#[cfg(feature = "serde")]
mod json;
mod notation;
mod perft;
mod table;
mod threats;

pub use action::{Action, ReplayError};
pub use board::{Colour, Die, Plane, PlaneSet, Position, RingIndex};
pub use edition::{Rules, Ruleset, Side};
pub use error::RuleError;
pub use event::{Capture, Event, Events, MAX_EVENTS, PassReason};
pub use game::{DrawState, EndReason, Forfeit, Game, Outcome, Phase, Planes};
#[cfg(feature = "serde")]
pub use json::RULESET;
pub use notation::PositionError;
pub use perft::perft;
pub use table::{
    MAX_TABLE_EVENTS, Seat, Table, TableAction, TableDraw, TableEvent, TableEvents, TableOutcome,
    TablePhase, TablePositionError, TableReplayError, table_perft,
};
pub use threats::Threat;
