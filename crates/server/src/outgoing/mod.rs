//! The sending side of one connection, as rooms see it: a bounded queue and a way to close.
//!
//! The queue is bounded so a slow client can never make a room wait: a room only ever uses
//! [`Outbox::send_frame`] and [`Outbox::flush`], which never wait, and a full queue means the
//! client has fallen behind and is dropped (it can reconnect and resync from a snapshot).
//! Closing goes around the queue, so it works even then.
//!
//! An outbox leads to one of two places:
//!
//! - A WebSocket's socket ([`socket::SocketQueue`]): frames are queued, and a flush writes them
//!   to the kernel at once from the caller's task (the room flushes once per command, so all
//!   of a command's frames leave in one system call); only a full socket leaves frames for the
//!   connection's task to write later.
//! - An in-process reader ([`Frames`]: the server's computer players, and the connections that
//!   another node forwards to this one): an unbounded `futures` channel with the bound kept by
//!   a counter beside it (tokio's bounded channel allocates a block of 32 slots, about 1.6 KiB,
//!   for every connection up front, idle or not; memory per idle connection is one of the load
//!   benchmark's targets, docs/benchmarks.md). Its frames are seen at once; a flush does
//!   nothing.

pub mod socket;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::task::{Poll, Waker};

use aeroplane_protocol::error::CloseCode;
use aeroplane_protocol::server::ServerMessage;
use axum::extract::ws::Utf8Bytes;
use bytes::{Bytes, BytesMut};
use futures_channel::mpsc;
use futures_util::StreamExt as _;

/// Why a frame could not be queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// The client is too slow: its queue is full.
    #[error("the outgoing queue is full")]
    Full,
    /// The connection is gone.
    #[error("the connection is closed")]
    Closed,
}

/// What a connection's two halves and its room share: the request to close the socket with a
/// code (once), whether the room accepted a `join`, and how full the outgoing queue is.
///
/// One task waits on a closer (the connection's, a computer player's, or a forwarded
/// connection's): a flag and that task's waker, not a [`tokio::sync::Notify`], whose wait took
/// its lock to register and again to unregister at every frame the connection read (about 1%
/// of the server's CPU in the closed loop).
///
/// A wake leaves the waker in place (unlike `futures`' `AtomicWaker`, whose wake takes it), so
/// the closer's owning task, once registered, waits again without registering
/// ([`Closer::woken_by_owner`]): no atomic read-modify-write at all while the flag is down. The
/// connection's task waits on its closer twice per frame it reads; registering each time
/// (`AtomicWaker`'s two compare-and-swaps, and a swap of the flag before and after) was four
/// locked instructions per wait, each draining the core's store buffer (issue 18, stop 45).
#[derive(Debug, Default)]
pub struct Closer {
    code: OnceLock<CloseCode>,
    /// Set by [`Closer::close`] and [`Closer::wake`], taken by the waiter.
    woken: AtomicBool,
    /// The waiting task's waker, replaced only by a waiter (a wake clones it).
    waiter: Mutex<Option<Waker>>,
    /// The waker in `waiter` is the owning task's ([`Closer::woken_by_owner`]); cleared when
    /// [`Closer::woken`] registers another. Kept on the line of `woken`, which every wait reads.
    owner_registered: AtomicBool,
    /// Whether the room accepted a `join` from this connection (the join timeout stops).
    joined: AtomicBool,
    /// Frames queued and not yet taken by the writer.
    queued: AtomicUsize,
    /// A WebSocket's socket was full at its last write: the rest waits for room (set by
    /// [`socket::SocketQueue`] under its lock). Kept here too, beside `woken`, because the
    /// connection's task reads it at every frame: read from the queue, behind its lock, it was
    /// one more cache line per action, cold at 1,000 rooms (issue 18, stop 38).
    socket_full: AtomicBool,
}

impl Closer {
    /// Asks for the socket to be closed with `code`; later requests keep the first code.
    pub fn close(&self, code: CloseCode) {
        let _ = self.code.set(code);
        self.wake();
    }

    /// The close code asked for, if one was.
    pub fn code(&self) -> Option<CloseCode> {
        self.code.get().copied()
    }

    /// Whether the room has accepted a `join` from this connection.
    pub fn is_joined(&self) -> bool {
        self.joined.load(Ordering::Relaxed)
    }

    /// Whether a WebSocket's socket was full at its last write, so that the rest waits for room
    /// (read without the queue's lock; it changes only under it). The connection's task reads
    /// it here rather than through its queue: the queue's pointer to this closer lies on a line
    /// of the queue nothing else touches per action (issue 18, stop 39).
    pub fn is_socket_full(&self) -> bool {
        self.socket_full.load(Ordering::Acquire)
    }

