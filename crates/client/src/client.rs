//! A WebSocket connection to one room, with typed messages, the room's state kept in step, the
//! `seen` event number filled in for every action, and automatic reconnection with the seat token.
//!
//! A background task owns the socket: it writes what the [`Client`] queues, reads frames into a
//! channel, and when the socket drops it reconnects and joins again (with the seat token, so the
//! seat is reclaimed). The [`Client`] itself holds the room's state as the messages it has handed
//! out describe it, so `seen` is always the last event the caller has seen, never a newer one.
//! An [inline](ConnectOptions::inline) client has no task: it reads and writes its socket itself
//! while the caller awaits a message, and does not reconnect.
//!
//! The socket's side, task or inline, is `connection.rs`; the room's state itself lives in
//! `aeroplane_protocol::follow`.

use std::net::IpAddr;
use std::time::Duration;

use aeroplane_protocol::board::{Board, BoardPhase};
use aeroplane_protocol::client::{Act, ClientMessage, Join, MovePlane, Request, Role};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::follow::{Followed, RoomView};
use aeroplane_protocol::record::ResultRecord;
use aeroplane_protocol::server::{ErrorMessage, ServerMessage, Welcome};
use aeroplane_protocol::snapshot::FairnessView;
use aeroplane_rules::{Die, Game, Plane, PlaneSet, Side};
use uuid::Uuid;

use crate::connection::{Incoming, Transport};

/// How a client connects: reconnection policy and the local address to connect from.
#[derive(Clone, Debug)]
pub struct ConnectOptions {
    /// Bind the client's socket to this local address first (e.g. one of several `127.0.0.x`
    /// addresses, to use more ephemeral ports than one address has).
    pub bind: Option<IpAddr>,
    /// How many times in a row to try reconnecting after the socket drops; 0 turns it off.
    pub reconnect_attempts: u32,
    /// The wait before the first reconnection attempt; it doubles after each failure, up to 5 s.
    pub reconnect_delay: Duration,
    /// Read the socket in the caller's own task instead of a background one: no task, no
    /// channel, and no reconnection (`reconnect_attempts` is not used; a dropped socket ends the
    /// client). Queued messages are written, and the server's pings answered, only while the
    /// caller awaits [`Client::next_message`] (or a call that waits on it), so a caller that
    /// stops reading for longer than the server's silence timeout is disconnected, and a client
    /// dropped without [`Client::close`] drops its socket without a close frame. For load
    /// generators, which read all the time and drive thousands of sockets from one core.
    pub inline: bool,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            bind: None,
            reconnect_attempts: 8,
            reconnect_delay: Duration::from_millis(100),
            inline: false,
        }
    }
}

/// Why the client could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The URL is not a `ws://`/`wss://` (or `http://`/`https://`) URL with a host.
    #[error("`{0}` is not a usable server URL")]
    BadUrl(String),
    /// The WebSocket could not be opened.
    #[error("failed to connect to {url}: {source}")]
    Connect {
        /// The URL.
        url: String,
        /// Why.
        source: Box<tokio_tungstenite::tungstenite::Error>,
    },
    /// The connection is gone for good (closed by the server, or reconnecting failed).
    #[error("the connection closed{}", match .code { Some(code) => format!(" ({code}: {})", .reason), None => String::new() })]
    Closed {
        /// The WebSocket close code, if the server sent one.
        code: Option<u16>,
        /// The close reason text (e.g. `room_closed`, `replaced`).
        reason: String,
    },
    /// The server refused the request.
    #[error("the server refused: {} ({})", .0.code, .0.message)]
    Refused(ErrorMessage),
    /// An action needs a seat, but this client joined as a spectator or not at all.
    #[error("this client has no seat")]
    NoSeat,
}

/// What the player of this client must do now, as [`Client::wait_my_turn`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// Roll the die.
    Roll,
    /// Choose one of `legal` for the pending `roll`.
    Move {
        /// The value rolled.
        roll: Die,
        /// The planes that may move.
        legal: PlaneSet,
    },
    /// The game is over.
    Over(ResultRecord),
}

/// A connection to one room. See the module documentation.
pub struct Client {
    transport: Transport,
    next_id: u64,
    state: RoomState,
    /// `<player id>.<secret>`, sent in every `join` of a seat.
    player: Option<String>,
}

