//! Rooms of every edition for two to four players (issue 16), over real WebSockets: complete
//! games of `flights` and `classic` with 2, 3 and 4 players in online, computer and local rooms,
//! a resignation and a forfeit in a four-player game, a unanimous and a refused draw, the
//! `classic` ranking, quick match per edition, and a four-player room of each edition restored
//! after SIGTERM and after SIGKILL. Every finished game's record is checked by the native
//! client's verifier (dice scheme `v2`, the replay through the rules crate, every place).

use std::net::SocketAddr;
use std::time::Duration;

use aeroplane_protocol::api::RoomCreated;
use aeroplane_protocol::board::Board;
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::record::{GameRecord, Mode, PlayerKind};
use aeroplane_protocol::server::{GameOver, ServerMessage};
use aeroplane_rules::{EndReason, Rules, Ruleset, Side};
use uuid::Uuid;

use crate::child::ServerProcess;
use crate::computer::create_at;
use crate::restart::{DEADLINE_MS, record_from};
use crate::support::{Client, TestApp, TurnView, connect_to, player_join, spawn_app_with, welcome};

/// The names the players of a table take, in seating order.
const NAMES: [&str; 4] = ["Ann", "Bob", "Cid", "Dee"];

/// A server whose bots act at once, with a short turn clock limit of one strike.
async fn app() -> TestApp {
    spawn_app_with(|config| {
        config.bot_pace_ms = 0;
        config.max_strikes = 1;
    })
    .await
}

/// One connection and the colours it plays.
struct Seat {
    sides: Vec<Side>,
    client: Client,
}

/// `POST /api/rooms` of a table room, checking what the answer says of it.
async fn create(app: &TestApp, body: serde_json::Value, players: usize) -> RoomCreated {
    let room = create_at(&app.http, app.url("/api/rooms"), body).await;
    let table = room
        .table
        .as_ref()
        .expect("a table room says what it plays");
    assert_eq!(table.seats, Rules::seating(players));
    room
}

/// Seats one client per colour of a table of `players` (Red first) and waits for the start.
async fn seat_everyone(addr: SocketAddr, room: Uuid, players: usize) -> Vec<Seat> {
    let mut seats = Vec::new();
    for (side, name) in Rules::seating(players).iter().zip(NAMES) {
        let mut client = connect_to(addr, room).await;
        let join = player_join(name, None, None, Some(format!("{name}'s seed")));
        let welcome = welcome(client.join(join).await);
        assert_eq!(welcome.protocol, 2, "a table room speaks protocol 2");
        assert_eq!(
            welcome.colour,
            Some(*side),
            "seats are taken in seating order"
        );
        seats.push(Seat {
            sides: vec![*side],
            client,
        });
    }
    for seat in &mut seats {
        seat.client
            .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
            .await;
    }
    seats
}

/// Seats the one person of a computer or local room (with `join`) and waits for the start;
/// answers its seat, holding `sides`.
async fn alone(
    app: &TestApp,
    room: Uuid,
    join: aeroplane_protocol::client::Join,
    sides: &[Side],
) -> Seat {
    let mut client = app.connect(room).await;
    let welcome = welcome(client.join(join).await);
    assert_eq!(welcome.colours, sides);
    client
        .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;
    Seat {
        sides: sides.to_vec(),
        client,
    }
}

/// Plays the colours the seats hold (each roll, then the first legal plane), reading through
/// the first seat's connection, and leaves every other colour to the server (its bots or its
/// turn clock), until the game is settled in a state `stop` accepts (`None`) or is over.
async fn play(seats: &mut [Seat], mut stop: impl FnMut(&TurnView) -> bool) -> Option<GameOver> {
    let mut turn = TurnView::of(&seats[0].client);
    loop {
        if turn.settled() && stop(&turn) {
            return None;
        }
        let actor = turn.actor();
        if turn.settled()
            && let Some(index) = seats.iter().position(|seat| seat.sides.contains(&actor))
        {
            let seen = seats[0].client.seen();
            let client = &mut seats[index].client;
            client.catch_up(seen).await;
            match turn.pending() {
                None => client.roll().await,
                Some(legal) => client.move_plane(legal.iter().next().unwrap()).await,
            }
            turn.sent();
        }
        let message = seats[0].client.recv().await;
        match &message {
            ServerMessage::Error(error) => panic!("unexpected error: {error:?}"),
            ServerMessage::GameOver(over) => {
                for seat in &mut seats[1..] {
                    seat.client
                        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
                        .await;
                }
                return Some(over.clone());
            }
            _ => turn.follow(&message),
        }
    }
}

