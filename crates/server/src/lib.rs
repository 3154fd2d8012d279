//! The authoritative online server for Aeroplane Chess.
//!
//! Bird's-eye view: HTTP handlers ([`http`]) create rooms and read finished games; each room
//! ([`room`]) is a tokio task that owns its game, dice, seats and event log and reads an inbox;
//! WebSocket connections ([`ws`]) decode frames and send them to their room's inbox, and write
//! what the room queues for them. The [`registry`] maps room ids to inboxes. Only
//! `aeroplane-protocol` knows the JSON shapes; only `aeroplane-rules` decides what is legal.
//!
//! Invariants: no lock around a game; a room never awaits a client (bounded queues, `try_send`,
//! a client that falls behind is dropped); bad input gets an error code, never a panic.
// One module writes through a memory map (`room/journal/file/mapped.rs`) and allows unsafe code
// for it, with the argument for its soundness; nothing else may.
#![deny(unsafe_code)]

pub mod app;
pub mod cluster;
pub mod config;
pub mod error;
pub mod http;
pub mod identity;
pub mod lifecycle;
pub mod limits;
pub mod logging;
pub mod matchmaking;
pub mod metrics;
pub mod outgoing;
pub mod probe;
pub mod room;
pub mod serve;
pub mod state;
pub mod telemetry;
pub mod token;
pub mod ws;

pub use app::{RunningServer, serve};
pub use config::Config;
