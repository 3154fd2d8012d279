//! A TCP relay the test controls, to cut one node's connection to its NATS server while its
//! clients still reach it (a partition between a node and the broker, nothing else).
//!
//! The node is given the relay's address as its NATS URL; the relay forwards every connection
//! to the real server. [`Relay::cut`] closes every forwarded connection and refuses new ones
//! (each is closed as soon as it is accepted, before the server's greeting) until
//! [`Relay::heal`]. It runs on a thread of its own with its own runtime, so that it forwards
//! while the test's runtime is blocked (starting a child process blocks it until the child
//! listens, and a node listens only once it reached NATS).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// What the relay does with connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Forwards them.
    Open,
    /// Closes the forwarded ones and refuses new ones.
    Cut,
    /// Stops (the relay was dropped).
    Stopped,
}

/// A running relay.
pub(crate) struct Relay {
    /// Where it listens.
    pub(crate) addr: SocketAddr,
    mode: watch::Sender<Mode>,
    /// How many connections it forwards now.
    open: Arc<AtomicUsize>,
}

impl Relay {
    /// Starts a relay on `listen` (port 0: a free one) forwarding to `upstream`.
    pub(crate) fn start(listen: SocketAddr, upstream: SocketAddr) -> Relay {
        let listener = std::net::TcpListener::bind(listen).expect("the relay binds");
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let (mode, watching) = watch::channel(Mode::Open);
        let open = Arc::new(AtomicUsize::new(0));
        let counted = open.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for the relay");
            runtime.block_on(serve(listener, upstream, watching, counted));
        });
        Relay { addr, mode, open }
    }

    /// `nats://<addr>`, for a node's `--nats-url`.
    pub(crate) fn url(&self) -> String {
        format!("nats://{}", self.addr)
    }

    /// Closes every forwarded connection and refuses new ones; returns once none is open.
    pub(crate) fn cut(&self) {
        self.mode.send_replace(Mode::Cut);
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.open.load(Ordering::SeqCst) > 0 {
            assert!(Instant::now() < deadline, "the relay's connections closed");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Forwards new connections again.
    pub(crate) fn heal(&self) {
        self.mode.send_replace(Mode::Open);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.mode.send_replace(Mode::Stopped);
    }
}

/// The relay's accept loop.
async fn serve(
    listener: std::net::TcpListener,
    upstream: SocketAddr,
    mut mode: watch::Receiver<Mode>,
    open: Arc<AtomicUsize>,
) {
    let listener = TcpListener::from_std(listener).expect("a tokio listener");
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = mode.wait_for(|mode| *mode == Mode::Stopped) => return,
        };
        let Ok((inbound, _)) = accepted else {
            continue;
        };
        if *mode.borrow() != Mode::Open {
            // Refused: closed before the server says anything.
            drop(inbound);
            continue;
        }
        let until_cut = mode.clone();
        let open = open.clone();
        open.fetch_add(1, Ordering::SeqCst);
        tokio::spawn(async move {
            forward(inbound, upstream, until_cut).await;
            open.fetch_sub(1, Ordering::SeqCst);
        });
    }
}

/// Forwards one connection both ways until either side closes it or the relay is cut; both
/// sockets are closed when it returns.
async fn forward(mut inbound: TcpStream, upstream: SocketAddr, mut mode: watch::Receiver<Mode>) {
    let Ok(mut outbound) = TcpStream::connect(upstream).await else {
        return;
    };
    tokio::select! {
        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
        _ = mode.wait_for(|mode| *mode != Mode::Open) => {}
    }
}
