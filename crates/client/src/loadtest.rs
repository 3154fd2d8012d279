//! A load generator: many rooms at once, each two bot clients playing full games over real
//! WebSockets as fast as the server answers (closed loop), for a number of games or a duration.
//!
//! Every action's round trip (from sending it to receiving the first room event after it) goes
//! into an HDR histogram; refusals are counted by their error code and connection trouble by a
//! short name (`connect`, `closed`, `http`, `timeout`).

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aeroplane_bot::Level;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::Colour;
use hdrhistogram::Histogram;

use crate::client::is_rate_limited;
use crate::{Api, Client, ClientError, ConnectOptions, Turn, room_url};

/// What to run.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// The server's HTTP base URL.
    pub server: String,
    /// Rooms played at the same time (each with two connections).
    pub rooms: usize,
    /// Stop after this many games have been started (all of them are played to the end).
    pub games: Option<u64>,
    /// Stop starting games after this long (games under way are played to the end).
    pub duration: Option<Duration>,
    /// How the bots choose planes.
    pub level: Level,
    /// Local addresses to spread connections over, round robin; empty means the default.
    pub source_addrs: Vec<IpAddr>,
    /// The longest wait for any one answer before the game counts as failed (`timeout`).
    pub action_timeout: Duration,
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
    /// Games played to the end (game over seen by both bots).
    pub games: u64,
    /// Games that failed part-way.
    pub failed_games: u64,
    /// Actions sent and answered.
    pub actions: u64,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// Action → event round trips, in microseconds.
    pub round_trip_us: Histogram<u64>,
    /// Errors by code (the server's error codes, or `connect`, `closed`, `http`, `timeout`).
    pub errors: BTreeMap<String, u64>,
}

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
    let deadline = config.duration.map(|duration| started + duration);
    let claimed = Arc::new(AtomicU64::new(0));
    let config = Arc::new(config);
    let mut rooms = tokio::task::JoinSet::new();
    for room in 0..config.rooms.max(1) {
        let (config, claimed, progress) = (config.clone(), claimed.clone(), progress.clone());
        rooms.spawn(async move {
            let mut worker = RoomWorker::new(room, &config, progress);
            loop {
                if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                    break;
                }
                if let Some(games) = config.games
                    && claimed.fetch_add(1, Ordering::Relaxed) >= games
                {
                    break;
                }
                worker.play_one(&config).await;
            }
            worker
        });
    }
    let mut report = LoadReport {
        games: 0,
        failed_games: 0,
        actions: 0,
        elapsed: Duration::ZERO,
        round_trip_us: new_histogram(),
        errors: BTreeMap::new(),
    };
    while let Some(joined) = rooms.join_next().await {
        let Ok(worker) = joined else {
            *report.errors.entry("panic".into()).or_default() += 1;
            continue;
        };
        report.games += worker.games;
        report.failed_games += worker.failed;
        report.actions += worker.actions;
        report
            .round_trip_us
            .add(&worker.histogram)
            .expect("histograms share their bounds");
        for (code, count) in worker.errors {
            *report.errors.entry(code).or_default() += count;
        }
    }
    report.elapsed = started.elapsed();
    report
}

