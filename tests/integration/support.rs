//! `spawn_app()` and a small typed WebSocket client for the tests.
//!
//! Every test gets its own server on `127.0.0.1:0` with its own in-memory store. Receives wait at
//! most [`TIMEOUT`], which is generous on purpose: timing never decides a result, it only turns
//! a hang into a failure.

use std::sync::Arc;
use std::time::Duration;

use aeroplane_protocol::api::RoomCreated;
use aeroplane_protocol::board::BoardPhase;
use aeroplane_protocol::client::{Act, ClientMessage, Join, MovePlane, Request, Role};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::follow::{Followed, RoomView};
use aeroplane_protocol::record::GameRecord;
use aeroplane_protocol::server::{ErrorMessage, GameOver, ServerMessage, Welcome};
use aeroplane_rules::{Plane, PlaneSet, Side};
use aeroplane_server::{Config, RunningServer};
use aeroplane_store::{GameStore, MemoryStore};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

pub(crate) use crate::db::StoreKind;
use crate::db::TestDatabase;

/// The longest any single receive may take before the test fails.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

/// A server running for one test.
pub(crate) struct TestApp {
    /// `127.0.0.1:<port>`.
    pub(crate) addr: std::net::SocketAddr,
    /// The store the server hands finished games to.
    pub(crate) store: Arc<dyn GameStore>,
    /// An HTTP client.
    pub(crate) http: reqwest::Client,
    _server: RunningServer,
    /// The server's data directory (outbox, journals, the SQLite file).
    _data: tempfile::TempDir,
    _database: Option<TestDatabase>,
}

/// Starts a server with the default settings (and a 60 s grace period).
pub(crate) async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Starts a server with settings changed by `tweak`.
pub(crate) async fn spawn_app_with(tweak: impl FnOnce(&mut Config)) -> TestApp {
    let data = tempfile::tempdir().expect("a data directory");
    let mut config = Config::defaults();
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.data_dir = data.path().to_owned();
    unthrottle(&mut config);
    tweak(&mut config);
    let store: Arc<dyn GameStore> = Arc::new(MemoryStore::new());
    start(config, store, data, None).await
}

/// Starts a server on a real store: the SQLite file in its data directory, or a fresh
/// PostgreSQL database (`None`, after a loud skip line, when `TEST_DATABASE_URL` is unset).
pub(crate) async fn spawn_app_on(
    kind: StoreKind,
    tweak: impl FnOnce(&mut Config),
) -> Option<TestApp> {
    let data = tempfile::tempdir().expect("a data directory");
    let database = match kind {
        StoreKind::Sqlite => None,
        StoreKind::Postgres => Some(TestDatabase::from_env().await?),
    };
    let mut config = Config::defaults();
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.data_dir = data.path().to_owned();
    unthrottle(&mut config);
    config.database_url = database.as_ref().map(|database| database.url.clone());
    tweak(&mut config);
    let store = aeroplane_store::open(config.database_url.as_deref(), &config.data_dir)
        .await
        .expect("the store opens");
    Some(start(config, store, data, database).await)
}

/// The suite plays games as fast as the server answers, far over the per-connection rate limit
/// meant for people; the limits have tests of their own (`limits.rs`), which set them back.
fn unthrottle(config: &mut Config) {
    config.ws_rate_per_sec = 1_000_000.0;
    config.ws_burst = 1_000_000.0;
}

async fn start(
    config: Config,
    store: Arc<dyn GameStore>,
    data: tempfile::TempDir,
    database: Option<TestDatabase>,
) -> TestApp {
    if std::env::var_os("TEST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter("debug")
            .with_test_writer()
            .try_init();
    }
    let server = aeroplane_server::serve(config, store.clone())
        .await
        .expect("server starts");
    TestApp {
        addr: server.addr(),
        store,
        http: reqwest::Client::new(),
        _server: server,
        _data: data,
        _database: database,
    }
}

impl TestApp {
    /// `http://127.0.0.1:<port><path>`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Creates an online room with a fresh server seed.
    pub(crate) async fn create_room(&self) -> RoomCreated {
        self.create_room_from(serde_json::json!({ "mode": "online" }))
            .await
    }

    /// Creates an online room whose server seed the test chooses (test hook).
    pub(crate) async fn create_room_with_seed(&self, seed: &[u8; 32]) -> RoomCreated {
        let body = serde_json::json!({ "mode": "online", "test_server_seed": hex(seed) });
        self.create_room_from(body).await
    }

