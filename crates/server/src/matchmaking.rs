//! The quick-match pool: players waiting for an opponent, paired by rating.
//!
//! An identified player's request waits in the pool for the matching window
//! (`--quick-match-window-ms`) before it is *due*; an anonymous one is due at once (it has no
//! rating to match). The HTTP handler sets when each waiter is due. A due waiter is paired with the waiter of the closest rating among all the others
//! (ties: the one waiting longest); one who is alone stays due, and the next request to arrive
//! pairs it at once. So with a window of 0 the first two requests pair as soon as the second
//! arrives, and with a longer window several players who arrive close together are each paired
//! with the closest rating. An anonymous player counts as 1500 (a new player's rating); two
//! requests of the same identified player are never paired with each other.
//!
//! Every edition and player count has its own queue ([`Queue`]): only waiters of one queue meet.
//! The queues of the other editions and of three or four players are not rated: their waiters
//! are due at once and form a game, oldest first, as soon as the queue holds as many waiters as
//! the game seats (a four-player queue fills when four wait). Until then each waits, and after
//! the wait it is answered `no_match` like a lone waiter of the two-player queue.
//!
//! Kept apart from the HTTP handler (`http/quick_match.rs`) so that the server's shared state
//! holds it without depending on the HTTP layer.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use aeroplane_dice::{ClientSeed, ServerSeed};
use aeroplane_protocol::api::QuickMatched;
use aeroplane_protocol::board::Board;
use aeroplane_protocol::name::PlayerName;
use aeroplane_protocol::record::Mode;
use aeroplane_rules::Rules;
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;
use tokio::time::Instant;
use uuid::Uuid;

use crate::room::{self, RoomContext, SeatSetup};
use crate::token::SeatToken;

/// The rating an anonymous waiter counts as.
const ANONYMOUS_RATING: f64 = 1500.0;

/// The players waiting for an opponent.
#[derive(Debug, Default)]
pub struct Matchmaker {
    waiting: Mutex<Vec<Waiter>>,
    next_ticket: AtomicU64,
}

/// The game a waiter wants: an edition with its house rules and a player count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Queue {
    /// The edition.
    pub(crate) rules: Rules,
    /// How many players the game seats.
    pub(crate) players: usize,
}

impl Queue {
    /// Two-player `plyyard`, the queue paired by rating.
    pub(crate) const PLYYARD: Queue = Queue {
        rules: Rules::PLYYARD,
        players: 2,
    };
}

/// A quick-match request, as the HTTP handler hands it to a pool (this node's or the
/// cluster's).
#[derive(Debug)]
pub(crate) struct Wanted {
    /// The game wanted.
    pub(crate) queue: Queue,
    /// The player's display name.
    pub(crate) name: PlayerName,
    /// The player's dice seed.
    pub(crate) client_seed: ClientSeed,
    /// The identified player, if any.
    pub(crate) player: Option<Uuid>,
    /// The player's rating (`None`: anonymous).
    pub(crate) rating: Option<f64>,
    /// When it arrived.
    pub(crate) arrived: Instant,
    /// When the matching window ends.
    pub(crate) window_end: Instant,
    /// When the request gives up (`no_match`).
    pub(crate) deadline: Instant,
}

/// One quick-match request waiting for an opponent.
#[derive(Debug)]
pub(crate) struct Waiter {
    /// Its ticket, to find and cancel it.
    pub(crate) ticket: u64,
    /// The game it waits for.
    pub(crate) queue: Queue,
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
            && self.queue == other.queue
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

    /// Adds a request to the pool. In the two-player `plyyard` queue, if a waiter is due
    /// already, pairs it at once with the closest rating (which may or may not be the
    /// newcomer), the due waiter first; in any other queue, forms a game of its oldest waiters
    /// once it holds enough. Answers the players of the new game in seating order.
    pub(crate) fn arrive(&self, waiter: Waiter, now: Instant) -> Option<Vec<Waiter>> {
        let mut waiting = self.lock();
        waiting.retain(|waiter| !waiter.reply.is_closed());
        let queue = waiter.queue;
        waiting.push(waiter);
        if queue != Queue::PLYYARD {
            return group(&mut waiting, queue);
        }
        let due = waiting
            .iter()
            .filter(|waiter| waiter.queue == queue && waiter.due <= now)
            .min_by_key(|waiter| waiter.due)
            .map(|waiter| waiter.ticket)?;
        pair(&mut waiting, due).map(|(first, second)| vec![first, second])
    }

    /// The window of `ticket` ended: pairs it with the closest rating, if it is still waiting
    /// and anyone else is. Answers the pair, `ticket`'s waiter first.
    /// Only the two-player `plyyard` queue pairs this way: the others form games on arrival.
    pub(crate) fn due(&self, ticket: u64) -> Option<Vec<Waiter>> {
        let mut waiting = self.lock();
        waiting.retain(|waiter| !waiter.reply.is_closed());
        let mine = waiting.iter().find(|waiter| waiter.ticket == ticket)?;
        if mine.queue != Queue::PLYYARD {
            return None;
        }
        pair(&mut waiting, ticket).map(|(first, second)| vec![first, second])
    }

