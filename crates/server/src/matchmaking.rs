//! The quick-match pool: players waiting for an opponent, paired by rating.
//!
//! A request waits in the pool for the matching window (`--quick-match-window-ms`) before it is
//! *due*. A due waiter is paired with the waiter of the closest rating among all the others
//! (ties: the one waiting longest); one who is alone stays due, and the next request to arrive
//! pairs it at once. So with a window of 0 the first two requests pair as soon as the second
//! arrives, and with a longer window several players who arrive close together are each paired
//! with the closest rating. An anonymous player counts as 1500 (a new player's rating); two
//! requests of the same identified player are never paired with each other.
//!
//! Kept apart from the HTTP handler (`http/quick_match.rs`) so that the server's shared state
//! holds it without depending on the HTTP layer.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use aeroplane_dice::ClientSeed;
use aeroplane_protocol::api::QuickMatched;
use aeroplane_protocol::name::PlayerName;
use tokio::sync::oneshot;
use tokio::time::Instant;
use uuid::Uuid;

/// The rating an anonymous waiter counts as.
const ANONYMOUS_RATING: f64 = 1500.0;

/// The players waiting for an opponent.
#[derive(Debug, Default)]
pub struct Matchmaker {
    waiting: Mutex<Vec<Waiter>>,
    next_ticket: AtomicU64,
}

/// One quick-match request waiting for an opponent.
#[derive(Debug)]
pub(crate) struct Waiter {
    /// Its ticket, to find and cancel it.
    pub(crate) ticket: u64,
    /// The player's display name.
    pub(crate) name: PlayerName,
    /// The player's dice seed.
    pub(crate) client_seed: ClientSeed,
    /// The identified player, if any.
    pub(crate) player: Option<Uuid>,
    /// The player's rating (`None`: anonymous).
    pub(crate) rating: Option<f64>,
    /// When the window ends and the waiter is due.
    pub(crate) due: Instant,
    /// Where its answer goes once paired.
    pub(crate) reply: oneshot::Sender<QuickMatched>,
}

impl Waiter {
    fn rating(&self) -> f64 {
        self.rating.unwrap_or(ANONYMOUS_RATING)
    }

    fn may_meet(&self, other: &Waiter) -> bool {
        self.ticket != other.ticket
            && !other.reply.is_closed()
            && (self.player.is_none() || self.player != other.player)
    }
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

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Waiter>> {
        self.waiting.lock().expect("matchmaker lock poisoned")
    }

    /// Adds a request to the pool; if a waiter is due already, pairs it at once with the
    /// closest rating (which may or may not be the newcomer). Answers the pair, the due waiter
    /// first.
    pub(crate) fn arrive(&self, waiter: Waiter, now: Instant) -> Option<(Waiter, Waiter)> {
        let mut waiting = self.lock();
        waiting.retain(|waiter| !waiter.reply.is_closed());
        waiting.push(waiter);
        let due = waiting
            .iter()
            .filter(|waiter| waiter.due <= now)
            .min_by_key(|waiter| waiter.due)
            .map(|waiter| waiter.ticket)?;
        pair(&mut waiting, due)
    }

    /// The window of `ticket` ended: pairs it with the closest rating, if it is still waiting
    /// and anyone else is. Answers the pair, `ticket`'s waiter first.
    pub(crate) fn due(&self, ticket: u64) -> Option<(Waiter, Waiter)> {
        let mut waiting = self.lock();
        waiting.retain(|waiter| !waiter.reply.is_closed());
        pair(&mut waiting, ticket)
    }

    /// Gives up waiting; false when the ticket was paired meanwhile.
    pub(crate) fn cancel(&self, ticket: u64) -> bool {
        let mut waiting = self.lock();
        let before = waiting.len();
        waiting.retain(|waiter| waiter.ticket != ticket);
        waiting.len() != before
    }
}

/// Takes `ticket`'s waiter and the other waiter of the closest rating (ties: the one waiting
/// longest) out of the pool.
fn pair(waiting: &mut Vec<Waiter>, ticket: u64) -> Option<(Waiter, Waiter)> {
    let me = waiting.iter().position(|waiter| waiter.ticket == ticket)?;
    let rating = waiting[me].rating();
    let other = waiting
        .iter()
        .enumerate()
        .filter(|(_, other)| waiting[me].may_meet(other))
        .min_by(|(_, a), (_, b)| {
            let distance = |waiter: &Waiter| (waiter.rating() - rating).abs();
            distance(a)
                .total_cmp(&distance(b))
                .then(a.due.cmp(&b.due))
                .then(a.ticket.cmp(&b.ticket))
        })
        .map(|(index, _)| index)?;
    // Remove the later index first so the earlier one stays put.
    let (first, second) = if me > other {
        let me = waiting.remove(me);
        (me, waiting.remove(other))
    } else {
        let other = waiting.remove(other);
        (waiting.remove(me), other)
    };
    Some((first, second))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiter(
        matchmaker: &Matchmaker,
        rating: Option<f64>,
        due: Instant,
    ) -> (Waiter, oneshot::Receiver<QuickMatched>) {
        let (reply, answer) = oneshot::channel();
        let waiter = Waiter {
            ticket: matchmaker.ticket(),
            name: PlayerName::parse("Ann").unwrap(),
            client_seed: ClientSeed::default(),
            player: rating.map(|_| Uuid::new_v4()),
            rating,
            due,
            reply,
        };
        (waiter, answer)
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_window_the_second_request_pairs_with_the_first() {
        let matchmaker = Matchmaker::new();
        let now = Instant::now();
        let (first, _a) = waiter(&matchmaker, None, now);
        let first_ticket = first.ticket;
        assert!(matchmaker.arrive(first, now).is_none());
        assert!(matchmaker.due(first_ticket).is_none(), "alone");
        let (second, _b) = waiter(&matchmaker, Some(2400.0), now);
        let (a, b) = matchmaker.arrive(second, now).expect("paired");
        assert_eq!(a.ticket, first_ticket);
        assert_eq!(b.rating, Some(2400.0));
    }

    #[tokio::test(start_paused = true)]
    async fn a_due_waiter_takes_the_closest_rating_of_several() {
        let matchmaker = Matchmaker::new();
        let now = Instant::now();
        let later = now + std::time::Duration::from_secs(1);
        let (high, _a) = waiter(&matchmaker, Some(1662.0), later);
        let (low, _b) = waiter(&matchmaker, Some(1338.0), later);
        let (middle, _c) = waiter(&matchmaker, Some(1500.0), later);
        let (high_ticket, middle_ticket) = (high.ticket, middle.ticket);
        for waiter in [high, low, middle] {
            assert!(
                matchmaker.arrive(waiter, now).is_none(),
                "nobody is due yet"
            );
        }
        let (a, b) = matchmaker.due(high_ticket).expect("paired");
        assert_eq!((a.ticket, b.ticket), (high_ticket, middle_ticket));
    }

    #[tokio::test(start_paused = true)]
    async fn a_player_is_never_paired_with_themself() {
        let matchmaker = Matchmaker::new();
        let now = Instant::now();
        let (one, _a) = waiter(&matchmaker, Some(1500.0), now);
        let (mut two, _b) = waiter(&matchmaker, Some(1500.0), now);
        two.player = one.player;
        assert!(matchmaker.arrive(one, now).is_none());
        assert!(matchmaker.arrive(two, now).is_none());
    }
}
