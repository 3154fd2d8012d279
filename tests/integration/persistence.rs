//! Finished games in the real stores: every ending stored exactly once, with a record that
//! replays to its result and whose seeds reproduce its rolls; the list's filters and cursor
//! pages; replay positions. Each test runs against the SQLite store and, when
//! `TEST_DATABASE_URL` is set, against a fresh PostgreSQL database.

use aeroplane_protocol::api::{GameList, Replay};
use aeroplane_protocol::record::GameRecord;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::{Colour, EndReason, Side};
use uuid::Uuid;

use crate::support::{Client, StoreKind, TestApp, play_to_end, player_join, spawn_app_on, welcome};

/// Runs `$body(kind)` as one test per store.
macro_rules! on_both_stores {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            use super::*;

            #[tokio::test]
            async fn on_sqlite() {
                super::$name(StoreKind::Sqlite).await;
            }

            #[tokio::test]
            async fn on_postgres() {
                super::$name(StoreKind::Postgres).await;
            }
        }
    )*};
}

on_both_stores!(
    a_won_game_is_stored_once_and_replays_to_its_result,
    resigned_drawn_and_abandoned_games_are_stored_once_and_replay,
    the_list_filters_and_pages_by_cursor,
    a_replay_shows_every_position_of_the_record,
);

/// Seats two named players (Red first) and waits until the game has started.
async fn start_named(app: &TestApp, red_name: &str, yellow_name: &str) -> (Uuid, Client, Client) {
    let room = app.create_room().await;
    let mut red = app.connect(room.id).await;
    let join = player_join(
        red_name,
        Some(Side::Red),
        None,
        Some(format!("{red_name} seed")),
    );
    welcome(red.join(join).await);
    let mut yellow = app.connect(room.id).await;
    let join = player_join(yellow_name, Some(Side::Yellow), None, None);
    welcome(yellow.join(join).await);
    for client in [&mut red, &mut yellow] {
        client
            .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
            .await;
    }
    (room.id, red, yellow)
}

/// Checks what every stored game must satisfy, and that the store holds it exactly once.
async fn check_stored(
    app: &TestApp,
    id: Uuid,
    winner: Option<Colour>,
    reason: EndReason,
) -> GameRecord {
    let record = app.stored_record(id).await;
    assert_eq!(
        (record.result.plyyard_winner(), record.result.reason),
        (winner, reason)
    );
    let replayed = record.replay().expect("the record replays");
    let outcome = replayed.outcome().expect("the replay ends the game");
    assert_eq!((outcome.winner, outcome.reason), (winner, reason));
    crate::support::assert_dice_verify(&record);
    let name = &record.players.red.name;
    let list = list(app, &format!("/api/games?player={name}&limit=100")).await;
    let copies = list.games.iter().filter(|game| game.id == id).count();
    assert_eq!(copies, 1, "game {id} is listed exactly once");
    record
}

async fn list(app: &TestApp, path: &str) -> GameList {
    let response = app.http.get(app.url(path)).send().await.unwrap();
    assert_eq!(response.status(), 200, "{path}");
    response.json().await.unwrap()
}

async fn a_won_game_is_stored_once_and_replays_to_its_result(kind: StoreKind) {
    let Some(app) = spawn_app_on(kind, |_| {}).await else {
        return;
    };
    let (id, mut red, mut yellow) = start_named(&app, "Winner", "Other").await;
    let over = play_to_end(&mut red, &mut yellow, |_| {}).await;
    assert_eq!(over.result.reason, EndReason::Finished);
    let record = check_stored(&app, id, over.result.plyyard_winner(), EndReason::Finished).await;
    assert!(
        record.rolls > 10 && record.moves > 4,
        "{} rolls, {} moves",
        record.rolls,
        record.moves
    );
}