/// Plays to the end.
async fn play_to_end(seats: &mut [Seat]) -> GameOver {
    play(seats, |_| false).await.expect("the game ends")
}

/// What every finished table's record must satisfy: format 2 of its edition and seats, dice
/// scheme `v2`, the result the players saw, verified by the native client's verifier (the
/// commitment, every roll, the replay through the rules crate and every seat's place).
fn check_record(record: &GameRecord, over: &GameOver, ruleset: Ruleset, players: usize) {
    assert_eq!(record.format, 2);
    assert_eq!(record.ruleset, ruleset.as_str());
    assert_eq!(record.players.count(), players);
    assert_eq!(record.fairness.scheme, "v2");
    assert_eq!(
        record.result, over.result,
        "the record's result is the one played"
    );
    let places = record
        .result
        .places
        .expect("a table's result places its seats");
    if let Some(winner) = record.result.winner {
        assert_eq!(places.get(winner), Some(1), "the winner is first");
    }
    let report = aeroplane_client::verify_record(record).expect("the record verifies");
    assert_eq!(report.players, players);
    let table = record.replay_table().expect("the record replays");
    assert_eq!(
        aeroplane_protocol::record::ResultRecord::of_table(&table),
        Some(record.result)
    );
}

/// The editions that seat two to four players.
const EDITIONS: [Ruleset; 2] = [Ruleset::Flights, Ruleset::Classic];

#[tokio::test]
async fn every_edition_plays_to_the_end_online_with_two_three_and_four_players() {
    let app = app().await;
    for ruleset in EDITIONS {
        for players in 2..=4 {
            let body = serde_json::json!({ "ruleset": ruleset.as_str(), "players": players });
            let room = create(&app, body, players).await;
            let mut seats = seat_everyone(app.addr, room.id, players).await;
            let over = play_to_end(&mut seats).await;
            assert_eq!(over.result.reason, EndReason::Finished);
            assert_eq!(over.blue_seed.is_some(), players >= 3);
            assert_eq!(over.green_seed.is_some(), players == 4);
            let record = app.stored_record(room.id).await;
            assert_eq!(record.mode, Mode::Online);
            check_record(&record, &over, ruleset, players);
        }
    }
}

#[tokio::test]
async fn every_edition_plays_against_one_to_three_computers_each_at_its_level() {
    let app = app().await;
    for ruleset in EDITIONS {
        for players in 2..=4 {
            let levels = ["easy", "normal", "hard"][..players - 1].to_vec();
            let body = serde_json::json!({
                "mode": "computer", "ruleset": ruleset.as_str(), "players": players,
                "colour": "yellow", "levels": levels,
            });
            let room = create(&app, body, players).await;
            assert_eq!(room.colour, Some(Side::Yellow));
            let join = player_join("Ann", None, None, None);
            let mut seats = vec![alone(&app, room.id, join, &[Side::Yellow]).await];
            let snapshot = seats[0].client.sync().await;
            assert_eq!(snapshot.computers.len(), players - 1);
            let over = play_to_end(&mut seats).await;
            let record = app.stored_record(room.id).await;
            check_record(&record, &over, ruleset, players);
            let computers: Vec<_> = Rules::seating(players)
                .iter()
                .filter(|side| **side != Side::Yellow)
                .map(|side| record.players.seat(*side).unwrap())
                .collect();
            assert!(
                computers
                    .iter()
                    .all(|seat| seat.kind == PlayerKind::Computer)
            );
            let played: Vec<_> = computers.iter().map(|seat| seat.level.as_deref()).collect();
            assert_eq!(played, levels.iter().map(|l| Some(*l)).collect::<Vec<_>>());
        }
    }
}

