//! Quick match across nodes (issue 15), with real processes: server nodes on one `nats-server`
//! child, sharing one SQLite store. Players asking on different nodes are paired by the one
//! matchmaker (the node holding the key `quick-match`), play in the room it opened (each through
//! the node it asked, which forwards to the room's owner), and the game is stored once; a four-player queue fills from
//! three nodes; identified players' game is rated; the matchmaker's death moves the pool to
//! another node; a closed request is withdrawn. Without a usable `nats-server` these tests skip
//! loudly (and fail under CI), see `broker.rs`.

use std::time::Duration;

use aeroplane_protocol::api::QuickMatched;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::Side;

use crate::broker::NatsServer;
use crate::cluster_failover::{Node, connect_anywhere, metric, shared_store, stored_once};
use crate::identity::{Identity, new_identity_at};
use crate::support::{Client, play_to_end};

/// Starts node `name` with leases of `lease_ms` and quick-match requests that wait 20 s.
fn node(broker: &NatsServer, store: &str, name: &str, lease_ms: &str) -> Node {
    Node::start_with(
        &broker.url,
        store,
        name,
        lease_ms,
        &["--quick-match-wait-ms", "20000"],
    )
}

/// A `nats-server` child and three nodes `node-a` to `node-c` on it with leases of `lease_ms`,
/// sharing one store (kept in the answer's temporary directory); `None` without `nats-server`.
fn three_nodes(lease_ms: &str) -> Option<(NatsServer, tempfile::TempDir, [Node; 3])> {
    let broker = NatsServer::start()?;
    let store_dir = tempfile::tempdir().unwrap();
    let store = shared_store(&store_dir);
    let nodes = ["node-a", "node-b", "node-c"].map(|name| node(&broker, &store, name, lease_ms));
    Some((broker, store_dir, nodes))
}

/// Asks `node` for a quick match with `body`, as `identity` if any, in a task of its own.
fn ask(
    node: &Node,
    body: serde_json::Value,
    identity: Option<&Identity>,
) -> tokio::task::JoinHandle<QuickMatched> {
    let mut request = reqwest::Client::new().post(node.process.url("/api/quick-match"));
    if let Some(identity) = identity {
        request = request.bearer_auth(identity.credentials());
    }
    let request = request.json(&body);
    tokio::spawn(async move {
        let response = request.send().await.unwrap();
        let status = response.status();
        assert_eq!(status, 200, "{}", response.text().await.unwrap());
        response.json().await.unwrap()
    })
}

fn named(name: &str) -> serde_json::Value {
    serde_json::json!({ "name": name })
}

/// Joins the seat of `matched` through `nodes[first]` (which forwards it to the room's owner).
async fn take_seat(nodes: &[&Node], matched: &QuickMatched, first: usize) -> Client {
    let (mut client, _) = connect_anywhere(nodes, matched.room_id, first).await;
    let welcome = client.join_with_token(&matched.token).await;
    assert_eq!(welcome.colour, Some(matched.colour));
    client
}

/// The index of the one node of `nodes` that owns rooms (its `aeroplane_cluster_rooms_owned`).
async fn sole_owner(nodes: &[&Node]) -> usize {
    let http = reqwest::Client::new();
    let mut owners = Vec::new();
    for (index, node) in nodes.iter().enumerate() {
        if metric(&http, node, "aeroplane_cluster_rooms_owned").await > 0.0 {
            owners.push(index);
        }
    }
    assert_eq!(owners.len(), 1, "one node owns the rooms");
    owners[0]
}

/// Seats both players of a two-player quick match (each starting at their own node) and
/// answers Red's and Yellow's clients, Red caught up with Yellow's arrival.
async fn seat_pair(
    nodes: &[&Node],
    (one, one_at): (&QuickMatched, usize),
    (two, two_at): (&QuickMatched, usize),
) -> (Client, Client) {
    assert_eq!(one.room_id, two.room_id, "paired into one room");
    assert_ne!(one.colour, two.colour);
    let (red, yellow) = if one.colour == Side::Red {
        ((one, one_at), (two, two_at))
    } else {
        ((two, two_at), (one, one_at))
    };
    let mut red = take_seat(nodes, red.0, red.1).await;
    let yellow = take_seat(nodes, yellow.0, yellow.1).await;
    red.catch_up(yellow.seen()).await;
    (red, yellow)
}