async fn resigned_drawn_and_abandoned_games_are_stored_once_and_replay(kind: StoreKind) {
    let Some(app) = spawn_app_on(kind, |config| config.grace_ms = 200).await else {
        return;
    };

    let (resigned, mut red, mut yellow) = start_named(&app, "Res", "Igner").await;
    red.roll().await;
    red.sync().await;
    yellow.catch_up(red.seen()).await;
    yellow.resign().await;
    red.recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    check_stored(&app, resigned, Some(Colour::Red), EndReason::Resigned).await;

    let (drawn, mut red, mut yellow) = start_named(&app, "Dra", "Wn").await;
    red.offer_draw().await;
    yellow
        .recv_until(|m| matches!(m, ServerMessage::DrawOffered(_)))
        .await;
    yellow.accept_draw().await;
    red.recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    check_stored(&app, drawn, None, EndReason::Agreed).await;

    let (abandoned, red, mut yellow) = start_named(&app, "Aban", "Doned").await;
    drop(red);
    yellow
        .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    check_stored(&app, abandoned, Some(Colour::Yellow), EndReason::Abandoned).await;
}

async fn the_list_filters_and_pages_by_cursor(kind: StoreKind) {
    let Some(app) = spawn_app_on(kind, |_| {}).await else {
        return;
    };
    let mut ids = Vec::new();
    for n in 0..5 {
        let (id, mut red, mut yellow) = start_named(&app, &format!("Pager{n}"), "Common").await;
        // Even games Red resigns (Yellow wins), odd ones Yellow resigns (Red wins).
        if n % 2 == 0 {
            red.resign().await;
        } else {
            yellow.resign().await;
        }
        red.recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
            .await;
        app.stored_record(id).await;
        ids.push(id);
    }

    let mut seen = Vec::new();
    let mut path = "/api/games?player=Common&limit=2".to_owned();
    let mut pages = 0;
    loop {
        let page = list(&app, &path).await;
        pages += 1;
        assert!(page.games.len() <= 2);
        seen.extend(page.games.iter().map(|game| game.id));
        match page.next_before {
            Some(cursor) => path = format!("/api/games?player=Common&limit=2&before={cursor}"),
            None => break,
        }
        assert!(pages < 10, "the pages never end");
    }
    assert_eq!(pages, 3, "5 games in pages of 2");
    let mut expected = ids.clone();
    expected.reverse();
    assert_eq!(seen, expected, "newest first, each once");

    let yellow_wins = list(&app, "/api/games?player=Common&result=yellow").await;
    assert_eq!(yellow_wins.games.len(), 3);
    assert!(
        yellow_wins
            .games
            .iter()
            .all(|game| game.result.winner == Some(Side::Yellow))
    );
    let red_wins = list(&app, "/api/games?result=red&player=Common").await;
    assert_eq!(red_wins.games.len(), 2);
    let one = list(&app, "/api/games?player=Pager3").await;
    assert_eq!(
        one.games.iter().map(|game| game.id).collect::<Vec<_>>(),
        vec![ids[3]]
    );
    assert!(one.next_before.is_none());
    let draws = list(&app, "/api/games?result=draw").await;
    assert!(draws.games.is_empty());

    let response = app
        .http
        .get(app.url("/api/games?before=not-a-cursor"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        400,
        "a bad cursor is the client's mistake"
    );
}

async fn a_replay_shows_every_position_of_the_record(kind: StoreKind) {
    let Some(app) = spawn_app_on(kind, |_| {}).await else {
        return;
    };
    let (id, mut red, mut yellow) = start_named(&app, "Replayer", "Other").await;
    let over = play_to_end(&mut red, &mut yellow, |_| {}).await;
    let record = check_stored(&app, id, over.result.plyyard_winner(), over.result.reason).await;
    let replay: Replay = app.get_json(&format!("/api/games/{id}/replay")).await;
    assert_eq!(replay.id, id);
    assert_eq!(replay.steps.len(), record.actions.len() + 1);
    let mut game = aeroplane_rules::Game::new();
    assert_eq!(replay.steps[0].game, Some(game));
    for (step, logged) in replay.steps.iter().skip(1).zip(&record.actions) {
        game.apply(logged.action.to_plyyard().unwrap()).unwrap();
        assert_eq!(step.action.as_ref(), Some(logged));
        assert_eq!(step.game, Some(game));
    }
    assert_eq!(
        replay.steps.last().unwrap().game,
        Some(record.replay().unwrap())
    );
}