#[tokio::test]
async fn every_edition_plays_on_one_device_passed_among_two_to_four_named_players() {
    let app = app().await;
    for ruleset in EDITIONS {
        for players in 2..=4 {
            let body = serde_json::json!({
                "mode": "local", "ruleset": ruleset.as_str(), "players": players,
            });
            let room = create(&app, body, players).await;
            let mut join = player_join("Ann", None, None, None);
            join.names = NAMES[..players]
                .iter()
                .map(|name| (*name).to_owned())
                .collect();
            // The one player plays every colour.
            let mut seats = vec![alone(&app, room.id, join, Rules::seating(players)).await];
            let over = play_to_end(&mut seats).await;
            let record = app.stored_record(room.id).await;
            assert_eq!(record.mode, Mode::Local);
            check_record(&record, &over, ruleset, players);
            for (side, name) in Rules::seating(players).iter().zip(NAMES) {
                assert_eq!(record.players.seat(*side).unwrap().name, name);
            }
        }
    }
}

#[tokio::test]
async fn in_a_four_player_game_a_resigner_and_a_forfeiter_leave_and_the_others_play_on() {
    let app = app().await;
    let body = serde_json::json!({ "ruleset": "flights", "players": 4, "turn_clock_ms": 1000 });
    let room = create(&app, body, 4).await;
    let mut seats = seat_everyone(app.addr, room.id, 4).await;
    // Green resigns at once: out in fourth place, and the game goes on.
    let seen = seats[0].client.seen();
    seats[1].client.catch_up(seen).await;
    seats[1].client.resign().await;
    let out = seats[0]
        .client
        .recv_until(|m| matches!(m, ServerMessage::PlayerOut(_)))
        .await;
    let ServerMessage::PlayerOut(out) = out else {
        unreachable!()
    };
    assert_eq!(
        (out.colour, out.place, out.reason),
        (Side::Green, 4, EndReason::Resigned)
    );
    // Blue stops playing: at its first turn the clock runs out, its one strike, and it is out.
    let blue = seats.remove(3);
    let over = play(&mut seats, |turn| !turn.view().board().in_play(Side::Blue)).await;
    assert!(over.is_none(), "the game goes on without Blue");
    let table = seats[0].client.sync().await.table.expect("a table");
    assert!(!table.in_play(Side::Blue) && !table.is_over());
    let over = play_to_end(&mut seats).await;
    drop(blue);
    let record = app.stored_record(room.id).await;
    check_record(&record, &over, Ruleset::Flights, 4);
    let places = record.result.places.unwrap();
    assert_eq!((places.green, places.blue), (Some(4), Some(3)));
    let forfeit = record.actions.iter().any(|logged| {
        matches!(
            logged.action,
            aeroplane_rules::TableAction::Forfeit {
                colour: Side::Blue,
                ..
            }
        )
    });
    assert!(forfeit, "Blue's forfeit is in the log");
}

#[tokio::test]
async fn a_draw_needs_every_player_in_play_and_one_refusal_ends_the_offer() {
    let app = app().await;
    // Refused: Red offers, Yellow accepts, Blue declines; the game goes on.
    let body = serde_json::json!({ "ruleset": "classic", "players": 3 });
    let room = create(&app, body, 3).await;
    let mut seats = seat_everyone(app.addr, room.id, 3).await;
    seats[0].client.offer_draw().await;
    for index in [1, 2] {
        let client = &mut seats[index].client;
        client
            .recv_until(|m| matches!(m, ServerMessage::DrawOffered(_)))
            .await;
    }
    seats[1].client.accept_draw().await;
    let seen = seats[1].client.seen() + 1;
    seats[2].client.catch_up(seen).await;
    seats[2].client.decline_draw().await;
    let declined = seats[0]
        .client
        .recv_until(|m| matches!(m, ServerMessage::DrawDeclined(_)))
        .await;
    assert!(matches!(declined, ServerMessage::DrawDeclined(d) if d.by == Side::Blue));
    let snapshot = seats[0].client.sync().await;
    let table = snapshot
        .table
        .expect("a table room's snapshot has its table");
    assert_eq!(table.draw().standing_offer(), None);
    assert!(!table.is_over());

    // Unanimous: Red offers, Yellow and Blue accept; the game ends agreed, nobody placed first.
    let body = serde_json::json!({ "ruleset": "classic", "players": 3 });
    let room = create(&app, body, 3).await;
    let mut seats = seat_everyone(app.addr, room.id, 3).await;
    seats[0].client.offer_draw().await;
    for seat in &mut seats {
        seat.client
            .recv_until(|m| matches!(m, ServerMessage::DrawOffered(_)))
            .await;
    }
    seats[1].client.accept_draw().await;
    let seen = seats[1].client.seen() + 1;
    seats[2].client.catch_up(seen).await;
    seats[2].client.accept_draw().await;
    let over = seats[0]
        .client
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    let ServerMessage::GameOver(over) = over else {
        unreachable!()
    };
    assert_eq!(
        (over.result.winner, over.result.reason),
        (None, EndReason::Agreed)
    );
    let record = app.stored_record(room.id).await;
    check_record(&record, &over, Ruleset::Classic, 3);
}

