//! The socket's side of a [`crate::Client`]. By default a background task owns the WebSocket,
//! writes what the client queues, reads frames into a channel, and when the socket drops
//! reconnects and joins again with the seat token. The two sides talk through [`Command`] and
//! [`Incoming`].
//!
//! With [`crate::ConnectOptions::inline`] the client owns the socket itself ([`Inline`]): it
//! writes what it queued and reads the next frame only while the caller awaits a message. There
//! is no task, no channel and no reconnection; per message that saves two task wake-ups and a
//! channel's hand-over, which is what a load generator driving thousands of sockets from one
//! core spends most on (docs/benchmarks.md, stop 41). [`Transport`] is the client's handle on
//! either, so the client itself never asks which one it has.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aeroplane_protocol::client::{ClientMessage, Join};
use aeroplane_protocol::error::CloseCode;
use aeroplane_protocol::server::ServerMessage;
use futures_util::{SinkExt as _, StreamExt as _};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode as WsCloseCode;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::client::{ClientError, ConnectOptions};

/// The error of a send on a connection that is gone for good.
fn gone() -> ClientError {
    ClientError::Closed {
        code: None,
        reason: String::new(),
    }
}

/// What the [`crate::Client`] asks of its connection task.
pub(crate) enum Command {
    /// Sends a message.
    Send(ClientMessage),
    /// Remember the join, to send it again after a reconnect.
    Join(Join),
    /// Drop the socket as a network failure would, and reconnect.
    Drop,
    /// Closes for good.
    Close,
}

/// What the connection task hands the [`crate::Client`].
pub(crate) enum Incoming {
    /// A message from the room.
    Message(Box<ServerMessage>),
    /// The socket closed for good.
    Closed {
        /// The WebSocket close code, if any.
        code: Option<u16>,
        /// The close reason.
        reason: String,
    },
}

pub(crate) type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The socket's read buffer: the room's messages are a few hundred bytes, a snapshot a few
/// KiB, and tungstenite grows the buffer for a bigger message. tungstenite zeroes the buffer's
/// free part before every read: its default of 128 KiB was 40% of the load generator's CPU,
/// and 8 KiB still wrote a sixth to a quarter of a core's first-level data cache (32–48 KiB)
/// at every read (docs/benchmarks.md).
const READ_BUFFER_BYTES: usize = 1024;

fn config() -> WebSocketConfig {
    WebSocketConfig::default().read_buffer_size(READ_BUFFER_BYTES)
}

/// Opens the WebSocket, from `bind` when given.
async fn open(url: &str, bind: Option<IpAddr>) -> Result<Socket, ClientError> {
    let connect_error = |source| ClientError::Connect {
        url: url.to_owned(),
        source: Box::new(source),
    };
    let Some(bind) = bind else {
        let (socket, _) = tokio_tungstenite::connect_async_with_config(url, Some(config()), false)
            .await
            .map_err(connect_error)?;
        return Ok(socket);
    };
    let authority = url
        .split_once("://")
        .and_then(|(_, rest)| rest.split('/').next())
        .ok_or_else(|| ClientError::BadUrl(url.to_owned()))?;
    let mut addrs = tokio::net::lookup_host(authority)
        .await
        .map_err(|error| connect_error(error.into()))?;
    let addr = addrs
        .next()
        .ok_or_else(|| ClientError::BadUrl(url.to_owned()))?;
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()
    } else {
        TcpSocket::new_v6()
    }
    .map_err(|error| connect_error(error.into()))?;
    socket
        .bind((bind, 0).into())
        .map_err(|error| connect_error(error.into()))?;
    let stream = socket
        .connect(addr)
        .await
        .map_err(|error| connect_error(error.into()))?;
    stream
        .set_nodelay(true)
        .map_err(|error| connect_error(error.into()))?;
    // Binding is for load tests on loopback addresses: plain `ws://` only.
    if !url.starts_with("ws://") {
        return Err(ClientError::BadUrl(url.to_owned()));
    }
    let (socket, _) = tokio_tungstenite::client_async_with_config(
        url,
        MaybeTlsStream::Plain(stream),
        Some(config()),
    )
    .await
    .map_err(connect_error)?;
    Ok(socket)
}

