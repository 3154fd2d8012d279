//! `aeroplane-loadtest`: the command-line face of `aeroplane_loadtest` (closed and open loop
//! against our server, the echo ceiling or the Colyseus peer) and of `aeroplane_loadtest::idle`
//! (many silent connections, for memory per connection).
//!
//! The measuring lives in the library (`lib.rs`, `aeroplane.rs`, `idle.rs`), and reading the
//! server's process from `/proc` in `process.rs`; this file is the one command's flags, their
//! checks, the dispatch and the summaries.

use std::io::Write as _;
use std::net::IpAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use aeroplane_bot::Level;
use aeroplane_loadtest::idle::{self, IdleConfig, IdleLayout};
use aeroplane_loadtest::process::{local_server_pid, peak_memory_kib, resident_memory_kib};
use aeroplane_loadtest::{self as loadtest, LoadConfig, LoadReport, Progress, Target, Turns};
use aeroplane_rules::Rules;
use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};

/// Play many games at once with bot clients over real WebSockets and report throughput,
/// round-trip latency, errors and (for a local server) its peak memory; closed loop, or open loop
/// at a fixed `--rate`; against our server or, with `--target`, the benchmark's echo ceiling or
/// Colyseus peer; or hold `--idle` silent connections to measure memory.
///
/// Start the server with its abuse limits lifted, or the run measures the rate limiter
/// (refusals count as `rate_limited`): `aeroplane-server --ws-rate-per-sec 1000000
/// --ws-burst 1000000 --max-connections-per-address 1000000
/// --rooms-per-address-per-minute 1000000 --max-http-connections-per-address 1000000
/// --max-rooms 1000000 --max-waiting-rooms 1000000`.
#[derive(Debug, clap::Parser)]
#[command(name = "aeroplane-loadtest", version)]
#[command(group(clap::ArgGroup::new("bound").required(true).args(["games", "duration", "idle"])))]
struct Args {
    /// The server's base URL.
    #[arg(
        long,
        env = "AEROPLANE_SERVER",
        default_value = "http://127.0.0.1:8080"
    )]
    server: String,
    /// The kind of server: aeroplane (ours), echo (`bench-echo`, the ceiling), broadcast
    /// (`bench-echo`'s broadcast rooms, the fair ceiling) or colyseus
    /// (`bench/colyseus`, the peer).
    #[arg(long, default_value = "aeroplane")]
    target: Target,
    /// Rooms played at the same time; each has one client per player (`--players`, two by
    /// default) on its own WebSocket.
    #[arg(long, default_value_t = 10)]
    rooms: usize,
    /// Stop after this many games (all are played to the end).
    #[arg(long)]
    games: Option<u64>,
    /// Stop starting games after this long, e.g. `30s`, `2m`, `500ms` (in a closed loop games
    /// under way finish; in an open loop nothing is sent after it).
    #[arg(long, value_parser = parse_duration)]
    duration: Option<Duration>,
    /// Leave the round trips of actions due in the first this long out of the latency figures
    /// (they still count as actions), e.g. `3s`: in an open loop the first this long of the
    /// schedule, which starts once every room is seated; in a closed loop the run's first this
    /// long. The start, when every room is created and connects at once, stalls both sides
    /// (docs/benchmarks.md). Default: none.
    #[arg(long, value_parser = parse_duration, default_value = "0s")]
    warmup: Duration,
    /// Open loop: actions due per second over all rooms together, each timed from the moment it
    /// was due (see the library's documentation). Without it, a closed loop.
    #[arg(long)]
    rate: Option<f64>,
    /// Instead of playing: open this many WebSockets to our server, join rooms, stay silent for
    /// `--hold`, and report the server's memory per connection.
    #[arg(long, conflicts_with_all = ["target", "rate"])]
    idle: Option<usize>,
    /// How idle connections sit: seated (two players per room, the game waiting for a roll) or
    /// spectators (64 to a room).
    #[arg(long, default_value = "seated", requires = "idle")]
    idle_layout: IdleLayout,
    /// How long to hold the idle connections open, e.g. `30s`.
    #[arg(long, default_value = "30s", value_parser = parse_duration, requires = "idle")]
    hold: Duration,
    /// How the bots choose planes: random, easy, normal or hard (our server's bot clients, and
    /// the bots whose game orders the turns of `--turns game`).
    #[arg(long, default_value = "random")]
    level: Level,
    /// The order in which the two seats of an echo or broadcast room act: alternate (Red rolls
    /// and moves, then Yellow, 300 actions a game) or game (the order of a real plyyard game
    /// between two bots of `--level`, played out by the rules engine here: a seat rolls again
    /// after a six and passes at once when its roll moves nothing, as our players do).
    #[arg(long, default_value = "alternate")]
    turns: Turns,
    /// The edition every room plays (our server only): plyyard (the two-player game the
    /// benchmarks measure), flights, classic or classic+jump-after-shortcut (docs/rules/).
    #[arg(long, default_value = "plyyard", value_name = "EDITION")]
    ruleset: Rules,
    /// Players per room (our server only), each a bot client on its own WebSocket: 2 to 4 as
    /// the edition seats (plyyard: 2).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=4))]
    players: u8,
    /// Local addresses to spread connections over, comma-separated (e.g.
    /// `127.0.0.1,127.0.0.2,127.0.0.3`), to get past one address's ephemeral ports.
    #[arg(long, value_delimiter = ',')]
    source_addrs: Vec<IpAddr>,
    /// The server's process id, to report its peak memory (VmHWM). When absent and the server
    /// is on this machine, the process listening on its port is looked up in /proc.
    #[arg(long)]
    server_pid: Option<u32>,
    /// Cluster mode only (our server): open the rooms' WebSockets through this other node's
    /// base URL while `--server` creates the rooms, so every connection is forwarded to the
    /// room's owner; measures the cost of forwarding (docs/benchmarks.md, "Cluster").
    #[arg(long, value_name = "URL")]
    ws_via: Option<String>,
    /// The longest wait for one answer before a game counts as failed, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    timeout_ms: u64,
    /// Print the summary as one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let args = <Args as clap::Parser>::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("failed to start the tokio runtime");
    let server = args.server.clone();
    let outcome = runtime.block_on(run(&server, args));
    // Background connection tasks may still be winding down; do not wait for them.
    runtime.shutdown_background();
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// Exits 0 when every game finished with no error, 1 otherwise.
async fn run(server: &str, args: Args) -> anyhow::Result<ExitCode> {
    let server_pid = args.server_pid.or_else(|| local_server_pid(server));
    if let Some(connections) = args.idle {
        return run_idle(server, connections, server_pid, args).await;
    }
    if args.turns != Turns::Alternate && !matches!(args.target, Target::Echo | Target::Broadcast) {
        anyhow::bail!(
            "--turns orders the seats of the echo and broadcast targets only; our server's and \
             Colyseus's rooms take turns as their games do"
        );
    }
    if args.ruleset == Rules::PLYYARD && args.players != 2 {
        anyhow::bail!("plyyard seats two players; pass --ruleset flights or classic for more");
    }
    let config = LoadConfig {
        server: server.to_owned(),
        target: args.target,
        rooms: args.rooms,
        games: args.games,
        duration: args.duration,
        rate: args.rate,
        level: args.level,
        turns: args.turns,
        rules: args.ruleset,
        players: args.players,
        source_addrs: args.source_addrs.clone(),
        action_timeout: Duration::from_millis(args.timeout_ms),
        warmup: args.warmup,
        ws_via: args.ws_via.clone(),
    };
    let progress = Arc::new(Progress::default());
    let bar = progress_bar(args.games);
    let run = tokio::spawn(loadtest::run(config, progress.clone()));
    let ticker = {
        let (bar, progress) = (bar.clone(), progress.clone());
        tokio::spawn(async move {
            loop {
                let games = progress.games.load(Ordering::Relaxed);
                bar.set_position(games);
                bar.set_message(format!(
                    "{} actions, {} errors",
                    progress.actions.load(Ordering::Relaxed),
                    progress.errors.load(Ordering::Relaxed)
                ));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    let report = run.await.context("the load test panicked")?;
    ticker.abort();
    bar.finish_and_clear();
    let peak_kib = server_pid.and_then(peak_memory_kib);
    if args.json {
        println!("{}", json_summary(&report, &args, peak_kib));
    } else {
        print!("{}", text_summary(&report, &args, server_pid, peak_kib));
    }
    let clean = report.error_count() == 0 && report.failed_games == 0;
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `--idle N`: opens the connections, reads the server's memory before, once all are open and
/// at the end of the hold, and reports the growth per connection. Exits 0 when every
/// connection opened. (Over 80 lines on purpose: it reads top to bottom as the measurement it
/// is, each step's figures feeding the report at its end.)
async fn run_idle(
    server: &str,
    connections: usize,
    server_pid: Option<u32>,
    args: Args,
) -> anyhow::Result<ExitCode> {
    let config = IdleConfig {
        server: server.to_owned(),
        connections,
        layout: args.idle_layout,
        source_addrs: args.source_addrs,
        timeout: Duration::from_millis(args.timeout_ms),
    };
    let before_kib = server_pid.and_then(resident_memory_kib);
    let started = Instant::now();
    let idle = idle::open(&config).await;
    let opened_in = started.elapsed();
    // Said at once (on stderr, so `--json` stays one object): a script may read the server's
    // memory itself from here until the hold ends.
    eprintln!(
        "idle: {} of {connections} connections open in {} rooms ({}) after {:.1} s; holding {:.0} s",
        idle.open(),
        idle.rooms,
        config.layout,
        opened_in.as_secs_f64(),
        args.hold.as_secs_f64()
    );
    let _ = std::io::stderr().flush();
    let open_kib = server_pid.and_then(resident_memory_kib);
    tokio::time::sleep(args.hold).await;
    let held_kib = server_pid.and_then(resident_memory_kib);
    let open = idle.open();
    let errors = idle.errors.clone();
    idle.close();
    let per_connection = match (before_kib, held_kib) {
        (Some(before), Some(held)) if open > 0 => {
            Some((held as f64 - before as f64) * 1024.0 / open as f64)
        }
        _ => None,
    };
    let rooms = connections.div_ceil(config.layout.per_room());
    if args.json {
        let summary = serde_json::json!({
            "idle_connections": open,
            "requested": connections,
            "rooms": rooms,
            "layout": config.layout.as_str(),
            "open_seconds": opened_in.as_secs_f64(),
            "hold_seconds": args.hold.as_secs_f64(),
            "server_rss_before_kib": before_kib,
            "server_rss_open_kib": open_kib,
            "server_rss_held_kib": held_kib,
            "bytes_per_connection": per_connection,
            "errors": errors,
        });
        println!("{summary}");
    } else {
        let kib =
            |value: Option<u64>| value.map_or("unread".to_owned(), |kib| format!("{kib} KiB"));
        println!(
            "idle       {open} of {connections} connections in {rooms} rooms ({}), open in {:.1} s, held {:.0} s",
            config.layout,
            opened_in.as_secs_f64(),
            args.hold.as_secs_f64()
        );
        println!(
            "server RSS before {}, all open {}, end of hold {}",
            kib(before_kib),
            kib(open_kib),
            kib(held_kib)
        );
        match per_connection {
            Some(bytes) => println!(
                "per connection {:.0} bytes ({:.2} KiB)",
                bytes,
                bytes / 1024.0
            ),
            None => println!("per connection: not measured (server memory unreadable)"),
        }
        if !errors.is_empty() {
            let errors: Vec<String> = errors
                .iter()
                .map(|(code, count)| format!("{code} {count}"))
                .collect();
            println!("errors     {}", errors.join(", "));
        }
    }
    Ok(if open == connections {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn progress_bar(games: Option<u64>) -> ProgressBar {
    let bar = match games {
        Some(games) => ProgressBar::new(games),
        None => ProgressBar::no_length(),
    };
    let template = match games {
        Some(_) => "{elapsed_precise} [{bar:30}] {pos}/{len} games, {per_sec}, {msg}",
        None => "{elapsed_precise} {pos} games, {per_sec}, {msg}",
    };
    bar.set_style(ProgressStyle::with_template(template).expect("a valid template"));
    bar
}

fn text_summary(
    report: &LoadReport,
    args: &Args,
    pid: Option<u32>,
    peak_kib: Option<u64>,
) -> String {
    let (target, rate) = (args.target, args.rate);
    let mode = match rate {
        Some(rate) => format!("open loop at {rate} actions/s, timed from each action's due time"),
        None => "closed loop".to_owned(),
    };
    let game = match target {
        Target::Aeroplane => format!(" ({} for {})", args.ruleset, args.players),
        _ => String::new(),
    };
    let mut out = format!("target     {target}{game}, {mode}\n");
    out += &format!(
        "games      {} finished, {} failed in {:.2} s: {:.1} games/s\n\
         actions    {}: {:.0} actions/s\n\
         round trip action -> event: p50 {:.3} ms, p95 {:.3} ms, p99 {:.3} ms, p99.9 {:.3} ms, max {:.3} ms\n",
        report.games,
        report.failed_games,
        report.elapsed.as_secs_f64(),
        report.games_per_second(),
        report.actions,
        report.actions_per_second(),
        report.round_trip_ms(0.50),
        report.round_trip_ms(0.95),
        report.round_trip_ms(0.99),
        report.round_trip_ms(0.999),
        report.round_trip_us.max() as f64 / 1000.0,
    );
    if let Some(lag) = &report.lag {
        out += &format!(
            "generator  runtime wake-up lateness: p99 {:.3} ms, p99.9 {:.3} ms, max {:.3} ms; {} stalls over {} ms\n",
            lag.late_ms(0.99),
            lag.late_ms(0.999),
            lag.late_us.max() as f64 / 1000.0,
            lag.stalls.len(),
            aeroplane_loadtest::lag::STALL.as_millis(),
        );
    }
    if report.errors.is_empty() {
        out.push_str("errors     none\n");
    } else {
        let errors: Vec<String> = report
            .errors
            .iter()
            .map(|(code, count)| format!("{code} {count}"))
            .collect();
        out.push_str(&format!("errors     {}\n", errors.join(", ")));
    }
    match (pid, peak_kib) {
        (Some(pid), Some(kib)) => {
            out.push_str(&format!(
                "server     pid {pid}, peak memory (VmHWM) {:.1} MiB\n",
                kib as f64 / 1024.0
            ));
        }
        (Some(pid), None) => {
            out.push_str(&format!("server     pid {pid}: peak memory unreadable\n"))
        }
        (None, _) => {
            out.push_str("server     not local (or not found): peak memory not measured\n")
        }
    }
    out
}

fn json_summary(report: &LoadReport, args: &Args, peak_kib: Option<u64>) -> serde_json::Value {
    serde_json::json!({
        "target": args.target.as_str(),
        "ruleset": args.ruleset.to_string(),
        "players": args.players,
        "rate": args.rate,
        "games": report.games,
        "failed_games": report.failed_games,
        "actions": report.actions,
        "seconds": report.elapsed.as_secs_f64(),
        "games_per_second": report.games_per_second(),
        "actions_per_second": report.actions_per_second(),
        "round_trip_ms": {
            "p50": report.round_trip_ms(0.50),
            "p95": report.round_trip_ms(0.95),
            "p99": report.round_trip_ms(0.99),
            "p99_9": report.round_trip_ms(0.999),
            "max": report.round_trip_us.max() as f64 / 1000.0,
        },
        "errors": report.errors,
        "generator_lag_ms": report.lag.as_ref().map(|lag| serde_json::json!({
            "p99": lag.late_ms(0.99),
            "p99_9": lag.late_ms(0.999),
            "max": lag.late_us.max() as f64 / 1000.0,
            "stalls": lag.stalls.iter().map(|(at, ms)| serde_json::json!({"at_s": at, "ms": ms})).collect::<Vec<_>>(),
        })),
        "slow_round_trips": report.slow.iter().map(|(at, ms)| serde_json::json!({"due_at_s": at, "ms": ms})).collect::<Vec<_>>(),
        "server_peak_kib": peak_kib,
    })
}

/// Parses `500ms`, `30s`, `2m` or a bare number of seconds.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let (number, unit) = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .map_or((text, "s"), |at| text.split_at(at));
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration like 30s"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(format!("`{text}`: the unit is ms, s, m or h")),
    };
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_with_their_units() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("7"), Ok(Duration::from_secs(7)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3d").is_err());
    }
}