#[tokio::test]
async fn a_classic_game_plays_on_to_a_full_ranking() {
    let app = app().await;
    let body = serde_json::json!({
        "ruleset": "classic", "players": 4, "house_rules": ["jump-after-shortcut"],
    });
    let room = create(&app, body, 4).await;
    assert_eq!(
        room.table.as_ref().unwrap().rules.to_string(),
        "classic+jump-after-shortcut"
    );
    let mut seats = seat_everyone(app.addr, room.id, 4).await;
    let mut outs = Vec::new();
    let over = play(&mut seats, |_| false).await.unwrap();
    for frame in &seats[0].client.transcript {
        if let Ok(ServerMessage::PlayerOut(out)) = ServerMessage::from_json(frame) {
            outs.push((out.colour, out.place));
        }
    }
    let places = over.result.places.expect("a ranking");
    let mut ranked: Vec<u8> = Side::ALL
        .iter()
        .filter_map(|side| places.get(*side))
        .collect();
    ranked.sort_unstable();
    assert_eq!(ranked, [1, 2, 3, 4], "every seat has its own place");
    assert_eq!(
        outs.len(),
        4,
        "each player left play with its place: {outs:?}"
    );
    let record = app.stored_record(room.id).await;
    assert_eq!(record.house_rules, ["jump-after-shortcut"]);
    check_record(&record, &over, Ruleset::Classic, 4);
}

#[tokio::test]
async fn bad_editions_player_counts_and_seats_are_refused_with_stable_codes() {
    let app = app().await;
    let refused = [
        (serde_json::json!({ "ruleset": "ludo" }), "unknown_ruleset"),
        (
            serde_json::json!({ "ruleset": "flights", "house_rules": ["jump-after-shortcut"] }),
            "unknown_ruleset",
        ),
        (serde_json::json!({ "players": 3 }), "bad_player_count"),
        (
            serde_json::json!({ "ruleset": "classic", "players": 5 }),
            "bad_player_count",
        ),
        (
            serde_json::json!({ "ruleset": "flights", "players": 1 }),
            "bad_player_count",
        ),
        (
            serde_json::json!({ "mode": "computer", "ruleset": "flights", "players": 2, "levels": ["easy", "hard"] }),
            "bad_player_count",
        ),
        (
            serde_json::json!({ "mode": "computer", "ruleset": "flights", "players": 3, "colour": "green" }),
            "bad_field",
        ),
        (
            serde_json::json!({ "ruleset": "flights", "levels": ["easy"] }),
            "bad_field",
        ),
    ];
    for (body, code) in refused {
        let error = crate::computer::refused(&app, &body).await;
        assert_eq!(error.code.as_str(), code, "{body}");
    }
    // A colour that does not play in a three-player room cannot be asked for.
    let room = create(
        &app,
        serde_json::json!({ "ruleset": "flights", "players": 3 }),
        3,
    )
    .await;
    let mut client = app.connect(room.id).await;
    client
        .send(&aeroplane_protocol::client::ClientMessage::Join(Box::new(
            player_join("Ann", Some(Side::Green), None, None),
        )))
        .await;
    client.expect_error(ErrorCode::BadField).await;
}