/// The room as the messages handed out so far describe it: the protocol's one follower of a
/// room, and this connection's seat.
#[derive(Clone, Debug, Default)]
struct RoomState {
    view: RoomView,
    colour: Option<Side>,
    token: Option<String>,
    joined: bool,
    /// The request id of an action sent and not yet answered by an event or an error.
    in_flight: Option<u64>,
}

impl Client {
    /// Opens a WebSocket to `url`: a room's `ws://host:port/ws/rooms/{id}` URL (see
    /// [`room_url`]). Nothing is joined yet.
    pub async fn connect(url: &str) -> Result<Client, ClientError> {
        Client::connect_with(url, ConnectOptions::default()).await
    }

    /// Like [`Client::connect`], with options.
    pub async fn connect_with(url: &str, options: ConnectOptions) -> Result<Client, ClientError> {
        let transport = Transport::open(url, options).await?;
        let room_id = url.rsplit('/').next().and_then(|id| id.parse().ok());
        let state = RoomState {
            view: room_id.map(RoomView::of_room).unwrap_or_default(),
            ..RoomState::default()
        };
        Ok(Client {
            transport,
            next_id: 1,
            state,
            player: None,
        })
    }

    /// Joins seats from now on as this identified player (`<player id>.<secret>`, from
    /// `POST /api/players`), so the seat is tied to the player; `None` joins anonymously.
    pub fn set_player(&mut self, credentials: Option<String>) {
        self.player = credentials;
    }

    /// Takes a seat: any free one, or `colour`. Returns the `welcome` (with the seat token).
    pub async fn join_player(
        &mut self,
        name: &str,
        colour: Option<Side>,
        client_seed: Option<&str>,
    ) -> Result<Welcome, ClientError> {
        self.join(Join {
            id: None,
            role: Role::Player,
            name: name.to_owned(),
            colour,
            names: Vec::new(),
            token: None,
            client_seed: client_seed.map(str::to_owned),
            player: self.player.clone(),
        })
        .await
    }

    /// Reclaims a seat with its token (e.g. one from a quick match or an earlier connection).
    pub async fn join_with_token(
        &mut self,
        name: &str,
        token: &str,
    ) -> Result<Welcome, ClientError> {
        self.join(Join {
            id: None,
            role: Role::Player,
            name: name.to_owned(),
            colour: None,
            names: Vec::new(),
            token: Some(token.to_owned()),
            client_seed: None,
            player: self.player.clone(),
        })
        .await
    }

    /// Watches the room as a spectator.
    pub async fn join_spectator(&mut self, name: &str) -> Result<Welcome, ClientError> {
        self.join(Join {
            id: None,
            role: Role::Spectator,
            name: name.to_owned(),
            colour: None,
            names: Vec::new(),
            token: None,
            client_seed: None,
            player: None,
        })
        .await
    }

    /// Sends `join` and waits for its answer; room events that arrive first are applied.
    pub async fn join(&mut self, mut join: Join) -> Result<Welcome, ClientError> {
        let id = self.request_id();
        join.id = Some(id);
        self.transport.join(join)?;
        loop {
            match self.next_message().await? {
                ServerMessage::Welcome(welcome) if welcome.id == Some(id) => return Ok(welcome),
                ServerMessage::Error(error) if error.id == Some(id) => {
                    return Err(ClientError::Refused(error));
                }
                _ => {}
            }
        }
    }

    /// The next message from the server, with the client's state already updated by it.
    ///
    /// After a reconnect the next message is a fresh `welcome`. A gap in event numbers makes the
    /// client ask for a snapshot; the events are still handed out. Cancel-safe.
    pub async fn next_message(&mut self) -> Result<ServerMessage, ClientError> {
        match self.transport.next().await {
            Incoming::Message(message) => {
                self.observe(&message);
                Ok(*message)
            }
            Incoming::Closed { code, reason } => Err(ClientError::Closed { code, reason }),
        }
    }

    /// Reads messages until this client's seat must act (or the game is over).
    pub async fn wait_my_turn(&mut self) -> Result<Turn, ClientError> {
        loop {
            if let Some(turn) = self.my_turn() {
                return Ok(turn);
            }
            self.next_message().await?;
        }
    }

