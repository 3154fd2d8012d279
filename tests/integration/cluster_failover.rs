//! Failover in cluster mode (issue 15, second slice), with real processes: server nodes on one
//! `nats-server` child, sharing one SQLite store (as nodes share PostgreSQL in production), over
//! real WebSockets. A SIGKILLed node's games (online, computer, local) resume on the other nodes
//! while they run, with every action their players saw and their seat tokens, finish there and
//! are stored once; a drained node's rooms are taken over within a scan, not a lease; a node
//! serves a room live on another through forwarding; `/readyz` follows the broker; and a game
//! finished on a node that dies with its disk before its database had the game is stored by
//! another node, from the journal kept until then.
//! The failover times are printed (`--nocapture` shows them). Without a usable `nats-server`
//! these tests skip loudly (and fail under CI), see `broker.rs`.

use std::time::{Duration, Instant};

use aeroplane_protocol::api::{GameList, RoomStatus};
use aeroplane_protocol::server::{ServerMessage, Welcome};
use aeroplane_protocol::snapshot::Snapshot;
use aeroplane_rules::Side;
use tokio_tungstenite::tungstenite;
use uuid::Uuid;

use crate::broker::NatsServer;
use crate::child::ServerProcess;
use crate::cluster_journal::actions_at;
use crate::computer::{Stop, create_at, drive};
use crate::restart::{
    DEADLINE_MS, check_record, create_room, finish_games, play_some, record_from, seat_both,
    wait_for_outbox,
};
use crate::support::{Client, TIMEOUT, TurnView, connect_to, play_to_end_from, try_connect_to};

/// The header of a 409 `room_elsewhere` naming the owner.
pub(crate) const OWNER: &str = "aeroplane-room-owner";

/// One server node of a test cluster.
pub(crate) struct Node {
    /// Its `--node-id`.
    pub(crate) name: String,
    /// The running server.
    pub(crate) process: ServerProcess,
    /// Its data directory, kept while it runs.
    pub(crate) _data: tempfile::TempDir,
}

impl Node {
    /// Starts node `name` on `broker`, storing finished games at `store`, with leases of
    /// `lease_ms` and a bot that acts at once.
    fn start(broker: &NatsServer, store: &str, name: &str, lease_ms: &str) -> Node {
        Node::start_with(&broker.url, store, name, lease_ms, &[])
    }

    /// [`Node::start`] on the NATS servers `nats_url` (comma-separated), with `extra` flags.
    pub(crate) fn start_with(
        nats_url: &str,
        store: &str,
        name: &str,
        lease_ms: &str,
        extra: &[&str],
    ) -> Node {
        let data = tempfile::tempdir().unwrap();
        let mut args = vec![
            "--nats-url",
            nats_url,
            "--node-id",
            name,
            "--lease-ms",
            lease_ms,
            "--shutdown-deadline-ms",
            DEADLINE_MS,
            "--grace-ms",
            "60000",
            "--bot-pace-ms",
            "0",
        ];
        args.extend_from_slice(extra);
        let process = ServerProcess::start(data.path(), Some(store), &args);
        Node {
            name: name.to_owned(),
            process,
            _data: data,
        }
    }
}

/// A SQLite store every node of a test shares.
pub(crate) fn shared_store(dir: &tempfile::TempDir) -> String {
    format!("sqlite://{}", dir.path().join("games.sqlite3").display())
}

/// The sum of the values of metric `name` (every label set) on `node`.
pub(crate) async fn metric(http: &reqwest::Client, node: &Node, name: &str) -> f64 {
    metric_where(http, node, name, "").await
}

