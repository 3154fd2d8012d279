//! How late the load generator's own runtime wakes: a task that sleeps 1 ms again and again and
//! records by how much each wake-up missed its time. A stall seen in round trips but not here is
//! the server's (or the kernel's between them); one seen here too is at least partly ours
//! (issue 18). The server runs the same probe (`aeroplane_runtime_lag_seconds`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use hdrhistogram::Histogram;
use tokio::time::Instant;

/// How often the probe wakes.
const TICK: Duration = Duration::from_millis(1);

/// A lateness at or over this is reported as a stall, with when it happened.
pub const STALL: Duration = Duration::from_millis(20);

/// What the probe saw.
#[derive(Clone, Debug)]
pub struct Lag {
    /// How late each wake-up was, in microseconds.
    pub late_us: Histogram<u64>,
    /// The stalls: seconds from the start of the run, and how late the wake-up was in ms.
    pub stalls: Vec<(f64, f64)>,
}

/// A running probe.
#[derive(Debug)]
pub struct Probe {
    stop: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<Lag>,
}

impl Probe {
    /// Starts probing the current runtime; `started` is the run's start.
    pub fn start(started: Instant) -> Probe {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let task = tokio::spawn(async move {
            let mut lag = Lag {
                late_us: Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid bounds"),
                stalls: Vec::new(),
            };
            while !stopped.load(Ordering::Relaxed) {
                let due = Instant::now() + TICK;
                tokio::time::sleep_until(due).await;
                let late = Instant::now().saturating_duration_since(due);
                let micros = u64::try_from(late.as_micros()).unwrap_or(u64::MAX);
                let _ = lag.late_us.record(micros.max(1));
                if late >= STALL {
                    let at = due.saturating_duration_since(started).as_secs_f64();
                    lag.stalls.push((at, late.as_secs_f64() * 1000.0));
                }
            }
            lag
        });
        Probe { stop, task }
    }

    /// Stops the probe and answers what it saw.
    pub async fn finish(self) -> Option<Lag> {
        self.stop.store(true, Ordering::Relaxed);
        self.task.await.ok()
    }
}

impl Lag {
    /// The lateness at `quantile` (0..=1), in milliseconds.
    pub fn late_ms(&self, quantile: f64) -> f64 {
        self.late_us.value_at_quantile(quantile) as f64 / 1000.0
    }
}
