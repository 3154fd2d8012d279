//! What an operator needs beside the game metrics of [`crate::metrics`]: the process itself
//! (memory, descriptors, CPU, start time), the build, HTTP requests by route and status,
//! refusals by code, WebSocket closes by reason, records the database refused and journal
//! write failures; and one log line per burst of refusals rather than one per request.
//!
//! A counter that has never moved is absent from Prometheus' text, and `rate()` over a series
//! that appears at its first increment misses that increment. So [`register`] sets every
//! counter to zero for every label value the server can produce, at start, and dashboards work
//! from the first scrape.
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `aeroplane_build_info` | gauge (1) | `version` |
//! | `aeroplane_http_requests_total` | counter | `route` (the route pattern, `unmatched`), `status` |
//! | `aeroplane_http_refusals_total` | counter | `code` (403, 408, 413, 415, 429 and 503 answers by error code) |
//! | `aeroplane_ws_closes_total` | counter | `reason` (a close code's reason, or `client`) |
//! | `aeroplane_store_rejected_total` | counter | finished games the database refused for good (counted by the outbox, which sets them aside) |
//! | `aeroplane_journal_write_failures_total` | counter | live-game journal writes that failed |
//! | `process_resident_memory_bytes` | gauge | |
//! | `process_open_fds`, `process_max_fds` | gauge | |
//! | `process_cpu_seconds_total` | gauge (only rises) | user + system CPU time, in seconds |
//! | `process_start_time_seconds` | gauge | Unix time the process started |

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use aeroplane_protocol::error::{CloseCode, ErrorCode};
use metrics::{counter, gauge};
use tokio::time::Instant;

/// Every route pattern of the server, as `aeroplane_http_requests_total` labels it.
pub const ROUTES: [&str; 19] = [
    "/",
    "/{*path}",
    "/api/rooms",
    "/api/rooms/{id}",
    "/api/quick-match",
    "/api/players",
    "/api/players/me",
    "/api/players/me/live",
    "/api/players/{id}",
    "/api/leaderboard",
    "/api/games",
    "/api/games/{id}",
    "/api/games/{id}/replay",
    "/api/openapi.json",
    "/ws/rooms/{id}",
    "/healthz",
    "/health",
    "/readyz",
    "/metrics",
];

/// The label of a request no route matched.
pub const UNMATCHED: &str = "unmatched";

/// Every status the server answers, as `aeroplane_http_requests_total` labels it.
const STATUSES: [u16; 16] = [
    101, 200, 201, 400, 401, 403, 404, 405, 408, 413, 415, 429, 431, 500, 503, 304,
];

/// The statuses that are refusals (the request was fine; the server would not take it now).
pub const REFUSAL_STATUSES: [u16; 6] = [403, 408, 413, 415, 429, 503];

/// The codes `aeroplane_http_refusals_total` counts.
const REFUSAL_CODES: [ErrorCode; 10] = [
    ErrorCode::OriginNotAllowed,
    ErrorCode::RequestTimeout,
    ErrorCode::TooLarge,
    ErrorCode::UnsupportedMediaType,
    ErrorCode::RateLimited,
    ErrorCode::TooManyConnections,
    ErrorCode::Draining,
    ErrorCode::StoreUnavailable,
    ErrorCode::JournalUnavailable,
    ErrorCode::NoMatch,
];

/// Every close a WebSocket can end with.
const CLOSES: [CloseCode; 8] = [
    CloseCode::RoomClosed,
    CloseCode::ShuttingDown,
    CloseCode::TooBig,
    CloseCode::ProtocolViolation,
    CloseCode::Replaced,
    CloseCode::TooSlow,
    CloseCode::Timeout,
    CloseCode::RateLimited,
];

/// The label of a WebSocket the client closed (or that broke off).
const CLOSED_BY_CLIENT: &str = "client";

/// Runtime lag buckets, in seconds.
pub(crate) const LAG_BUCKETS: [f64; 10] = [
    0.000_1, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
];

/// How often the runtime lag probe wakes.
const LAG_TICK: Duration = Duration::from_millis(10);

/// A wake-up this late or later is logged as a stall.
const STALL: Duration = Duration::from_millis(20);

/// How long one burst of refusals (same code, same address) lasts in the log.
const BURST: Duration = Duration::from_secs(10);