/// The sum of the values of metric `name` on `node` whose labels contain `label`
/// (`reason="fenced"`; empty: every label set, and the metric without labels).
pub(crate) async fn metric_where(
    http: &reqwest::Client,
    node: &Node,
    name: &str,
    label: &str,
) -> f64 {
    let text = http
        .get(node.process.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let labelled = format!("{name}{{");
    let bare = format!("{name} ");
    text.lines()
        .filter(|line| {
            (line.starts_with(&labelled) && line.contains(label))
                || (label.is_empty() && line.starts_with(&bare))
        })
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// Opens a WebSocket to `room` on one of `nodes`, starting with `nodes[first]`: any node
/// accepts it now (forwarding to the owner), but a 409 `room_elsewhere` (from an older server)
/// naming one of them sends it there, one naming a dead node is tried again. Answers the client
/// and the index of its node.
pub(crate) async fn connect_anywhere(nodes: &[&Node], room: Uuid, first: usize) -> (Client, usize) {
    let deadline = Instant::now() + TIMEOUT;
    let mut at = first;
    loop {
        match try_connect_to(nodes[at].process.addr, room).await {
            Ok(client) => return (client, at),
            Err(tungstenite::Error::Http(response)) => {
                assert_eq!(response.status(), 409, "refused: {response:?}");
                let owner = response.headers()[OWNER].to_str().unwrap();
                if let Some(owner) = nodes.iter().position(|node| node.name == owner) {
                    at = owner;
                    continue;
                }
            }
            Err(error) => panic!("cannot connect to {room}: {error}"),
        }
        assert!(
            Instant::now() < deadline,
            "room {room} was never taken over"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Reconnects a seat of `room` with its `token` on any of `nodes` once the room is taken over,
/// checks that the game is where its players left it (`before`) and prints how long after the
/// kill (`killed`) the new owner served the room's first event.
async fn reconnect(
    nodes: &[&Node],
    (room, what): (Uuid, &str),
    token: &str,
    first: usize,
    killed: Instant,
    before: &Snapshot,
) -> (Client, Welcome) {
    let (mut client, at) = connect_anywhere(nodes, room, first).await;
    let welcome = client.join_with_token(token).await;
    eprintln!(
        "failover: {what} room {room}: first event from {} {} ms after the kill",
        nodes[at].name,
        killed.elapsed().as_millis()
    );
    let after = &welcome.snapshot;
    assert_eq!(after.game, before.game, "every action seen is there");
    assert_eq!(after.notation, before.notation);
    assert_eq!(after.fairness, before.fairness, "same seeds and commitment");
    (client, welcome)
}

/// Creates a room of `mode` (`computer` or `local`) on `node`, joins its player and plays the
/// player's colours until at least `events` events, stopping with the player to act. Answers
/// the room, the client (its seat token in `token`) and the player's colours.
async fn single_player_game(
    http: &reqwest::Client,
    node: &Node,
    mode: &str,
    events: u64,
) -> (Uuid, Client, Vec<Side>) {
    let body = match mode {
        "computer" => serde_json::json!({ "mode": mode, "level": "random" }),
        _ => serde_json::json!({ "mode": mode }),
    };
    let room = create_at(http, node.process.url("/api/rooms"), body).await;
    let mut client = connect_to(node.process.addr, room.id).await;
    let welcome = client.join_player("Cy", None).await;
    client
        .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;
    let mine = welcome.colours;
    let mut turn = TurnView::of(&client);
    let stop = drive(
        &mut client,
        &mut turn,
        |colour| mine.contains(&colour),
        |turn| turn.view().seen() >= events && mine.contains(&turn.actor()),
    )
    .await;
    assert!(matches!(stop, Stop::Wanted), "the game goes on: {stop:?}");
    (room.id, client, mine)
}

/// Plays `client`'s colours to the end of its game.
async fn finish_single(client: &mut Client, mine: &[Side]) {
    let mut turn = TurnView::of(client);
    let stop = drive(
        client,
        &mut turn,
        |colour| mine.contains(&colour),
        |_| false,
    )
    .await;
    assert!(matches!(stop, Stop::Over(_)), "the game ended: {stop:?}");
}

/// Every id is stored exactly once in the shared store, and nothing else is.
pub(crate) async fn stored_once(node: &Node, ids: &[Uuid]) {
    let list: GameList = node.process.get_json("/api/games?limit=100").await;
    for id in ids {
        let copies = list.games.iter().filter(|game| game.id == *id).count();
        assert_eq!(copies, 1, "game {id} is stored once");
    }
    assert_eq!(list.games.len(), ids.len(), "nothing else is stored");
}

#[tokio::test]
async fn every_game_of_a_sigkilled_node_resumes_on_the_others_and_is_stored_once() {
    let Some(broker) = NatsServer::start() else {
        return;
    };
    let store_dir = tempfile::tempdir().unwrap();
    let store = shared_store(&store_dir);
    let lease = "1500";
    let mut a = Node::start(&broker, &store, "node-a", lease);
    let b = Node::start(&broker, &store, "node-b", lease);
    let c = Node::start(&broker, &store, "node-c", lease);
    let http = reqwest::Client::new();

    // Three games on node A: online, against the computer, local.
    let online = create_room(&http, &a.process).await.id;
    let (mut red, mut yellow) = seat_both(&a.process, online).await;
    let tokens = (red.token.clone().unwrap(), yellow.token.clone().unwrap());
    let turn = play_some(&mut red, &mut yellow, 10).await;
    let online_before = red.sync().await;
    let (computer, mut human, human_colours) = single_player_game(&http, &a, "computer", 12).await;
    let human_token = human.token.clone().unwrap();
    let computer_before = human.sync().await;
    let (local, mut player, local_colours) = single_player_game(&http, &a, "local", 12).await;
    let local_token = player.token.clone().unwrap();
    let local_before = player.sync().await;

    // Node A dies. Each player reconnects with their token to another node, which takes the
    // room over once A's lease lapsed (or sends the player on to the node that did).
    let killed = Instant::now();
    a.process.kill();
    drop((red, yellow, human, player));
    let others = [&b, &c];
    let ((mut red, _), (mut human, _), (mut player, _)) = tokio::join!(
        reconnect(
            &others,
            (online, "online"),
            &tokens.0,
            0,
            killed,
            &online_before
        ),
        reconnect(
            &others,
            (computer, "computer"),
            &human_token,
            1,
            killed,
            &computer_before
        ),
        reconnect(
            &others,
            (local, "local"),
            &local_token,
            0,
            killed,
            &local_before
        ),
    );
    let (mut yellow, _) = reconnect(
        &others,
        (online, "online (Yellow)"),
        &tokens.1,
        1,
        killed,
        &online_before,
    )
    .await;
    red.catch_up(yellow.seen()).await;

    // The games finish on their new owners, and each is stored once and verifies.
    play_to_end_from(turn, &mut red, &mut yellow, |_| {}).await;
    finish_single(&mut human, &human_colours).await;
    finish_single(&mut player, &local_colours).await;
    for (id, before) in [
        (online, &online_before),
        (computer, &computer_before),
        (local, &local_before),
    ] {
        let record = record_from(&http, &b.process, id).await;
        check_record(&record, before, actions_at(&record, before));
    }
    stored_once(&b, &[online, computer, local]).await;

    // Each room was taken over once, by one of the two nodes.
    let takeovers = metric(&http, &b, "aeroplane_cluster_takeovers_total").await
        + metric(&http, &c, "aeroplane_cluster_takeovers_total").await;
    assert_eq!(takeovers, 3.0, "three takeovers in all");
}

#[tokio::test]
async fn a_drained_nodes_rooms_are_taken_over_within_a_scan_and_finish() {
    let Some(broker) = NatsServer::start() else {
        return;
    };
    let store_dir = tempfile::tempdir().unwrap();
    let store = shared_store(&store_dir);
    // A long lease: a takeover within a few seconds of the drain comes from the leases given
    // back, not lapsed (A renewed within 3 s before its SIGTERM, so its leases would last 6 s).
    let lease = "9000";
    let mut a = Node::start(&broker, &store, "node-a", lease);
    let b = Node::start(&broker, &store, "node-b", lease);
    let http = reqwest::Client::new();
    let online = create_room(&http, &a.process).await.id;
    let (mut red, mut yellow) = seat_both(&a.process, online).await;
    let tokens = (red.token.clone().unwrap(), yellow.token.clone().unwrap());
    let turn = play_some(&mut red, &mut yellow, 8).await;
    let before = red.sync().await;
    let (local, mut player, local_colours) = single_player_game(&http, &a, "local", 8).await;
    let local_token = player.token.clone().unwrap();
    let local_before = player.sync().await;

    let drained = Instant::now();
    let status = a.process.terminate(Duration::from_secs(15));
    assert!(status.success(), "SIGTERM exits 0: {status:?}");
    for client in [&mut red, &mut yellow, &mut player] {
        let frame = client.closed().await.expect("a close frame");
        assert_eq!(u16::from(frame.code), 1001);
    }
    // Nobody asks B for the rooms: its scan finds them.
    loop {
        let owned = metric(&http, &b, "aeroplane_cluster_rooms_owned").await;
        if owned == 2.0 {
            break;
        }
        assert!(drained.elapsed() < TIMEOUT, "B owns {owned} rooms");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let took = drained.elapsed();
    eprintln!(
        "drain: node-b owns node-a's 2 rooms {} ms after node-a's SIGTERM",
        took.as_millis()
    );
    assert!(
        took < Duration::from_secs(6),
        "taken over within a scan, not at the lease's lapse: {took:?}"
    );
    let scans = metric(&http, &b, "aeroplane_cluster_takeovers_total").await;
    assert_eq!(scans, 2.0);

    // The players come back on B with their tokens and finish.
    let mut red = connect_to(b.process.addr, online).await;
    let mut yellow = connect_to(b.process.addr, online).await;
    for (client, token) in [(&mut red, &tokens.0), (&mut yellow, &tokens.1)] {
        let welcome = client.join_with_token(token).await;
        assert_eq!(welcome.snapshot.game, before.game);
    }
    red.catch_up(yellow.seen()).await;
    let mut player = connect_to(b.process.addr, local).await;
    let welcome = player.join_with_token(&local_token).await;
    assert_eq!(welcome.snapshot.game, local_before.game);
    play_to_end_from(turn, &mut red, &mut yellow, |_| {}).await;
    finish_single(&mut player, &local_colours).await;
    for (id, before) in [(online, &before), (local, &local_before)] {
        let record = record_from(&http, &b.process, id).await;
        check_record(&record, before, actions_at(&record, before));
    }
    stored_once(&b, &[online, local]).await;
}

#[tokio::test]
async fn a_room_live_on_another_node_is_served_through_any_node_and_readiness_follows_the_broker() {
    let Some(broker) = NatsServer::start() else {
        return;
    };
    let store_dir = tempfile::tempdir().unwrap();
    let store = shared_store(&store_dir);
    let a = Node::start(&broker, &store, "node-a", "10000");
    let b = Node::start(&broker, &store, "node-b", "10000");
    let http = reqwest::Client::new();
    let room = create_room(&http, &a.process).await.id;

    // B answers for A's room: its status, and a WebSocket forwarded to A.
    let status = http
        .get(b.process.url(&format!("/api/rooms/{room}")))
        .send()
        .await
        .unwrap();
    assert_eq!(status.status(), 200, "B answers the status of A's room");
    let at_b: RoomStatus = status.json().await.unwrap();
    let at_a: RoomStatus = a.process.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(at_b, at_a);
    let mut through_b = connect_to(b.process.addr, room).await;
    let welcome = through_b.join_player("Ann", None).await;
    assert_eq!(welcome.snapshot.room_id, room);
    let owned = metric(&http, &b, "aeroplane_cluster_rooms_owned").await;
    assert_eq!(owned, 0.0, "B forwards, it did not take the room");
    let unknown = http
        .get(b.process.url(&format!("/api/rooms/{}", Uuid::new_v4())))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404, "no journal: no room");
    let here = http
        .get(a.process.url(&format!("/api/rooms/{room}")))
        .send()
        .await
        .unwrap();
    assert_eq!(here.status(), 200, "A still serves its room");

    let ready = http.get(a.process.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);
    drop(broker);
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let ready = http.get(a.process.url("/readyz")).send().await.unwrap();
        if ready.status() == 503 {
            let body = ready.text().await.unwrap();
            assert!(body.contains("broker unavailable"), "{body}");
            break;
        }
        assert!(Instant::now() < deadline, "still ready without a broker");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_game_finished_on_a_node_lost_with_its_disk_before_the_database_had_it_is_stored_by_another()
 {
    let Some(broker) = NatsServer::start() else {
        return;
    };
    let store_dir = tempfile::tempdir().unwrap();
    let store = shared_store(&store_dir);
    // A's database never answers: its finished games wait in the outbox on its disk.
    let down = "postgres://postgres@127.0.0.1:1/down";
    let mut a = Node::start_with(&broker.url, down, "node-a", "1500", &[]);
    let b = Node::start(&broker, &store, "node-b", "1500");
    let http = reqwest::Client::new();

    let finished = finish_games(&a.process, 1).await;
    wait_for_outbox(a._data.path(), 1).await;
    // A keeps the game's journal, and its lease, until the database has the game (a journal
    // deleted once the record was on A's disk would give the lease back within milliseconds).
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        metric(&http, &a, "aeroplane_cluster_rooms_owned").await,
        1.0
    );

    // A dies, and its disk with it: the outbox's copy is gone.
    let killed = Instant::now();
    a.process.kill();
    drop(a);
    // Once A's lease lapsed, B's scan restores the finished game from its journal and stores it.
    loop {
        let list: GameList = b.process.get_json("/api/games?limit=100").await;
        if !list.games.is_empty() {
            break;
        }
        assert!(
            killed.elapsed() < TIMEOUT,
            "B never stored the game of the lost node"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!(
        "lost disk: node-b stored node-a's finished game {} ms after the kill",
        killed.elapsed().as_millis()
    );
    stored_once(&b, &finished).await;
    // Stored, the journal is deleted and its lease given back.
    while metric(&http, &b, "aeroplane_cluster_rooms_owned").await > 0.0 {
        assert!(
            killed.elapsed() < TIMEOUT,
            "B kept the stored game's journal"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
