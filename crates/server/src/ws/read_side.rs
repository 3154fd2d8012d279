//! The socket as tungstenite reads a WebSocket from it: the read half of the TCP socket, and
//! for what tungstenite writes of its own accord (the pong answering a ping, the close
//! answering a close), the connection's outgoing queue.
//!
//! Why tungstenite's own `WebSocket` and not tokio-tungstenite's stream over it: that stream
//! reads through wakers of its own (an `Arc` per direction, both registered at every read, that
//! forward the socket's wake-up to the task), heap blocks cold by the time the room's next
//! action came. In a profile of the closed loop at 1,000 rooms that stream's read and its
//! wake-up were 3.2% of the server's CPU, and the read that replaced them 1.1% (issue 18, stop
//! 38); each connection also holds two allocations less. Here a read polls the socket with the
//! connection task's own waker, kept in [`ReadSide`], and the socket wakes the task directly.
//! The read itself is still tokio's `poll_read`, which takes a short read as the socket drained
//! (no `recv(2)` that only answers "empty" after each frame).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::net::tcp::OwnedReadHalf;
use tungstenite::{Message, WebSocket};

use crate::outgoing::socket::{Chunk, SocketQueue};

/// A socket's read half, its writes going to the connection's queue.
#[derive(Debug)]
pub(super) struct ReadSide {
    reader: OwnedReadHalf,
    queue: Arc<SocketQueue>,
    capacity: usize,
    /// The waker of the task reading, set by [`next_frame`] before every read.
    waker: Waker,
}

impl ReadSide {
    /// Reads from `reader`; writes go to `queue`, which holds at most `capacity` frames.
    pub(super) fn new(reader: OwnedReadHalf, queue: Arc<SocketQueue>, capacity: usize) -> ReadSide {
        ReadSide {
            reader,
            queue,
            capacity,
            waker: Waker::noop().clone(),
        }
    }
}

impl io::Read for ReadSide {
    /// Reads what the socket has now; `WouldBlock` when it has nothing, the task then woken by
    /// the socket once it has.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut context = Context::from_waker(&self.waker);
        let mut buf = ReadBuf::new(buf);
        match Pin::new(&mut self.reader).poll_read(&mut context, &mut buf) {
            Poll::Ready(Ok(())) => Ok(buf.filled().len()),
            Poll::Ready(Err(error)) => Err(error),
            Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
        }
    }
}

impl io::Write for ReadSide {
    /// Queues what tungstenite writes (a pong, a close) and sends it at once.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let queued = self
            .queue
            .push(Chunk::Raw(Bytes::copy_from_slice(buf)), self.capacity);
        match queued {
            Ok(()) => {
                self.queue.flush();
                Ok(buf.len())
            }
            Err(error) => Err(io::Error::new(io::ErrorKind::BrokenPipe, error)),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The next message from the client; `None` once the connection has ended (the close
/// handshake done). Cancel-safe: what was read stays in `socket` for the next call.
pub(super) async fn next_frame(
    socket: &mut WebSocket<ReadSide>,
) -> Option<Result<Message, tungstenite::Error>> {
    std::future::poll_fn(|context| {
        let side = socket.get_mut();
        if !side.waker.will_wake(context.waker()) {
            side.waker.clone_from(context.waker());
        }
        match socket.read() {
            Ok(message) => Poll::Ready(Some(Ok(message))),
            Err(tungstenite::Error::Io(error)) if error.kind() == io::ErrorKind::WouldBlock => {
                Poll::Pending
            }
            Err(tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed) => {
                Poll::Ready(None)
            }
            Err(error) => Poll::Ready(Some(Err(error))),
        }
    })
    .await
}
