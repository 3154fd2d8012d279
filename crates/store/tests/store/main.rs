//! The store suite: every store passes the same contract, the outbox keeps its promises.
//!
//! PostgreSQL runs when `TEST_DATABASE_URL` is set (see `support/stores.rs`).
// A test binary exports nothing: `pub` here only means "shared between the suite's modules".
#![allow(unreachable_pub)]

#[macro_use]
mod contract;
mod crash;
mod migrate;
mod open;
mod outbox;
mod players;
mod support;
mod tables;
