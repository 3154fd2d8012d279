//! The socket as tungstenite reads a WebSocket from it: the read half of the TCP socket, and
//! for what tungstenite writes of its own accord (the pong answering a ping, the close
//! answering a close), the connection's outgoing queue.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::tcp::OwnedReadHalf;

use crate::outgoing::socket::{Chunk, SocketQueue};

/// A socket's read half, its writes going to the connection's queue.
#[derive(Debug)]
pub(super) struct ReadSide {
    reader: OwnedReadHalf,
    queue: Arc<SocketQueue>,
    capacity: usize,
}

impl ReadSide {
    /// Reads from `reader`; writes go to `queue`, which holds at most `capacity` frames.
    pub(super) fn new(reader: OwnedReadHalf, queue: Arc<SocketQueue>, capacity: usize) -> ReadSide {
        ReadSide {
            reader,
            queue,
            capacity,
        }
    }
}

impl AsyncRead for ReadSide {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.reader).poll_read(context, buf)
    }
}

impl AsyncWrite for ReadSide {
    fn poll_write(
        self: Pin<&mut Self>,
        _context: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let queued = self
            .queue
            .push(Chunk::Raw(Bytes::copy_from_slice(buf)), self.capacity);
        Poll::Ready(match queued {
            Ok(()) => {
                self.queue.flush();
                Ok(buf.len())
            }
            Err(error) => Err(io::Error::new(io::ErrorKind::BrokenPipe, error)),
        })
    }

    fn poll_flush(self: Pin<&mut Self>, _context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
