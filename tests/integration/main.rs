//! The top-level integration suite: every test here talks to real servers over real sockets.
//!
//! `support` starts a server on port 0 per test and offers a typed WebSocket client. Set
//! `TEST_LOG=1` to see the server's logs.

mod broker;
mod child;
mod client;
mod clock;
mod cluster_failover;
mod cluster_forward;
mod cluster_journal;
mod cluster_outages;
mod cluster_partition;
mod cluster_quick_match;
mod computer;
mod data_dir;
mod db;
mod deploy;
mod draw;
mod edge;
mod errors;
mod fairness;
mod games_api;
mod games_tables;
mod health;
mod hint;
mod hostile;
mod identity;
mod journals;
mod limits;
mod live_view;
mod local;
mod names;
mod netns;
mod openapi;
mod ops;
mod persistence;
mod play;
mod quick_match;
mod ratings;
mod reconnect;
mod relay;
mod resign;
mod restart;
mod restored;
mod room_limits;
mod secrecy;
mod soak;
mod spectator;
mod support;
mod tables;
mod telemetry;
mod timeouts;
mod undo;
mod waiting_restart;