/// The background task that owns the socket.
struct Connection {
    /// The room's WebSocket URL.
    url: String,
    /// The reconnection policy and local address.
    options: ConnectOptions,
    /// The join to send again after a reconnect.
    join: Option<Join>,
    /// What the client asks.
    commands: mpsc::UnboundedReceiver<Command>,
    /// Where messages go.
    messages: mpsc::UnboundedSender<Incoming>,
}

/// How one socket's life ended.
enum Ended {
    /// The client asked to close, or dropped.
    ByClient,
    /// The server closed for good (room closed, seat replaced, shutting down).
    Final { code: Option<u16>, reason: String },
    /// The socket dropped: try again.
    Dropped { code: Option<u16>, reason: String },
}

impl Connection {
    /// Serves `socket`, and the ones that replace it, until the client closes.
    async fn run(mut self, mut socket: Socket) {
        loop {
            let (code, reason) = match self.serve(&mut socket).await {
                Ended::ByClient => {
                    let _ = socket.close(None).await;
                    return;
                }
                Ended::Final { code, reason } => {
                    let _ = self.messages.send(Incoming::Closed { code, reason });
                    return;
                }
                Ended::Dropped { code, reason } => (code, reason),
            };
            match self.reconnect().await {
                Some(fresh) => socket = fresh,
                None => {
                    let _ = self.messages.send(Incoming::Closed { code, reason });
                    return;
                }
            }
        }
    }

    /// Pumps frames both ways until the socket or the client is done.
    async fn serve(&mut self, socket: &mut Socket) -> Ended {
        loop {
            tokio::select! {
                command = self.commands.recv() => {
                    let message = match command {
                        None | Some(Command::Close) => return Ended::ByClient,
                        Some(Command::Drop) => {
                            return Ended::Dropped { code: None, reason: "dropped by the client".into() };
                        }
                        Some(Command::Join(join)) => {
                            let message = ClientMessage::Join(Box::new(join.clone()));
                            self.join = Some(join);
                            message
                        }
                        Some(Command::Send(message)) => message,
                    };
                    if socket.send(Message::text(message.to_json())).await.is_err() {
                        return Ended::Dropped { code: None, reason: "send failed".into() };
                    }
                }
                frame = socket.next() => {
                    let text = match frame {
                        Some(Ok(Message::Text(text))) => text,
                        Some(Ok(Message::Close(frame))) => return closed(frame.map(|f| (f.code, f.reason.to_string()))),
                        Some(Ok(_)) => continue,
                        Some(Err(error)) => return Ended::Dropped { code: None, reason: error.to_string() },
                        None => return Ended::Dropped { code: None, reason: "end of stream".into() },
                    };
                    let Ok(message) = ServerMessage::from_json(&text) else {
                        tracing::warn!(frame = %text, "unreadable frame from the server");
                        continue;
                    };
                    if let (ServerMessage::Welcome(welcome), Some(join)) = (&message, self.join.as_mut()) {
                        // Rejoining later must reclaim this seat, not take a new one.
                        if welcome.token.is_some() {
                            join.token.clone_from(&welcome.token);
                        }
                    }
                    if self.messages.send(Incoming::Message(Box::new(message))).is_err() {
                        return Ended::ByClient;
                    }
                }
            }
        }
    }

    /// Opens a new socket and sends the remembered join again, with backoff.
    async fn reconnect(&mut self) -> Option<Socket> {
        let mut delay = self.options.reconnect_delay;
        for _ in 0..self.options.reconnect_attempts {
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(Duration::from_secs(5));
            let Ok(mut socket) = open(&self.url, self.options.bind).await else {
                continue;
            };
            if let Some(join) = &self.join {
                let rejoin = ClientMessage::Join(Box::new(join.clone()));
                if socket.send(Message::text(rejoin.to_json())).await.is_err() {
                    continue;
                }
            }
            return Some(socket);
        }
        None
    }
}