    /// What this client's seat must do now, if anything (`None` on another player's turn, before
    /// the game starts, while an action of ours awaits its answer, while the events of the last
    /// action are still arriving, while resyncing, and for spectators).
    pub fn my_turn(&self) -> Option<Turn> {
        let (state, view) = (&self.state, &self.state.view);
        if let Some(result) = view.result() {
            return Some(Turn::Over(result));
        }
        let colour = state.colour?;
        // Until every event of the last action has arrived (a roll without a move is followed by
        // its `turn_passed`), the position is ahead of `seen` and an action would be stale.
        if !state.joined
            || view.is_resyncing()
            || !view.is_settled()
            || state.in_flight.is_some()
            || !view.has_started()
        {
            return None;
        }
        let board = view.board();
        if board.to_act() != colour {
            return None;
        }
        match board.phase() {
            BoardPhase::AwaitingRoll => Some(Turn::Roll),
            BoardPhase::AwaitingMove { roll, legal } => Some(Turn::Move { roll, legal }),
            BoardPhase::Over => board.result().map(Turn::Over),
        }
    }

    /// Rolls the die. Returns the request id, which an `error` answer would carry.
    pub fn roll(&mut self) -> Result<u64, ClientError> {
        self.act(|id, seen| ClientMessage::Roll(Act { id, seen }))
    }

    /// Moves `plane` for the pending roll.
    pub fn move_plane(&mut self, plane: Plane) -> Result<u64, ClientError> {
        self.act(|id, seen| ClientMessage::Move(MovePlane { id, seen, plane }))
    }

    /// Resigns; the opponent wins.
    pub fn resign(&mut self) -> Result<u64, ClientError> {
        self.act(|id, seen| ClientMessage::Resign(Act { id, seen }))
    }

    /// Offers a draw.
    pub fn offer_draw(&mut self) -> Result<u64, ClientError> {
        self.act(|id, seen| ClientMessage::OfferDraw(Act { id, seen }))
    }

    /// Accepts the opponent's standing draw offer.
    pub fn accept_draw(&mut self) -> Result<u64, ClientError> {
        self.act(|id, seen| ClientMessage::AcceptDraw(Act { id, seen }))
    }

    /// Declines the opponent's standing draw offer.
    pub fn decline_draw(&mut self) -> Result<u64, ClientError> {
        self.act(|id, seen| ClientMessage::DeclineDraw(Act { id, seen }))
    }

    /// Withdraws this seat's standing draw offer.
    pub fn withdraw_draw(&mut self) -> Result<u64, ClientError> {
        self.act(|id, seen| ClientMessage::WithdrawDraw(Act { id, seen }))
    }

    /// Asks the computer of a computer room which plane it would move for the pending roll; the
    /// answer is a `hint` message with the returned id (or an `error`, e.g. `hints_unavailable`).
    pub fn hint(&mut self) -> Result<u64, ClientError> {
        let id = self.request_id();
        self.transport
            .send(ClientMessage::Hint(Request { id: Some(id) }))?;
        Ok(id)
    }

    /// Takes back this player's last plane choice in a computer or local room: the room answers
    /// with an `undone` event carrying the earlier position, which this client adopts.
    pub fn undo(&mut self) -> Result<u64, ClientError> {
        self.act(|id, seen| ClientMessage::Undo(Act { id, seen }))
    }

    /// Sends `ping`; the server answers `pong` with the same id.
    pub fn ping(&mut self) -> Result<u64, ClientError> {
        let id = self.request_id();
        self.transport
            .send(ClientMessage::Ping(Request { id: Some(id) }))?;
        Ok(id)
    }

    /// Asks for a fresh snapshot.
    pub fn sync(&mut self) -> Result<u64, ClientError> {
        let id = self.request_id();
        self.state.view.await_snapshot();
        self.transport
            .send(ClientMessage::Sync(Request { id: Some(id) }))?;
        Ok(id)
    }

    /// Leaves the room and closes the connection (a seat is held for the grace period).
    pub fn leave(mut self) {
        let _ = self
            .transport
            .send(ClientMessage::Leave(Request { id: None }));
        self.close();
    }

