//! Every setting of the server, from flags or environment variables, with documented defaults.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Parser;

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

    /// How long a room stays open after its game ended, in ms (for late readers and reconnects).
    #[arg(
        long,
        env = "AEROPLANE_FINISHED_ROOM_TTL_MS",
        default_value_t = 300_000
    )]
    pub finished_room_ttl_ms: u64,

    /// How long a room in which nobody is connected and no game is live lives on, in ms.
    #[arg(long, env = "AEROPLANE_IDLE_ROOM_TTL_MS", default_value_t = 1_800_000)]
    pub idle_room_ttl_ms: u64,

    /// How long a quick-match request waits for an opponent, in ms.
    #[arg(long, env = "AEROPLANE_QUICK_MATCH_WAIT_MS", default_value_t = 30_000)]
    pub quick_match_wait_ms: u64,

    /// Messages a room's inbox holds before senders wait.
    #[arg(long, env = "AEROPLANE_ROOM_INBOX", default_value_t = 128)]
    pub room_inbox: usize,

    /// Log as JSON lines instead of human-readable text (filter with `RUST_LOG`).
    #[arg(long, env = "AEROPLANE_LOG_JSON", default_value_t = false)]
    pub log_json: bool,
}

impl Config {
    /// The defaults, as `--help` shows them, ignoring flags (environment variables still apply).
    pub fn defaults() -> Config {
        Config::parse_from(["aeroplane-server"])
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

    /// How long an idle room stays open.
    pub fn idle_room_ttl(&self) -> Duration {
        Duration::from_millis(self.idle_room_ttl_ms)
    }

    /// How long a quick-match request waits.
    pub fn quick_match_wait(&self) -> Duration {
        Duration::from_millis(self.quick_match_wait_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_defaults_hold() {
        let config = Config::try_parse_from(["aeroplane-server"]).unwrap();
        assert_eq!(config.grace(), Duration::from_secs(60));
        assert_eq!(config.max_frame_bytes, 4096);
    }

    #[test]
    fn flags_override_defaults() {
        let config = Config::try_parse_from([
            "aeroplane-server",
            "--listen",
            "0.0.0.0:9000",
            "--grace-ms",
            "5",
        ])
        .unwrap();
        assert_eq!(config.listen.port(), 9000);
        assert_eq!(config.grace_ms, 5);
    }
}
