//! Every setting of the server, from flags or environment variables, with documented defaults.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

mod cluster;

pub use cluster::{NatsUrls, NodeId};

/// The server's settings (`aeroplane-server --help` lists them with their defaults).
#[derive(Clone, Debug, Parser)]
#[command(
    name = "aeroplane-server",
    version,
    about = "The Aeroplane Chess online server"
)]
pub struct Config {
    /// The address to listen on (port 0 picks a free port).
    #[arg(long, env = "AEROPLANE_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// How long a disconnected player's seat is held before the game ends `abandoned`, in ms.
    #[arg(long, env = "AEROPLANE_GRACE_MS", default_value_t = 60_000)]
    pub grace_ms: u64,

    /// Frames queued for one connection before the client counts as too slow and is dropped.
    #[arg(long, env = "AEROPLANE_OUTGOING_QUEUE", default_value_t = 256)]
    pub outgoing_queue: usize,

    /// How often the server pings each WebSocket, in ms; silence for two intervals drops it.
    #[arg(long, env = "AEROPLANE_PING_INTERVAL_MS", default_value_t = 15_000)]
    pub ping_interval_ms: u64,

    /// The largest text frame a client may send, in bytes; a larger one closes the socket (1009).
    #[arg(long, env = "AEROPLANE_MAX_FRAME_BYTES", default_value_t = 4096)]
    pub max_frame_bytes: usize,

    /// Bad frames in a row (malformed, unknown type, bad field) before the socket is closed (4000).
    #[arg(long, env = "AEROPLANE_MAX_BAD_FRAMES", default_value_t = 10)]
    pub max_bad_frames: u32,

    /// Messages per second one WebSocket may send on average (a token bucket). A message over
    /// the rate is refused with `rate_limited`.
    #[arg(long, env = "AEROPLANE_WS_RATE_PER_SEC", default_value_t = 20.0)]
    pub ws_rate_per_sec: f64,

    /// Messages one WebSocket may send in a burst (the token bucket's size).
    #[arg(long, env = "AEROPLANE_WS_BURST", default_value_t = 40.0)]
    pub ws_burst: f64,

    /// Refused (rate-limited) messages a WebSocket is forgiven, one more per second; past them
    /// the socket is closed with 1008 `rate_limited`.
    #[arg(long, env = "AEROPLANE_WS_RATE_TOLERANCE", default_value_t = 20.0)]
    pub ws_rate_tolerance: f64,

