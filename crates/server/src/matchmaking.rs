//! The quick-match queue: the one player waiting for an opponent, paired with the next.
//!
//! Kept apart from the HTTP handler (`http/quick_match.rs`) so that the server's shared state
//! holds it without depending on the HTTP layer.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use aeroplane_dice::ClientSeed;
use aeroplane_protocol::api::QuickMatched;
use aeroplane_protocol::name::PlayerName;
use tokio::sync::oneshot;

/// The one player waiting for an opponent, if any.
#[derive(Debug, Default)]
pub struct Matchmaker {
    waiting: Mutex<Option<Waiter>>,
    next_ticket: AtomicU64,
}

/// One quick-match request waiting for an opponent.
#[derive(Debug)]
pub(crate) struct Waiter {
    /// Its ticket, to cancel it.
    pub(crate) ticket: u64,
    /// The player's display name.
    pub(crate) name: PlayerName,
    /// The player's dice seed.
    pub(crate) client_seed: ClientSeed,
    /// Where its answer goes once paired.
    pub(crate) reply: oneshot::Sender<QuickMatched>,
}

impl Matchmaker {
    /// A matchmaker with nobody waiting.
    pub fn new() -> Matchmaker {
        Matchmaker::default()
    }

    /// A new ticket for a request.
    pub(crate) fn ticket(&self) -> u64 {
        self.next_ticket.fetch_add(1, Ordering::Relaxed)
    }

    /// Takes the live waiter, or queues this request as the waiter.
    pub(crate) fn pair_or_wait(&self, waiter: Waiter) -> Option<(Waiter, Waiter)> {
        let mut waiting = self.waiting.lock().expect("matchmaker lock poisoned");
        match waiting.take() {
            Some(first) if !first.reply.is_closed() => Some((first, waiter)),
            _ => {
                *waiting = Some(waiter);
                None
            }
        }
    }

    /// Gives up waiting; false when the ticket was paired meanwhile.
    pub(crate) fn cancel(&self, ticket: u64) -> bool {
        let mut waiting = self.waiting.lock().expect("matchmaker lock poisoned");
        if waiting
            .as_ref()
            .is_some_and(|waiter| waiter.ticket == ticket)
        {
            *waiting = None;
            true
        } else {
            false
        }
    }
}
