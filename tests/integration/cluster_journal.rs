//! The journal on NATS JetStream (`--nats-url`, issue 15's first slice), against a real
//! `nats-server` child process: a game survives SIGKILL with its journal on the broker, a room
//! taken over by a newer writer stops on the old one and closes its sockets, an older journal
//! handle is refused once a newer one wrote (fencing), and a room lease cannot be taken until it
//! lapses. Without a usable `nats-server` these tests skip loudly (and fail under CI), see
//! `broker.rs`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use aeroplane_protocol::api::GameList;
use aeroplane_protocol::record::GameRecord;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::Snapshot;
use aeroplane_server::config::NodeId;
use aeroplane_server::room::journal::nats::LeaseError;
use aeroplane_server::room::journal::{JournalStore, Line, Loaded, NatsJournals, is_revoked};
use uuid::Uuid;

use crate::broker::NatsServer;
use crate::child::ServerProcess;
use crate::restart::{
    DEADLINE_MS, check_record, create_room, play_some, record_from, rejoin, seat_both,
};
use crate::support::{TIMEOUT, play_to_end_from};

/// The flags of a server journaling on `broker` as `node`.
fn on_nats<'a>(broker: &'a NatsServer, node: &'a str) -> [&'a str; 8] {
    [
        "--nats-url",
        &broker.url,
        "--node-id",
        node,
        "--shutdown-deadline-ms",
        DEADLINE_MS,
        "--grace-ms",
        "60000",
    ]
}

/// How many of the record's actions had been played at `before`: the longest prefix that
/// replays to its position (so every action anyone saw before is in the record).
pub(crate) fn actions_at(record: &GameRecord, before: &Snapshot) -> usize {
    (0..=record.actions.len())
        .rev()
        .find(|&count| {
            let prefix = record.actions[..count]
                .iter()
                .map(|logged| logged.action.to_plyyard().unwrap());
            aeroplane_rules::Game::replay(prefix).is_ok_and(|(game, _)| game == before.game())
        })
        .expect("the position before the restart is a prefix of the record")
}

/// No journal file was written: the journal is on the broker.
fn no_file_journals(data: &std::path::Path) {
    let files = std::fs::read_dir(data.join("rooms"))
        .map(|entries| entries.count())
        .unwrap_or(0);
    assert_eq!(files, 0, "no journal file in the data directory");
}

/// A game on `node-a`, SIGKILLed mid-game, comes back on a node started as `restart_as` and
/// finishes there, stored once.
async fn a_game_survives_sigkill(restart_as: &str) {
    let Some(broker) = NatsServer::start() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    // Short leases, so another node may take the room soon after the kill.
    let lease = ["--lease-ms", "1000"];
    let first: Vec<&str> = on_nats(&broker, "node-a")
        .into_iter()
        .chain(lease)
        .collect();
    let mut server = ServerProcess::start(data.path(), None, &first);
    let room = create_room(&http, &server).await;
    let (mut red, mut yellow) = seat_both(&server, room.id).await;
    let (red_token, yellow_token) = (red.token.clone().unwrap(), yellow.token.clone().unwrap());
    let turn = play_some(&mut red, &mut yellow, 12).await;
    let before = red.sync().await;
    server.kill();
    drop((red, yellow));

    if restart_as != "node-a" {
        // Another node must wait until node A's lease has lapsed.
        // (At most a second after the kill; the margin is for a loaded machine.)
        tokio::time::sleep(Duration::from_millis(2_500)).await;
    }
    let again: Vec<&str> = on_nats(&broker, restart_as)
        .into_iter()
        .chain(lease)
        .collect();
    let server = ServerProcess::start(data.path(), None, &again);
    let (mut red, mut yellow) = rejoin(&server, room.id, &red_token, &yellow_token, &before).await;
    let over = play_to_end_from(turn, &mut red, &mut yellow, |_| {}).await;
    let record = record_from(&http, &server, room.id).await;
    assert_eq!(record.result.winner, over.result.winner);
    check_record(&record, &before, actions_at(&record, &before));
    no_file_journals(data.path());
    let list: GameList = server.get_json("/api/games?player=Ann").await;
    let stored = list.games.iter().filter(|game| game.id == room.id).count();
    assert_eq!(stored, 1, "the game is stored once");
}

#[tokio::test]
async fn a_game_journaled_on_nats_survives_sigkill_and_is_stored_once() {
    // The same node starts again: it takes its room's lease back at once.
    a_game_survives_sigkill("node-a").await;
}