    /// WebSockets one client address may hold open; more are refused with 429 before the upgrade.
    #[arg(
        long,
        env = "AEROPLANE_MAX_CONNECTIONS_PER_ADDRESS",
        default_value_t = 32
    )]
    pub max_connections_per_address: usize,

    /// WebSockets the server holds open in all; more are refused with 503 before the upgrade.
    #[arg(long, env = "AEROPLANE_MAX_CONNECTIONS", default_value_t = 10_000)]
    pub max_connections: usize,

    /// Rooms one client address may open per minute, every way of opening one counted: `POST
    /// /api/rooms` (online, computer and local rooms) and each `POST /api/quick-match` request.
    /// More answer 429 `rate_limited`.
    #[arg(
        long,
        env = "AEROPLANE_ROOMS_PER_ADDRESS_PER_MINUTE",
        default_value_t = 30
    )]
    pub rooms_per_address_per_minute: usize,

    /// Rooms open on the server in all (waiting, playing or finished); a request that would open
    /// one more answers 503 `too_many_rooms`.
    #[arg(long, env = "AEROPLANE_MAX_ROOMS", default_value_t = 10_000)]
    pub max_rooms: usize,

    /// Rooms waiting for their second player (or, in a computer or local room, their player) in
    /// all; a request that would open one more answers 503 `too_many_rooms`.
    #[arg(long, env = "AEROPLANE_MAX_WAITING_ROOMS", default_value_t = 1_000)]
    pub max_waiting_rooms: usize,

    /// How many leading bits of an IPv6 address make one client for the per-address limits (a
    /// home or a cloud machine usually holds a whole /64). IPv4 addresses count one by one.
    #[arg(long, env = "AEROPLANE_IPV6_PREFIX_LEN", default_value_t = 64, value_parser = clap::value_parser!(u8).range(1..=128))]
    pub ipv6_prefix_len: u8,

    /// How long a room waits for its game to start, in ms: a room whose seats are not both
    /// taken this long after it opened closes (1000 `room_closed`), whoever is connected.
    #[arg(long, env = "AEROPLANE_WAITING_ROOM_TTL_MS", default_value_t = 600_000)]
    pub waiting_room_ttl_ms: u64,

    /// Spectators one room admits; more are refused with `too_many_spectators`.
    #[arg(long, env = "AEROPLANE_MAX_SPECTATORS", default_value_t = 64)]
    pub max_spectators: usize,

    /// How long a client may take to send its whole HTTP request head, in ms; a slower one
    /// (slowloris) is disconnected. Also how long an idle keep-alive HTTP connection is kept.
    #[arg(long, env = "AEROPLANE_HEADER_READ_TIMEOUT_MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub header_read_timeout_ms: u64,

    /// How long a client may take to send a request body once its head has arrived, in ms; a
    /// slower one gets 408 `request_timeout` and its connection is closed.
    #[arg(long, env = "AEROPLANE_BODY_READ_TIMEOUT_MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub body_read_timeout_ms: u64,

    /// The largest request body the server reads, in bytes; a larger one gets 413 `too_large`.
    #[arg(long, env = "AEROPLANE_MAX_BODY_BYTES", default_value_t = 16_384)]
    pub max_body_bytes: usize,

    /// Plain HTTP connections one client address may hold open (WebSockets count separately,
    /// after their upgrade); more are answered 429 `too_many_connections` and closed at once.
    #[arg(
        long,
        env = "AEROPLANE_MAX_HTTP_CONNECTIONS_PER_ADDRESS",
        default_value_t = 64
    )]
    pub max_http_connections_per_address: usize,

    /// Serve `GET /metrics` on this address only (e.g. `127.0.0.1:9090`, a port the public does
    /// not reach) instead of on `--listen`. Unset: `/metrics` is served on `--listen`.
    #[arg(long, env = "AEROPLANE_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// The turn clock of quick-match rooms, in ms: how long the player to act has for each roll
    /// or plane choice before the server acts for them and counts a strike (0: no clock). Other
    /// rooms have a clock when `POST /api/rooms` asks for one (`turn_clock_ms`).
    #[arg(
        long,
        env = "AEROPLANE_QUICK_MATCH_TURN_CLOCK_MS",
        default_value_t = 30_000
    )]
    pub quick_match_turn_clock_ms: u64,

    /// Strikes (turns the clock ran out on) after which a player forfeits the game (`timeout`).
    #[arg(long, env = "AEROPLANE_MAX_STRIKES", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_strikes: u32,

    /// How long a WebSocket may stay open without joining, in ms; then it is closed (4003).
    #[arg(long, env = "AEROPLANE_JOIN_TIMEOUT_MS", default_value_t = 10_000)]
    pub join_timeout_ms: u64,

    /// How long a room stays open after its game ended, in ms (for late readers and reconnects).
    #[arg(
        long,
        env = "AEROPLANE_FINISHED_ROOM_TTL_MS",
        default_value_t = 300_000
    )]
    pub finished_room_ttl_ms: u64,

    /// How long the one player of a local room may stay away from a started game before the
    /// colour to act abandons, in ms (a waiting room closes after `--waiting-room-ttl-ms`).
    #[arg(long, env = "AEROPLANE_IDLE_ROOM_TTL_MS", default_value_t = 1_800_000)]
    pub idle_room_ttl_ms: u64,

    /// How long a quick-match request waits for an opponent, in ms.
    #[arg(long, env = "AEROPLANE_QUICK_MATCH_WAIT_MS", default_value_t = 30_000)]
    pub quick_match_wait_ms: u64,

    /// The quick-match window, in ms: how long an identified player's request collects other
    /// requests before it is paired with the one of the closest rating (at most half of
    /// `--quick-match-wait-ms`). A request that finds someone who waited the window already is
    /// paired at once, and so is an anonymous request (it has no rating to match); 0 pairs
    /// every request with the first other one.
    #[arg(long, env = "AEROPLANE_QUICK_MATCH_WINDOW_MS", default_value_t = 1_000)]
    pub quick_match_window_ms: u64,

    /// Messages a room's inbox holds before senders wait.
    #[arg(long, env = "AEROPLANE_ROOM_INBOX", default_value_t = 128)]
    pub room_inbox: usize,

    /// How long the computer waits before each roll or move in a computer room, in ms, so
    /// clients can animate (0 plays at once).
    #[arg(long, env = "AEROPLANE_BOT_PACE_MS", default_value_t = 600)]
    pub bot_pace_ms: u64,

    /// Where finished games are kept: a `postgres://` URL for PostgreSQL, a `sqlite://` URL, or
    /// unset for the SQLite file `games.sqlite3` in the data directory.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true, value_parser = parse_database_url)]
    pub database_url: Option<String>,

    /// The server's own directory: the outbox of finished games not yet in the database
    /// (`outbox/`), the journals of live games (`rooms/`) and, without `DATABASE_URL`, the SQLite
    /// file. Created if missing; keep it across restarts (a Docker volume).
    #[arg(long, env = "AEROPLANE_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,

    /// How long a graceful shutdown (SIGTERM, Ctrl-C) may take: saving live games, flushing the
    /// outbox and closing connections, in ms. What is not flushed by then stays on disk.
    #[arg(long, env = "AEROPLANE_SHUTDOWN_DEADLINE_MS", default_value_t = 10_000)]
    pub shutdown_deadline_ms: u64,

    /// How often the journals of live games are forced to disk (fsync), in ms. A machine crash
    /// (not a process crash) loses at most this much play.
    #[arg(long, env = "AEROPLANE_JOURNAL_SYNC_MS", default_value_t = 1_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub journal_sync_ms: u64,

    /// No effect any more, kept so that existing deployments still start: every room's
    /// journal is now written to one log in `<data-dir>/rooms/`, through one open file. (It
    /// was how many playing rooms' journals kept a file of their own open.)
    #[arg(long, env = "AEROPLANE_JOURNAL_OPEN_FILES", default_value_t = 1_024)]
    pub journal_open_files: usize,

    /// A NATS server with JetStream (e.g. `nats://127.0.0.1:4222`), or several servers of one
    /// NATS cluster, comma-separated (the client connects to any and fails over to the others):
    /// live games' journals go to its stream `AEROPLANE_JOURNAL` and each open room is leased to
    /// this node in its key-value bucket `aeroplane_leases` (see `docs/cluster.md`). Unset: the
    /// journals are files in the data directory and nothing else is needed.
    #[arg(long, env = "AEROPLANE_NATS_URL")]
    pub nats_url: Option<NatsUrls>,

    /// How many NATS servers keep a copy of the journal stream and the lease bucket (with
    /// `--nats-url`; 1 to 5, at most the NATS cluster's size). Set at each node's start: give
    /// every node the same value. 3 on a three-server NATS cluster survives the loss of one.
    #[arg(long, env = "AEROPLANE_NATS_REPLICAS", default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=5))]
    pub nats_replicas: u8,

    /// This node's name in logs and room leases (letters, digits, `-` and `_`, at most 64).
    /// Unset: a random name at each start. A node restarted with the same name takes back the
    /// leases of its rooms at once; under another name it waits until they lapse.
    #[arg(long, env = "AEROPLANE_NODE_ID")]
    pub node_id: Option<NodeId>,

    /// How long a room's lease lasts without renewal, in ms (with `--nats-url`). The owner renews
    /// it every third of that; a node that cannot renew stops acting for the room.
    #[arg(long, env = "AEROPLANE_LEASE_MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(300..))]
    pub lease_ms: u64,

    /// Other browser origins allowed to create rooms and open WebSockets, comma-separated (e.g.
    /// `https://play.example.org,http://localhost:5173`); `*` allows any. Unset: only pages
    /// served by this server (same origin: the `Origin` names the request's `Host`). A `POST`
    /// or WebSocket request whose `Origin` header is present and not allowed is refused with
    /// 403. Requests without an `Origin` (native clients, bots) are always allowed.
    #[arg(long, env = "AEROPLANE_ALLOWED_ORIGINS", value_delimiter = ',', value_parser = parse_origin)]
    pub allowed_origins: Vec<String>,

    /// The log format: `pretty` (human-readable) or `json` (one JSON object per line).
    #[arg(long, env = "AEROPLANE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Pretty)]
    pub log_format: LogFormat,

    /// The log level or filter (`error`, `warn`, `info`, `debug`, `trace`, or a `tracing`
    /// filter such as `info,aeroplane_server=debug`). `RUST_LOG`, when set, wins.
    #[arg(long, env = "AEROPLANE_LOG_LEVEL", default_value = "info", value_parser = parse_log_level)]
    pub log_level: String,

    /// A tool instead of the server (see `aeroplane-server help probe`).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Tools the binary offers besides serving.
