//! The writing half of a connection: queued frames out, pings on a timer, and the close frame.

use std::sync::Arc;
use std::time::Duration;

use aeroplane_protocol::error::CloseCode;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::SinkExt;
use futures_util::stream::SplitSink;
use tokio::sync::mpsc;
use tokio::time::MissedTickBehavior;

use super::outbox::Closer;

/// Writes until the queue closes or a close is asked for; then sends the close frame.
pub(super) async fn run(
    mut sink: SplitSink<WebSocket, Message>,
    mut queue: mpsc::Receiver<Utf8Bytes>,
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
                    if sink.send(Message::Text(frame)).await.is_err() {
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
        while let Ok(frame) = queue.try_recv() {
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