/// How a [`crate::Client`] reaches its socket: through the background [`Connection`] task (the
/// default) or [`Inline`].
pub(crate) enum Transport {
    /// Through the task, which owns the socket.
    Task {
        /// What the client asks of the task.
        commands: mpsc::UnboundedSender<Command>,
        /// What the task hands the client.
        messages: mpsc::UnboundedReceiver<Incoming>,
    },
    /// Directly, in the caller's task ([`ConnectOptions::inline`]).
    Inline(Box<Inline>),
}

impl Transport {
    /// Opens the socket to `url`, with the transport `options` ask for.
    pub(crate) async fn open(url: &str, options: ConnectOptions) -> Result<Transport, ClientError> {
        let socket = open(url, options.bind).await?;
        if options.inline {
            return Ok(Transport::Inline(Box::new(Inline::new(socket))));
        }
        let (commands, command_rx) = mpsc::unbounded_channel();
        let (message_tx, messages) = mpsc::unbounded_channel();
        let task = Connection {
            url: url.to_owned(),
            options,
            join: None,
            commands: command_rx,
            messages: message_tx,
        };
        tokio::spawn(task.run(socket));
        Ok(Transport::Task { commands, messages })
    }

    /// Sends a message (queued: the task, or the next read of an inline socket, writes it).
    pub(crate) fn send(&mut self, message: ClientMessage) -> Result<(), ClientError> {
        match self {
            Transport::Task { commands, .. } => {
                commands.send(Command::Send(message)).map_err(|_| gone())
            }
            Transport::Inline(inline) => {
                inline.outbox.push_back(message);
                Ok(())
            }
        }
    }

    /// Sends a join, which the task also keeps to send again after a reconnect.
    pub(crate) fn join(&mut self, join: Join) -> Result<(), ClientError> {
        match self {
            Transport::Task { commands, .. } => {
                commands.send(Command::Join(join)).map_err(|_| gone())
            }
            Transport::Inline(_) => self.send(ClientMessage::Join(Box::new(join))),
        }
    }

    /// The next message, or how the connection ended for good. Cancel-safe.
    pub(crate) async fn next(&mut self) -> Incoming {
        match self {
            Transport::Task { messages, .. } => messages.recv().await.unwrap_or(Incoming::Closed {
                code: None,
                reason: String::new(),
            }),
            Transport::Inline(inline) => inline.next().await,
        }
    }

    /// Drops the socket without a close frame, as a network failure would (the task then
    /// reconnects; an inline socket ends at its next read).
    pub(crate) fn drop_socket(&self) {
        match self {
            Transport::Task { commands, .. } => {
                let _ = commands.send(Command::Drop);
            }
            Transport::Inline(inline) => inline.drop_asked.store(true, Ordering::Relaxed),
        }
    }

    /// Writes what is queued and closes the socket, without waiting for it.
    pub(crate) fn close(self) {
        match self {
            Transport::Task { commands, .. } => {
                let _ = commands.send(Command::Close);
            }
            Transport::Inline(inline) => inline.close(),
        }
    }
}

/// A socket the [`crate::Client`] reads in the caller's own task. See the module documentation.
pub(crate) struct Inline {
    /// The socket, or why it ended.
    socket: InlineSocket,
    /// Messages queued by the client's synchronous calls, written at the next read.
    outbox: VecDeque<ClientMessage>,
    /// A drop asked for by [`crate::Client::drop_connection`], carried out at the next read.
    drop_asked: AtomicBool,
}

/// An inline socket, open or ended. The size gap between the two is paid once per client: the
/// whole [`Inline`] is boxed already.
#[allow(clippy::large_enum_variant)]
enum InlineSocket {
    /// Open.
    Open(Socket),
    /// Gone, with its close code and reason: every later read reports them.
    Ended {
        /// The WebSocket close code, if the server sent one.
        code: Option<u16>,
        /// Why it ended.
        reason: String,
    },
}

