//! The reading half of a connection: frames in, limits enforced, messages to the room.
//!
//! Bad input never reaches a room: a frame that is too big closes the socket (1009); a frame
//! that does not decode gets an `error` with its code, and too many of those in a row close the
//! socket (4000). Silence for two ping intervals means the peer is dead (4003), and so is a
//! connection that has not joined within `--join-timeout-ms`. Every frame takes a token from the
//! connection's bucket (`--ws-rate-per-sec`, `--ws-burst`): a frame without one is refused with
//! `rate_limited` unread, and a client that keeps that up past `--ws-rate-tolerance` refusals is
//! closed with 1008.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use aeroplane_protocol::client::{ClientMessage, DecodeError, decode};
use aeroplane_protocol::error::{CloseCode, ErrorCode};
use aeroplane_protocol::server::{Pong, ServerMessage};
use aeroplane_store::GameStore;
use axum::extract::ws::{Message, WebSocket};
use futures_util::StreamExt;
use tracing::Instrument;
use uuid::Uuid;

use super::writer;
use crate::config::Config;
use crate::identity::{self, Credentials, IdentityError};
use crate::limits::TokenBucket;
use crate::outgoing::{self, Closer, Outbox, SendError};
use crate::room::{ConnId, RoomCommand, RoomHandle};

/// The limits one connection runs under.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    /// Text frames longer than this close the socket with 1009.
    pub(super) max_frame_bytes: usize,
    /// What the WebSocket layer itself refuses to buffer.
    pub(super) hard_frame_bytes: usize,
    /// Bad frames in a row before the socket is closed with 4000.
    pub(super) max_bad_frames: u32,
    /// The outgoing queue's capacity.
    pub(super) queue: usize,
    /// How often the writer pings.
    pub(super) ping_interval: Duration,
    /// Frames per second admitted on average.
    pub(super) rate: f64,
    /// Frames admitted in a burst.
    pub(super) burst: f64,
    /// Refused frames forgiven (one more per second) before the socket is closed with 1008.
    pub(super) tolerance: f64,
    /// How long the connection may take to join.
    pub(super) join_timeout: Duration,
}

impl Limits {
    /// The limits from the server's settings.
    pub(super) fn from_config(config: &Config) -> Limits {
        Limits {
            max_frame_bytes: config.max_frame_bytes,
            hard_frame_bytes: config.max_frame_bytes.saturating_mul(4).max(64 * 1024),
            max_bad_frames: config.max_bad_frames.max(1),
            queue: config.outgoing_queue.max(1),
            ping_interval: config.ping_interval(),
            rate: config.ws_rate_per_sec,
            burst: config.ws_burst,
            tolerance: config.ws_rate_tolerance,
            join_timeout: config.join_timeout(),
        }
    }
}

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// How long a `join` waits for the store to check its player credentials.
const IDENTIFY_TIMEOUT: Duration = Duration::from_millis(1_500);

/// Serves one upgraded WebSocket from `client` until it closes.
pub(super) async fn run(
    socket: WebSocket,
    room: RoomHandle,
    limits: Limits,
    client: Option<std::net::IpAddr>,
    store: Arc<dyn GameStore>,
) {
    let conn: ConnId = NEXT_CONN.fetch_add(1, Ordering::Relaxed);
    let client = client.map(|client| client.to_string());
    let span = tracing::info_span!("conn", room_id = %room.id, conn, client);
    serve(socket, room, limits, conn, &*store)
        .instrument(span)
        .await;
}