#[tokio::test]
async fn two_players_asking_on_different_nodes_are_paired_and_play_to_the_end() {
    let Some((_broker, _store, [a, b, c])) = three_nodes("3000") else {
        return;
    };
    let nodes = [&a, &b, &c];

    let ann = ask(&b, named("Ann"), None);
    let bob = ask(&c, named("Bob"), None);
    let (ann, bob) = (ann.await.unwrap(), bob.await.unwrap());
    let (mut red, mut yellow) = seat_pair(&nodes, (&ann, 1), (&bob, 2)).await;
    eprintln!("paired by {}", nodes[sole_owner(&nodes).await].name);
    play_to_end(&mut red, &mut yellow, |_| {}).await;
    crate::restart::record_from(&reqwest::Client::new(), &a.process, ann.room_id).await;
    stored_once(&a, &[ann.room_id]).await;
}

#[tokio::test]
async fn a_four_player_flights_queue_fills_from_three_nodes() {
    let Some((_broker, _store, [a, b, c])) = three_nodes("3000") else {
        return;
    };
    let nodes = [&a, &b, &c];
    let flights =
        |name: &str| serde_json::json!({ "name": name, "ruleset": "flights", "players": 4 });

    // A two-player request waiting meanwhile is not taken into the four-player game.
    let mut waiting = vec![(ask(&a, flights("Ann"), None), 0)];
    let lone = ask(&b, named("Lone"), None);
    for (name, at) in [("Bob", 1), ("Cy", 2), ("Di", 0)] {
        tokio::time::sleep(Duration::from_millis(100)).await;
        waiting.push((ask(nodes[at], flights(name), None), at));
    }
    let mut answers = Vec::new();
    for (answer, at) in waiting {
        answers.push((answer.await.unwrap(), at));
    }
    let room = answers[0].0.room_id;
    assert!(answers.iter().all(|(answer, _)| answer.room_id == room));
    let mut colours: Vec<Side> = answers.iter().map(|(answer, _)| answer.colour).collect();
    colours.sort();
    colours.dedup();
    assert_eq!(colours.len(), 4, "four seats");
    for (answer, at) in &answers {
        take_seat(&nodes, answer, *at).await;
    }
    assert!(!lone.is_finished(), "the two-player request still waits");
    lone.abort();
}

#[tokio::test]
async fn two_identified_players_on_different_nodes_play_a_rated_game() {
    let Some((_broker, _store, [a, b, c])) = three_nodes("3000") else {
        return;
    };
    let nodes = [&a, &b, &c];
    let http = reqwest::Client::new();
    let ann = new_identity_at(&http, &a.process.url(""), "Ann").await;
    let bob = new_identity_at(&http, &a.process.url(""), "Bob").await;

    let ann_asks = ask(&b, named("Ann"), Some(&ann));
    let bob_asks = ask(&c, named("Bob"), Some(&bob));
    let (ann_seat, bob_seat) = (ann_asks.await.unwrap(), bob_asks.await.unwrap());
    let (mut red, mut yellow) = seat_pair(&nodes, (&ann_seat, 1), (&bob_seat, 2)).await;
    red.resign().await;
    for client in [&mut red, &mut yellow] {
        client
            .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
            .await;
    }
    let record = crate::restart::record_from(&http, &c.process, ann_seat.room_id).await;
    assert!(record.rated, "a game between identified players is rated");
    let (red_id, yellow_id) = if ann_seat.colour == Side::Red {
        (ann.id, bob.id)
    } else {
        (bob.id, ann.id)
    };
    assert_eq!(record.players.red.player_id, Some(red_id));
    assert_eq!(record.players.yellow.player_id, Some(yellow_id));
}