#[derive(Clone, Debug, Subcommand)]
pub enum Command {
    /// GETs an `http://` URL and exits 0 if it answers 2xx, 1 otherwise (the container
    /// healthcheck: `aeroplane-server probe http://127.0.0.1:8080/healthz`).
    Probe {
        /// The URL to fetch.
        url: String,
        /// How long to wait for the answer, in ms (`/readyz` answers within 1 s even when the
        /// database hangs).
        #[arg(long, default_value_t = 2_500)]
        timeout_ms: u64,
    },
}

/// How log lines look.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Pretty,
    /// One JSON object per line, for log collectors.
    Json,
}

fn parse_database_url(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty()
        || text.starts_with("postgres://")
        || text.starts_with("postgresql://")
        || text.starts_with("sqlite:")
    {
        Ok(text.to_owned())
    } else {
        Err("expected a postgres://, postgresql:// or sqlite: URL".to_owned())
    }
}

fn parse_origin(text: &str) -> Result<String, String> {
    let text = text.trim().trim_end_matches('/');
    if text == "*" {
        return Ok(text.to_owned());
    }
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
        .ok_or_else(|| format!("`{text}` is not an origin like https://example.org"))?;
    if rest.is_empty() || rest.contains('/') {
        return Err(format!(
            "`{text}` is not an origin like https://example.org (no path)"
        ));
    }
    Ok(text.to_ascii_lowercase())
}

