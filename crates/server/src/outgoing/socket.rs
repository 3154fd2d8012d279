//! A WebSocket's outgoing frames, written to its socket by whoever queues them.
//!
//! Why not a writer task per connection: every action woke the writer task of each player to
//! frame and send its events, two task wake-ups per action that did nothing the room could not
//! do itself (issue 18 measured them at a tenth of the server's CPU). Here the room queues the
//! frames of a command and then [`SocketQueue::flush`]es: the frames go to the kernel at once,
//! with one system call for all of them (one `send(2)` of a copy up to [`STAGE`] bytes, one
//! `writev(2)` beyond or for the rest of a frame begun), from the room's own task. That write
//! never waits: when the socket's buffer is full (a client that reads slowly), what is left
//! stays queued and the connection's task, told so, writes it once the socket has room;
//! meanwhile every flush only queues. A client that falls a whole queue behind is dropped (the
//! room sees [`SendError::Full`]), as before.
//!
//! The queue is behind a mutex because the room and the connection's task both write: each
//! holds it only to queue or to make one non-blocking write, never across an `.await` and
//! never while anything waits, so nobody ever waits long on it.
//!
//! Text frames are queued as their JSON (shared by every connection that gets them) and framed
//! as they are written: a server's frames are not masked, so the header is a few bytes made
//! per write ([`tungstenite::protocol::frame::FrameHeader`]). Control frames (pings, pongs, the
//! close) are queued as they go on the wire. A text frame left queued once a write found the
//! socket full is copied out of the frame buffer it was cut from ([`super::Frame`]), so that a
//! slow client holds only its own frames.

use std::io::{self, IoSlice};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use smallvec::SmallVec;
use tokio::net::tcp::OwnedWriteHalf;
use tungstenite::protocol::frame::FrameHeader;
use tungstenite::protocol::frame::coding::{Data, OpCode};

use super::{Closer, Frame, SendError};

/// The longest header of a server's frame: two bytes and an eight-byte length.
const MAX_HEADER: usize = 10;

/// How many queued frames one write takes at most.
const BATCH: usize = 32;

/// How many queued frames are held inline, next to the queue's lock, before the queue moves
/// to the heap: a command's frames for one connection are one or two. A queue on the heap was
/// one more cache line written per frame, cold by the time the room's next action came (about
/// 3.7 cache misses per action at 1,000 rooms; issue 18, stop 34).
const INLINE: usize = 2;

/// Up to how many bytes a write is copied into one buffer and sent with `send(2)` instead of
/// `writev(2)`: on Linux `writev` on a socket goes through the file layer (the iovec array
/// copied in, the file's position lock, the write checks) before it reaches the socket, and
/// `send` does not; for a few hundred bytes that layer costs far more than the copy (issue 18,
/// stop 29: about 0.7 µs per write, `bench/echo`'s `send-path`).
const STAGE: usize = 2048;

thread_local! {
    /// The buffer a write is copied into, one per thread and reused (a fresh array would be
    /// zeroed at every write).
    static STAGED: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(Vec::with_capacity(STAGE));
}

/// One queued frame.
#[derive(Debug)]
pub(crate) enum Chunk {
    /// A text frame's payload, framed as it is written.
    Text(Frame),
    /// A text frame copied out of its frame buffer to wait behind a full socket.
    Kept(Frame),
    /// Bytes as they go on the wire (a control frame).
    Raw(Bytes),
}

/// A connection's queue of frames in front of its socket.
#[derive(Debug)]
pub struct SocketQueue {
    socket: OwnedWriteHalf,
    pending: Mutex<Pending>,
    /// Woken when a write found the socket full: the connection's task waits for room.
    closer: Arc<Closer>,
}

#[derive(Debug, Default)]
struct Pending {
    /// The frames in order, the first one first.
    chunks: SmallVec<[Chunk; INLINE]>,
    /// Bytes of the first chunk (its header included) already written.
    offset: usize,
    /// The socket was full at the last write: only the connection's task writes, once it
    /// has room. Mirrored in the closer for that task, which reads it without the lock
    /// ([`SocketQueue::is_waiting`]); the room's flush reads it here, on the line its push
    /// just locked.
    waiting: bool,
    /// The socket failed (the peer is gone): nothing more is queued.
    broken: bool,
}

impl SocketQueue {
    /// A queue in front of `socket`, waking `closer`'s waiter when the socket is full.
    pub fn new(socket: OwnedWriteHalf, closer: Arc<Closer>) -> SocketQueue {
        SocketQueue {
            socket,
            pending: Mutex::new(Pending::default()),
            closer,
        }
    }