/// Describes every metric of this module and sets its every counter to zero for every known
/// label (the game counters of [`crate::metrics`] are zeroed there).
pub fn register() {
    describe();
    gauge!("aeroplane_build_info", "version" => env!("CARGO_PKG_VERSION")).set(1.0);
    for route in ROUTES.into_iter().chain([UNMATCHED]) {
        for status in STATUSES {
            counter!("aeroplane_http_requests_total", "route" => route, "status" => status.to_string())
                .absolute(0);
        }
    }
    for code in REFUSAL_CODES {
        counter!("aeroplane_http_refusals_total", "code" => code.as_str()).absolute(0);
    }
    for close in CLOSES
        .map(CloseCode::reason)
        .into_iter()
        .chain([CLOSED_BY_CLIENT])
    {
        counter!("aeroplane_ws_closes_total", "reason" => close).absolute(0);
    }
    counter!("aeroplane_store_rejected_total").absolute(0);
    counter!("aeroplane_journal_write_failures_total").absolute(0);
}

fn describe() {
    metrics::describe_gauge!("aeroplane_build_info", "The running build (always 1).");
    metrics::describe_histogram!(
        "aeroplane_runtime_lag_seconds",
        metrics::Unit::Seconds,
        "How late a task sleeping 10 ms wakes: the runtime's scheduling delay."
    );
    metrics::describe_counter!(
        "aeroplane_http_requests_total",
        "HTTP requests answered, by route pattern and status."
    );
    metrics::describe_counter!(
        "aeroplane_http_refusals_total",
        "HTTP requests and connections refused, by error code."
    );
    metrics::describe_counter!(
        "aeroplane_ws_closes_total",
        "WebSockets closed, by close reason (`client`: the client closed or went away)."
    );
    metrics::describe_counter!(
        "aeroplane_store_rejected_total",
        "Finished games the database refused for good (kept in outbox/rejected/)."
    );
    metrics::describe_counter!(
        "aeroplane_journal_write_failures_total",
        "Writes to live games' journals that failed (a restart would lose those games)."
    );
    metrics::describe_gauge!(
        "process_resident_memory_bytes",
        metrics::Unit::Bytes,
        "Resident memory."
    );
    metrics::describe_gauge!("process_open_fds", "Open file descriptors.");
    metrics::describe_gauge!("process_max_fds", "The open file descriptor limit.");
    metrics::describe_gauge!(
        "process_cpu_seconds_total",
        metrics::Unit::Seconds,
        "User and system CPU time."
    );
    metrics::describe_gauge!(
        "process_start_time_seconds",
        metrics::Unit::Seconds,
        "When the process started, in Unix time."
    );
}

/// Counts an answered HTTP request.
pub fn http_request(route: &'static str, status: u16) {
    counter!("aeroplane_http_requests_total", "route" => route, "status" => status.to_string())
        .increment(1);
}

/// Per code and address: when the current burst's line was written, and how many refusals
/// since were only counted.
type Bursts = HashMap<(ErrorCode, Option<IpAddr>), (Instant, u64)>;

/// Counts a refusal and logs it, once per burst: the first refusal of a code for an address
/// writes a line, later ones within [`BURST`] are only counted, and the next line says how many
/// were not logged.
pub fn refused(code: ErrorCode, client: Option<IpAddr>) {
    counter!("aeroplane_http_refusals_total", "code" => code.as_str()).increment(1);
    static BURSTS: OnceLock<Mutex<Bursts>> = OnceLock::new();
    let now = Instant::now();
    let unlogged = {
        let mut bursts = BURSTS
            .get_or_init(Default::default)
            .lock()
            .expect("refusal log lock poisoned");
        if bursts.len() > 4096 {
            bursts.retain(|_, (started, _)| now.saturating_duration_since(*started) < BURST);
        }
        match bursts.get_mut(&(code, client)) {
            Some((started, unlogged)) if now.saturating_duration_since(*started) < BURST => {
                *unlogged += 1;
                return;
            }
            Some(entry) => std::mem::replace(entry, (now, 0)).1,
            None => {
                bursts.insert((code, client), (now, 0));
                0
            }
        }
    };
    let client = client.map(|client| client.to_string());
    tracing::info!(
        code = code.as_str(),
        client,
        unlogged_since_last_line = unlogged,
        "refused; more of the same from this address within 10 s are only counted"
    );
}