    /// Gives up waiting; false when the ticket was paired meanwhile.
    pub(crate) fn cancel(&self, ticket: u64) -> bool {
        let mut waiting = self.lock();
        let before = waiting.len();
        waiting.retain(|waiter| waiter.ticket != ticket);
        waiting.len() != before
    }
}

/// Opens a room for the players of a new game (in seating order: the first plays Red) with
/// every seat taken, and answers each; `Err` (a [`room::NotJournaled`] when its journal could not
/// be written) answers none.
pub(crate) async fn open_room(context: &RoomContext, players: Vec<Waiter>) -> anyhow::Result<()> {
    let queue = players
        .first()
        .map_or(Queue::PLYYARD, |waiter| waiter.queue);
    let board = Board::new(queue.rules, queue.players)?;
    let server_seed = ServerSeed::generate()?;
    let id = Uuid::new_v4();
    let mut seats = Vec::new();
    let mut replies = Vec::new();
    for (waiter, colour) in players.into_iter().zip(board.sides()) {
        let token = SeatToken::generate()?;
        let answer = QuickMatched {
            room_id: id,
            colour: *colour,
            token: token.as_str().to_owned(),
            ws_path: format!("/ws/rooms/{id}"),
        };
        replies.push((waiter.reply, answer));
        seats.push(SeatSetup {
            colour: *colour,
            name: waiter.name,
            client_seed: waiter.client_seed,
            token,
            player: waiter.player,
        });
    }
    let setup = room::RoomSetup {
        id,
        mode: Mode::Online,
        board,
        server_seed,
        seats,
        turn_clock: context.config.quick_match_turn_clock(),
        computers: Vec::new(),
    };
    // A room whose journal could not be written is not answered: each waiter's reply is
    // dropped, and its request answers 503 `journal_unavailable`.
    room::open_journaled(setup, context.clone()).await?;
    tracing::info!(room_id = %id, players = replies.len(), "quick match formed a game");
    for (reply, answer) in replies {
        if reply.send(answer).is_err() {
            tracing::info!(room_id = %id, "a quick-match player left just as it was paired");
        }
    }
    Ok(())
}

/// Takes the oldest waiters of `queue` out of the pool, one request per identified player, once
/// there are as many as its game seats.
fn group(waiting: &mut Vec<Waiter>, queue: Queue) -> Option<Vec<Waiter>> {
    let mut chosen: Vec<usize> = Vec::new();
    for (index, waiter) in waiting.iter().enumerate() {
        let taken = |other: &usize| {
            let other = &waiting[*other];
            waiter.player.is_some() && waiter.player == other.player
        };
        if waiter.queue == queue && !chosen.iter().any(taken) {
            chosen.push(index);
        }
        if chosen.len() == queue.players {
            break;
        }
    }
    if chosen.len() < queue.players {
        return None;
    }
    // Remove from the back so the earlier indices stay put, then restore their order.
    let mut players: Vec<Waiter> = chosen
        .iter()
        .rev()
        .map(|index| waiting.remove(*index))
        .collect();
    players.reverse();
    Some(players)
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
    use std::time::Duration;

    use super::*;

    fn waiter(
        matchmaker: &Matchmaker,
        rating: Option<f64>,
        due: Instant,
    ) -> (Waiter, oneshot::Receiver<QuickMatched>) {
        let (reply, answer) = oneshot::channel();
        let waiter = Waiter {
            ticket: matchmaker.ticket(),
            queue: Queue::PLYYARD,
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
        let pair = matchmaker.arrive(second, now).expect("paired");
        assert_eq!(pair[0].ticket, first_ticket);
        assert_eq!(pair[1].rating, Some(2400.0));
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
        let pair = matchmaker.due(high_ticket).expect("paired");
        assert_eq!(
            (pair[0].ticket, pair[1].ticket),
            (high_ticket, middle_ticket)
        );
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

    #[tokio::test(start_paused = true)]
    async fn a_four_player_queue_fills_when_four_of_its_edition_wait() {
        let matchmaker = Matchmaker::new();
        let now = Instant::now();
        let four = Queue {
            rules: Rules::FLIGHTS,
            players: 4,
        };
        let mut answers = Vec::new();
        let mut tickets = Vec::new();
        for index in 0..4 {
            let (mut next, answer) = waiter(&matchmaker, None, now);
            next.queue = four;
            tickets.push(next.ticket);
            answers.push(answer);
            // A two-player waiter between them is not taken into the four-player game.
            let (plyyard, answer) = waiter(&matchmaker, None, now + Duration::from_secs(60));
            answers.push(answer);
            assert!(matchmaker.arrive(plyyard, now).is_none());
            let formed = matchmaker.arrive(next, now);
            if index < 3 {
                assert!(formed.is_none(), "{index} wait");
            } else {
                let game = formed.expect("four wait");
                let order: Vec<u64> = game.iter().map(|waiter| waiter.ticket).collect();
                assert_eq!(order, tickets, "oldest first, in seating order");
            }
        }
    }
}
