//! Forwarding in cluster mode (issue 15): any node accepts any client, the room living on its
//! owner. Real processes: three server nodes on one `nats-server` child, sharing one SQLite
//! store, over real WebSockets. Two players on the two nodes that do not own their room play
//! it to the end through forwarding, a spectator on a third follows, a player reconnects
//! through another node with the seat token, the room's status answers on every node; and when
//! the owner is SIGKILLed, the clients on the other nodes keep their sockets, get a `snapshot`
//! where they were, and finish the game on the room's new owner; an owner paused past its
//! lease that wakes reaches none of them. The same on a three-server NATS cluster (replicas 3),
//! with a player who reconnects through the owner and then a third node. Without a usable
//! `nats-server` these tests skip loudly (and fail under CI), see `broker.rs`. The added
//! latency of a forwarded request is printed (`--nocapture` shows it).

use std::time::{Duration, Instant};

use aeroplane_protocol::api::RoomStatus;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::Snapshot;
use aeroplane_rules::Side;
use uuid::Uuid;

use crate::broker::{NatsCluster, NatsServer};
use crate::cluster_failover::{Node, metric, shared_store, stored_once};
use crate::cluster_journal::actions_at;
use crate::restart::{check_record, create_room, play_some, record_from};
use crate::support::{Client, connect_to, play_to_end_from, player_join, welcome};

/// Three nodes on the NATS servers at `urls` with short leases (and `extra` flags), storing
/// finished games at `store`.
fn three_nodes(urls: &str, store: &str, extra: &[&str]) -> (Node, Node, Node) {
    let lease = "1500";
    (
        Node::start_with(urls, store, "node-a", lease, extra),
        Node::start_with(urls, store, "node-b", lease, extra),
        Node::start_with(urls, store, "node-c", lease, extra),
    )
}

/// Seats Red on `red_at` and Yellow on `yellow_at` (with client seeds) and waits for the start.
async fn seat_apart(red_at: &Node, yellow_at: &Node, room: Uuid) -> (Client, Client) {
    let mut red = connect_to(red_at.process.addr, room).await;
    let join = player_join("Ann", Some(Side::Red), None, Some("ann".into()));
    welcome(red.join(join).await);
    let mut yellow = connect_to(yellow_at.process.addr, room).await;
    let join = player_join("Bob", Some(Side::Yellow), None, Some("bob".into()));
    welcome(yellow.join(join).await);
    for client in [&mut red, &mut yellow] {
        client
            .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
            .await;
    }
    (red, yellow)
}

/// A game owned by node A whose players sit on B (Red) and C (Yellow), started.
struct Apart {
    /// The NATS server or servers, stopped when the test ends.
    _broker: Box<dyn std::any::Any + Send>,
    _store: tempfile::TempDir,
    a: Node,
    b: Node,
    c: Node,
    http: reqwest::Client,
    room: Uuid,
    red: Client,
    yellow: Client,
}

impl Apart {
    /// Three nodes, a room created on A, Red seated through B and Yellow through C; `None`
    /// without a usable `nats-server`.
    async fn start() -> Option<Apart> {
        let broker = NatsServer::start()?;
        let urls = broker.url.clone();
        Some(Apart::on(&urls, &[], Box::new(broker)).await)
    }

    /// The same on the NATS servers at `urls` (kept running by `broker`), nodes started with
    /// `extra` flags.
    async fn on(urls: &str, extra: &[&str], broker: Box<dyn std::any::Any + Send>) -> Apart {
        let store_dir = tempfile::tempdir().unwrap();
        let store = shared_store(&store_dir);
        let (a, b, c) = three_nodes(urls, &store, extra);
        let http = reqwest::Client::new();
        let room = create_room(&http, &a.process).await.id;
        let (red, yellow) = seat_apart(&b, &c, room).await;
        Apart {
            _broker: broker,
            _store: store_dir,
            a,
            b,
            c,
            http,
            room,
            red,
            yellow,
        }
    }
}

/// A spectator of `room` through `node`, caught up with event `event`.
async fn spectator_at(node: &Node, room: Uuid, event: u64) -> Client {
    let mut spectator = connect_to(node.process.addr, room).await;
    spectator.join_spectator("Eve").await;
    spectator.catch_up(event).await;
    spectator
}

/// The median round trip of `count` `sync` requests of `client`.
async fn median_sync(client: &mut Client, count: usize) -> Duration {
    let mut took = Vec::with_capacity(count);
    for _ in 0..count {
        let started = Instant::now();
        client.sync().await;
        took.push(started.elapsed());
    }
    took.sort();
    took[count / 2]
}