#[tokio::test]
async fn a_killed_nodes_game_comes_back_on_another_node_once_its_lease_lapsed() {
    a_game_survives_sigkill("node-b").await;
}

#[tokio::test]
async fn a_node_whose_room_was_taken_over_sends_nothing_more_and_closes_its_sockets() {
    let Some(broker) = NatsServer::start() else {
        return;
    };
    let (first_data, second_data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let http = reqwest::Client::new();
    let args = on_nats(&broker, "node-a");
    let first = ServerProcess::start(first_data.path(), None, &args);
    let room = create_room(&http, &first).await;
    let (mut red, mut yellow) = seat_both(&first, room.id).await;
    let (red_token, yellow_token) = (red.token.clone().unwrap(), yellow.token.clone().unwrap());
    let turn = play_some(&mut red, &mut yellow, 6).await;
    let before = red.sync().await;

    // A second process under the same node name (the first one, say, paused and thought dead)
    // restores the room: it takes the lease back and rewrites the journal.
    let second = ServerProcess::start(second_data.path(), None, &args);

    // The first process may not act for the room any more: the next action is refused by the
    // journal (or its lease renewal fails first); either way nothing of it is sent, and the
    // sockets close with 1001 so the clients reconnect.
    let actor = if turn.actor() == aeroplane_rules::Side::Red {
        &mut red
    } else {
        &mut yellow
    };
    match turn.pending() {
        None => actor.roll().await,
        Some(legal) => actor.move_plane(legal.iter().next().unwrap()).await,
    }
    for client in [&mut red, &mut yellow] {
        let (frames, close) = client.frames_until_closed().await;
        let close = close.expect("a close frame");
        assert_eq!(u16::from(close.code), 1001);
        for frame in frames {
            let message = ServerMessage::from_json(&frame).unwrap();
            assert!(
                message.event().is_none(),
                "no event after the takeover: {frame}"
            );
        }
    }
    let gone = http
        .get(first.url(&format!("/api/rooms/{}", room.id)))
        .send()
        .await
        .unwrap();
    // It does not take the room back either: the lease is held (under its own name, by the
    // second process), so it answers that the room is live there.
    assert_eq!(gone.status(), 409, "the first process let the room go");

    // On the second process the game is where everyone saw it, and it finishes there.
    let (mut red, mut yellow) = rejoin(&second, room.id, &red_token, &yellow_token, &before).await;
    play_to_end_from(turn, &mut red, &mut yellow, |_| {}).await;
    let record = record_from(&http, &second, room.id).await;
    check_record(&record, &before, actions_at(&record, &before));
}

#[tokio::test]
async fn a_node_whose_lease_renewal_fails_closes_the_rooms_sockets_unprompted() {
    let Some(broker) = NatsServer::start() else {
        return;
    };
    let (first_data, second_data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let http = reqwest::Client::new();
    let args: Vec<&str> = on_nats(&broker, "node-a")
        .into_iter()
        .chain(["--lease-ms", "1500"])
        .collect();
    let first = ServerProcess::start(first_data.path(), None, &args);
    let room = create_room(&http, &first).await;
    let (mut red, mut yellow) = seat_both(&first, room.id).await;
    play_some(&mut red, &mut yellow, 4).await;
    let _second = ServerProcess::start(second_data.path(), None, &args);

    // Nobody acts: the first process learns that the room is not its own any more from its
    // next lease renewal (within a third of the lease), and closes the sockets by itself.
    let started = Instant::now();
    for client in [&mut red, &mut yellow] {
        let (frames, close) = client.frames_until_closed().await;
        assert_eq!(u16::from(close.expect("a close frame").code), 1001);
        assert!(
            frames.is_empty(),
            "nothing sent after the takeover: {frames:?}"
        );
    }
    // The next renewal comes within 500 ms; a loaded machine may be slow, never this slow.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "closed at the next renewal: {:?}",
        started.elapsed()
    );
}

/// A journal entry for the store-level tests (any entry will do).
fn entry(number: u64) -> Line {
    Line::Undone(vec![number])
}

fn node(name: &str) -> NodeId {
    name.parse().expect("a node name")
}

/// The journal store of node `name` on `broker`, with leases of `lease` and one replica.
async fn nats_journals(broker: &NatsServer, name: &str, lease: Duration) -> Arc<NatsJournals> {
    let urls = broker.url.parse().expect("a NATS URL");
    NatsJournals::connect(&urls, node(name), lease, 1)
        .await
        .unwrap()
}

#[tokio::test]
async fn an_older_journal_of_a_room_is_refused_once_a_newer_one_wrote() {
    let Some(broker) = NatsServer::start() else {
        return;
    };
    let lease = Duration::from_millis(1_500);
    let first = nats_journals(&broker, "node-a", lease).await;
    let id = Uuid::new_v4();
    let mut older = first.create(id, &[entry(1)]).await.unwrap();
    older.append(&[entry(2)]).await.unwrap();

    // The same node, started again while the first process still runs: it finds the room,
    // takes its lease back and rewrites the journal, as a restore does.
    let second = nats_journals(&broker, "node-a", lease).await;
    let mut loaded = second.load_all().await;
    assert_eq!(loaded.len(), 1);
    let Loaded {
        entries,
        journal: mut newer,
        ..
    } = loaded.remove(0);
    let entries = entries.unwrap();
    assert_eq!(entries, vec![entry(1), entry(2)]);
    newer.rewrite(&entries).await.unwrap();

    let refused = older.append(&[entry(3)]).await.unwrap_err();
    assert!(is_revoked(&refused), "refused as revoked: {refused}");
    newer.append(&[entry(4)]).await.unwrap();
    // The older journal's lease renewal fails too: it is revoked, and refuses every write.
    let revoked = older.revoked().expect("a NATS journal can be revoked");
    tokio::time::timeout(TIMEOUT, revoked.cancelled())
        .await
        .expect("the older journal is revoked");
    assert!(is_revoked(&older.rewrite(&[entry(5)]).await.unwrap_err()));

    // The newer journal gives its lease back when dropped; another node then reads its entries.
    drop(newer);
    second.sync(true).await;
    let third = nats_journals(&broker, "node-b", lease).await;
    let loaded = third.load_all().await;
    assert_eq!(loaded.len(), 1);
    let entries = loaded[0].entries.as_ref().unwrap();
    assert_eq!(entries, &vec![entry(1), entry(2), entry(4)]);
}

#[tokio::test]
async fn a_deleted_or_set_aside_journal_is_not_loaded_again() {
    let Some(broker) = NatsServer::start() else {
        return;
    };
    let lease = Duration::from_millis(1_500);
    let journals = nats_journals(&broker, "node-a", lease).await;
    let (deleted, aside, kept) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    let journal = journals.create(deleted, &[entry(1)]).await.unwrap();
    journal.delete().await.unwrap();
    let journal = journals.create(aside, &[entry(2)]).await.unwrap();
    journal.set_aside().await.unwrap();
    let journal = journals.create(kept, &[entry(3)]).await.unwrap();
    drop(journal);
    journals.sync(true).await;

    let again = nats_journals(&broker, "node-a", lease).await;
    let loaded = again.load_all().await;
    assert_eq!(loaded.len(), 1, "only the kept journal: {loaded:?}");
    assert_eq!(loaded[0].entries.as_ref().unwrap(), &vec![entry(3)]);
}

#[tokio::test]
async fn a_room_lease_is_not_taken_until_it_lapses_and_then_its_old_holder_cannot_renew() {
    let Some(broker) = NatsServer::start() else {
        return;
    };
    let ttl = Duration::from_millis(1_500);
    let a = nats_journals(&broker, "node-a", ttl).await;
    let b = nats_journals(&broker, "node-b", ttl).await;
    let room = Uuid::new_v4();
    let mut held = a.leases().acquire(room).await.unwrap();
    let refused = b.leases().acquire(room).await;
    assert!(
        matches!(&refused, Err(LeaseError::HeldElsewhere { node, .. }) if node == "node-a"),
        "{refused:?}"
    );
    held.renew().await.unwrap();
    let renewed = Instant::now();

    // Node A stops renewing (paused, or dead); B takes the lease once it lapses, not before.
    let taken = loop {
        match b.leases().acquire(room).await {
            Ok(lease) => break lease,
            Err(LeaseError::HeldElsewhere { .. }) => {
                assert!(renewed.elapsed() < TIMEOUT, "the lease never lapsed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(error) => panic!("{error}"),
        }
    };
    assert!(
        renewed.elapsed() >= ttl - Duration::from_millis(300),
        "taken after {:?}, before the lease of {ttl:?} lapsed",
        renewed.elapsed()
    );
    assert_eq!(taken.room(), room);
    let lost = held.renew().await;
    assert!(
        matches!(lost, Err(LeaseError::Lost(id)) if id == room),
        "{lost:?}"
    );
}