    /// Wakes whoever waits in [`Closer::woken`] or [`Closer::woken_by_owner`] (the
    /// connection's task: its socket is full).
    pub fn wake(&self) {
        self.woken.store(true, Ordering::Release);
        // Woken outside the lock: waking may schedule the task, and a waiter may be taking the
        // lock to register meanwhile.
        let waker = self.waiter().clone();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Waits until a close is asked for or [`Closer::wake`] is called (at once if either
    /// happened since the last wait). Only one task may wait at a time.
    pub async fn woken(&self) {
        self.wait(false).await;
    }

    /// [`Closer::woken`] for the closer's owner: the one task that ever waits with this
    /// method (a connection's task). It registers its waker at its first wait and not again,
    /// unless a wait through [`Closer::woken`] registered another meanwhile.
    pub async fn woken_by_owner(&self) {
        self.wait(true).await;
    }

    async fn wait(&self, owner: bool) {
        std::future::poll_fn(|context| {
            if self.take_woken() {
                return Poll::Ready(());
            }
            // Only a waiter replaces the waker, and the owner's is there: a wake from now on
            // wakes it.
            if owner && self.owner_registered.load(Ordering::Relaxed) {
                debug_assert!(
                    self.waiter()
                        .as_ref()
                        .is_some_and(|left| left.will_wake(context.waker())),
                    "a closer has one owner"
                );
                return Poll::Pending;
            }
            {
                let mut waiter = self.waiter();
                if !waiter
                    .as_ref()
                    .is_some_and(|left| left.will_wake(context.waker()))
                {
                    *waiter = Some(context.waker().clone());
                }
                self.owner_registered.store(owner, Ordering::Relaxed);
            }
            // A wake between the check and the registration woke the waker before this one
            // (if any); its flag, set before it took the lock, is seen now.
            if self.take_woken() {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await;
    }

    /// Takes the flag if it is up: a plain read first, so that a wait that finds it down
    /// writes nothing.
    fn take_woken(&self) -> bool {
        self.woken.load(Ordering::Acquire) && self.woken.swap(false, Ordering::AcqRel)
    }

    fn waiter(&self) -> MutexGuard<'_, Option<Waker>> {
        // Nothing panics while the lock is held, so it is never poisoned.
        self.waiter.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until a close is asked for, and returns its code.
    pub async fn closed(&self) -> CloseCode {
        loop {
            if let Some(code) = self.code.get() {
                return *code;
            }
            self.woken().await;
        }
    }
}

/// A closer is a [`std::task::Waker`] for its waiter too: the connection's timer wakes the
/// connection's task through it, so that the task looks at its timer only once it may have
/// fired, not at every frame it reads (whose poll wrote the timer's waker slot, a cache line of
/// its own, cold at 1,000 rooms: issue 18, stop 40).
impl std::task::Wake for Closer {
    fn wake(self: Arc<Self>) {
        Closer::wake(&self);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        Closer::wake(self);
    }
}

/// A new in-process queue of at most `capacity` frames for one connection: the outbox that
/// fills it and the frames its reader takes.
pub fn queue(capacity: usize, closer: Arc<Closer>) -> (Outbox, Frames) {
    let (sender, receiver) = mpsc::unbounded();
    let outbox = Outbox {
        sink: Sink::Channel(sender),
        closer: closer.clone(),
        capacity: capacity.max(1),
    };
    (outbox, Frames { receiver, closer })
}

/// An outbox for a WebSocket whose frames go through `socket`, at most `capacity` of them
/// waiting at once.
pub fn for_socket(
    socket: Arc<socket::SocketQueue>,
    capacity: usize,
    closer: Arc<Closer>,
) -> Outbox {
    Outbox {
        sink: Sink::Socket(socket),
        closer,
        capacity: capacity.max(1),
    }
}

/// A handle to send frames to one connection and to close it.
#[derive(Clone, Debug)]
pub struct Outbox {
    sink: Sink,
    closer: Arc<Closer>,
    capacity: usize,
}

/// Where an outbox's frames go.
#[derive(Clone, Debug)]
enum Sink {
    /// To an in-process reader.
    Channel(mpsc::UnboundedSender<Utf8Bytes>),
    /// To a WebSocket's socket.
    Socket(Arc<socket::SocketQueue>),
}

impl Outbox {
    /// Queues an encoded frame without waiting. A WebSocket's frames leave at the next
    /// [`Outbox::flush`].
    pub fn send_frame(&self, frame: &Frame) -> Result<(), SendError> {
        let queue = match &self.sink {
            Sink::Socket(socket) => {
                return socket.push(socket::Chunk::Text(frame.clone()), self.capacity);
            }
            Sink::Channel(queue) => queue,
        };
        let queued = &self.closer.queued;
        if queued.fetch_add(1, Ordering::AcqRel) >= self.capacity {
            queued.fetch_sub(1, Ordering::AcqRel);
            return Err(if queue.is_closed() {
                SendError::Closed
            } else {
                SendError::Full
            });
        }
        queue.unbounded_send(frame.to_text()).map_err(|_| {
            queued.fetch_sub(1, Ordering::AcqRel);
            SendError::Closed
        })
    }

    /// Writes a WebSocket's queued frames to its socket now, as far as it takes them (never
    /// waits); nothing to do for an in-process reader.
    pub fn flush(&self) {
        if let Sink::Socket(socket) = &self.sink {
            socket.flush();
        }
    }

    /// Queues one message and flushes at once (an answer outside a room's command).
    pub fn send_now(&self, message: &ServerMessage) -> Result<(), SendError> {
        let sent = self.send(message);
        self.flush();
        sent
    }

    /// Encodes and queues one message without waiting (it leaves at the next flush).
    pub fn send(&self, message: &ServerMessage) -> Result<(), SendError> {
        if let ServerMessage::Error(error) = message {
            crate::metrics::protocol_error(error.code.as_str());
        }
        self.send_frame(&encode(message))
    }

    /// Closes the connection with `code`.
    pub fn close(&self, code: CloseCode) {
        self.closer.close(code);
    }

    /// The room accepted this connection's `join`: it no longer has to join in time.
    pub fn mark_joined(&self) {
        self.closer.joined.store(true, Ordering::Relaxed);
    }
}

/// An encoded message: its JSON text, shared by every connection that receives it.
///
/// A frame made by [`encode`] is a slice of its thread's frame buffer, not an allocation of its
/// own: a string per message, and the shared header `Bytes` adds to share it, were two
/// allocations and two frees per event, 3.4% of the server's instructions per action in the
/// closed loop (issue 18, stop 53: 12,068 → 11,663). The buffer is taken back as soon as
/// every frame cut from it is gone, which is at once when the sockets take them; a frame that
/// has to wait (a full socket, an in-process reader) is copied out first
/// ([`Frame::detached`]), so a slow client never holds a whole buffer.
#[derive(Clone, Debug)]
pub struct Frame(Bytes);

/// Bytes of the frame buffer each thread cuts its frames from; more when a message is longer.
const FRAME_BUFFER: usize = 8 * 1024;

thread_local! {
    /// This thread's frame buffer ([`Frame`]) and the scratch a message is written to first.
    static ENCODER: std::cell::RefCell<(BytesMut, Vec<u8>)> =
        std::cell::RefCell::new((BytesMut::new(), Vec::new()));
}

impl Frame {
    /// The frame's JSON text as bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The frame in an allocation of its own: to be kept past the command that made it
    /// without holding its thread's frame buffer.
    pub fn detached(&self) -> Frame {
        Frame(Bytes::copy_from_slice(&self.0))
    }

    /// The frame as text for an in-process reader (a copy of its own, checked as UTF-8).
    fn to_text(&self) -> Utf8Bytes {
        let text = std::str::from_utf8(&self.0).expect("a frame is JSON text");
        Utf8Bytes::from(text)
    }
}

impl From<&str> for Frame {
    /// A frame of text received whole (a frame another node forwards).
    fn from(text: &str) -> Frame {
        Frame(Bytes::copy_from_slice(text.as_bytes()))
    }
}

/// Encodes a message once, to be shared by every connection that receives it: written to this
/// thread's scratch, then copied into its frame buffer and cut off as a [`Frame`]. The copy (one
/// message, a few hundred bytes) keeps the protocol crate writing plain bytes, unaware of
/// `bytes`.
pub fn encode(message: &ServerMessage) -> Frame {
    ENCODER.with_borrow_mut(|(buffer, scratch)| {
        scratch.clear();
        message.write_json(scratch);
        if buffer.capacity() < scratch.len() {
            // Takes the buffer back when no frame cut from it is left, else starts another.
            buffer.reserve(FRAME_BUFFER.max(scratch.len()));
        }
        buffer.extend_from_slice(scratch);
        Frame(buffer.split().freeze())
    })
}

/// The frames queued for one connection, in order, as its writer takes them.
#[derive(Debug)]
pub struct Frames {
    receiver: mpsc::UnboundedReceiver<Utf8Bytes>,
    closer: Arc<Closer>,
}

impl Frames {
    /// The next frame; `None` once every outbox is gone and the queue is empty. Cancel-safe: a
    /// frame is taken only when this returns it.
    pub async fn recv(&mut self) -> Option<Utf8Bytes> {
        let frame = self.receiver.next().await;
        self.took(frame)
    }

    /// The next frame if one is queued already.
    pub fn try_recv(&mut self) -> Option<Utf8Bytes> {
        let frame = self.receiver.try_recv().ok();
        self.took(frame)
    }

    fn took(&self, frame: Option<Utf8Bytes>) -> Option<Utf8Bytes> {
        if frame.is_some() {
            self.closer.queued.fetch_sub(1, Ordering::AcqRel);
        }
        frame
    }
}

#[cfg(test)]
mod tests;
