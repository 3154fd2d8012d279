//! The real `aeroplane-server` binary as a child process, for restarts, SIGTERM, SIGKILL and
//! SIGSTOP.
//!
//! The binary is the one cargo built next to this test executable
//! (`target/<profile>/aeroplane-server`). `cargo test --workspace` (the README's and CI's test
//! command) and `cargo test -p aeroplane-server` build it; `cargo test -p aeroplane-suite` alone
//! may not, and then these tests say how to build it.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The server binary beside the test executable.
pub(crate) fn server_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test executable lives in target/<profile>/deps");
    let binary = profile_dir.join(format!("aeroplane-server{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.is_file(),
        "{} is missing: run `cargo test --workspace`, or `cargo build -p aeroplane-server` \
         before `cargo test -p aeroplane-suite`",
        binary.display()
    );
    binary
}

/// A running server process.
pub(crate) struct ServerProcess {
    child: Child,
    /// Where it listens.
    pub(crate) addr: SocketAddr,
}

impl ServerProcess {
    /// Starts the server on a free port with `data_dir`, `database_url` (none: SQLite in the
    /// data directory) and extra flags, and waits until it listens.
    pub(crate) fn start(
        data_dir: &Path,
        database_url: Option<&str>,
        args: &[&str],
    ) -> ServerProcess {
        ServerProcess::start_under(&[], data_dir, database_url, args)
    }

    /// [`ServerProcess::start`] through the command `under` (e.g. `ip netns exec <name>`, which
    /// runs the server in a network namespace); the server is the process itself, as `under`
    /// execs it.
    pub(crate) fn start_under(
        under: &[&str],
        data_dir: &Path,
        database_url: Option<&str>,
        args: &[&str],
    ) -> ServerProcess {
        let mut command = match under.split_first() {
            Some((program, first)) => {
                let mut command = Command::new(program);
                command.args(first).arg(server_binary());
                command
            }
            None => Command::new(server_binary()),
        };
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy().into_owned();
            if name.starts_with("AEROPLANE_") || name == "DATABASE_URL" || name == "RUST_LOG" {
                command.env_remove(name);
            }
        }
        command
            .env("AEROPLANE_LISTEN", "127.0.0.1:0")
            .env("AEROPLANE_DATA_DIR", data_dir)
            .env("AEROPLANE_LOG_FORMAT", "json")
            // The test clients play as fast as they can: no rate limit.
            .env("AEROPLANE_WS_RATE_PER_SEC", "1000000")
            .env("AEROPLANE_WS_BURST", "1000000")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(url) = database_url {
            command.env("DATABASE_URL", url);
        }
        let mut child = command.spawn().expect("the server binary starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (found, address) = mpsc::channel();
        let verbose = std::env::var_os("TEST_LOG").is_some();
        // Reads the address line, then keeps draining stdout so the server never blocks on it.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(addr) = line.strip_prefix("aeroplane-server listening on http://") {
                    let _ = found.send(addr.trim().to_owned());
                } else if verbose {
                    eprintln!("[server] {line}");
                }
            }
        });
        let addr = match address.recv_timeout(Duration::from_secs(30)) {
            Ok(addr) => addr.parse().expect("a socket address"),
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "the server did not say where it listens (run with TEST_LOG=1 for its logs)"
                );
            }
        };
        ServerProcess { child, addr }
    }

    /// `http://<addr><path>`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// GETs `path` and decodes its JSON body (the test fails on any error).
    pub(crate) async fn get_json<T: serde::de::DeserializeOwned>(&self, path: &str) -> T {
        let response = reqwest::get(self.url(path)).await.unwrap();
        response.json().await.unwrap()
    }

    /// The process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGTERM and waits for the exit (at most `within`).
    pub(crate) fn terminate(&mut self, within: Duration) -> ExitStatus {
        self.signal("TERM");
        self.wait(within)
    }

    /// Stops the process with SIGSTOP: it keeps its sockets and leases but does nothing (a
    /// machine that froze, a long pause), until [`ServerProcess::resume`].
    /// Returns once every thread of it has stopped: the signal is delivered asynchronously,
    /// and a message sent right after it must not reach a process that is still running.
    pub(crate) fn pause(&mut self) {
        self.signal("STOP");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !self.all_threads_stopped() {
            assert!(
                std::time::Instant::now() < deadline,
                "the process never stopped"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// Whether every thread of the process is stopped (state `T` in `/proc/<pid>/task/*/stat`).
    fn all_threads_stopped(&self) -> bool {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{}/task", self.pid())) else {
            return false;
        };
        tasks.flatten().all(|task| {
            std::fs::read_to_string(task.path().join("stat")).is_ok_and(|stat| {
                // The state follows the name, which is in parentheses and may hold spaces.
                stat.rsplit_once(") ")
                    .and_then(|(_, rest)| rest.chars().next())
                    .is_some_and(|state| state == 'T' || state == 't')
            })
        })
    }

    /// Lets a paused process go on with SIGCONT.
    pub(crate) fn resume(&mut self) {
        self.signal("CONT");
    }

    /// Sends signal `name` (`TERM`, `STOP`, …) with `kill`.
    fn signal(&self, name: &str) {
        let sent = Command::new("kill")
            .args([&format!("-{name}"), &self.pid().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "SIG{name} was sent");
    }

    /// Sends SIGKILL and reaps the process.
    pub(crate) fn kill(&mut self) {
        self.child.kill().expect("SIGKILL");
        let _ = self.child.wait();
    }

    /// Waits for the exit, failing after `within`.
    pub(crate) fn wait(&mut self, within: Duration) -> ExitStatus {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not exit within {within:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            // SIGKILL ends a stopped process too.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
