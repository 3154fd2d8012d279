//! The load generator of `docs/benchmarks.md`, in its own crate so that users of the client
//! library do not build its histograms and progress bars: many rooms at once, each two (or, in
//! a table room of our server, up to four) clients taking turns over real WebSockets, for
//! a number of games or a duration, against one of three servers ([`Target`]):
//!
//! - [`Target::Aeroplane`]: our server. Each room is one bot client per seat playing full
//!   games: two-player `plyyard` by default, or any edition and player count
//!   ([`LoadConfig::rules`], [`LoadConfig::players`]).
//! - [`Target::Echo`]: the bare tokio-tungstenite echo server (`bench/echo`), the ceiling: each
//!   room is two connections sending messages of the same size as our `roll` and `move`.
//! - [`Target::Broadcast`]: the same server's broadcast rooms, the fair ceiling: the same
//!   messages, but each goes to both connections of the room, as our events go to both players.
//!   The two connections of an echo or broadcast room take turns two actions each, or in the
//!   order of a real game ([`Turns`]).
//! - [`Target::Colyseus`]: the Colyseus peer (`bench/colyseus`): each room is two clients that
//!   match-make into one Colyseus room and alternate roll and move messages.
//!
//! The three share one accounting, so their reports compare: every action's round trip (from
//! the time it was due to the first room event answering it) goes into an HDR histogram;
//! refusals are counted by their error code and connection trouble by a short name (`connect`,
//! `closed`, `http`, `timeout`).
//!
//! **Closed loop** (the default): each room sends its next action as soon as the answer to the
//! previous one arrived, so the load adapts to the server and latency is service time.
//!
//! **Open loop** (`rate`): actions are due at a fixed total rate spread evenly over the rooms. A
//! turn-based game cannot send an action before the previous one was answered (a player rolls
//! only once the opponent's move has arrived), so each room is one sequential stream: its k-th
//! action is due at `start + k · rooms / rate`, and it is sent at that time or, if the previous
//! answer came later, as soon as that answer arrives. Its latency counts from the time it was
//! *due*, so a server stall is charged to every action it delayed (no coordinated omission). A
//! room's schedule starts when its game has started (room creation and joining are not
//! actions); the first games wait until every room is seated, so the warm-up of creating and
//! joining all rooms is not measured as play. Open-loop runs stop sending at the deadline
//! instead of finishing their games.
//!
//! [`idle`] holds many silent connections open, to measure memory per idle connection.

mod aeroplane;
mod broadcast;
mod colyseus;
mod echo;
pub mod idle;
pub mod lag;
mod pace;
pub mod process;
mod socket;

use std::collections::BTreeMap;
use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aeroplane_bot::Level;
use aeroplane_rules::Rules;
use hdrhistogram::Histogram;

use self::pace::{Pacer, StartLine};

/// What to run.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// The server's HTTP base URL.
    pub server: String,
    /// Which kind of server it is.
    pub target: Target,
    /// Rooms played at the same time (each with two connections).
    pub rooms: usize,
    /// Stop after this many games have been started (all of them are played to the end).
    pub games: Option<u64>,
    /// Stop starting games after this long (in a closed loop games under way are played to the
    /// end; in an open loop nothing is sent after it).
    pub duration: Option<Duration>,
    /// Open loop: actions due per second over all rooms together; `None` is a closed loop.
    pub rate: Option<f64>,
    /// How the bots choose planes: our server's bot clients, and the bots whose game sets the
    /// order of the yardsticks' turns ([`Turns::Game`]).
    pub level: Level,
    /// The order in which the two seats of a yardstick's room (echo, broadcast) act.
    pub turns: Turns,
    /// The edition each room plays, with its house rules (our server only): `plyyard` (today's
    /// two-player game, the benchmarks' default), `flights` or `classic`.
    pub rules: Rules,
    /// Players (and bot clients) per room (our server only): 2 to 4 as the edition seats.
    pub players: u8,
    /// Local addresses to spread connections over, round robin; empty means the default.
    pub source_addrs: Vec<IpAddr>,
    /// The longest wait for any one answer before the game counts as failed (`timeout`).
    pub action_timeout: Duration,
    /// Round trips of actions due in the first this long are counted but not timed: the first
    /// this long of the schedule in an open loop (it starts once every room is seated), of the
    /// run in a closed loop.
    pub warmup: Duration,
    /// Our server in cluster mode only: open the rooms' WebSockets through this other node
    /// (its HTTP base URL) while `server` creates the rooms, so that every connection is
    /// forwarded to the owner (docs/cluster.md); `None` connects to `server`.
    pub ws_via: Option<String>,
}

