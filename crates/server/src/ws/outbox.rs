//! The sending side of one connection, as rooms see it: a bounded queue and a way to close.
//!
//! The queue is bounded so a slow client can never make a room wait: a room only ever uses
//! `try_send`, and a full queue means the client has fallen behind and is dropped (it can
//! reconnect and resync from a snapshot). Closing goes around the queue, so it works even then.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use aeroplane_protocol::error::CloseCode;
use aeroplane_protocol::server::ServerMessage;
use axum::extract::ws::Utf8Bytes;
use tokio::sync::{Notify, mpsc};

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

/// Asks a connection's writer to close the socket with a code, once.
#[derive(Debug, Default)]
pub struct Closer {
    code: OnceLock<CloseCode>,
    notify: Notify,
    /// Whether the room accepted a `join` from this connection (the join timeout stops).
    joined: AtomicBool,
}

impl Closer {
    /// Asks for the socket to be closed with `code`; later requests keep the first code.
    pub fn close(&self, code: CloseCode) {
        let _ = self.code.set(code);
        self.notify.notify_one();
    }

    /// Whether the room has accepted a `join` from this connection.
    pub fn is_joined(&self) -> bool {
        self.joined.load(Ordering::Relaxed)
    }

    /// Waits until a close is asked for, and returns its code.
    pub async fn closed(&self) -> CloseCode {
        loop {
            if let Some(code) = self.code.get() {
                return *code;
            }
            self.notify.notified().await;
        }
    }
}

/// A handle to send frames to one connection and to close it.
#[derive(Clone, Debug)]
pub struct Outbox {
    queue: mpsc::Sender<Utf8Bytes>,
    closer: Arc<Closer>,
}

impl Outbox {
    /// An outbox over a connection's queue and closer.
    pub fn new(queue: mpsc::Sender<Utf8Bytes>, closer: Arc<Closer>) -> Outbox {
        Outbox { queue, closer }
    }

    /// Queues an encoded frame without waiting.
    pub fn send_frame(&self, frame: Utf8Bytes) -> Result<(), SendError> {
        self.queue.try_send(frame).map_err(|error| match error {
            mpsc::error::TrySendError::Full(_) => SendError::Full,
            mpsc::error::TrySendError::Closed(_) => SendError::Closed,
        })
    }

    /// Encodes and queues one message without waiting.
    pub fn send(&self, message: &ServerMessage) -> Result<(), SendError> {
        if let ServerMessage::Error(error) = message {
            crate::metrics::protocol_error(error.code.as_str());
        }
        self.send_frame(encode(message))
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

/// Encodes a message once, to be shared by every connection that receives it.
pub fn encode(message: &ServerMessage) -> Utf8Bytes {
    Utf8Bytes::from(message.to_json())
}