    async fn create_room_from(&self, body: serde_json::Value) -> RoomCreated {
        let response = self
            .http
            .post(self.url("/api/rooms"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201, "creating a room");
        response.json().await.unwrap()
    }

    /// GETs `path` and decodes its JSON body (the test fails on any error).
    pub(crate) async fn get_json<T: serde::de::DeserializeOwned>(&self, path: &str) -> T {
        let response = self.http.get(self.url(path)).send().await.unwrap();
        response.json().await.unwrap()
    }

    /// The server's data directory.
    pub(crate) fn data_dir(&self) -> &std::path::Path {
        self._data.path()
    }

    /// Shuts the server down gracefully (as on SIGTERM) and hands back its data directory.
    pub(crate) async fn shutdown(self) -> tempfile::TempDir {
        let TestApp { _server, _data, .. } = self;
        _server.shutdown().await.expect("a clean shutdown");
        _data
    }

    /// Opens a WebSocket to a room.
    pub(crate) async fn connect(&self, room: Uuid) -> Client {
        connect_to(self.addr, room).await
    }

    /// Creates a room and seats two players in it: Red first, then Yellow.
    pub(crate) async fn start_game(&self, room: &RoomCreated) -> (Client, Client) {
        let mut red = self.connect(room.id).await;
        red.join_player("Ann", Some(Side::Red)).await;
        let mut yellow = self.connect(room.id).await;
        yellow.join_player("Bob", Some(Side::Yellow)).await;
        red.recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
            .await;
        yellow
            .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
            .await;
        (red, yellow)
    }

    /// Waits until the store holds the record of game `id` (the room saves without blocking).
    pub(crate) async fn stored_record(&self, id: Uuid) -> GameRecord {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            if let Some(record) = self.store.get(id).await.unwrap() {
                return record;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no record stored for {id}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Opens a WebSocket to a room of the server at `addr`.
pub(crate) async fn connect_to(addr: std::net::SocketAddr, room: Uuid) -> Client {
    try_connect_to(addr, room)
        .await
        .expect("websocket connects")
}

/// Opens a WebSocket to a room of the server at `addr`, or answers why the upgrade failed
/// (`tokio_tungstenite::tungstenite::Error::Http` carries a refusal's status and headers).
pub(crate) async fn try_connect_to(
    addr: std::net::SocketAddr,
    room: Uuid,
) -> Result<Client, tokio_tungstenite::tungstenite::Error> {
    let url = format!("ws://{addr}/ws/rooms/{room}");
    let (ws, _) = tokio_tungstenite::connect_async(url).await?;
    Ok(Client {
        ws,
        view: RoomView::of_room(room),
        colour: None,
        token: None,
        next_id: 1,
        transcript: Vec::new(),
    })
}

/// Lower-case hex of some bytes.
/// Asserts that a record's revealed seeds match its commitment and reproduce every roll it holds.
#[track_caller]
pub(crate) fn assert_dice_verify(record: &GameRecord) {
    let fairness = &record.fairness;
    aeroplane_dice::verify(
        &fairness.commitment.parse().expect("a commitment"),
        &fairness.server_seed.parse().expect("a server seed"),
        &aeroplane_dice::ClientSeed::new(fairness.red_seed.clone()).expect("Red's seed"),
        &aeroplane_dice::ClientSeed::new(fairness.yellow_seed.clone()).expect("Yellow's seed"),
        record.roll_values(),
    )
    .expect("the seeds reproduce every roll");
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A typed test client on one WebSocket; it follows the room with the protocol's follower.
pub(crate) struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The room as every message received so far describes it.
    view: RoomView,
    /// The seat's colour, once joined as a player.
    pub(crate) colour: Option<Side>,
    /// The seat token, once joined as a player.
    pub(crate) token: Option<String>,
    next_id: u64,
    /// Every text frame received, exactly as it arrived (for tests of what the server reveals).
    pub(crate) transcript: Vec<String>,
}

impl Client {
    /// The last event number received (the `seen` of the next action).
    pub(crate) fn seen(&self) -> u64 {
        self.view.seen()
    }

    /// Sends a raw text frame.
    pub(crate) async fn send_raw(&mut self, text: impl Into<String>) {
        self.ws
            .send(Message::text(text.into()))
            .await
            .expect("send");
    }

    /// Sends any WebSocket frame (binary, ping, …) as it is.
    pub(crate) async fn send_frame(&mut self, frame: Message) {
        self.ws.send(frame).await.expect("send");
    }

    /// Sends a message.
    pub(crate) async fn send(&mut self, message: &ClientMessage) {
        self.send_raw(message.to_json()).await;
    }

    /// A fresh request id.
    pub(crate) fn request_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// The next server message (failing on close or after [`TIMEOUT`]).
    pub(crate) async fn recv(&mut self) -> ServerMessage {
        self.recv_within(TIMEOUT).await
    }

    /// The next server message (failing on close or after `within`), for a wait the server may
    /// stretch past [`TIMEOUT`] by design.
    pub(crate) async fn recv_within(&mut self, within: Duration) -> ServerMessage {
        loop {
            let frame = tokio::time::timeout(within, self.ws.next())
                .await
                .expect("a message within the timeout")
                .expect("the socket stays open")
                .expect("a readable frame");
            let Message::Text(text) = frame else {
                assert!(!frame.is_close(), "the socket closed: {frame:?}");
                continue;
            };
            self.transcript.push(text.as_str().to_owned());
            let message = ServerMessage::from_json(&text).expect("a known server message");
            if let Some(event) = message.event() {
                assert_eq!(
                    event,
                    self.seen() + 1,
                    "events are consecutive: {message:?}"
                );
            }
            assert_ne!(
                self.view.follow(&message),
                Followed::Gap,
                "every event follows from the room as the client saw it: {message:?}"
            );
            return message;
        }
    }

    /// Reads messages until one matches `wanted`, and returns it.
    pub(crate) async fn recv_until(
        &mut self,
        wanted: impl Fn(&ServerMessage) -> bool,
    ) -> ServerMessage {
        loop {
            let message = self.recv().await;
            if wanted(&message) {
                return message;
            }
            if let ServerMessage::Error(error) = &message {
                panic!("unexpected error while waiting: {error:?}");
            }
        }
    }

    /// Reads until event number `event` has arrived.
    pub(crate) async fn catch_up(&mut self, event: u64) {
        while self.seen() < event {
            self.recv().await;
        }
    }

    /// Reads until the server closes the socket, and returns the close frame.
    pub(crate) async fn closed(&mut self) -> Option<CloseFrame> {
        loop {
            let frame = tokio::time::timeout(TIMEOUT, self.ws.next())
                .await
                .expect("closed in time");
            match frame {
                Some(Ok(Message::Close(frame))) => return frame,
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return None,
            }
        }
    }

    /// Reads until the server closes the socket: the text frames that came first, exactly as
    /// they arrived, and the close frame.
    pub(crate) async fn frames_until_closed(&mut self) -> (Vec<String>, Option<CloseFrame>) {
        let mut frames = Vec::new();
        loop {
            let frame = tokio::time::timeout(TIMEOUT, self.ws.next())
                .await
                .expect("closed in time");
            match frame {
                Some(Ok(Message::Close(frame))) => return (frames, frame),
                Some(Ok(Message::Text(text))) => frames.push(text.as_str().to_owned()),
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return (frames, None),
            }
        }
    }

    /// Reads for at most `within`, or until the server closes the socket: the text frames that
    /// came, and how it ended: `None` while still open after `within`, else the close frame, if
    /// one came.
    pub(crate) async fn frames_within(
        &mut self,
        within: Duration,
    ) -> (Vec<String>, Option<Option<CloseFrame>>) {
        let deadline = tokio::time::Instant::now() + within;
        let mut frames = Vec::new();
        loop {
            let Ok(frame) = tokio::time::timeout_at(deadline, self.ws.next()).await else {
                return (frames, None);
            };
            match frame {
                Some(Ok(Message::Close(frame))) => return (frames, Some(frame)),
                Some(Ok(Message::Text(text))) => frames.push(text.as_str().to_owned()),
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return (frames, Some(None)),
            }
        }
    }

    /// Sends `join` and returns the answer (a `welcome` or an `error`).
    pub(crate) async fn join(&mut self, join: Join) -> ServerMessage {
        self.send(&ClientMessage::Join(Box::new(join))).await;
        let answer = self
            .recv_until(|m| matches!(m, ServerMessage::Welcome(_) | ServerMessage::Error(_)))
            .await;
        if let ServerMessage::Welcome(welcome) = &answer {
            self.colour = welcome.colour;
            self.token.clone_from(&welcome.token);
        }
        answer
    }

    /// Joins as a player and expects a welcome.
    pub(crate) async fn join_player(&mut self, name: &str, colour: Option<Side>) -> Welcome {
        let join = player_join(name, colour, None, None);
        welcome(self.join(join).await)
    }

    /// Joins a seat with its token and expects a welcome.
    pub(crate) async fn join_with_token(&mut self, token: &str) -> Welcome {
        let join = player_join("Again", None, Some(token.to_owned()), None);
        welcome(self.join(join).await)
    }

    /// Joins as a spectator and expects a welcome.
    pub(crate) async fn join_spectator(&mut self, name: &str) -> Welcome {
        let join = Join {
            id: Some(1),
            role: Role::Spectator,
            name: name.to_owned(),
            colour: None,
            names: Vec::new(),
            token: None,
            client_seed: None,
            player: None,
        };
        welcome(self.join(join).await)
    }

    fn act(&mut self) -> Act {
        Act {
            id: Some(self.request_id()),
            seen: self.seen(),
        }
    }

    /// Sends `roll` with the last event seen.
    pub(crate) async fn roll(&mut self) {
        let act = self.act();
        self.send(&ClientMessage::Roll(act)).await;
    }

    /// Sends `move` with the last event seen.
    pub(crate) async fn move_plane(&mut self, plane: Plane) {
        let Act { id, seen } = self.act();
        self.send(&ClientMessage::Move(MovePlane { id, seen, plane }))
            .await;
    }

    /// Sends `resign`.
    pub(crate) async fn resign(&mut self) {
        let act = self.act();
        self.send(&ClientMessage::Resign(act)).await;
    }

    /// Sends `offer_draw`.
    pub(crate) async fn offer_draw(&mut self) {
        let act = self.act();
        self.send(&ClientMessage::OfferDraw(act)).await;
    }

    /// Sends `accept_draw`.
    pub(crate) async fn accept_draw(&mut self) {
        let act = self.act();
        self.send(&ClientMessage::AcceptDraw(act)).await;
    }

    /// Sends `decline_draw`.
    pub(crate) async fn decline_draw(&mut self) {
        let act = self.act();
        self.send(&ClientMessage::DeclineDraw(act)).await;
    }

    /// Sends `withdraw_draw`.
    pub(crate) async fn withdraw_draw(&mut self) {
        let act = self.act();
        self.send(&ClientMessage::WithdrawDraw(act)).await;
    }

    /// Sends `sync` and returns the snapshot.
    pub(crate) async fn sync(&mut self) -> aeroplane_protocol::snapshot::Snapshot {
        let id = Some(self.request_id());
        self.send(&ClientMessage::Sync(Request { id })).await;
        match self
            .recv_until(|m| matches!(m, ServerMessage::Snapshot(_)))
            .await
        {
            ServerMessage::Snapshot(answer) => *answer.snapshot,
            _ => unreachable!(),
        }
    }

    /// Reads the next message and expects an error with `code`.
    pub(crate) async fn expect_error(&mut self, code: ErrorCode) -> ErrorMessage {
        match self.recv().await {
            ServerMessage::Error(error) => {
                assert_eq!(error.code, code, "{error:?}");
                error
            }
            other => panic!("expected error `{code}`, got {other:?}"),
        }
    }
}

/// A player's `join`.
pub(crate) fn player_join(
    name: &str,
    colour: Option<Side>,
    token: Option<String>,
    client_seed: Option<String>,
) -> Join {
    Join {
        id: Some(1),
        role: Role::Player,
        name: name.to_owned(),
        colour,
        names: Vec::new(),
        token,
        client_seed,
        player: None,
    }
}

/// Unwraps a `welcome`.
pub(crate) fn welcome(message: ServerMessage) -> Welcome {
    match message {
        ServerMessage::Welcome(welcome) => welcome,
        other => panic!("expected a welcome, got {other:?}"),
    }
}

/// What the players must do next: the room as the protocol's one follower ([`RoomView`]) sees
/// it, and whether an action sent is still unanswered.
#[derive(Clone, Debug)]
pub(crate) struct TurnView {
    view: RoomView,
    /// Whether an action was sent that no game event has answered yet.
    sent: bool,
}

impl TurnView {
    /// The turn as `client` has followed the room so far; go on with [`TurnView::follow`] on
    /// every message that client receives.
    pub(crate) fn of(client: &Client) -> TurnView {
        TurnView {
            view: client.view.clone(),
            sent: false,
        }
    }

    /// Follows one message. A room event the follower cannot apply fails the test.
    pub(crate) fn follow(&mut self, message: &ServerMessage) {
        let followed = self.view.follow(message);
        assert_ne!(
            followed,
            Followed::Gap,
            "the turn cannot follow {message:?}"
        );
        let seat_change = matches!(
            message,
            ServerMessage::PlayerConnected(_) | ServerMessage::PlayerDisconnected(_)
        );
        if followed == Followed::Applied && !seat_change {
            self.sent = false;
        }
    }

    /// Who acts.
    pub(crate) fn actor(&self) -> Side {
        self.view.board().to_act()
    }

    /// The legal planes of a pending roll, if a move is awaited.
    pub(crate) fn pending(&self) -> Option<PlaneSet> {
        match self.view.board().phase() {
            BoardPhase::AwaitingMove { legal, .. } => Some(legal),
            BoardPhase::AwaitingRoll | BoardPhase::Over => None,
        }
    }

    /// Whether the players may act: no action sent awaits its events, and every event of the
    /// last action has arrived.
    pub(crate) fn settled(&self) -> bool {
        !self.sent && self.view.is_settled()
    }

    /// Notes that the player to act sent an action: unsettled until its events arrive.
    pub(crate) fn sent(&mut self) {
        self.sent = true;
    }

    /// The room as followed so far.
    pub(crate) fn view(&self) -> &RoomView {
        &self.view
    }
}

/// Plays both seats until the game ends (each roll, then the first legal plane) and returns
/// the `game_over` as Red saw it. `on_message` sees every message Red receives.
pub(crate) async fn play_to_end(
    red: &mut Client,
    yellow: &mut Client,
    on_message: impl FnMut(&ServerMessage),
) -> GameOver {
    let turn = TurnView::of(red);
    play_on(turn, red, yellow, on_message).await
}

/// [`play_to_end`] in a game that went on elsewhere (e.g. a server restarted): the game must
/// stand where `turn` left it, settled.
pub(crate) async fn play_to_end_from(
    turn: TurnView,
    red: &mut Client,
    yellow: &mut Client,
    on_message: impl FnMut(&ServerMessage),
) -> GameOver {
    assert!(turn.settled(), "the turn to go on from is settled");
    let now = TurnView::of(red);
    assert_eq!(
        now.view().game(),
        turn.view().game(),
        "the game stands where it was left"
    );
    play_on(now, red, yellow, on_message).await
}

async fn play_on(
    mut turn: TurnView,
    red: &mut Client,
    yellow: &mut Client,
    mut on_message: impl FnMut(&ServerMessage),
) -> GameOver {
    loop {
        let actor = if turn.actor() == Side::Red {
            &mut *red
        } else {
            &mut *yellow
        };
        match turn.pending() {
            None => actor.roll().await,
            Some(legal) => actor.move_plane(legal.iter().next().unwrap()).await,
        }
        turn.sent();
        while !turn.settled() {
            let message = red.recv().await;
            on_message(&message);
            if let ServerMessage::Error(error) = &message {
                panic!("unexpected error: {error:?}");
            }
            if let ServerMessage::GameOver(over) = message {
                yellow
                    .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
                    .await;
                return over;
            }
            turn.follow(&message);
        }
        if turn.actor() == Side::Yellow {
            yellow.catch_up(red.seen()).await;
        }
    }
}

/// The first `count` rolls a room with this server seed gives, for the given client seeds.
pub(crate) fn rolls_of(seed: &[u8; 32], red: &str, yellow: &str, count: usize) -> Vec<u8> {
    use aeroplane_dice::{ClientSeed, DieStream, GameKey, ServerSeed};
    let key = GameKey::derive(
        &ServerSeed::from_bytes(*seed),
        &ClientSeed::new(red).unwrap(),
        &ClientSeed::new(yellow).unwrap(),
    );
    let mut stream = DieStream::new(key);
    (0..count).map(|_| stream.next_die().value()).collect()
}

/// A server seed whose first rolls (with empty client seeds) satisfy `wanted`; found by search.
pub(crate) fn seed_where(count: usize, wanted: impl Fn(&[u8]) -> bool) -> [u8; 32] {
    (0u64..1_000_000)
        .map(|n| {
            let mut seed = [7u8; 32];
            seed[..8].copy_from_slice(&n.to_be_bytes());
            seed
        })
        .find(|seed| wanted(&rolls_of(seed, "", "", count)))
        .expect("a seed with these rolls exists")
}