/// The kind of server a load test talks to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Target {
    /// `aeroplane-server`: real games through the rules, the dice and the journal.
    #[default]
    Aeroplane,
    /// `bench-echo`: answers every text message with one of the same size.
    Echo,
    /// `bench-echo`'s broadcast rooms: every text message goes to both players of the room.
    Broadcast,
    /// The Colyseus room of `bench/colyseus`.
    Colyseus,
}

impl Target {
    /// Every target, in the order of the benchmark's table.
    pub const ALL: [Target; 4] = [
        Target::Aeroplane,
        Target::Echo,
        Target::Broadcast,
        Target::Colyseus,
    ];

    /// The name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Aeroplane => "aeroplane",
            Target::Echo => "echo",
            Target::Broadcast => "broadcast",
            Target::Colyseus => "colyseus",
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Target {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Target::ALL
            .into_iter()
            .find(|target| target.as_str() == text)
            .ok_or_else(|| {
                format!("`{text}` is not a target: expected aeroplane, echo, broadcast or colyseus")
            })
    }
}

/// The order in which the two seats of a yardstick's room (the echo and broadcast targets) act.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Turns {
    /// Red rolls and moves, then Yellow rolls and moves, and so on: 300 actions a game, each
    /// seat two in a row. The order of every yardstick run through stop 50 (docs/benchmarks.md).
    #[default]
    Alternate,
    /// The order of a real game: a `plyyard` game between two bots of the run's level, played
    /// out by the rules engine in the generator before the room opens, so that a seat rolls
    /// again after a six, passes at once when its roll moves nothing, and waits through the
    /// opponent's runs of actions, as our server's players do.
    Game,
}

impl Turns {
    /// Every order, as the command line names them.
    pub const ALL: [Turns; 2] = [Turns::Alternate, Turns::Game];

    /// The name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Turns::Alternate => "alternate",
            Turns::Game => "game",
        }
    }
}

impl FromStr for Turns {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Turns::ALL
            .into_iter()
            .find(|turns| turns.as_str() == text)
            .ok_or_else(|| format!("`{text}` is not an order of turns: expected alternate or game"))
    }
}

/// Counters a progress display can read while the run goes on.
#[derive(Debug, Default)]
pub struct Progress {
    /// Games played to the end.
    pub games: AtomicU64,
    /// Actions sent and answered.
    pub actions: AtomicU64,
    /// Errors of any kind.
    pub errors: AtomicU64,
}

/// What a run measured.
#[derive(Clone, Debug)]
pub struct LoadReport {
    /// Games played to the end (game over seen by both clients).
    pub games: u64,
    /// Games that failed part-way.
    pub failed_games: u64,
    /// Actions sent and answered.
    pub actions: u64,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// Action → event round trips, in microseconds (from the time the action was due).
    pub round_trip_us: Histogram<u64>,
    /// Errors by code (the server's error codes, or `connect`, `closed`, `http`, `timeout`).
    pub errors: BTreeMap<String, u64>,
    /// How late the generator's own runtime woke during the run.
    pub lag: Option<lag::Lag>,
    /// The timed round trips of at least [`SLOW`]: when each action was due (seconds from the
    /// start of the run) and how long it took (ms), in the order they were due; at most
    /// [`SLOW_KEPT`] of them.
    pub slow: Vec<(f64, f64)>,
}

/// A round trip this long or longer is listed in [`LoadReport::slow`].
pub const SLOW: Duration = Duration::from_millis(50);

/// How many slow round trips a report lists at most.
pub const SLOW_KEPT: usize = 1000;

