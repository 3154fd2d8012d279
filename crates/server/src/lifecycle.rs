//! The server's life: serving, draining, stopped; and the work a shutdown must wait for.
//!
//! Draining starts with SIGTERM (or Ctrl-C): `GET /readyz` answers 503, new rooms and new
//! WebSockets are refused with 503, and every room is told to stop. A stopping room closes its
//! connections with 1001 `shutting_down` and leaves its game in its journal for the next start.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use tokio::sync::watch;

/// Shared by the HTTP handlers, the rooms and the shutdown sequence.
#[derive(Debug)]
pub struct Lifecycle {
    draining: AtomicBool,
    stop: watch::Sender<bool>,
    submits: AtomicUsize,
}

impl Default for Lifecycle {
    fn default() -> Lifecycle {
        Lifecycle {
            draining: AtomicBool::new(false),
            stop: watch::Sender::new(false),
            submits: AtomicUsize::new(0),
        }
    }
}

impl Lifecycle {
    /// Whether the server is shutting down (refusing new rooms and connections).
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// Starts draining and tells every room to stop.
    pub fn drain(&self) {
        self.draining.store(true, Ordering::SeqCst);
        self.stop.send_replace(true);
    }

    /// A receiver that turns `true` when rooms must stop.
    pub fn stopping(&self) -> watch::Receiver<bool> {
        self.stop.subscribe()
    }

    /// Counts a finished game's record on its way into the outbox, until the guard drops.
    pub fn submitting(&self) -> SubmitGuard<'_> {
        self.submits.fetch_add(1, Ordering::SeqCst);
        SubmitGuard(self)
    }

    /// Records still on their way into the outbox.
    pub fn submits_in_flight(&self) -> usize {
        self.submits.load(Ordering::SeqCst)
    }
}

/// See [`Lifecycle::submitting`].
#[derive(Debug)]
pub struct SubmitGuard<'a>(&'a Lifecycle);

impl Drop for SubmitGuard<'_> {
    fn drop(&mut self) {
        self.0.submits.fetch_sub(1, Ordering::SeqCst);
    }
}
