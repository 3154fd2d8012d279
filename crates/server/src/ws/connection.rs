//! A WebSocket connection's task: frames in, limits enforced, messages to the room; pings out,
//! the frames a full socket held back, and the close.
//!
//! The room writes its frames to the socket itself (`crate::outgoing::socket`); this task writes
//! only what that could not: the pings, answers of its own (a `pong`, an `error` for a bad
//! frame), tungstenite's replies to the client's control frames, frames left over when the
//! socket was full, and the close frame. One task per connection, reading and writing, where
//! there were two (issue 18).
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
use std::task::Waker;
use std::time::Duration;

use aeroplane_protocol::client::{ClientMessage, DecodeError, Join, decode};
use aeroplane_protocol::error::{CloseCode, ErrorCode};
use aeroplane_protocol::server::{Pong, ServerMessage};
use aeroplane_store::GameStore;
use bytes::Bytes;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tracing::Instrument;
use tungstenite::protocol::{Role, WebSocketConfig};
use tungstenite::{Message, WebSocket};
use uuid::Uuid;

use super::read_side::{ReadSide, next_frame};
use super::timers::{Due, Timers, arm};
use crate::config::Config;
use crate::identity::{self, Credentials, IdentityError};
use crate::limits::{ConnectionGuard, TokenBucket};
use crate::outgoing::socket::{Chunk, SocketQueue};
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
    /// How often the connection pings.
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

/// What the connection's loop reads or writes at every frame, side by side (96 bytes: two
/// cache lines at most). As locals of [`serve`] they lay wherever the compiler put them in the
/// task's state: the rate limit's bucket across two lines, the frame size limit, the room's
/// handle and the connection's id on others, each line touched once per action and cold by
/// the room's next one at 1,000 rooms. Together they took the last-level read misses of a
/// cache simulation from 44.1 to 39.3 per action (issue 18, stop 52). Not aligned to a line:
/// a 64-byte alignment moves the whole future off the line of tokio's task header, a line
/// more per poll (46.1).
#[repr(C)]
struct EveryFrame {
    /// The frame rate limit (`--ws-rate-per-sec`, `--ws-burst`).
    bucket: TokenBucket,
    /// The room the messages go to.
    room: RoomHandle,
    /// The connection's closer: a close asked for, a full socket, the timer.
    closer: Arc<Closer>,
    /// This connection, as the room knows it.
    conn: ConnId,
    /// Text frames longer than this close the socket with 1009.
    max_frame_bytes: usize,
    /// Bad frames in a row so far.
    bad_in_a_row: u32,
}

/// How long a `join` waits for the store to check its player credentials.
const IDENTIFY_TIMEOUT: Duration = Duration::from_millis(1_500);

/// How long a closing connection may take to write what is queued and its close frame, when
/// its socket is full (the client reads slowly, or not at all).
const CLOSE_PATIENCE: Duration = Duration::from_secs(10);

/// How long a closed connection reads what the client still sends, waiting for its end.
const LINGER: Duration = Duration::from_secs(2);

/// What serves the WebSocket on `socket` (the client's first bytes after its upgrade
/// request, `read`, already read) from `client` until it closes, holding `place` (its count
/// against the per-address limit) until then: the connection's task, to be spawned as it is.
/// Not an `async fn` awaiting `serve`: every frame's poll walked each future around it, whose
/// states lie on cache lines of their own, cold at 1,000 rooms (issue 18, stop 39).
pub(super) fn run(
    socket: TcpStream,
    read: Bytes,
    room: RoomHandle,
    limits: Limits,
    client: Option<std::net::IpAddr>,
    store: Arc<dyn GameStore>,
    place: Option<ConnectionGuard>,
) -> impl Future<Output = ()> + Send + 'static {
    let conn: ConnId = NEXT_CONN.fetch_add(1, Ordering::Relaxed);
    let client = client.map(|client| client.to_string());
    let span = tracing::info_span!("conn", room_id = %room.id, conn, client);
    serve(socket, read, room, limits, conn, store, place).instrument(span)
}