impl LoadReport {
    /// Games finished per second.
    pub fn games_per_second(&self) -> f64 {
        self.games as f64 / self.elapsed.as_secs_f64().max(f64::EPSILON)
    }

    /// Actions answered per second.
    pub fn actions_per_second(&self) -> f64 {
        self.actions as f64 / self.elapsed.as_secs_f64().max(f64::EPSILON)
    }

    /// All errors together.
    pub fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }

    /// The round trip at `quantile` (0..=1), in milliseconds.
    pub fn round_trip_ms(&self, quantile: f64) -> f64 {
        self.round_trip_us.value_at_quantile(quantile) as f64 / 1000.0
    }
}

/// Runs the load test; `progress` is updated as it goes.
pub async fn run(config: LoadConfig, progress: Arc<Progress>) -> LoadReport {
    let started = Instant::now();
    let probe = lag::Probe::start(started.into());
    let budget = Arc::new(Budget {
        deadline: config.duration.map(|duration| started + duration),
        games: config.games,
        claimed: AtomicU64::new(0),
    });
    let config = Arc::new(config);
    let start_line = Arc::new(StartLine::new(config.rooms.max(1)));
    let mut rooms = tokio::task::JoinSet::new();
    for room in 0..config.rooms.max(1) {
        let (config, budget, progress) = (config.clone(), budget.clone(), progress.clone());
        let start_line = start_line.clone();
        rooms.spawn(async move {
            let mut slot = RoomSlot {
                index: room,
                config: &config,
                budget: &budget,
                pacer: Pacer::new(&config, room, &start_line),
                tally: Tally::new(progress, started, started + config.warmup),
            };
            match config.target {
                Target::Aeroplane => aeroplane::run_room(&mut slot).await,
                Target::Echo => echo::run_room(&mut slot).await,
                Target::Broadcast => broadcast::run_room(&mut slot).await,
                Target::Colyseus => colyseus::run_room(&mut slot).await,
            }
            slot.tally
        });
    }
    let mut report = LoadReport {
        games: 0,
        failed_games: 0,
        actions: 0,
        elapsed: Duration::ZERO,
        round_trip_us: new_histogram(),
        errors: BTreeMap::new(),
        lag: None,
        slow: Vec::new(),
    };
    while let Some(joined) = rooms.join_next().await {
        let Ok(tally) = joined else {
            *report.errors.entry("panic".into()).or_default() += 1;
            continue;
        };
        report.games += tally.games;
        report.failed_games += tally.failed;
        report.actions += tally.actions;
        report
            .round_trip_us
            .add(&tally.histogram)
            .expect("histograms share their bounds");
        for (code, count) in tally.errors {
            *report.errors.entry(code).or_default() += count;
        }
        report.slow.extend(tally.slow);
    }
    report.slow.sort_by(|a, b| a.0.total_cmp(&b.0));
    report.slow.truncate(SLOW_KEPT);
    report.elapsed = started.elapsed();
    report.lag = probe.finish().await;
    report
}

/// How long after an open loop's deadline the games it cut off close their sockets. Every
/// action sent before the deadline is answered by then, so the closing of a thousand rooms at
/// once (which stalled the generator for up to a few hundred milliseconds) delays none of the
/// last round trips: before this wait, the round trips due in the run's last 100 ms were
/// most of its p99.9 (docs/benchmarks.md).
pub const CLOSE_AFTER_CUT: Duration = Duration::from_secs(1);

/// When the run stops: a deadline, a number of games, or both.
struct Budget {
    deadline: Option<Instant>,
    games: Option<u64>,
    claimed: AtomicU64,
}

impl Budget {
    /// Whether another game may start (and if so, counts it).
    fn start_game(&self) -> bool {
        if self.expired() {
            return false;
        }
        match self.games {
            Some(games) => self.claimed.fetch_add(1, Ordering::Relaxed) < games,
            None => true,
        }
    }

    /// Waits, in a game that the deadline cut off, until its sockets may close
    /// ([`CLOSE_AFTER_CUT`]).
    async fn wait_to_close(&self) {
        if let Some(deadline) = self.deadline {
            tokio::time::sleep_until((deadline + CLOSE_AFTER_CUT).into()).await;
        }
    }