fn new_histogram() -> Histogram<u64> {
    // One microsecond to one minute, three significant figures.
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

/// One room slot: plays games one after another and keeps its own tallies.
struct RoomWorker {
    index: usize,
    progress: Arc<Progress>,
    games: u64,
    failed: u64,
    actions: u64,
    histogram: Histogram<u64>,
    errors: BTreeMap<String, u64>,
    api: Result<Api, String>,
}

impl RoomWorker {
    fn new(index: usize, config: &LoadConfig, progress: Arc<Progress>) -> RoomWorker {
        let local = source_addr(config, index * 2);
        let api = Api::with_local_address(&config.server, local).map_err(|error| error.to_string());
        RoomWorker {
            index,
            progress,
            games: 0,
            failed: 0,
            actions: 0,
            histogram: new_histogram(),
            errors: BTreeMap::new(),
            api,
        }
    }

    async fn play_one(&mut self, config: &LoadConfig) {
        match self.game(config).await {
            Ok(()) => {
                self.games += 1;
                self.progress.games.fetch_add(1, Ordering::Relaxed);
            }
            Err(code) => {
                self.failed += 1;
                self.count_error(code);
            }
        }
    }

    fn count_error(&mut self, code: String) {
        *self.errors.entry(code).or_default() += 1;
        self.progress.errors.fetch_add(1, Ordering::Relaxed);
    }

    /// Creates a room, seats two bots and plays one game to the end.
    async fn game(&mut self, config: &LoadConfig) -> Result<(), String> {
        let api = self.api.as_ref().map_err(|_| "http".to_owned())?;
        let timeout = config.action_timeout;
        let room = within(timeout, api.create_room())
            .await?
            .map_err(|error| match error {
                crate::ApiError::Status { status, .. } => format!("http_{status}"),
                _ => "http".to_owned(),
            })?;
        let url = room_url(&config.server, room.id);
        let mut seats = Vec::with_capacity(2);
        for (slot, colour) in Colour::ALL.into_iter().enumerate() {
            let options = ConnectOptions {
                bind: source_addr(config, self.index * 2 + slot),
                ..ConnectOptions::default()
            };
            let mut client = within(timeout, Client::connect_with(&url, options))
                .await?
                .map_err(|error| code_of(&error))?;
            within(
                timeout,
                client.join_player(&format!("bot-{}", colour.as_str()), Some(colour), None),
            )
            .await?
            .map_err(|error| code_of(&error))?;
            seats.push(client);
        }
        let yellow = seats.pop().expect("two seats");
        let red = seats.pop().expect("two seats");
        let seed = self.games.wrapping_mul(2) ^ (self.index as u64) << 32;
        let (red, yellow) = tokio::join!(
            play_bot(red, config.level, seed, timeout, self.progress.clone()),
            play_bot(
                yellow,
                config.level,
                seed + 1,
                timeout,
                self.progress.clone()
            ),
        );
        let mut outcome = Ok(());
        for played in [red, yellow] {
            self.actions += played.actions;
            self.histogram
                .add(&played.histogram)
                .expect("histograms share their bounds");
            for (code, count) in played.refusals {
                *self.errors.entry(code).or_default() += count;
            }
            if let Err(code) = played.ended {
                outcome = Err(code);
            }
        }
        outcome
    }
}

fn source_addr(config: &LoadConfig, slot: usize) -> Option<IpAddr> {
    (!config.source_addrs.is_empty()).then(|| config.source_addrs[slot % config.source_addrs.len()])
}

/// What one bot did in one game.
struct BotRun {
    actions: u64,
    histogram: Histogram<u64>,
    refusals: BTreeMap<String, u64>,
    ended: Result<(), String>,
}

/// Plays one seat until the game is over, timing each action to its first event.
async fn play_bot(
    mut client: Client,
    level: Level,
    seed: u64,
    timeout: Duration,
    progress: Arc<Progress>,
) -> BotRun {
    let mut run = BotRun {
        actions: 0,
        histogram: new_histogram(),
        refusals: BTreeMap::new(),
        ended: Ok(()),
    };
    let mut turn_seed = seed;
    run.ended = loop {
        let turn = match within(timeout, client.wait_my_turn()).await {
            Ok(Ok(turn)) => turn,
            Ok(Err(error)) => break Err(code_of(&error)),
            Err(code) => break Err(code),
        };
        let sent = match turn {
            Turn::Over(_) => break Ok(()),
            Turn::Roll => client.roll(),
            Turn::Move { .. } => {
                turn_seed = turn_seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
                match aeroplane_bot::choose(level, client.game(), turn_seed) {
                    Ok(decision) => client.move_plane(decision.plane),
                    Err(_) => break Err("bot".into()),
                }
            }
        };
        let request = match sent {
            Ok(request) => request,
            Err(error) => break Err(code_of(&error)),
        };
        let started = Instant::now();
        let seen = client.seen();
        let answered = within(timeout, async {
            loop {
                match client.next_message().await? {
                    // A rate-limited message is refused unread, without its id.
                    ServerMessage::Error(error)
                        if error.id == Some(request) || is_rate_limited(error.code) =>
                    {
                        return Ok(Some(error.code));
                    }
                    message if message.event().is_some_and(|event| event > seen) => {
                        return Ok(None);
                    }
                    _ => {}
                }
            }
        })
        .await;
        match answered {
            Ok(Ok(None)) => {
                let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
                run.histogram.saturating_record(micros.max(1));
                run.actions += 1;
                progress.actions.fetch_add(1, Ordering::Relaxed);
            }
            Ok(Ok(Some(code))) => {
                *run.refusals.entry(code.as_str().to_owned()).or_default() += 1;
                progress.errors.fetch_add(1, Ordering::Relaxed);
                if is_rate_limited(code) {
                    // Back off before trying again; the server will not read faster.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            Ok(Err(error)) => break Err(code_of(&error)),
            Err(code) => break Err(code),
        }
    };
    client.close();
    run
}

async fn within<T>(timeout: Duration, work: impl Future<Output = T>) -> Result<T, String> {
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| "timeout".to_owned())
}

fn code_of(error: &ClientError) -> String {
    match error {
        ClientError::Refused(refusal) => refusal.code.as_str().to_owned(),
        ClientError::Connect { .. } | ClientError::BadUrl(_) => "connect".to_owned(),
        ClientError::Closed { .. } => "closed".to_owned(),
        ClientError::NoSeat => "no_seat".to_owned(),
    }
}
