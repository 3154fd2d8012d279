//! A connection's deadlines in one timer: the join, the next ping and the end of the silence.
//!
//! Why one timer: a ping interval polled, a silence timer polled and a join timer made at every
//! frame a connection read cost about 1% of the server's CPU in the closed loop (each poll
//! registers the task with a timer in the runtime's wheel). Here the connection's task keeps
//! one timer set to the earliest deadline and asks what is due only when it fires; a frame read
//! just notes the time (in the connection's rate limit, which notes it anyway: `heard` below).
//! The timer wakes the task through the connection's closer ([`arm`]), so that the task does not
//! poll it at every frame either.

use std::pin::Pin;
use std::task::{Context, Waker};
use std::time::Duration;

use tokio::time::{Instant, Sleep};

/// What is due when the connection's timer fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Due {
    /// The connection has not joined in time: it is closed.
    JoinLate,
    /// Nothing was read for the whole silence: the client is gone.
    Silent,
    /// Time to ping the client.
    Ping,
    /// Nothing yet (a frame read since moved the silence on).
    Nothing,
}

/// A connection's deadlines.
#[derive(Debug)]
pub(super) struct Timers {
    ping_every: Duration,
    silence: Duration,
    join_by: Instant,
    next_ping: Instant,
}

impl Timers {
    /// The deadlines of a connection opened now: a ping every `ping_every`, closed after
    /// `silence` without a frame read, or `join_within` without a join.
    pub(super) fn new(ping_every: Duration, silence: Duration, join_within: Duration) -> Timers {
        let now = Instant::now();
        Timers {
            ping_every,
            silence,
            join_by: now + join_within,
            next_ping: now + ping_every,
        }
    }

    /// When the timer should fire next: the earliest of the next ping, the end of the silence
    /// that began when a frame was last `heard` (or the connection opened), and, until the
    /// connection joined, the join deadline.
    ///
    /// The caller keeps `heard`: the connection's rate limit notes when each frame was read
    /// anyway, and a second note here was a cache line of its own written at every frame, cold at
    /// 1,000 rooms (issue 18, stop 40).
    pub(super) fn next(&self, joined: bool, heard: Instant) -> Instant {
        let next = self.next_ping.min(heard + self.silence);
        if joined { next } else { next.min(self.join_by) }
    }

    /// What is due at `now`, the join first, then the silence, then the ping. A ping due moves
    /// the next one a whole interval on from `now` (a late wake-up does not bunch pings).
    pub(super) fn due(&mut self, now: Instant, joined: bool, heard: Instant) -> Due {
        if !joined && now >= self.join_by {
            return Due::JoinLate;
        }
        if now >= heard + self.silence {
            return Due::Silent;
        }
        if now >= self.next_ping {
            self.next_ping = now + self.ping_every;
            return Due::Ping;
        }
        Due::Nothing
    }
}

/// Registers the connection's `timer` (just made or reset) with the runtime's timer wheel, to
/// wake the task through its closer (`alarm`) once it fires; wakes it at once if the deadline
/// has passed already. The loop then looks at the timer only when its closer wakes it and the
/// deadline has come: a timer polled in the loop's `select!` wrote its waker slot at every
/// frame read, a cache line of its own, cold at 1,000 rooms (issue 18, stop 40).
pub(super) fn arm(timer: Pin<&mut Sleep>, alarm: &Waker) {
    let mut context = Context::from_waker(alarm);
    // Outside the task's cooperative budget: a budget spent would leave the timer unregistered.
    let timer = std::pin::pin!(tokio::task::unconstrained(timer));
    if timer.poll(&mut context).is_ready() {
        alarm.wake_by_ref();
    }
}

#[cfg(test)]
mod tests {
    use futures_util::FutureExt as _;

    use super::*;
    use crate::outgoing::Closer;

    const SECOND: Duration = Duration::from_secs(1);

    /// A connection's closer and the waker its timer wakes it through.
    fn alarm() -> (std::sync::Arc<Closer>, Waker) {
        let closer = std::sync::Arc::new(Closer::default());
        let alarm = Waker::from(closer.clone());
        (closer, alarm)
    }

    #[tokio::test(start_paused = true)]
    async fn an_armed_timer_wakes_the_closer_when_it_fires_and_not_before() {
        let (closer, alarm) = alarm();
        let start = Instant::now();
        let timer = tokio::time::sleep_until(start + SECOND);
        tokio::pin!(timer);
        arm(timer.as_mut(), &alarm);
        assert!(
            closer.woken().now_or_never().is_none(),
            "woken before the deadline"
        );
        // Nothing polls the timer from here on: only its wake-up reaches the closer.
        closer.woken().await;
        assert_eq!(start.elapsed(), SECOND);
        // Reset and armed again, it fires again.
        timer.as_mut().reset(start + 3 * SECOND);
        arm(timer.as_mut(), &alarm);
        closer.woken().await;
        assert_eq!(start.elapsed(), 3 * SECOND);
    }

    #[tokio::test(start_paused = true)]
    async fn a_timer_armed_past_its_deadline_wakes_the_closer_at_once() {
        let (closer, alarm) = alarm();
        let timer = tokio::time::sleep_until(Instant::now());
        tokio::pin!(timer);
        tokio::time::advance(SECOND).await;
        arm(timer.as_mut(), &alarm);
        assert!(closer.woken().now_or_never().is_some(), "not woken");
    }

    #[tokio::test(start_paused = true)]
    async fn the_timer_is_set_to_the_earliest_deadline_and_the_join_stops_counting_once_joined() {
        let start = Instant::now();
        let timers = Timers::new(10 * SECOND, 20 * SECOND, 5 * SECOND);
        assert_eq!(timers.next(false, start), start + 5 * SECOND);
        assert_eq!(timers.next(true, start), start + 10 * SECOND);
    }

    #[tokio::test(start_paused = true)]
    async fn pings_are_due_an_interval_apart_and_silence_counts_from_the_last_frame() {
        let start = Instant::now();
        let mut timers = Timers::new(10 * SECOND, 20 * SECOND, 5 * SECOND);
        // Nothing heard yet: the silence counts from the start.
        let heard = start;
        assert_eq!(timers.due(start + 4 * SECOND, false, heard), Due::Nothing);
        assert_eq!(timers.due(start + 5 * SECOND, false, heard), Due::JoinLate);
        // Joined: the join deadline no longer counts.
        assert_eq!(timers.due(start + 5 * SECOND, true, heard), Due::Nothing);
        // A late wake-up: the next ping is an interval after it.
        assert_eq!(timers.due(start + 12 * SECOND, true, heard), Due::Ping);
        assert_eq!(timers.next(true, heard), start + 20 * SECOND);
        let heard = start + 15 * SECOND;
        assert_eq!(timers.due(start + 20 * SECOND, true, heard), Due::Nothing);
        assert_eq!(timers.next(true, heard), start + 22 * SECOND);
        assert_eq!(timers.due(start + 22 * SECOND, true, heard), Due::Ping);
        assert_eq!(timers.next(true, heard), start + 32 * SECOND);
        assert_eq!(timers.due(start + 32 * SECOND, true, heard), Due::Ping);
        // Silent for 20 s after the frame read at 15 s.
        assert_eq!(timers.next(true, heard), start + 35 * SECOND);
        assert_eq!(timers.due(start + 34 * SECOND, true, heard), Due::Nothing);
        assert_eq!(timers.due(start + 35 * SECOND, true, heard), Due::Silent);
    }
}
