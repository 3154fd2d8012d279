//! Prometheus metrics, recorded with the `metrics` facade and rendered at `GET /metrics`.
//!
//! The recorder is process-wide (the `metrics` facade has one global recorder), so it is
//! installed once, by the first server a process starts. Counters and gauges kept by rooms are
//! updated where things happen; the outbox depth and the room inboxes are read when scraped.
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `aeroplane_connections` | gauge | `role` = `player` \| `spectator` (joined WebSockets) |
//! | `aeroplane_rooms` | gauge | `state` = `waiting` \| `playing` \| `over` |
//! | `aeroplane_games_started_total` | counter | `mode` |
//! | `aeroplane_games_finished_total` | counter | `mode`, `reason` |
//! | `aeroplane_actions_total` | counter | `kind` (`roll`, `move`, `resign`, …); rate = actions/s |
//! | `aeroplane_protocol_errors_total` | counter | `code` (every `error` message sent) |
//! | `aeroplane_store_write_seconds` | histogram | `outcome` = `ok` \| `error` |
//! | `aeroplane_outbox_depth` | gauge | finished games waiting for the store |
//! | `aeroplane_room_inbox_queued` | gauge | `stat` = `max` \| `total`: messages waiting in room inboxes |
//! | `aeroplane_rooms_restored_total` | counter | `mode`: live games rebuilt from journals (at start, or taken over) |
//! | `aeroplane_cluster_rooms_owned` | gauge | `node`: room leases this node holds (`--nats-url`), finished games whose record waits for the database included |
//! | `aeroplane_cluster_takeovers_total` | counter | `node`, `trigger` = `scan` \| `request`: rooms taken over from a lapsed or given-back lease |
//! | `aeroplane_cluster_lease_renew_failures_total` | counter | `node`: lease renewals that failed (retried, or the room let go) |
//! | `aeroplane_cluster_forwarded_connections` | gauge | `node`, `side` = `edge` \| `owner`: WebSockets forwarded to another node's room (`edge`), and other nodes' WebSockets served by this node's rooms (`owner`) |
//! | `aeroplane_cluster_reroutes_total` | counter | `node`: forwarded rooms that followed their room to a new owner |
//! | `aeroplane_journal_append_seconds` | histogram | `outcome` = `ok` \| `error`: a journal write to JetStream until its acknowledgement |
//! | `aeroplane_rooms_let_go_total` | counter | `reason` = `fenced` \| `unacknowledged`: rooms stopped because their journal refused a write or could not acknowledge it (`--nats-url`) |
//!
//! The process, build, HTTP, refusal and close metrics are [`crate::telemetry`]'s.
//!
//! A room restored after a restart is not a new game: it moves the `aeroplane_rooms` gauge and
//! `aeroplane_rooms_restored_total`, never `aeroplane_games_started_total` or
//! `aeroplane_actions_total` (see [`room_restored`]).

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::record::{GameRecord, LoggedAction, Mode};
use aeroplane_protocol::snapshot::RoomPhase;
use aeroplane_rules::TableAction as Action;
use aeroplane_rules::{EndReason, RuleError};
use aeroplane_store::{GameQuery, GameStore, Saved, StoreError};
use futures_util::future::{BoxFuture, FutureExt};
use metrics::{Counter, counter, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use uuid::Uuid;

/// Store write latency buckets, in seconds.
const WRITE_BUCKETS: [f64; 12] = [
    0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

/// The process's Prometheus recorder, installed on first use.
pub fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(
                Matcher::Full("aeroplane_store_write_seconds".to_owned()),
                &WRITE_BUCKETS,
            )
            .expect("the buckets are not empty")
            .set_buckets_for_metric(
                Matcher::Full("aeroplane_journal_append_seconds".to_owned()),
                &WRITE_BUCKETS,
            )
            .expect("the buckets are not empty")
            .set_buckets_for_metric(
                Matcher::Full("aeroplane_runtime_lag_seconds".to_owned()),
                &crate::telemetry::LAG_BUCKETS,
            )
            .expect("the buckets are not empty")
            .build_recorder();
        let handle = recorder.handle();
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("another metrics recorder is installed; /metrics stays empty");
        }
        describe();
        crate::telemetry::register();
        zero_game_counters();
        handle
    })
}