/// The connection's loop: the close, the join deadline, a full socket, pings, silence, the
/// rate limit and bad frames, in one `select!` whose branches share its counters (about 100
/// lines; its steps are the helpers below it).
async fn serve(
    socket: TcpStream,
    read: Bytes,
    room: RoomHandle,
    limits: Limits,
    conn: ConnId,
    store: Arc<dyn GameStore>,
    place: Option<ConnectionGuard>,
) {
    let store = &*store;
    let (reader, writer) = socket.into_split();
    let mut hot = EveryFrame {
        bucket: TokenBucket::new(limits.rate, limits.burst),
        room,
        closer: Arc::new(Closer::default()),
        conn,
        max_frame_bytes: limits.max_frame_bytes,
        bad_in_a_row: 0,
    };
    let queue = Arc::new(SocketQueue::new(writer, hot.closer.clone()));
    let outbox = outgoing::for_socket(queue.clone(), limits.queue, hot.closer.clone());
    let config = WebSocketConfig::default()
        .read_buffer_size(super::READ_BUFFER_BYTES)
        .max_message_size(Some(limits.hard_frame_bytes))
        .max_frame_size(Some(limits.hard_frame_bytes));
    let read_side = ReadSide::new(reader, queue.clone(), limits.queue);
    // A copy: `read` is a slice of the HTTP connection's whole read buffer, kept alive by it.
    let partial = read.to_vec();
    drop(read);
    let mut stream = WebSocket::from_partially_read(read_side, partial, Role::Server, Some(config));
    if hot
        .room
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
    let silence = limits.ping_interval * 2;
    // One timer for the join deadline, the next ping and the silence, moved only when it fires
    // (a ping interval, a silence timer and a join timer polled or made at every frame read
    // were about 1% of the server's CPU in the closed loop). It wakes the task through the
    // closer, and is looked at only then (`timers::arm`).
    let mut timers = Timers::new(limits.ping_interval, silence, limits.join_timeout);
    let mut patience = TokenBucket::new(1.0, limits.tolerance);
    let timer = tokio::time::sleep_until(timers.next(false, hot.bucket.last_asked()));
    tokio::pin!(timer);
    let alarm = Waker::from(hot.closer.clone());
    arm(timer.as_mut(), &alarm);
    // Whether the client closed (or dropped) the socket rather than the server.
    let mut by_client = false;
    loop {
        let waiting = hot.closer.is_socket_full();
        let frame = tokio::select! {
            biased;
            // A close asked for, the socket found full, or the timer fired. (This task is the
            // closer's owner: its waker stays registered from one frame to the next.)
            () = hot.closer.woken_by_owner() => {
                if hot.closer.code().is_some() {
                    break;
                }
                // A timer never fires before its deadline, and the clock never goes back. (This
                // branch runs only on a close, a full socket or the timer: reading the timer's
                // deadline here costs no frame anything.)
                let now = Instant::now();
                if now < timer.deadline() {
                    continue;
                }
                let joined = hot.closer.is_joined();
                // Every frame read that does not end the connection asks the bucket for a token
                // (below): the last ask is when the client was last heard.
                let heard = hot.bucket.last_asked();
                match timers.due(now, joined, heard) {
                    Due::JoinLate => {
                        tracing::info!("no join in time");
                        hot.closer.close(CloseCode::Timeout);
                        break;
                    }
                    Due::Silent => None,
                    due => {
                        if due == Due::Ping {
                            let _ = queue.push(Chunk::Raw(super::frames::ping()), limits.queue);
                            queue.flush();
                        }
                        timer.as_mut().reset(timers.next(joined, heard));
                        arm(timer.as_mut(), &alarm);
                        continue;
                    }
                }
            }
            // The socket was full: what is left goes once it has room.
            () = queue.write_when_ready(), if waiting => continue,
            frame = next_frame(&mut stream) => Some(frame),
        };
        let now = Instant::now();
        let counted =
            matches!(frame, Some(Some(Ok(ref message))) if !matches!(message, Message::Close(_)));
        if counted && !hot.bucket.try_take(now) {
            if !refuse_over_rate(&outbox, &hot.closer, &mut patience, now) {
                break;
            }
            continue;
        }
        let message = match interpret(frame, hot.max_frame_bytes, &hot.closer) {
            Read::Skip => continue,
            Read::End { by_client: client } => {
                by_client = client;
                break;
            }
            Read::Message(message) => message,
        };
        match message {
            Ok(message) => {
                hot.bad_in_a_row = 0;
                // Nearly always handed on at once; only a full inbox or a `join`'s credentials
                // wait (issue 18, stop 34: a waiting future set up for every message was two
                // cache lines of this task's state written per action, cold at 1,000 rooms).
                let handed = match hand_on(&hot.room, &outbox, hot.conn, message) {
                    Ok(handed) => handed,
                    Err(later) => forward(&hot.room, &outbox, hot.conn, later, store).await,
                };
                if !handed {
                    break;
                }
            }
            Err(error) => {
                hot.bad_in_a_row += 1;
                let last = hot.bad_in_a_row >= limits.max_bad_frames;
                if !refuse_bad_frame(&outbox, &hot.closer, error, last) {
                    break;
                }
            }
        }
    }
    let _ = hot.room.inbox.send(RoomCommand::Disconnect { conn }).await;
    hot.closer.close(CloseCode::RoomClosed);
    crate::telemetry::ws_closed(if by_client { None } else { hot.closer.code() });
    drop(outbox);
    if !by_client {
        // tungstenite answered a client's close itself.
        send_close(&queue, hot.closer.code().unwrap_or(CloseCode::RoomClosed)).await;
        linger(&mut stream).await;
    }
    tracing::debug!("disconnected");
    // The connection counts against its address's limit until here.
    drop(place);
}

