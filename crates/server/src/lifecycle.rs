//! The server's life: serving, draining, stopped; and the work a shutdown must wait for.
//!
//! Draining starts with SIGTERM (or Ctrl-C): `GET /readyz` answers 503, new rooms and new
//! WebSockets are refused with 503, and every room is told to stop (by the registry, which knows
//! them all). A stopping room closes its connections with 1001 `shutting_down` and leaves its
//! game in its journal for the next start. The shutdown waits, by channel and never by polling,
//! for the rooms to close and for the finished games' records on their way into the outbox.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::watch;

/// Shared by the HTTP handlers, the rooms and the shutdown sequence.
#[derive(Debug)]
pub struct Lifecycle {
    draining: AtomicBool,
    stop: watch::Sender<bool>,
    /// How many finished games' records are on their way into the outbox.
    submits: watch::Sender<usize>,
}

impl Default for Lifecycle {
    fn default() -> Lifecycle {
        Lifecycle {
            draining: AtomicBool::new(false),
            stop: watch::Sender::new(false),
            submits: watch::Sender::new(0),
        }
    }
}

impl Lifecycle {
    /// Whether the server is shutting down (refusing new rooms and connections).
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// Starts draining and tells whatever watches [`Lifecycle::stopping`] to stop. (Rooms are
    /// stopped by the registry, `Registry::stop_all`, which the shutdown calls next.)
    pub fn drain(&self) {
        self.draining.store(true, Ordering::SeqCst);
        self.stop.send_replace(true);
    }

    /// A receiver that turns `true` when the node drains: the cluster's takeovers, election and
    /// forwarding proxies stop then.
    pub fn stopping(&self) -> watch::Receiver<bool> {
        self.stop.subscribe()
    }

    /// Counts a finished game's record on its way into the outbox, until the guard drops.
    pub fn submitting(self: &Arc<Lifecycle>) -> SubmitGuard {
        self.submits.send_modify(|count| *count += 1);
        SubmitGuard(self.clone())
    }

    /// Waits until no record is on its way into the outbox.
    pub async fn submitted(&self) {
        let mut submits = self.submits.subscribe();
        // The sender lives as long as `self`, so this cannot fail.
        let _ = submits.wait_for(|count| *count == 0).await;
    }
}

/// See [`Lifecycle::submitting`].
#[derive(Debug)]
pub struct SubmitGuard(Arc<Lifecycle>);

impl Drop for SubmitGuard {
    fn drop(&mut self) {
        self.0.submits.send_modify(|count| *count -= 1);
    }
}