/// The game counters, at zero for every mode, reason, kind and code (as [`crate::telemetry`]
/// sets its own, and for the same reason: a counter is in Prometheus' text from the first scrape).
fn zero_game_counters() {
    let reasons = [
        EndReason::Finished,
        EndReason::Resigned,
        EndReason::Agreed,
        EndReason::Abandoned,
        EndReason::Timeout,
    ];
    for mode in [Mode::Online, Mode::Computer, Mode::Local].map(Mode::as_str) {
        counter!("aeroplane_games_started_total", "mode" => mode).absolute(0);
        counter!("aeroplane_rooms_restored_total", "mode" => mode).absolute(0);
        for reason in reasons.map(EndReason::as_str) {
            counter!("aeroplane_games_finished_total", "mode" => mode, "reason" => reason)
                .absolute(0);
        }
    }
    for kind in Action::NAMES {
        counter!("aeroplane_actions_total", "kind" => kind).absolute(0);
    }
    let codes = ErrorCode::PROTOCOL
        .into_iter()
        .chain(RuleError::ALL.map(ErrorCode::Rule));
    for code in codes {
        counter!("aeroplane_protocol_errors_total", "code" => code.as_str()).absolute(0);
    }
}

fn describe() {
    metrics::describe_gauge!(
        "aeroplane_connections",
        "Joined WebSocket connections by role."
    );
    metrics::describe_gauge!("aeroplane_rooms", "Open rooms by state.");
    metrics::describe_counter!("aeroplane_games_started_total", "Games started, by mode.");
    metrics::describe_counter!(
        "aeroplane_games_finished_total",
        "Games finished, by mode and reason."
    );
    metrics::describe_counter!("aeroplane_actions_total", "Accepted game actions, by kind.");
    metrics::describe_counter!(
        "aeroplane_protocol_errors_total",
        "Error messages sent to clients, by code."
    );
    metrics::describe_histogram!(
        "aeroplane_store_write_seconds",
        metrics::Unit::Seconds,
        "Latency of writing finished games to the store."
    );
    metrics::describe_gauge!(
        "aeroplane_outbox_depth",
        "Finished games on local disk waiting for the store."
    );
    metrics::describe_gauge!(
        "aeroplane_room_inbox_queued",
        "Messages waiting in room inboxes (max over rooms, and total)."
    );
    metrics::describe_counter!(
        "aeroplane_rooms_restored_total",
        "Live games rebuilt from their journals (at start-up, or taken over from another node)."
    );
    metrics::describe_gauge!(
        "aeroplane_cluster_rooms_owned",
        "Room leases this node holds (cluster mode)."
    );
    metrics::describe_counter!(
        "aeroplane_cluster_takeovers_total",
        "Rooms this node took over from a lapsed or given-back lease, by trigger."
    );
    metrics::describe_counter!(
        "aeroplane_cluster_lease_renew_failures_total",
        "Room lease renewals that failed (retried, or the room let go)."
    );
    metrics::describe_counter!(
        "aeroplane_rooms_let_go_total",
        "Rooms stopped, nothing of the failed write sent, because their journal refused it (fenced) or could not acknowledge it (unacknowledged)."
    );
    metrics::describe_gauge!(
        "aeroplane_cluster_forwarded_connections",
        "WebSockets forwarded between nodes (cluster mode), by side: edge or owner."
    );
    metrics::describe_counter!(
        "aeroplane_cluster_reroutes_total",
        "Forwarded rooms that followed their room to a new owner (cluster mode)."
    );
    metrics::describe_histogram!(
        "aeroplane_journal_append_seconds",
        metrics::Unit::Seconds,
        "Latency of a live game's journal write on JetStream, until acknowledged."
    );
}

/// The takeover triggers of `aeroplane_cluster_takeovers_total`.
pub const TAKEOVER_TRIGGERS: [&str; 2] = ["scan", "request"];

/// Sets the cluster metrics of `node` to zero, so they are scraped from the start.
pub fn cluster_started(node: &str) {
    gauge!("aeroplane_cluster_rooms_owned", "node" => node.to_owned()).set(0.0);
    for trigger in TAKEOVER_TRIGGERS {
        counter!("aeroplane_cluster_takeovers_total", "node" => node.to_owned(), "trigger" => trigger)
            .absolute(0);
    }
    counter!("aeroplane_cluster_lease_renew_failures_total", "node" => node.to_owned()).absolute(0);
    for reason in LET_GO_REASONS {
        counter!("aeroplane_rooms_let_go_total", "reason" => reason).absolute(0);
    }
}

