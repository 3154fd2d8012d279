//! `aeroplane loadtest`: the command-line face of `aeroplane_client::loadtest`.

use std::net::IpAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use aeroplane_bot::Level;
use aeroplane_client::loadtest::{self, LoadConfig, LoadReport, Progress};
use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};

/// Arguments of `aeroplane loadtest`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("bound").required(true).args(["games", "duration"])))]
pub(crate) struct Args {
    /// Rooms played at the same time; each has two bot clients on their own WebSockets.
    #[arg(long, default_value_t = 10)]
    rooms: usize,
    /// Stop after this many games (all are played to the end).
    #[arg(long)]
    games: Option<u64>,
    /// Stop starting games after this long, e.g. `30s`, `2m`, `500ms` (games under way finish).
    #[arg(long, value_parser = parse_duration)]
    duration: Option<Duration>,
    /// How the bots choose planes: random, easy, normal or hard.
    #[arg(long, default_value = "random")]
    level: Level,
    /// Local addresses to spread connections over, comma-separated (e.g.
    /// `127.0.0.1,127.0.0.2,127.0.0.3`), to get past one address's ephemeral ports.
    #[arg(long, value_delimiter = ',')]
    source_addrs: Vec<IpAddr>,
    /// The server's process id, to report its peak memory (VmHWM). When absent and the server
    /// is on this machine, the process listening on its port is looked up in /proc.
    #[arg(long)]
    server_pid: Option<u32>,
    /// The longest wait for one answer before a game counts as failed, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    timeout_ms: u64,
    /// Print the summary as one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Exits 0 when every game finished with no error, 1 otherwise.
pub(crate) async fn run(server: &str, args: Args) -> anyhow::Result<ExitCode> {
    let config = LoadConfig {
        server: server.to_owned(),
        rooms: args.rooms,
        games: args.games,
        duration: args.duration,
        level: args.level,
        source_addrs: args.source_addrs,
        action_timeout: Duration::from_millis(args.timeout_ms),
    };
    let server_pid = args.server_pid.or_else(|| local_server_pid(server));
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
        println!("{}", json_summary(&report, peak_kib));
    } else {
        print!("{}", text_summary(&report, server_pid, peak_kib));
    }
    let clean = report.error_count() == 0 && report.failed_games == 0;
    Ok(if clean {
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

fn text_summary(report: &LoadReport, pid: Option<u32>, peak_kib: Option<u64>) -> String {
    let mut out = format!(
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

fn json_summary(report: &LoadReport, peak_kib: Option<u64>) -> serde_json::Value {
    serde_json::json!({
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

/// The peak resident set size of process `pid`, in KiB (`VmHWM` of `/proc/<pid>/status`).
fn peak_memory_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The process listening on the server's port, when the server is on a loopback address.
fn local_server_pid(server: &str) -> Option<u32> {
    let authority = server.split_once("://")?.1.split('/').next()?;
    let (host, port) = authority.rsplit_once(':')?;
    let local = host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if !local {
        return None;
    }
    let port: u16 = port.parse().ok()?;
    let inode = listening_inode(port)?;
    let needle = format!("socket:[{inode}]");
    for process in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = process
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if std::fs::read_link(fd.path()).is_ok_and(|target| target.to_string_lossy() == needle)
            {
                return Some(pid);
            }
        }
    }
    None
}

/// The socket inode of a TCP socket listening on `port` (from /proc/net/tcp and tcp6).
fn listening_inode(port: u16) -> Option<String> {
    const LISTEN: &str = "0A";
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(state), Some(inode)) =
                (fields.get(1), fields.get(3), fields.get(9))
            else {
                continue;
            };
            let local_port = local
                .rsplit(':')
                .next()
                .and_then(|hex| u16::from_str_radix(hex, 16).ok());
            if *state == LISTEN && local_port == Some(port) {
                return Some((*inode).to_owned());
            }
        }
    }
    None
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

    #[test]
    fn the_peak_memory_of_this_process_is_readable() {
        let kib = peak_memory_kib(std::process::id()).unwrap();
        assert!(kib > 100, "{kib} KiB");
    }
}