impl Inline {
    /// Wraps an open socket.
    fn new(socket: Socket) -> Inline {
        Inline {
            socket: InlineSocket::Open(socket),
            outbox: VecDeque::new(),
            drop_asked: AtomicBool::new(false),
        }
    }

    /// Writes what is queued, then reads until a message arrives or the socket ends.
    ///
    /// Cancel-safe: a queued message leaves the queue only when the socket has taken it in one
    /// step, and what the socket has taken but not yet flushed is flushed by the next call.
    async fn next(&mut self) -> Incoming {
        if self.drop_asked.swap(false, Ordering::Relaxed) {
            self.end(None, "dropped by the client");
        }
        loop {
            let socket = match &mut self.socket {
                InlineSocket::Open(socket) => socket,
                InlineSocket::Ended { code, reason } => {
                    return Incoming::Closed {
                        code: *code,
                        reason: reason.clone(),
                    };
                }
            };
            if write_queued(socket, &mut self.outbox).await.is_err() {
                self.end(None, "send failed");
                continue;
            }
            let text = match socket.next().await {
                Some(Ok(Message::Text(text))) => text,
                Some(Ok(Message::Close(frame))) => {
                    // tungstenite has queued the answering close frame: send it.
                    let _ = socket.flush().await;
                    match frame {
                        Some(frame) => self.end(Some(u16::from(frame.code)), &frame.reason),
                        None => self.end(None, "closed without a code"),
                    }
                    continue;
                }
                Some(Ok(_)) => continue,
                Some(Err(error)) => {
                    self.end(None, &error.to_string());
                    continue;
                }
                None => {
                    self.end(None, "end of stream");
                    continue;
                }
            };
            match ServerMessage::from_json(&text) {
                Ok(message) => return Incoming::Message(Box::new(message)),
                Err(_) => tracing::warn!(frame = %text, "unreadable frame from the server"),
            }
        }
    }

    /// Drops the socket, if still open, keeping why for every later read.
    fn end(&mut self, code: Option<u16>, reason: &str) {
        if let InlineSocket::Open(_) = self.socket {
            self.socket = InlineSocket::Ended {
                code,
                reason: reason.to_owned(),
            };
        }
    }

    /// Writes what is queued and closes the socket, in a task of its own so that the caller
    /// need not wait.
    fn close(self) {
        let (InlineSocket::Open(mut socket), mut outbox) = (self.socket, self.outbox) else {
            return;
        };
        tokio::spawn(async move {
            if write_queued(&mut socket, &mut outbox).await.is_ok() {
                let _ = socket.close(None).await;
            }
        });
    }
}

/// Hands every message of `outbox` to the socket, oldest first, then flushes it.
async fn write_queued(
    socket: &mut Socket,
    outbox: &mut VecDeque<ClientMessage>,
) -> Result<(), tokio_tungstenite::tungstenite::Error> {
    while !outbox.is_empty() {
        std::future::poll_fn(|context| socket.poll_ready_unpin(context)).await?;
        if let Some(message) = outbox.pop_front() {
            socket.start_send_unpin(Message::text(message.to_json()))?;
        }
    }
    socket.flush().await
}

/// Sorts a close frame into final (do not reconnect) or dropped.
fn closed(frame: Option<(WsCloseCode, String)>) -> Ended {
    let Some((code, reason)) = frame else {
        return Ended::Dropped {
            code: None,
            reason: "closed without a code".into(),
        };
    };
    let code = u16::from(code);
    let final_codes = [
        CloseCode::RoomClosed,
        CloseCode::Replaced,
        CloseCode::ShuttingDown,
    ]
    .map(CloseCode::code);
    if final_codes.contains(&code) {
        Ended::Final {
            code: Some(code),
            reason,
        }
    } else {
        Ended::Dropped {
            code: Some(code),
            reason,
        }
    }
}
