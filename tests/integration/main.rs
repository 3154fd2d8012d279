//! The top-level integration suite: every test here talks to real servers over real sockets.
//!
//! `support` starts a server on port 0 per test and offers a typed WebSocket client. Set
//! `TEST_LOG=1` to see the server's logs.

mod draw;
mod errors;
mod fairness;
mod games_api;
mod play;
mod quick_match;
mod reconnect;
mod resign;
mod spectator;
mod support;
