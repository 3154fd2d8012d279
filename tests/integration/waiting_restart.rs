//! Rooms waiting for players survive a restart (issue 20, point 6), SIGTERM and SIGKILL alike:
//! the invite link still opens the room, the seated player's token still takes its seat, the
//! client seed it chose still keys the dice, and a computer room still has its computer.

use std::time::Duration;

use aeroplane_protocol::api::RoomStatus;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::RoomPhase;
use aeroplane_rules::Side;

use crate::child::ServerProcess;
use crate::restart::{DEADLINE_MS, create_room, record_from};
use crate::support::{Client, assert_dice_verify, connect_to, play_to_end, player_join, welcome};

const FLAGS: [&str; 4] = ["--shutdown-deadline-ms", DEADLINE_MS, "--bot-pace-ms", "0"];

async fn status(http: &reqwest::Client, server: &ServerProcess, id: uuid::Uuid) -> RoomStatus {
    let response = http
        .get(server.url(&format!("/api/rooms/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "room {id} is open");
    response.json().await.unwrap()
}

async fn join(server: &ServerProcess, room: uuid::Uuid, name: &str, colour: Side) -> Client {
    let mut client = connect_to(server.addr, room).await;
    let seed = Some(name.to_lowercase());
    welcome(
        client
            .join(player_join(name, Some(colour), None, seed))
            .await,
    );
    client
}

async fn waiting_rooms_survive(graceful: bool) {
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    let mut server = ServerProcess::start(data.path(), None, &FLAGS);
    // A room with its first player seated, one with nobody yet, and a computer room whose
    // person has not come.
    let half = create_room(&http, &server).await;
    let mut ann = join(&server, half.id, "Ann", Side::Red).await;
    let token = ann.token.clone().expect("a seat token");
    let empty = create_room(&http, &server).await;
    let computer = crate::computer::create_at(
        &http,
        server.url("/api/rooms"),
        serde_json::json!({ "mode": "computer" }),
    )
    .await;

    if graceful {
        assert!(server.terminate(Duration::from_secs(10)).success());
        let frame = ann.closed().await.expect("a close frame");
        assert_eq!(u16::from(frame.code), 1001);
    } else {
        server.kill();
    }
    drop(ann);
    let server = ServerProcess::start(data.path(), None, &FLAGS);

    let seen = status(&http, &server, half.id).await;
    assert_eq!(seen.phase, RoomPhase::Waiting);
    assert_eq!(seen.seats.red.map(|seat| seat.name).as_deref(), Some("Ann"));
    assert!(seen.seats.yellow.is_none());
    assert_eq!(
        status(&http, &server, empty.id).await.phase,
        RoomPhase::Waiting
    );

    // Ann's token takes her seat again; Bob comes by the invite link; they play it out.
    let mut ann = connect_to(server.addr, half.id).await;
    assert_eq!(ann.join_with_token(&token).await.colour, Some(Side::Red));
    let mut bob = join(&server, half.id, "Bob", Side::Yellow).await;
    for client in [&mut ann, &mut bob] {
        client
            .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
            .await;
    }
    play_to_end(&mut ann, &mut bob, |_| {}).await;
    let record = record_from(&http, &server, half.id).await;
    assert_eq!(
        (
            record.fairness.red_seed.as_str(),
            record.fairness.yellow_seed.as_str()
        ),
        ("ann", "bob"),
        "the seed Ann chose before the restart keys the dice"
    );
    assert_dice_verify(&record);

    // The empty room's invite link still seats two players.
    let mut cy = join(&server, empty.id, "Cy", Side::Red).await;
    let _dee = join(&server, empty.id, "Dee", Side::Yellow).await;
    cy.recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;

    // The computer room still has its computer, which plays once the person sits down.
    let mut eve = connect_to(server.addr, computer.id).await;
    welcome(eve.join(player_join("Eve", None, None, None)).await);
    eve.recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;
    assert!(
        status(&http, &server, computer.id)
            .await
            .seats
            .get(computer.colour.expect("the person's colour").opposite())
            .is_some(),
        "the computer holds its seat"
    );
}

#[tokio::test]
async fn waiting_rooms_survive_sigterm_with_their_invite_links_and_tokens() {
    waiting_rooms_survive(true).await;
}

#[tokio::test]
async fn waiting_rooms_survive_sigkill_with_their_invite_links_and_tokens() {
    waiting_rooms_survive(false).await;
}

#[tokio::test]
async fn a_waiting_room_that_closes_unplayed_leaves_no_journal() {
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    let mut flags = FLAGS.to_vec();
    flags.extend(["--waiting-room-ttl-ms", "200"]);
    let server = ServerProcess::start(data.path(), None, &flags);
    let room = create_room(&http, &server).await;
    let journaled = || crate::journals::journal_of(data.path(), room.id).is_some();
    assert!(journaled(), "a waiting room is journaled");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while journaled() {
        assert!(std::time::Instant::now() < deadline, "the journal stays");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
