//! A connection's deadlines in one timer: the join, the next ping and the end of the silence.
//!
//! Why one timer: a ping interval polled, a silence timer polled and a join timer made at every
//! frame a connection read cost about 1% of the server's CPU in the closed loop (each poll
//! registers the task with a timer in the runtime's wheel). Here the connection's task keeps
//! one timer set to the earliest deadline and asks what is due only when it fires; a frame read
//! just notes the time.

use std::time::Duration;

use tokio::time::Instant;

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
    /// When the last frame was read (or the connection opened).
    heard: Instant,
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
            heard: now,
        }
    }

    /// A frame was read at `now`: the silence counts from here.
    pub(super) fn heard(&mut self, now: Instant) {
        self.heard = now;
    }

    /// When the timer should fire next: the earliest of the next ping, the end of the silence
    /// and, until the connection joined, the join deadline.
    pub(super) fn next(&self, joined: bool) -> Instant {
        let next = self.next_ping.min(self.heard + self.silence);
        if joined { next } else { next.min(self.join_by) }
    }

    /// What is due at `now`, the join first, then the silence, then the ping. A ping due moves
    /// the next one a whole interval on from `now` (a late wake-up does not bunch pings).
    pub(super) fn due(&mut self, now: Instant, joined: bool) -> Due {
        if !joined && now >= self.join_by {
            return Due::JoinLate;
        }
        if now >= self.heard + self.silence {
            return Due::Silent;
        }
        if now >= self.next_ping {
            self.next_ping = now + self.ping_every;
            return Due::Ping;
        }
        Due::Nothing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[tokio::test(start_paused = true)]
    async fn the_timer_is_set_to_the_earliest_deadline_and_the_join_stops_counting_once_joined() {
        let start = Instant::now();
        let timers = Timers::new(10 * SECOND, 20 * SECOND, 5 * SECOND);
        assert_eq!(timers.next(false), start + 5 * SECOND);
        assert_eq!(timers.next(true), start + 10 * SECOND);
    }

    #[tokio::test(start_paused = true)]
    async fn pings_are_due_an_interval_apart_and_silence_counts_from_the_last_frame() {
        let start = Instant::now();
        let mut timers = Timers::new(10 * SECOND, 20 * SECOND, 5 * SECOND);
        assert_eq!(timers.due(start + 4 * SECOND, false), Due::Nothing);
        assert_eq!(timers.due(start + 5 * SECOND, false), Due::JoinLate);
        // Joined: the join deadline no longer counts.
        assert_eq!(timers.due(start + 5 * SECOND, true), Due::Nothing);
        // A late wake-up: the next ping is an interval after it.
        assert_eq!(timers.due(start + 12 * SECOND, true), Due::Ping);
        assert_eq!(timers.next(true), start + 20 * SECOND);
        timers.heard(start + 15 * SECOND);
        assert_eq!(timers.due(start + 20 * SECOND, true), Due::Nothing);
        assert_eq!(timers.next(true), start + 22 * SECOND);
        assert_eq!(timers.due(start + 22 * SECOND, true), Due::Ping);
        assert_eq!(timers.next(true), start + 32 * SECOND);
        assert_eq!(timers.due(start + 32 * SECOND, true), Due::Ping);
        // Silent for 20 s after the frame read at 15 s.
        assert_eq!(timers.next(true), start + 35 * SECOND);
        assert_eq!(timers.due(start + 34 * SECOND, true), Due::Nothing);
        assert_eq!(timers.due(start + 35 * SECOND, true), Due::Silent);
    }
}