    /// Closes the connection without a `leave`.
    pub fn close(self) {
        self.transport.close();
    }

    /// Drops the socket without a close frame, as a network failure would; the client then
    /// reconnects and rejoins with its seat token like after any drop (for tests and demos). An
    /// [inline](ConnectOptions::inline) client does not reconnect: its next read reports the
    /// connection closed.
    pub fn drop_connection(&self) {
        self.transport.drop_socket();
    }

    /// The position as far as this client has seen.
    pub fn board(&self) -> &Board {
        self.state.view.board()
    }

    /// The position of a two-player `plyyard` room as far as this client has seen (`None` in a
    /// table room: see [`Client::board`]).
    pub fn game(&self) -> Option<&Game> {
        self.state.view.game()
    }

    /// This client's seat, if it has one.
    pub fn colour(&self) -> Option<Side> {
        self.state.colour
    }

    /// The seat token, once a `welcome` gave one.
    pub fn token(&self) -> Option<&str> {
        self.state.token.as_deref()
    }

    /// The room's id, from the URL or the last snapshot.
    pub fn room_id(&self) -> Option<Uuid> {
        self.state.view.room_id()
    }

    /// The number of the last room event handed out (the `seen` of the next action).
    pub fn seen(&self) -> u64 {
        self.state.view.seen()
    }

    /// The dice commitment and seeds as far as they are public.
    pub fn fairness(&self) -> Option<&FairnessView> {
        self.state.view.fairness()
    }

    /// How the game ended, once it has.
    pub fn result(&self) -> Option<ResultRecord> {
        self.state.view.result()
    }

    fn act(
        &mut self,
        make: impl FnOnce(Option<u64>, u64) -> ClientMessage,
    ) -> Result<u64, ClientError> {
        if self.state.colour.is_none() {
            return Err(ClientError::NoSeat);
        }
        let id = self.request_id();
        self.transport
            .send(make(Some(id), self.state.view.seen()))?;
        self.state.in_flight = Some(id);
        Ok(id)
    }

    fn request_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Updates the state from one message handed out to the caller.
    fn observe(&mut self, message: &ServerMessage) {
        let answered = match message {
            // A rate-limited message is refused before it is read, so the refusal has no id.
            ServerMessage::Error(error) => {
                error.id == self.state.in_flight || is_rate_limited(error.code)
            }
            ServerMessage::Welcome(_) | ServerMessage::Snapshot(_) => true,
            other => other
                .event()
                .is_some_and(|event| event > self.state.view.seen()),
        };
        if answered {
            self.state.in_flight = None;
        }
        match message {
            ServerMessage::Welcome(welcome) => {
                self.state.joined = true;
                if welcome.role == Role::Player {
                    self.state.colour = welcome.colour;
                    self.state.token.clone_from(&welcome.token);
                }
            }
            ServerMessage::Error(error) if error.code == ErrorCode::Stale => {
                // Our view is behind the room's: catch up.
                let _ = self.sync();
            }
            _ => {}
        }
        if self.state.view.follow(message) == Followed::Gap {
            let _ = self.sync();
        }
    }
}

/// Whether the server refused a message for coming too fast (`rate_limited`).
pub fn is_rate_limited(code: ErrorCode) -> bool {
    // By name: the code is newer than some servers this client talks to.
    code.as_str() == "rate_limited"
}

/// The WebSocket URL of room `room` on the server whose HTTP base is `server`
/// (`http://127.0.0.1:8080` → `ws://127.0.0.1:8080/ws/rooms/{room}`).
pub fn room_url(server: &str, room: Uuid) -> String {
    ws_url(server, &format!("/ws/rooms/{room}"))
}

/// The WebSocket URL of `path` on the server whose HTTP base is `server`.
pub fn ws_url(server: &str, path: &str) -> String {
    let server = server.trim_end_matches('/');
    let base = if let Some(rest) = server.strip_prefix("https://") {
        format!("wss://{rest}")
    } else if let Some(rest) = server.strip_prefix("http://") {
        format!("ws://{rest}")
    } else {
        server.to_owned()
    };
    format!("{base}{path}")
}