#[tokio::test]
async fn after_the_matchmaker_is_sigkilled_the_other_nodes_still_pair() {
    let Some((_broker, _store, mut nodes)) = three_nodes("1500") else {
        return;
    };

    // A first pair shows which node is the matchmaker: it owns the room.
    let ann = ask(&nodes[0], named("Ann"), None);
    let bob = ask(&nodes[1], named("Bob"), None);
    let (ann, bob) = (ann.await.unwrap(), bob.await.unwrap());
    let all: Vec<&Node> = nodes.iter().collect();
    let (_red, _yellow) = seat_pair(&all, (&ann, 0), (&bob, 1)).await;
    let matchmaker = sole_owner(&all).await;
    eprintln!("killing the matchmaker {}", nodes[matchmaker].name);
    nodes[matchmaker].process.kill();
    let killed = std::time::Instant::now();
    let survivors: Vec<&Node> = nodes
        .iter()
        .enumerate()
        .filter(|(index, _)| *index != matchmaker)
        .map(|(_, node)| node)
        .collect();

    // Two players ask on the two other nodes: once the key lapsed, one of them runs the pool.
    let cy = ask(survivors[0], named("Cy"), None);
    let di = ask(survivors[1], named("Di"), None);
    let (cy, di) = (cy.await.unwrap(), di.await.unwrap());
    eprintln!(
        "paired {} ms after the matchmaker's death",
        killed.elapsed().as_millis()
    );
    let (mut red, _yellow) = seat_pair(&survivors, (&cy, 0), (&di, 1)).await;
    red.roll().await;
}

#[tokio::test]
async fn a_request_closed_on_one_node_is_not_paired_with_a_later_one_on_another() {
    // A long lease: the closed request is withdrawn by its cancel, not by its lapse.
    let Some((_broker, _store, [a, b, c])) = three_nodes("20000") else {
        return;
    };
    let nodes = [&a, &b, &c];

    // Ann gives up after 2 s: her client closes the request.
    let impatient = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let closed = impatient
        .post(a.process.url("/api/quick-match"))
        .json(&named("Ann"))
        .send()
        .await;
    assert!(
        closed.is_err_and(|error| error.is_timeout()),
        "Ann waited alone"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Bob asks on B, then Cy on C: Bob is not paired with Ann, who is gone, but with Cy.
    let bob = ask(&b, named("Bob"), None);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!bob.is_finished(), "Bob waits: Ann is gone");
    let cy = ask(&c, named("Cy"), None);
    let (bob, cy) = (bob.await.unwrap(), cy.await.unwrap());
    seat_pair(&nodes, (&bob, 1), (&cy, 2)).await;
}

#[tokio::test]
async fn a_lone_request_in_a_cluster_answers_no_match_after_the_wait() {
    let Some(broker) = NatsServer::start() else {
        return;
    };
    let store_dir = tempfile::tempdir().unwrap();
    let store = shared_store(&store_dir);
    let wait = ["--quick-match-wait-ms", "1000"];
    let a = Node::start_with(&broker.url, &store, "node-a", "3000", &wait);
    let b = Node::start_with(&broker.url, &store, "node-b", "3000", &wait);
    // A flights game for three: two asking on two nodes never fill it.
    let three =
        |name: &str| serde_json::json!({ "name": name, "ruleset": "flights", "players": 3 });
    let http = reqwest::Client::new();
    let (ann, bob) = tokio::join!(
        http.post(a.process.url("/api/quick-match"))
            .json(&three("Ann"))
            .send(),
        http.post(b.process.url("/api/quick-match"))
            .json(&three("Bob"))
            .send(),
    );
    for response in [ann.unwrap(), bob.unwrap()] {
        assert_eq!(response.status(), 409);
        let error: aeroplane_protocol::api::ApiError = response.json().await.unwrap();
        assert_eq!(error.code, aeroplane_protocol::error::ErrorCode::NoMatch);
    }
}