    /// Whether the deadline has passed.
    fn expired(&self) -> bool {
        self.deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
    }
}

/// One room slot of a run: plays games one after another and keeps its own tallies.
struct RoomSlot<'a> {
    index: usize,
    config: &'a LoadConfig,
    budget: &'a Budget,
    pacer: Pacer,
    tally: Tally,
}

impl RoomSlot<'_> {
    /// The local address of the slot's `connection`-th connection (two per room).
    fn source_addr(&self, connection: usize) -> Option<IpAddr> {
        let per_room = usize::from(self.config.players.max(2));
        source_addr(self.config, self.index * per_room + connection)
    }

    /// Counts how a game ended; `false` when the room should stop (cut at the deadline).
    fn settle(&mut self, outcome: Result<Ended, String>) -> bool {
        match outcome {
            Ok(Ended::Finished) => self.tally.game_finished(),
            Ok(Ended::Cut) => return false,
            Err(code) => {
                self.tally.failed += 1;
                self.tally.error(code);
            }
        }
        true
    }

    /// A game of this slot starts: waits for its schedule (see `Pacer::start_game`); in an open
    /// loop the warm-up then counts from the moment the schedule started, when every room is
    /// seated, so that the time the rooms took to open never eats into it.
    async fn start_game(&mut self) {
        if let Some(started) = self.pacer.start_game(self.config.action_timeout).await {
            self.tally.timed_from = started + self.config.warmup;
        }
    }

    /// In an open loop past the deadline: stop sending.
    fn cut(&self) -> bool {
        self.pacer.is_open() && self.budget.expired()
    }
}

/// How a game that did not fail ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ended {
    /// Played to its end.
    Finished,
    /// Cut off at the deadline of an open-loop run: neither finished nor failed.
    Cut,
}

/// What one room slot (or one bot of it) measured.
struct Tally {
    progress: Arc<Progress>,
    /// When the run started.
    run_started: Instant,
    /// Actions due before this are counted but not timed (the warm-up).
    timed_from: Instant,
    /// The slow round trips timed: when due (seconds into the run) and how long (ms).
    slow: Vec<(f64, f64)>,
    games: u64,
    failed: u64,
    actions: u64,
    histogram: Histogram<u64>,
    errors: BTreeMap<String, u64>,
}

impl Tally {
    fn new(progress: Arc<Progress>, run_started: Instant, timed_from: Instant) -> Tally {
        Tally {
            progress,
            run_started,
            timed_from,
            slow: Vec::new(),
            games: 0,
            failed: 0,
            actions: 0,
            histogram: new_histogram(),
            errors: BTreeMap::new(),
        }
    }

    /// Records one answered action, due at `due`.
    fn answered(&mut self, due: Instant) {
        if due >= self.timed_from {
            let took = due.elapsed();
            let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
            self.histogram.saturating_record(micros.max(1));
            if took >= SLOW && self.slow.len() < SLOW_KEPT {
                let at = due
                    .saturating_duration_since(self.run_started)
                    .as_secs_f64();
                self.slow.push((at, took.as_secs_f64() * 1000.0));
            }
        }
        self.actions += 1;
        self.progress.actions.fetch_add(1, Ordering::Relaxed);
    }

    fn error(&mut self, code: String) {
        *self.errors.entry(code).or_default() += 1;
        self.progress.errors.fetch_add(1, Ordering::Relaxed);
    }

    fn game_finished(&mut self) {
        self.games += 1;
        self.progress.games.fetch_add(1, Ordering::Relaxed);
    }
}

fn new_histogram() -> Histogram<u64> {
    // One microsecond to one minute, three significant figures.
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

fn source_addr(config: &LoadConfig, slot: usize) -> Option<IpAddr> {
    (!config.source_addrs.is_empty()).then(|| config.source_addrs[slot % config.source_addrs.len()])
}

async fn within<T>(timeout: Duration, work: impl Future<Output = T>) -> Result<T, String> {
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| "timeout".to_owned())
}