fn parse_log_level(text: &str) -> Result<String, String> {
    tracing_subscriber::EnvFilter::try_new(text)
        .map(|_| text.to_owned())
        .map_err(|error| format!("not a log level or filter: {error}"))
}

impl Config {
    /// The defaults, as `--help` shows them, ignoring flags (environment variables still apply),
    /// except the data directory: a fresh one under the system's temporary directory, so that
    /// servers started in-process (tests) never share one.
    pub fn defaults() -> Config {
        let mut config = Config::parse_from(["aeroplane-server"]);
        config.data_dir = std::env::temp_dir().join(format!(
            "aeroplane-server-{}",
            uuid::Uuid::new_v4().simple()
        ));
        config
    }

    /// The grace period for disconnected players.
    pub fn grace(&self) -> Duration {
        Duration::from_millis(self.grace_ms)
    }

    /// The ping interval.
    pub fn ping_interval(&self) -> Duration {
        Duration::from_millis(self.ping_interval_ms.max(1))
    }

    /// How long a finished room stays open.
    pub fn finished_room_ttl(&self) -> Duration {
        Duration::from_millis(self.finished_room_ttl_ms)
    }

    /// How long a room waits for its game to start.
    pub fn waiting_room_ttl(&self) -> Duration {
        Duration::from_millis(self.waiting_room_ttl_ms)
    }