/// The reasons of `aeroplane_rooms_let_go_total`.
pub const LET_GO_REASONS: [&str; 2] = ["fenced", "unacknowledged"];

/// A room stopped because its journal refused a write (`fenced`) or could not acknowledge it
/// (`unacknowledged`), one of [`LET_GO_REASONS`].
pub fn room_let_go(reason: &'static str) {
    counter!("aeroplane_rooms_let_go_total", "reason" => reason).increment(1);
}

/// `node` took a room's lease (`1.0`) or let one go (`-1.0`).
pub fn cluster_room_owned(node: &str, change: f64) {
    gauge!("aeroplane_cluster_rooms_owned", "node" => node.to_owned()).increment(change);
}

/// `node` took over a room (`trigger`: one of [`TAKEOVER_TRIGGERS`]).
pub fn cluster_takeover(node: &str, trigger: &'static str) {
    counter!("aeroplane_cluster_takeovers_total", "node" => node.to_owned(), "trigger" => trigger)
        .increment(1);
}

/// The sides of `aeroplane_cluster_forwarded_connections`.
pub const FORWARDING_SIDES: [&str; 2] = ["edge", "owner"];

/// Sets the forwarding metrics of `node` to zero, so they are scraped from the start.
pub fn cluster_forwarding_started(node: &str) {
    for side in FORWARDING_SIDES {
        gauge!("aeroplane_cluster_forwarded_connections", "node" => node.to_owned(), "side" => side)
            .set(0.0);
    }
    counter!("aeroplane_cluster_reroutes_total", "node" => node.to_owned()).absolute(0);
}

/// A connection forwarded on `node`'s side `side` (one of [`FORWARDING_SIDES`]) began (`1.0`)
/// or ended (`-1.0`).
pub fn cluster_forwarded(node: &str, side: &'static str, change: f64) {
    gauge!("aeroplane_cluster_forwarded_connections", "node" => node.to_owned(), "side" => side)
        .increment(change);
}

/// A forwarded room on `node` followed its room to a new owner.
pub fn cluster_rerouted(node: &str) {
    counter!("aeroplane_cluster_reroutes_total", "node" => node.to_owned()).increment(1);
}

/// A lease renewal of `node` failed.
pub fn cluster_lease_renew_failed(node: &str) {
    counter!("aeroplane_cluster_lease_renew_failures_total", "node" => node.to_owned())
        .increment(1);
}

/// A journal write to the broker took `seconds` and succeeded (`ok`) or not.
pub fn journal_appended(ok: bool, seconds: f64) {
    let outcome = if ok { "ok" } else { "error" };
    histogram!("aeroplane_journal_append_seconds", "outcome" => outcome).record(seconds);
}

/// What a room looked like at one moment, to turn changes into metric updates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoomView {
    /// The room's phase, or `None` before it opened and after it closed.
    pub phase: Option<RoomPhase>,
    /// Joined player connections.
    pub players: usize,
    /// Joined spectator connections.
    pub spectators: usize,
    /// The length of the action log.
    pub actions: usize,
    /// Why the game ended, once it has.
    pub ended: Option<&'static str>,
}

/// Records what changed in a room between `before` and `after`.
pub fn room_changed(mode: Mode, before: RoomView, after: RoomView, new_actions: &[LoggedAction]) {
    gauges_changed(before, after);
    if before.phase != after.phase {
        if after.phase == Some(RoomPhase::Playing) {
            counter!("aeroplane_games_started_total", "mode" => mode.as_str()).increment(1);
        }
        if after.phase == Some(RoomPhase::Over)
            && let Some(reason) = after.ended
        {
            counter!("aeroplane_games_finished_total", "mode" => mode.as_str(), "reason" => reason)
                .increment(1);
        }
    }
    for logged in new_actions {
        action_counter(&logged.action).increment(1);
    }
}

/// The counter of actions of `action`'s kind, looked up in the registry once per kind (a lookup
/// per action, hashing its labels, was a percent of the server's CPU under load).
fn action_counter(action: &Action) -> &'static Counter {
    static COUNTERS: OnceLock<[Counter; Action::NAMES.len()]> = OnceLock::new();
    let counters = COUNTERS.get_or_init(|| {
        Action::NAMES.map(|kind| counter!("aeroplane_actions_total", "kind" => kind))
    });
    &counters[action.index()]
}

