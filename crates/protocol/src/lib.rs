//! Wire types of the Aeroplane Chess server. Only this crate knows the JSON shapes.
//!
//! - [`board`]: the game a room plays, a two-player `plyyard` [`aeroplane_rules::Game`] or a
//!   [`aeroplane_rules::Table`] of any edition, behind one type.
//! - [`client`]: client → server messages and their decoding into precise error codes.
//! - [`server`]: server → client messages; room events carry consecutive event numbers.
//! - [`snapshot`]: the whole state of a room, for joining, reconnecting and resyncing.
//! - [`events`]: the rules crate's events as numbered wire events.
//! - [`follow`]: the room as a client sees it, followed event by event (one follower for all).
//! - [`error`]: stable error codes and WebSocket close codes.
//! - [`api`]: the HTTP API's bodies.
//! - [`record`]: the record of a finished game.
//! - [`name`]: what a player's display name may contain ([`name::PlayerName`]).
//!
//! `docs/protocol.md` describes all of it with an example per message.
#![forbid(unsafe_code)]

pub mod api;
pub mod board;
pub mod client;
pub mod error;
pub mod events;
pub mod follow;
pub mod name;
pub mod openapi;
pub mod record;
pub mod server;
pub mod snapshot;
mod text;

/// The version of this protocol, sent in every `welcome` of a two-player `plyyard` room.
pub const PROTOCOL_VERSION: u32 = 1;

/// The version a room of any other edition or player count speaks (`docs/protocol.md` §12): its
/// moves are told step by step and its colours include Blue and Green. A client that never asks
/// for such a room never sees it.
pub const TABLE_PROTOCOL_VERSION: u32 = 2;