    fn pending(&self) -> MutexGuard<'_, Pending> {
        // Nothing panics while the lock is held, so it is never poisoned.
        self.pending
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Queues a frame without writing it, unless `capacity` frames wait already.
    pub(crate) fn push(&self, mut chunk: Chunk, capacity: usize) -> Result<(), SendError> {
        let mut pending = self.pending();
        if pending.broken {
            return Err(SendError::Closed);
        }
        if pending.chunks.len() >= capacity {
            return Err(SendError::Full);
        }
        if matches!(&chunk, Chunk::Raw(bytes) if bytes.is_empty()) {
            return Ok(());
        }
        // Behind a full socket it waits for the connection's task: not in a frame buffer.
        if pending.waiting {
            chunk.detach();
        }
        pending.chunks.push(chunk);
        Ok(())
    }

    /// Writes what is queued, as far as the socket takes it now; never waits (when the socket
    /// is full, the connection's task writes the rest once it has room).
    pub fn flush(&self) {
        let mut pending = self.pending();
        if !pending.waiting {
            self.write_out(&mut pending);
        }
    }

    /// How many frames are queued.
    pub fn queued(&self) -> usize {
        self.pending().chunks.len()
    }

    /// Whether a write found the socket full and the rest waits for room (read without the
    /// lock; it changes only under it).
    pub fn is_waiting(&self) -> bool {
        self.closer.is_socket_full()
    }

    /// Waits until the socket has room, then writes on (the connection's task, woken by
    /// [`Closer::wake`] when a write found the socket full).
    pub async fn write_when_ready(&self) {
        if self.socket.as_ref().writable().await.is_err() {
            self.pending().broken = true;
            return;
        }
        let mut pending = self.pending();
        pending.set_waiting(false, &self.closer);
        self.write_out(&mut pending);
    }

    /// Ends the sending side of the socket (a FIN after what was written), so that the client
    /// reads the close frame and then the end, while the socket still reads what it sends.
    pub fn shut_down(&self) {
        let _ = socket2::SockRef::from(self.socket.as_ref()).shutdown(std::net::Shutdown::Write);
    }

    /// Drops the queued frames, but for one already partly written (the rest of it must follow,
    /// or the client would read the next frame as its end): a connection dropped for being too
    /// slow sends nothing more than that and its close frame.
    pub fn discard(&self) {
        let mut pending = self.pending();
        let keep = usize::from(pending.offset > 0);
        pending.chunks.truncate(keep);
    }

    /// Copies the queued frames into this thread's stage and sends them with one non-blocking
    /// `send(2)`: a command's frames nearly always fit in [`STAGE`] bytes, and then no array of
    /// slices or headers is made (issue 18, stop 32: `write_out` and `memset` were 1.0% of the
    /// server's CPU in the closed loop with those arrays made at every write, 0.6% without).
    fn send_staged(&self, pending: &Pending) -> io::Result<usize> {
        STAGED.with_borrow_mut(|stage| {
            stage.clear();
            for chunk in pending.chunks.iter().take(BATCH) {
                match chunk {
                    Chunk::Text(text) | Chunk::Kept(text) => {
                        let mut header = [0u8; MAX_HEADER];
                        let length = text_header(&mut header, text.as_bytes().len());
                        stage.extend_from_slice(&header[..length]);
                        stage.extend_from_slice(text.as_bytes());
                    }
                    Chunk::Raw(bytes) => stage.extend_from_slice(bytes),
                }
            }
            self.send(stage)
        })
    }

    /// Sends `bytes` with one non-blocking `send(2)` on the socket itself, without reading
    /// tokio's readiness first: that readiness lives in a block of its own, cold by the time the
    /// room's next action writes to the other player (one cache miss per action at 1,000 rooms;
    /// issue 18, stop 38). A full socket is then written again through tokio's `try_write`,
    /// which either sends (room was made meanwhile) or learns that the socket is full, so that
    /// [`SocketQueue::write_when_ready`] waits for room instead of finding it at once.
    fn send(&self, bytes: &[u8]) -> io::Result<usize> {
        let socket: &tokio::net::TcpStream = self.socket.as_ref();
        match rustix::net::send(socket, bytes, rustix::net::SendFlags::NOSIGNAL) {
            Err(rustix::io::Errno::AGAIN) => self.socket.try_write(bytes),
            sent => sent.map_err(io::Error::from),
        }
    }