/// Sends the close frame with `code`: after what is queued (such as the error that explains
/// it, waiting at most [`CLOSE_PATIENCE`] for a full socket), unless the client is being
/// dropped for not reading; then ends the sending side.
async fn send_close(queue: &SocketQueue, code: CloseCode) {
    if code == CloseCode::TooSlow {
        queue.discard();
    }
    let _ = queue.push(Chunk::Raw(super::frames::close(code)), usize::MAX);
    queue.flush();
    let _ = tokio::time::timeout(CLOSE_PATIENCE, async {
        while queue.is_waiting() {
            queue.write_when_ready().await;
        }
    })
    .await;
    queue.shut_down();
}

/// Reads and drops what the client still sends after the close frame (its pongs, its close),
/// until it closes too or [`LINGER`] has passed: a socket closed with unread data is reset,
/// and a reset can make the client lose the close frame before it reads it.
async fn linger(stream: &mut WebSocket<ReadSide>) {
    let _ = tokio::time::timeout(LINGER, async {
        while let Some(Ok(_)) = next_frame(stream).await {}
    })
    .await;
}

/// A message that could not be handed on without waiting.
enum Later {
    /// A command for a full inbox.
    Command(RoomCommand),
    /// A `join`, whose player credentials are checked first.
    Join(Box<Join>),
}

/// Hands a decoded message on without waiting: a ping is answered here, anything but a `join`
/// goes to the room's inbox if it has room. Answers whether the connection goes on, or what
/// must wait ([`forward`]).
fn hand_on(
    room: &RoomHandle,
    outbox: &Outbox,
    conn: ConnId,
    message: ClientMessage,
) -> Result<bool, Later> {
    match message {
        ClientMessage::Ping(request) => Ok(answer_directly(
            outbox,
            &ServerMessage::Pong(Pong { id: request.id }),
        )),
        ClientMessage::Join(join) => Err(Later::Join(join)),
        message => room
            .try_deliver(RoomCommand::Message { conn, message })
            .map_err(Later::Command),
    }
}

/// Sends on what [`hand_on`] could not: waits for room in the inbox, or checks a `join`'s
/// player credentials (refused with `bad_identity`) before the room sees it.
async fn forward(
    room: &RoomHandle,
    outbox: &Outbox,
    conn: ConnId,
    later: Later,
    store: &dyn GameStore,
) -> bool {
    let mut join = match later {
        Later::Command(command) => return room.deliver(command).await,
        Later::Join(join) => join,
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
    room.deliver(RoomCommand::Join { conn, join, player }).await
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

/// Sends an answer from the connection itself; a full queue drops the client.
fn answer_directly(outbox: &Outbox, answer: &ServerMessage) -> bool {
    match outbox.send_now(answer) {
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
fn is_too_big(error: &tungstenite::Error) -> bool {
    matches!(error, tungstenite::Error::Capacity(_))
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

/// Reads one frame (`None`: the silence of two ping intervals): closes the socket with the
/// right code where the frame ends the connection, and decodes a text frame.
fn interpret(
    frame: Option<Option<Result<Message, tungstenite::Error>>>,
    max_frame_bytes: usize,
    closer: &Closer,
) -> Read {
    match frame {
        None => {
            tracing::info!("no frame for two ping intervals");
            closer.close(CloseCode::Timeout);
            Read::End { by_client: false }
        }
        Some(None) | Some(Some(Ok(Message::Close(_)))) => Read::End { by_client: true },
        Some(Some(Err(error))) => {
            tracing::debug!(%error, "read failed");
            if is_too_big(&error) {
                closer.close(CloseCode::TooBig);
                Read::End { by_client: false }
            } else {
                Read::End { by_client: true }
            }
        }
        Some(Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)))) => Read::Skip,
        Some(Some(Ok(Message::Binary(_)))) => Read::Message(Err(DecodeError {
            code: ErrorCode::Malformed,
            message: "messages are JSON text frames".to_owned(),
            id: None,
        })),
        Some(Some(Ok(Message::Text(text)))) => {
            if text.len() > max_frame_bytes {
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
fn refuse_over_rate(
    outbox: &Outbox,
    closer: &Closer,
    patience: &mut TokenBucket,
    now: Instant,
) -> bool {
    let answer = ServerMessage::error(None, ErrorCode::RateLimited, "too many messages; slow down");
    if !patience.try_take(now) {
        tracing::info!("rate limit exceeded persistently");
        let _ = outbox.send_now(&answer);
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
        let _ = outbox.send_now(&answer);
        closer.close(CloseCode::ProtocolViolation);
        return false;
    }
    answer_directly(outbox, &answer)
}

#[cfg(test)]
mod tests;