/// The connection's read loop: the close, the join deadline, silence, the rate limit and bad
/// frames, in one `select!` whose branches share its counters (about 90 lines; its steps are
/// the helpers below it).
async fn serve(
    socket: WebSocket,
    room: RoomHandle,
    limits: Limits,
    conn: ConnId,
    store: &dyn GameStore,
) {
    let (sink, mut stream) = socket.split();
    let closer = Arc::new(Closer::default());
    let (outbox, frames) = outgoing::queue(limits.queue, closer.clone());
    if room
        .inbox
        .send(RoomCommand::Connect {
            conn,
            outbox: outbox.clone(),
        })
        .await
        .is_err()
    {
        return;
    }
    tracing::debug!("connected");
    let writer = tokio::spawn(writer::run(
        sink,
        frames,
        closer.clone(),
        limits.ping_interval,
    ));
    let mut bad_in_a_row = 0u32;
    let silence = limits.ping_interval * 2;
    let mut bucket = TokenBucket::new(limits.rate, limits.burst);
    let mut patience = TokenBucket::new(1.0, limits.tolerance);
    let join_deadline = tokio::time::Instant::now() + limits.join_timeout;
    // Whether the client closed (or dropped) the socket rather than the server.
    let mut by_client = false;
    loop {
        let frame = tokio::select! {
            biased;
            _ = closer.closed() => break,
            () = tokio::time::sleep_until(join_deadline), if !closer.is_joined() => {
                // The join may have been accepted while this branch was waiting.
                if closer.is_joined() {
                    continue;
                }
                tracing::info!("no join in time");
                closer.close(CloseCode::Timeout);
                break;
            }
            frame = tokio::time::timeout(silence, stream.next()) => frame,
        };
        let counted =
            matches!(frame, Ok(Some(Ok(ref message))) if !matches!(message, Message::Close(_)));
        if counted && !bucket.try_take() {
            if !refuse_over_rate(&outbox, &closer, &mut patience) {
                break;
            }
            continue;
        }
        let message = match interpret(frame, &limits, &closer) {
            Read::Skip => continue,
            Read::End { by_client: client } => {
                by_client = client;
                break;
            }
            Read::Message(message) => message,
        };
        match message {
            Ok(message) => {
                bad_in_a_row = 0;
                if !forward(&room, &outbox, conn, message, store).await {
                    break;
                }
            }
            Err(error) => {
                bad_in_a_row += 1;
                let last = bad_in_a_row >= limits.max_bad_frames;
                if !refuse_bad_frame(&outbox, &closer, error, last) {
                    break;
                }
            }
        }
    }
    let _ = room.inbox.send(RoomCommand::Disconnect { conn }).await;
    closer.close(CloseCode::RoomClosed);
    crate::telemetry::ws_closed(if by_client { None } else { closer.code() });
    drop(outbox);
    let _ = writer.await;
    tracing::debug!("disconnected");
}

/// Sends a decoded message on: pings are answered here, a `join`'s player credentials are
/// checked here (refused with `bad_identity`), everything else goes to the room.
async fn forward(
    room: &RoomHandle,
    outbox: &Outbox,
    conn: ConnId,
    message: ClientMessage,
    store: &dyn GameStore,
) -> bool {
    let mut join = match message {
        ClientMessage::Ping(request) => {
            return answer_directly(outbox, &ServerMessage::Pong(Pong { id: request.id }));
        }
        ClientMessage::Join(join) => join,
        message => {
            return room
                .inbox
                .send(RoomCommand::Message { conn, message })
                .await
                .is_ok();
        }
    };
    let player = match join.player.take() {
        None => None,
        Some(presented) => match identify(store, &presented).await {
            Ok(player) => Some(player),
            Err((code, message)) => {
                return answer_directly(outbox, &ServerMessage::error(join.id, code, message));
            }
        },
    };
    room.inbox
        .send(RoomCommand::Join { conn, join, player })
        .await
        .is_ok()
}

/// The player whose credentials (`<player id>.<secret>`) a `join` presents.
async fn identify(store: &dyn GameStore, presented: &str) -> Result<Uuid, (ErrorCode, String)> {
    let checked = async {
        let credentials = Credentials::parse(presented)?;
        identity::authenticate(store, &credentials).await
    };
    match tokio::time::timeout(IDENTIFY_TIMEOUT, checked).await {
        Ok(Ok(player)) => Ok(player.id),
        Ok(Err(IdentityError::Store(error))) => {
            tracing::debug!(%error, "cannot check player credentials");
            let text = "player credentials cannot be checked right now; join without them or retry";
            Err((ErrorCode::StoreUnavailable, text.to_owned()))
        }
        Ok(Err(error)) => Err((ErrorCode::BadIdentity, error.to_string())),
        Err(_) => {
            let text = "player credentials cannot be checked right now; join without them or retry";
            Err((ErrorCode::StoreUnavailable, text.to_owned()))
        }
    }
}