    /// Writes the queued frames, from what is left of the first one on, with one non-blocking
    /// `writev(2)`: for frames too long to stage, or the rest of a frame begun.
    fn send_vectored(&self, pending: &Pending) -> io::Result<usize> {
        let mut headers = [[0u8; MAX_HEADER]; BATCH];
        let mut slices = [IoSlice::new(&[]); 2 * BATCH];
        let mut count = 0;
        let mut skip = pending.offset;
        for (chunk, header) in pending.chunks.iter().take(BATCH).zip(&mut headers) {
            let parts: [&[u8]; 2] = match chunk {
                Chunk::Text(text) | Chunk::Kept(text) => {
                    let length = text_header(header, text.as_bytes().len());
                    [&header[..length], text.as_bytes()]
                }
                Chunk::Raw(bytes) => [bytes, &[]],
            };
            for part in parts {
                if skip >= part.len() {
                    skip -= part.len();
                    continue;
                }
                slices[count] = IoSlice::new(&part[skip..]);
                skip = 0;
                count += 1;
            }
        }
        self.socket.try_write_vectored(&slices[..count])
    }

    /// Writes queued chunks until none is left, the socket is full or it fails: each write is
    /// one system call, a `send(2)` of a copy when what it takes fits in [`STAGE`] bytes (a
    /// command's frames nearly always do), else a `writev(2)`.
    fn write_out(&self, pending: &mut Pending) {
        while !pending.chunks.is_empty() && !pending.broken {
            let total: usize = pending.chunks.iter().take(BATCH).map(Chunk::wire_len).sum();
            let written = if pending.offset == 0 && total <= STAGE {
                self.send_staged(pending)
            } else {
                self.send_vectored(pending)
            };
            match written {
                Ok(0) => pending.broken = true,
                Ok(written) => pending.advance(written),
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    pending.chunks.iter_mut().for_each(Chunk::detach);
                    pending.set_waiting(true, &self.closer);
                    self.closer.wake();
                    return;
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    tracing::debug!(%error, "a socket write failed");
                    pending.broken = true;
                }
            }
        }
        if pending.broken {
            pending.chunks.clear();
            pending.offset = 0;
        }
        if pending.chunks.is_empty() && pending.chunks.spilled() {
            // Back inline after a backlog, its heap buffer freed.
            pending.chunks.shrink_to_fit();
        }
    }
}

impl Chunk {
    /// How many bytes the chunk is on the wire (a text frame's header included).
    fn wire_len(&self) -> usize {
        match self {
            Chunk::Text(text) | Chunk::Kept(text) => {
                text_header_len(text.as_bytes().len()) + text.as_bytes().len()
            }
            Chunk::Raw(bytes) => bytes.len(),
        }
    }

    /// Copies a text frame out of its frame buffer, to wait (once: a kept frame stays).
    fn detach(&mut self) {
        if let Chunk::Text(text) = self {
            *self = Chunk::Kept(text.detached());
        }
    }
}

impl Pending {
    /// Notes whether the socket is full, here and in `closer` for the connection's task.
    fn set_waiting(&mut self, waiting: bool, closer: &Closer) {
        self.waiting = waiting;
        closer.socket_full.store(waiting, Ordering::Release);
    }

    /// Drops what `written` bytes finished.
    fn advance(&mut self, mut written: usize) {
        let mut finished = 0;
        for chunk in &self.chunks {
            if written == 0 {
                break;
            }
            let left = chunk.wire_len() - self.offset;
            if written < left {
                self.offset += written;
                break;
            }
            written -= left;
            self.offset = 0;
            finished += 1;
        }
        self.chunks.drain(..finished);
    }
}

/// The header of an unmasked, final text frame.
fn text_frame() -> FrameHeader {
    FrameHeader {
        opcode: OpCode::Data(Data::Text),
        ..FrameHeader::default()
    }
}

/// The length of a text frame's header for a payload of `length` bytes.
fn text_header_len(length: usize) -> usize {
    text_frame().len(length as u64)
}

/// Writes the header of an unmasked, final text frame of `length` bytes; answers its length.
fn text_header(header: &mut [u8; MAX_HEADER], length: usize) -> usize {
    let mut cursor = io::Cursor::new(&mut header[..]);
    text_frame()
        .format(length as u64, &mut cursor)
        .expect("a frame header fits in ten bytes");
    usize::try_from(cursor.position()).unwrap_or(MAX_HEADER)
}

#[cfg(test)]
mod tests;