    /// How long an idle room stays open.
    pub fn idle_room_ttl(&self) -> Duration {
        Duration::from_millis(self.idle_room_ttl_ms)
    }

    /// How long a quick-match request waits.
    pub fn quick_match_wait(&self) -> Duration {
        Duration::from_millis(self.quick_match_wait_ms)
    }

    /// How long a quick-match request collects others before it is paired: the window, at
    /// most half the wait.
    pub fn quick_match_window(&self) -> Duration {
        Duration::from_millis(self.quick_match_window_ms.min(self.quick_match_wait_ms / 2))
    }

    /// The computer's pause before each of its actions.
    pub fn bot_pace(&self) -> Duration {
        Duration::from_millis(self.bot_pace_ms)
    }

    /// How long a graceful shutdown may take.
    pub fn shutdown_deadline(&self) -> Duration {
        Duration::from_millis(self.shutdown_deadline_ms)
    }

    /// How often live games' journals are synced to disk.
    pub fn journal_sync(&self) -> Duration {
        Duration::from_millis(self.journal_sync_ms)
    }

    /// How long a client may take to send an HTTP request head.
    pub fn header_read_timeout(&self) -> Duration {
        Duration::from_millis(self.header_read_timeout_ms)
    }

    /// The turn clock of quick-match rooms, if any.
    pub fn quick_match_turn_clock(&self) -> Option<Duration> {
        (self.quick_match_turn_clock_ms > 0)
            .then(|| Duration::from_millis(self.quick_match_turn_clock_ms))
    }

    /// How long a WebSocket may stay open without joining.
    pub fn join_timeout(&self) -> Duration {
        Duration::from_millis(self.join_timeout_ms)
    }

    /// The database URL, if one is set and not empty.
    pub fn database_url(&self) -> Option<&str> {
        self.database_url.as_deref().filter(|url| !url.is_empty())
    }

    /// Whether a browser page from `origin` may create rooms and open WebSockets on a request
    /// addressed to `host` (its `Host` header): the same origin always may, others if listed.
    pub fn origin_allowed(&self, origin: &str, host: Option<&str>) -> bool {
        let origin = origin.trim_end_matches('/');
        let authority = origin
            .strip_prefix("https://")
            .or_else(|| origin.strip_prefix("http://"));
        let same_origin = authority
            .zip(host)
            .is_some_and(|(authority, host)| authority.eq_ignore_ascii_case(host));
        same_origin
            || self
                .allowed_origins
                .iter()
                .any(|allowed| allowed == "*" || allowed.eq_ignore_ascii_case(origin))
    }

    /// The NATS servers, if any is set.
    pub fn nats_url(&self) -> Option<&NatsUrls> {
        self.nats_url.as_ref().filter(|urls| !urls.is_empty())
    }

    /// How many NATS servers keep a copy of the journal stream and the lease bucket.
    pub fn nats_replicas(&self) -> usize {
        usize::from(self.nats_replicas)
    }

    /// How long a room's lease lasts without renewal.
    pub fn lease(&self) -> Duration {
        Duration::from_millis(self.lease_ms)
    }

    /// How long a client may take to send a request body.
    pub fn body_read_timeout(&self) -> Duration {
        Duration::from_millis(self.body_read_timeout_ms)
    }
}

#[cfg(test)]
mod tests;
