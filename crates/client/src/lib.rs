//! A typed client for the Aeroplane Chess server, and the pieces of the `aeroplane` tool.
//!
//! - [`verify_record`]: check a finished game's dice and moves without trusting the server, for
//!   every edition (`plyyard`, `flights`, `classic`) and 2 to 4 players.
//! - [`render`]: the board as text for a terminal: the two-player `plyyard` game, and a table of
//!   any edition with up to four colours.
//! - [`terminal`]: text from the server made safe to print ([`terminal::escape`]).
//! - [`Api`]: the server's HTTP API (rooms, quick match, stored games).
//! - [`Client`]: a WebSocket connection to one room: join as a player or spectator, typed
//!   messages, actions with `seen` filled in, [`Client::wait_my_turn`], automatic reconnection
//!   with the seat token.
//!
//! The load generator that drives this client by the thousand lives in its own crate,
//! `aeroplane-loadtest`.
#![forbid(unsafe_code)]

mod api;
mod client;
mod connection;
pub mod render;
pub mod terminal;
mod verify;

/// The computer's levels, which [`Api::create_computer_room`] takes.
pub use aeroplane_bot::Level;
pub use api::{Api, ApiError};
pub use client::{Client, ClientError, ConnectOptions, Turn, is_rate_limited, room_url, ws_url};
pub use verify::{VerifyError, VerifyReport, verify_record};