/// `GET /api/rooms/{room}` on `node`.
async fn status_at(http: &reqwest::Client, node: &Node, room: Uuid) -> RoomStatus {
    let response = http
        .get(node.process.url(&format!("/api/rooms/{room}")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{} answers the status", node.name);
    response.json().await.unwrap()
}

/// Reads until the unsolicited `snapshot` that follows a re-route, and answers it.
async fn snapshot_after_failover(client: &mut Client) -> Snapshot {
    match client
        .recv_until(|m| matches!(m, ServerMessage::Snapshot(_)))
        .await
    {
        ServerMessage::Snapshot(answer) => {
            assert_eq!(answer.id, None, "nobody asked for it");
            *answer.snapshot
        }
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn players_on_two_nodes_that_do_not_own_the_room_play_it_to_the_end_through_forwarding() {
    let Some(broker) = NatsServer::start() else {
        return;
    };
    let store_dir = tempfile::tempdir().unwrap();
    let store = shared_store(&store_dir);
    let (a, b, c) = three_nodes(&broker.url, &store, &[]);
    let http = reqwest::Client::new();

    // The room is created on A, which owns it; nobody plays on A.
    let room = create_room(&http, &a.process).await.id;
    let (mut red, mut yellow) = seat_apart(&b, &c, room).await;
    let on_a = status_at(&http, &a, room).await;
    assert_eq!(
        status_at(&http, &b, room).await,
        on_a,
        "B answers A's status"
    );
    assert_eq!(
        status_at(&http, &c, room).await,
        on_a,
        "C answers A's status"
    );
    let forwarded = metric(&http, &a, "aeroplane_cluster_forwarded_connections").await;
    assert_eq!(forwarded, 2.0, "A serves two connections of other nodes");

    // The added latency of forwarding: a `sync` answered by the room, directly on the owner
    // and through an edge node (median of many; printed, not asserted).
    let mut direct = spectator_at(&a, room, red.seen()).await;
    let mut through_b = spectator_at(&b, room, red.seen()).await;
    let count = 200;
    let direct_took = median_sync(&mut direct, count).await;
    let forwarded_took = median_sync(&mut through_b, count).await;
    eprintln!(
        "forwarding: median `sync` round trip over {count}: {} µs on the owner, {} µs through another node (+{} µs)",
        direct_took.as_micros(),
        forwarded_took.as_micros(),
        forwarded_took.saturating_sub(direct_took).as_micros()
    );
    drop((direct, through_b));

    // A spectator on C follows the game, and Red reconnects through C with the seat token.
    let mut spectator = spectator_at(&c, room, red.seen()).await;
    play_some(&mut red, &mut yellow, 8).await;
    let token = red.token.clone().unwrap();
    drop(red);
    let mut red = connect_to(c.process.addr, room).await;
    let again = red.join_with_token(&token).await;
    assert_eq!(again.colour, Some(Side::Red));
    yellow.catch_up(red.seen()).await;
    red.catch_up(yellow.seen()).await;
    let turn = play_some(&mut red, &mut yellow, 4).await;
    let before = red.sync().await;

    let over = play_to_end_from(turn, &mut red, &mut yellow, |_| {}).await;
    let seen_over = spectator
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    assert_eq!(
        seen_over,
        ServerMessage::GameOver(over),
        "the spectator saw it"
    );
    assert_eq!(
        spectator.seen(),
        red.seen(),
        "the spectator saw every event"
    );

    let record = record_from(&http, &b.process, room).await;
    check_record(&record, &before, actions_at(&record, &before));
    stored_once(&c, &[room]).await;
    let edges = metric(&http, &b, "aeroplane_cluster_reroutes_total").await
        + metric(&http, &c, "aeroplane_cluster_reroutes_total").await;
    assert_eq!(edges, 0.0, "nothing was re-routed");
}

#[tokio::test]
async fn clients_on_other_nodes_keep_their_sockets_when_the_owner_is_killed_and_finish_the_game() {
    let Some(apart) = Apart::start().await else {
        return;
    };
    outlive_the_owner(apart, 2.0).await;
}

#[tokio::test]
async fn on_a_three_server_nats_cluster_players_on_other_nodes_reconnect_anywhere_and_outlive_the_owner()
 {
    let Some(nats) = NatsCluster::start() else {
        return;
    };
    let urls = nats.urls();
    let mut apart = Apart::on(&urls, &["--nats-replicas", "3"], Box::new(nats)).await;
    // Red leaves node B and comes back through node A, the owner, then through node C.
    play_some(&mut apart.red, &mut apart.yellow, 6).await;
    let token = apart.red.token.clone().unwrap();
    for node in [&apart.a, &apart.c] {
        let mut red = connect_to(node.process.addr, apart.room).await;
        let again = red.join_with_token(&token).await;
        assert_eq!(
            again.colour,
            Some(Side::Red),
            "Red again through {}",
            node.name
        );
        apart.red = red;
    }
    apart.yellow.catch_up(apart.red.seen()).await;
    apart.red.catch_up(apart.yellow.seen()).await;
    // Both players are on C now: one edge.
    outlive_the_owner(apart, 1.0).await;
}

/// Node A, the owner, is SIGKILLed mid-game: its players on B and C and a spectator on C keep
/// their sockets, get a `snapshot` where the game stood, and finish it on the new owner; the
/// game is stored once; each of the `edges` nodes that forward its clients re-routed.
async fn outlive_the_owner(apart: Apart, edges: f64) {
    let Apart {
        _broker,
        _store,
        mut a,
        b,
        c,
        http,
        room,
        mut red,
        mut yellow,
    } = apart;
    let mut spectator = spectator_at(&c, room, red.seen()).await;
    let turn = play_some(&mut red, &mut yellow, 10).await;
    let before = red.sync().await;
    yellow.catch_up(before.event).await;
    spectator.catch_up(before.event).await;

    // The owner dies. B and C follow the room to its new owner (one of them, once A's lease
    // lapsed) on their own: the clients' sockets stay open, each gets a `snapshot` where the
    // game stood.
    let killed = Instant::now();
    a.process.kill();
    for (who, client) in [
        ("Red", &mut red),
        ("Yellow on node-c", &mut yellow),
        ("the spectator on node-c", &mut spectator),
    ] {
        let after = snapshot_after_failover(client).await;
        eprintln!(
            "failover: {who} got the new owner's snapshot {} ms after the kill",
            killed.elapsed().as_millis()
        );
        assert_eq!(after.game, before.game, "every action seen is there");
        assert_eq!(after.notation, before.notation);
        assert_eq!(after.fairness, before.fairness, "same seeds and commitment");
    }
    red.catch_up(yellow.seen()).await;

    // The game goes on and ends on the same sockets.
    play_to_end_from(turn, &mut red, &mut yellow, |_| {}).await;
    spectator
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    let record = record_from(&http, &b.process, room).await;
    check_record(&record, &before, actions_at(&record, &before));
    stored_once(&b, &[room]).await;
    let takeovers = metric(&http, &b, "aeroplane_cluster_takeovers_total").await
        + metric(&http, &c, "aeroplane_cluster_takeovers_total").await;
    assert_eq!(takeovers, 1.0, "one node took the room over");
    let reroutes = metric(&http, &b, "aeroplane_cluster_reroutes_total").await
        + metric(&http, &c, "aeroplane_cluster_reroutes_total").await;
    assert!(
        reroutes >= edges,
        "the {edges} edge node(s) followed the room: {reroutes}"
    );
}

#[tokio::test]
async fn a_paused_owner_that_wakes_reaches_no_forwarded_client_and_the_game_goes_on_once() {
    let Some(Apart {
        _broker,
        _store,
        mut a,
        b,
        c: _c,
        http,
        room,
        mut red,
        mut yellow,
    }) = Apart::start().await
    else {
        return;
    };
    let turn = play_some(&mut red, &mut yellow, 10).await;
    let before = red.sync().await;
    yellow.catch_up(before.event).await;

    // A freezes with the room, its lease and its NATS connection as they were. The player to
    // act acts at once: the action reaches the frozen A only (it reads it when it wakes).
    a.process.pause();
    let actor = if turn.actor() == Side::Red {
        &mut red
    } else {
        &mut yellow
    };
    match turn.pending() {
        None => actor.roll().await,
        Some(legal) => actor.move_plane(legal.iter().next().unwrap()).await,
    }

    // Once A's lease lapsed, B or C owns the room; both edges follow it there, and the
    // clients, on their sockets, get a snapshot without that action.
    for client in [&mut red, &mut yellow] {
        let after = snapshot_after_failover(client).await;
        assert_eq!(after.game, before.game, "the stale action is not there");
    }
    red.catch_up(yellow.seen()).await;

    // A wakes: whatever its room still sends (the stale action is refused by the journal, its
    // lease is lost, it closes its virtual connections) belongs to sessions the edges left, so
    // no client sees it. The game goes on once, on the same sockets; every event each client
    // receives follows the one before (the test client checks it).
    a.process.resume();
    play_to_end_from(turn, &mut red, &mut yellow, |_| {}).await;
    let record = record_from(&http, &b.process, room).await;
    check_record(&record, &before, actions_at(&record, &before));
    stored_once(&b, &[room]).await;
    let refused = metric(&http, &a, "aeroplane_journal_write_failures_total").await;
    let renewals = metric(&http, &a, "aeroplane_cluster_lease_renew_failures_total").await;
    eprintln!(
        "pause: node-a woke with {refused} journal writes refused, {renewals} lease renewals failed"
    );
    assert!(refused + renewals >= 1.0, "A learned that it was fenced");
}