/// Counts a WebSocket closed with `code`, or by the client when `None`.
pub fn ws_closed(code: Option<CloseCode>) {
    let reason = code.map_or(CLOSED_BY_CLIENT, CloseCode::reason);
    counter!("aeroplane_ws_closes_total", "reason" => reason).increment(1);
}

/// Counts a failed write to a live game's journal.
pub fn journal_write_failed() {
    counter!("aeroplane_journal_write_failures_total").increment(1);
}

/// Reads the process's own figures from `/proc` (Linux; elsewhere they are left out).
pub fn scrape_process() {
    let Some(figures) = process::read() else {
        return;
    };
    gauge!("process_resident_memory_bytes").set(figures.resident_bytes as f64);
    gauge!("process_open_fds").set(figures.open_fds as f64);
    if let Some(max) = figures.max_fds {
        gauge!("process_max_fds").set(max as f64);
    }
    gauge!("process_cpu_seconds_total").set(figures.cpu_seconds);
    gauge!("process_start_time_seconds").set(figures.start_time_seconds as f64);
}

mod process {
    //! `/proc/self` parsed by hand: a few numbers do not need a crate.

    /// What the process uses.
    pub(super) struct Figures {
        pub(super) resident_bytes: u64,
        pub(super) open_fds: usize,
        pub(super) max_fds: Option<u64>,
        pub(super) cpu_seconds: f64,
        pub(super) start_time_seconds: u64,
    }

    /// Clock ticks per second of `/proc/self/stat` (`USER_HZ`, 100 on every Linux ABI).
    const TICKS_PER_SECOND: u64 = 100;

    pub(super) fn read() -> Option<Figures> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let resident_kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        let open_fds = std::fs::read_dir("/proc/self/fd").ok()?.count();
        let max_fds = std::fs::read_to_string("/proc/self/limits")
            .ok()?
            .lines()
            .find(|line| line.starts_with("Max open files"))
            .and_then(|line| line.split_whitespace().nth(3)?.parse().ok());
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        // Fields after the command name, which is in parentheses and may hold spaces.
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let ticks = |index: usize| fields.get(index)?.parse::<u64>().ok();
        // utime, stime and starttime are fields 14, 15 and 22 of stat(5); `fields` starts at 3.
        let cpu_ticks = ticks(11)? + ticks(12)?;
        let started_ticks = ticks(19)?;
        let boot_time: u64 = std::fs::read_to_string("/proc/stat")
            .ok()?
            .lines()
            .find_map(|line| line.strip_prefix("btime "))?
            .trim()
            .parse()
            .ok()?;
        Some(Figures {
            resident_bytes: resident_kib * 1024,
            open_fds,
            max_fds,
            cpu_seconds: cpu_ticks as f64 / TICKS_PER_SECOND as f64,
            start_time_seconds: boot_time + started_ticks / TICKS_PER_SECOND,
        })
    }
}

/// Measures the runtime's scheduling delay for as long as the server runs: a task sleeps
/// [`LAG_TICK`] again and again and records by how much each wake-up missed its time in
/// `aeroplane_runtime_lag_seconds`; a wake-up [`STALL`] late or later is logged, so a stall seen
/// by clients can be placed on the server's side or not (issue 18; the load generator runs the
/// same probe).
pub fn spawn_lag_probe() {
    tokio::spawn(async {
        loop {
            let due = Instant::now() + LAG_TICK;
            tokio::time::sleep_until(due).await;
            let late = Instant::now().saturating_duration_since(due);
            metrics::histogram!("aeroplane_runtime_lag_seconds").record(late.as_secs_f64());
            if late >= STALL {
                let late_ms = u64::try_from(late.as_millis()).unwrap_or(u64::MAX);
                tracing::warn!(late_ms, "the runtime woke late: a stall");
            }
        }
    });
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(target_os = "linux")]
    fn the_process_figures_are_read_from_proc() {
        let figures = super::process::read().expect("/proc/self is readable");
        assert!(figures.resident_bytes > 1024 * 1024);
        assert!(figures.open_fds >= 3);
        assert!(
            figures
                .max_fds
                .is_some_and(|max| max >= figures.open_fds as u64)
        );
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        assert!(figures.start_time_seconds <= now + 1);
        assert!(figures.start_time_seconds + 3600 > now);
    }
}