/// Queues an answer from the connection itself; a full queue drops the client.
fn answer_directly(outbox: &Outbox, answer: &ServerMessage) -> bool {
    match outbox.send(answer) {
        Ok(()) => true,
        Err(SendError::Full) => {
            outbox.close(CloseCode::TooSlow);
            false
        }
        Err(SendError::Closed) => false,
    }
}

/// Whether a read failed because the frame or message was over the hard size limit, matched by
/// the WebSocket library's error kind (not by its message text).
fn is_too_big(error: axum::Error) -> bool {
    let inner = error.into_inner();
    matches!(
        inner.downcast_ref::<tungstenite::Error>(),
        Some(tungstenite::Error::Capacity(_))
    )
}

/// What one read from the socket means.
enum Read {
    /// Nothing to do (a ping or a pong).
    Skip,
    /// The connection ends; `by_client` when the client closed or dropped it.
    End { by_client: bool },
    /// A client message, or why the frame is not one.
    Message(Result<ClientMessage, DecodeError>),
}

/// Reads one frame (or the silence of two ping intervals): closes the socket with the right
/// code where the frame ends the connection, and decodes a text frame.
fn interpret(
    frame: Result<Option<Result<Message, axum::Error>>, tokio::time::error::Elapsed>,
    limits: &Limits,
    closer: &Closer,
) -> Read {
    match frame {
        Err(_) => {
            tracing::info!("no frame for two ping intervals");
            closer.close(CloseCode::Timeout);
            Read::End { by_client: false }
        }
        Ok(None) | Ok(Some(Ok(Message::Close(_)))) => Read::End { by_client: true },
        Ok(Some(Err(error))) => {
            tracing::debug!(%error, "read failed");
            if is_too_big(error) {
                closer.close(CloseCode::TooBig);
                Read::End { by_client: false }
            } else {
                Read::End { by_client: true }
            }
        }
        Ok(Some(Ok(Message::Ping(_) | Message::Pong(_)))) => Read::Skip,
        Ok(Some(Ok(Message::Binary(_)))) => Read::Message(Err(DecodeError {
            code: ErrorCode::Malformed,
            message: "messages are JSON text frames".to_owned(),
            id: None,
        })),
        Ok(Some(Ok(Message::Text(text)))) => {
            if text.len() > limits.max_frame_bytes {
                tracing::info!(bytes = text.len(), "frame too big");
                closer.close(CloseCode::TooBig);
                return Read::End { by_client: false };
            }
            Read::Message(decode(&text))
        }
    }
}

/// Answers a message over the rate limit with `rate_limited`; after too many in a row (the
/// `patience` bucket is empty) closes the socket. False when the connection must end.
fn refuse_over_rate(outbox: &Outbox, closer: &Closer, patience: &mut TokenBucket) -> bool {
    let answer = ServerMessage::error(None, ErrorCode::RateLimited, "too many messages; slow down");
    if !patience.try_take() {
        tracing::info!("rate limit exceeded persistently");
        let _ = outbox.send(&answer);
        closer.close(CloseCode::RateLimited);
        return false;
    }
    answer_directly(outbox, &answer)
}

/// Answers a frame that is no client message with its error; the `last` one allowed in a row
/// also closes the socket. False when the connection must end.
fn refuse_bad_frame(outbox: &Outbox, closer: &Closer, error: DecodeError, last: bool) -> bool {
    tracing::debug!(code = %error.code, "bad frame");
    let answer = ServerMessage::error(error.id, error.code, error.message);
    if last {
        let _ = outbox.send(&answer);
        closer.close(CloseCode::ProtocolViolation);
        return false;
    }
    answer_directly(outbox, &answer)
}