/// Records a room rebuilt from its journal at start-up, open now as `after` shows it. Only the
/// gauges and `aeroplane_rooms_restored_total` move: the game was counted as started, its
/// actions as played (and, if it is over, as finished) by the run that journaled it, so a
/// restart counts none of them again.
pub fn room_restored(mode: Mode, after: RoomView) {
    counter!("aeroplane_rooms_restored_total", "mode" => mode.as_str()).increment(1);
    gauges_changed(RoomView::default(), after);
}

/// Moves the room and connection gauges from `before` to `after`.
fn gauges_changed(before: RoomView, after: RoomView) {
    if before.phase != after.phase {
        if let Some(phase) = before.phase {
            gauge!("aeroplane_rooms", "state" => phase_name(phase)).decrement(1.0);
        }
        if let Some(phase) = after.phase {
            gauge!("aeroplane_rooms", "state" => phase_name(phase)).increment(1.0);
        }
    }
    let players = after.players as f64 - before.players as f64;
    if players != 0.0 {
        gauge!("aeroplane_connections", "role" => "player").increment(players);
    }
    let spectators = after.spectators as f64 - before.spectators as f64;
    if spectators != 0.0 {
        gauge!("aeroplane_connections", "role" => "spectator").increment(spectators);
    }
}

/// Records an `error` sent to a client.
pub fn protocol_error(code: &'static str) {
    counter!("aeroplane_protocol_errors_total", "code" => code).increment(1);
}

/// Sets the gauges that are read at scrape time.
pub fn scraped(outbox_depth: usize, inbox_max: usize, inbox_total: usize) {
    gauge!("aeroplane_outbox_depth").set(outbox_depth as f64);
    gauge!("aeroplane_room_inbox_queued", "stat" => "max").set(inbox_max as f64);
    gauge!("aeroplane_room_inbox_queued", "stat" => "total").set(inbox_total as f64);
}

fn phase_name(phase: RoomPhase) -> &'static str {
    match phase {
        RoomPhase::Waiting => "waiting",
        RoomPhase::Playing => "playing",
        RoomPhase::Over => "over",
    }
}

/// A [`GameStore`] that times every write and counts the records the database refuses.
pub struct MeteredStore {
    inner: Arc<dyn GameStore>,
}

impl MeteredStore {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn GameStore>) -> MeteredStore {
        MeteredStore { inner }
    }
}

fn timed<T>(started: Instant, result: &Result<T, StoreError>) {
    let outcome = if result.is_ok() { "ok" } else { "error" };
    histogram!("aeroplane_store_write_seconds", "outcome" => outcome)
        .record(started.elapsed().as_secs_f64());
}

impl GameStore for MeteredStore {
    fn save<'a>(&'a self, record: &'a GameRecord) -> BoxFuture<'a, Result<Saved, StoreError>> {
        async move {
            let started = Instant::now();
            let result = self.inner.save(record).await;
            timed(started, &result);
            result
        }
        .boxed()
    }

    fn save_batch<'a>(
        &'a self,
        records: &'a [GameRecord],
    ) -> BoxFuture<'a, Result<Vec<Saved>, StoreError>> {
        async move {
            let started = Instant::now();
            let result = self.inner.save_batch(records).await;
            timed(started, &result);
            result
        }
        .boxed()
    }

    fn get(&self, id: Uuid) -> BoxFuture<'_, Result<Option<GameRecord>, StoreError>> {
        self.inner.get(id)
    }

    fn list<'a>(
        &'a self,
        query: &'a GameQuery,
    ) -> BoxFuture<'a, Result<Vec<GameRecord>, StoreError>> {
        self.inner.list(query)
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        self.inner.ping()
    }
    fn create_player<'a>(
        &'a self,
        player: &'a aeroplane_store::NewPlayer,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.inner.create_player(player)
    }

    fn player(
        &self,
        id: Uuid,
    ) -> BoxFuture<'_, Result<Option<aeroplane_store::StoredPlayer>, StoreError>> {
        self.inner.player(id)
    }

    fn rename_player<'a>(
        &'a self,
        id: Uuid,
        name: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.inner.rename_player(id, name)
    }

    fn leaderboard(
        &self,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<aeroplane_store::StoredPlayer>, StoreError>> {
        self.inner.leaderboard(limit)
    }
}