#[tokio::test]
async fn quick_match_fills_a_queue_per_edition_and_player_count() {
    let app = app().await;
    let ask = |name: &'static str, ruleset: &'static str, players: u8| {
        let http = app.http.clone();
        let url = app.url("/api/quick-match");
        tokio::spawn(async move {
            let body = serde_json::json!({ "name": name, "ruleset": ruleset, "players": players });
            let response = http.post(url).json(&body).send().await.unwrap();
            let status = response.status();
            let text = response.text().await.unwrap();
            assert_eq!(status, 200, "{name} is matched: {text}");
            serde_json::from_str::<aeroplane_protocol::api::QuickMatched>(&text).unwrap()
        })
    };
    // Three wait for a three-player classic game; one waits for flights and stays alone.
    let lone = ask("Eve", "flights", 3);
    let mut waiting = Vec::new();
    for name in ["Ann", "Bob", "Cid"] {
        waiting.push(ask(name, "classic", 3));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut matched = Vec::new();
    for waiter in waiting {
        matched.push(waiter.await.unwrap());
    }
    let room = matched[0].room_id;
    assert!(matched.iter().all(|seat| seat.room_id == room), "one room");
    let colours: Vec<Side> = matched.iter().map(|seat| seat.colour).collect();
    assert_eq!(
        colours,
        [Side::Red, Side::Yellow, Side::Blue],
        "seated as they came"
    );
    let status: aeroplane_protocol::api::RoomStatus =
        app.get_json(&format!("/api/rooms/{room}")).await;
    let table = status.table.expect("the room is a table");
    assert_eq!(table.rules, Rules::CLASSIC);
    assert!(!lone.is_finished(), "a lone flights waiter still waits");
    lone.abort();
}

/// A four-player room of `ruleset` is played a while, the server stopped (SIGTERM when
/// `graceful`, else SIGKILL) and started again: every player reconnects with its token, the
/// position is the one before, and the game plays to the end with a record that verifies.
async fn a_four_player_room_survives(ruleset: Ruleset, graceful: bool) {
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    let args = ["--shutdown-deadline-ms", DEADLINE_MS, "--grace-ms", "60000"];
    let mut server = ServerProcess::start(data.path(), None, &args);
    let body = serde_json::json!({ "ruleset": ruleset.as_str(), "players": 4 });
    let room = create_at(&http, server.url("/api/rooms"), body).await;
    let mut seats = seat_everyone(server.addr, room.id, 4).await;
    let tokens: Vec<String> = seats
        .iter()
        .map(|seat| seat.client.token.clone().unwrap())
        .collect();
    let mut moves = 0;
    play(&mut seats, |turn| {
        moves += 1;
        moves > 80 && turn.pending().is_some()
    })
    .await;
    let before = seats[0].client.sync().await;
    if graceful {
        let status = server.terminate(Duration::from_secs(10));
        assert!(status.success(), "SIGTERM exits 0: {status:?}");
    } else {
        server.kill();
    }
    drop(seats);

    let server = ServerProcess::start(data.path(), None, &args);
    let mut seats = Vec::new();
    for (side, token) in Rules::seating(4).iter().zip(&tokens) {
        let mut client = connect_to(server.addr, room.id).await;
        let welcome = client.join_with_token(token).await;
        assert_eq!(welcome.colour, Some(*side));
        assert_eq!(
            welcome.snapshot.table, before.table,
            "the same position, roll pending"
        );
        assert_eq!(
            welcome.snapshot.fairness.commitment,
            before.fairness.commitment
        );
        seats.push(Seat {
            sides: vec![*side],
            client,
        });
    }
    let last = seats.last().unwrap().client.seen();
    for seat in &mut seats {
        seat.client.catch_up(last).await;
    }
    let over = play_to_end(&mut seats).await;
    let record = record_from(&http, &server, room.id).await;
    check_record(&record, &over, ruleset, 4);
    let replayed = Board::Table(record.replay_table().unwrap());
    assert!(replayed.is_over());
}

#[tokio::test]
async fn a_four_player_flights_room_survives_sigterm() {
    a_four_player_room_survives(Ruleset::Flights, true).await;
}

#[tokio::test]
async fn a_four_player_classic_room_survives_sigterm() {
    a_four_player_room_survives(Ruleset::Classic, true).await;
}

#[tokio::test]
async fn a_four_player_flights_room_survives_sigkill() {
    a_four_player_room_survives(Ruleset::Flights, false).await;
}

#[tokio::test]
async fn a_four_player_classic_room_survives_sigkill() {
    a_four_player_room_survives(Ruleset::Classic, false).await;
}

#[tokio::test]
async fn a_rematch_of_three_moves_everyone_one_colour_on() {
    use aeroplane_protocol::client::{ClientMessage, RematchRequest};
    let app = app().await;
    let room = create(
        &app,
        serde_json::json!({ "ruleset": "classic", "players": 3 }),
        3,
    )
    .await;
    let mut seats = seat_everyone(app.addr, room.id, 3).await;
    // Yellow, then Blue resign: Red is the last one in play and wins.
    for index in [1, 2] {
        let seen = seats[0].client.seen();
        seats[index].client.catch_up(seen).await;
        seats[index].client.resign().await;
        seats[0]
            .client
            .recv_until(|m| matches!(m, ServerMessage::PlayerOut(_)))
            .await;
    }
    let over = seats[0]
        .client
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    let ServerMessage::GameOver(over) = over else {
        unreachable!()
    };
    let places = over.result.places.unwrap();
    assert_eq!(
        (places.red, places.yellow, places.blue),
        (Some(1), Some(3), Some(2))
    );
    for seat in &mut seats {
        let rematch = RematchRequest {
            id: None,
            client_seed: None,
        };
        seat.client.send(&ClientMessage::Rematch(rematch)).await;
    }
    let mut new_colours = Vec::new();
    for seat in &mut seats {
        let ready = seat
            .client
            .recv_until(|m| matches!(m, ServerMessage::RematchReady(_)))
            .await;
        let ServerMessage::RematchReady(ready) = ready else {
            unreachable!()
        };
        new_colours.push(ready.colour.unwrap());
    }
    assert_eq!(new_colours, [Side::Yellow, Side::Blue, Side::Red]);
}

#[tokio::test]
async fn hints_and_undo_work_in_table_rooms() {
    use aeroplane_protocol::client::{Act, ClientMessage, Request};
    let app = app().await;
    // A local four-player room: a plane choice is taken back.
    let body = serde_json::json!({ "mode": "local", "ruleset": "flights", "players": 4 });
    let room = create(&app, body, 4).await;
    let join = player_join("Ann", None, None, None);
    let mut seats = vec![alone(&app, room.id, join, Rules::seating(4)).await];
    play(&mut seats, |turn| turn.pending().is_some()).await;
    let before = seats[0].client.sync().await;
    play(&mut seats, |turn| turn.pending().is_none()).await;
    let seen = seats[0].client.seen();
    seats[0]
        .client
        .send(&ClientMessage::Undo(Act { id: None, seen }))
        .await;
    let undone = seats[0]
        .client
        .recv_until(|m| matches!(m, ServerMessage::Undone(_)))
        .await;
    let ServerMessage::Undone(undone) = undone else {
        unreachable!()
    };
    assert_eq!(
        undone.snapshot.table, before.table,
        "back to the same plane choice"
    );

    // A computer room of three: the hint names a legal plane at the computers' level.
    let body = serde_json::json!({
        "mode": "computer", "ruleset": "classic", "players": 3, "level": "hard",
    });
    let room = create(&app, body, 3).await;
    let join = player_join("Ann", None, None, None);
    let mut seats = vec![alone(&app, room.id, join, &[Side::Red]).await];
    play(&mut seats, |turn| {
        turn.actor() == Side::Red && turn.pending().is_some()
    })
    .await;
    let legal = match seats[0].client.sync().await.table.unwrap().phase() {
        aeroplane_rules::TablePhase::AwaitingMove { legal, .. } => legal,
        phase => panic!("{phase:?}"),
    };
    seats[0]
        .client
        .send(&ClientMessage::Hint(Request { id: Some(7) }))
        .await;
    let hint = seats[0]
        .client
        .recv_until(|m| matches!(m, ServerMessage::Hint(_)))
        .await;
    let ServerMessage::Hint(hint) = hint else {
        unreachable!()
    };
    assert!(legal.contains(hint.plane), "{hint:?}");
    assert_eq!(hint.level, "hard");
}
