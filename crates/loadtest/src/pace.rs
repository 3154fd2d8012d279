//! When each action of one room is due: now (closed loop) or on a fixed schedule (open loop).
//!
//! The schedule is what keeps an open-loop run honest: an action's latency is measured from the
//! time it was due, not from the time it could be sent, so when an answer comes late the wait
//! is charged to every action it pushed back (see the module documentation of `loadtest`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::LoadConfig;

/// One room's schedule.
#[derive(Clone, Debug)]
pub(super) struct Pacer {
    /// The gap between two actions of this room, in an open loop.
    interval: Option<Duration>,
    /// This room's offset within one interval, so rooms do not all act at the same instant.
    phase: Duration,
    /// When the next action is due, in an open loop.
    next: Instant,
    /// In an open loop, the start line every room reaches before its first game's schedule
    /// starts; taken when this room has crossed it.
    start_line: Option<Arc<StartLine>>,
}

impl Pacer {
    /// The schedule of room `room`: rooms are spread evenly over one interval, so a run at a
    /// fixed rate does not send every room's action at the same instant.
    pub(super) fn new(config: &LoadConfig, room: usize, start_line: &Arc<StartLine>) -> Pacer {
        let rooms = config.rooms.max(1);
        let interval = config
            .rate
            .filter(|rate| *rate > 0.0)
            .map(|rate| Duration::from_secs_f64(rooms as f64 / rate));
        let phase = interval.map_or(Duration::ZERO, |interval| {
            interval.mul_f64(room as f64 / rooms as f64)
        });
        Pacer {
            interval,
            phase,
            next: Instant::now() + phase,
            start_line: interval.map(|_| start_line.clone()),
        }
    }

    /// Whether actions are due on a schedule (an open loop).
    pub(super) fn is_open(&self) -> bool {
        self.interval.is_some()
    }

    /// A game has started: its first action is due now, or later if the schedule says so. Time
    /// spent creating and joining a room is not charged to its first action.
    ///
    /// In an open loop, the first game of every room waits at the start line until all rooms
    /// are seated (or `patience` has passed), and the schedule starts from there. Without it,
    /// the first rooms play while the last thousand are still being created and joined, and
    /// that warm-up burst, not the steady state, set the run's p99 (docs/benchmarks.md).
    /// Answers when the schedule started, the first time (in an open loop).
    pub(super) async fn start_game(&mut self, patience: Duration) -> Option<Instant> {
        let mut started = None;
        if let Some(start_line) = self.start_line.take() {
            start_line.cross(patience).await;
            let now = Instant::now();
            self.next = now + self.phase;
            started = Some(now);
        }
        self.next = self.next.max(Instant::now());
        started
    }

    /// When the next action is due (now, in a closed loop), moving the schedule on by one.
    pub(super) fn next_due(&mut self) -> Instant {
        match self.interval {
            None => Instant::now(),
            Some(interval) => {
                let due = self.next;
                self.next += interval;
                due
            }
        }
    }
}

/// Waits until `due` and returns the instant the action's round trip counts from: `due`, or the
/// moment of sending when that is earlier.
///
/// tokio's timer rounds every deadline up to the next millisecond, so sleeping until `due` would
/// wake up to 1 ms late and charge that to the server (and sleeping until a `due` that has
/// already come still waits for the next tick). So there is no sleep when `due` has come, and
/// otherwise the sleep ends up to [`TIMER_GRANULARITY`] early; an action sent early is timed
/// from its sending, so it is never credited with time it did not wait.
pub(super) async fn wait_until(due: Instant) -> Instant {
    if let Some(wake) = due.checked_sub(TIMER_GRANULARITY)
        && wake > Instant::now()
    {
        tokio::time::sleep_until(wake.into()).await;
    }
    due.min(Instant::now())
}

/// The resolution of tokio's timer.
const TIMER_GRANULARITY: Duration = Duration::from_millis(1);

/// Where the rooms of an open-loop run wait for each other before their schedules start.
#[derive(Debug)]
pub(super) struct StartLine {
    /// Rooms seated so far.
    seated: watch::Sender<usize>,
    /// Rooms in the run.
    rooms: usize,
}

impl StartLine {
    /// A start line for `rooms` rooms.
    pub(super) fn new(rooms: usize) -> StartLine {
        StartLine {
            seated: watch::Sender::new(0),
            rooms,
        }
    }

    /// Counts this room as seated and waits for the others, at most `patience` (a room that
    /// failed to seat never arrives).
    async fn cross(&self, patience: Duration) {
        self.seated.send_modify(|seated| *seated += 1);
        let mut seated = self.seated.subscribe();
        let all = self.rooms;
        let _ = tokio::time::timeout(patience, seated.wait_for(|seated| *seated >= all)).await;
    }
}
