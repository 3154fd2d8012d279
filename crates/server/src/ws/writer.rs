//! The writing half of a connection: queued frames out, pings on a timer, and the close frame.
//!
//! A room queues all the frames of one action (an action's events, the clock) at once, so the
//! writer takes every frame waiting in the queue and sends them with one flush: one `write(2)`
//! per action and connection rather than one per frame. On loopback the kernel's send path was
//! the largest part of the server's CPU per action, so this is what the load benchmark measures.

use std::sync::Arc;
use std::time::Duration;

use aeroplane_protocol::error::CloseCode;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::SinkExt;
use futures_util::stream::SplitSink;
use tokio::time::MissedTickBehavior;

use crate::outgoing::{Closer, Frames};

/// Writes until the queue closes or a close is asked for; then sends the close frame.
pub(super) async fn run(
    mut sink: SplitSink<WebSocket, Message>,
    mut queue: Frames,
    closer: Arc<Closer>,
    ping_interval: Duration,
) {
    let mut ping = tokio::time::interval(ping_interval);
    ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
    ping.tick().await;
    let code = loop {
        tokio::select! {
            biased;
            code = closer.closed() => break code,
            frame = queue.recv() => match frame {
                Some(frame) => {
                    if write_batch(&mut sink, frame, &mut queue).await.is_err() {
                        return;
                    }
                }
                None => break CloseCode::RoomClosed,
            },
            _ = ping.tick() => {
                if sink.send(Message::Ping(Default::default())).await.is_err() {
                    return;
                }
            }
        }
    };
    // Frames queued before the close (such as the error that explains it) still go out, unless
    // the client is being dropped for not reading them.
    if code != CloseCode::TooSlow {
        while let Some(frame) = queue.try_recv() {
            if sink.send(Message::Text(frame)).await.is_err() {
                return;
            }
        }
    }
    let frame = CloseFrame {
        code: code.code(),
        reason: Utf8Bytes::from_static(code.reason()),
    };
    let _ = sink.send(Message::Close(Some(frame))).await;
    let _ = sink.close().await;
}

/// Writes `first` and every frame already waiting behind it, then flushes them together.
async fn write_batch(
    sink: &mut SplitSink<WebSocket, Message>,
    first: Utf8Bytes,
    queue: &mut Frames,
) -> Result<(), axum::Error> {
    sink.feed(Message::Text(first)).await?;
    while let Some(frame) = queue.try_recv() {
        sink.feed(Message::Text(frame)).await?;
    }
    sink.flush().await
}
