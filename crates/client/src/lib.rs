//! A typed client for the Aeroplane Chess server, and the pieces of the `aeroplane` tool.
//!
//! - [`verify_record`]: check a finished game's dice and moves without trusting the server.
//! - [`render`]: the board as text for a terminal.
//! - [`Api`]: the server's HTTP API (rooms, stored games).
#![forbid(unsafe_code)]

mod api;
pub mod render;
mod verify;

pub use api::{Api, ApiError};
pub use verify::{VerifyError, VerifyReport, verify_record};
