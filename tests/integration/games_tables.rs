//! The games API on records of format 2 (issue 16): games of every edition and of three or four
//! players, stored directly in the server's store (no room plays them yet), are listed with the
//! `ruleset`, `players` and `result` filters and replayed step by step as table notation, while a
//! two-player `plyyard` game replays exactly as before.

use aeroplane_protocol::api::{ApiError, GameList, Replay};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_rules::{Colour, Rules, Side, Table};
use uuid::Uuid;

use crate::support::{StoreKind, TestApp, spawn_app, spawn_app_on};

#[path = "../../crates/store/tests/store/support/game.rs"]
#[allow(dead_code, unreachable_pub)]
mod game;
#[path = "../../crates/store/tests/store/support/table.rs"]
#[allow(dead_code, unreachable_pub)]
mod table;

use game::{Ending, play};
use table::{TableEnding, play_table};

async fn status_of(app: &TestApp, path: &str) -> (u16, Option<ApiError>) {
    let response = app.http.get(app.url(path)).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.ok())
}

fn sorted(mut ids: Vec<Uuid>) -> Vec<Uuid> {
    ids.sort();
    ids
}

async fn listed(app: &TestApp, query: &str) -> Vec<Uuid> {
    let list: GameList = app.get_json(&format!("/api/games{query}")).await;
    sorted(list.games.iter().map(|game| game.id).collect())
}

/// Stores a game of each shape and checks the list's filters and the replays over HTTP.
async fn check(app: &TestApp) {
    let plyyard = play(1, Ending::Resigns(Colour::Red, 12));
    let flights = play_table(2, Rules::FLIGHTS, 3, TableEnding::Finished);
    let classic = play_table(3, Rules::CLASSIC, 4, TableEnding::Resigns(Side::Green, 30));
    for record in [&plyyard, &flights, &classic] {
        app.store.save(record).await.unwrap();
    }

    assert_eq!(listed(app, "?ruleset=plyyard").await, [plyyard.id]);
    assert_eq!(listed(app, "?ruleset=flights").await, [flights.id]);
    assert_eq!(
        listed(app, "?ruleset=classic&players=4").await,
        [classic.id]
    );
    assert_eq!(listed(app, "?players=3").await, [flights.id]);
    assert_eq!(listed(app, "?players=2").await, [plyyard.id]);
    let winner = classic.result.winner.expect("a winner").as_str();
    assert!(
        listed(app, &format!("?result={winner}"))
            .await
            .contains(&classic.id)
    );
    assert_eq!(
        listed(app, "?player=bot").await.len(),
        3,
        "Blue is a bot, and plyyard's Yellow"
    );

    let list: GameList = app.get_json("/api/games?players=4").await;
    assert_eq!(list.games[0].ruleset, "classic");
    assert_eq!(list.games[0].players, classic.players);
    assert_eq!(list.games[0].result, classic.result);
    let raw: serde_json::Value = app.get_json("/api/games?ruleset=plyyard").await;
    assert_eq!(raw["games"][0]["ruleset"], "plyyard");
    assert!(raw["games"][0].get("house_rules").is_none());

    for bad in [
        "?ruleset=chess",
        "?ruleset=classic%2Bjump-after-shortcut",
        "?players=1",
        "?players=5",
        "?players=four",
        "?result=purple",
    ] {
        let (status, error) = status_of(app, &format!("/api/games{bad}")).await;
        assert_eq!(status, 400, "{bad}");
        assert_eq!(error.unwrap().code, ErrorCode::BadField, "{bad}");
    }

    // A table game: every step is the table's notation, no `game`; the last is the end.
    let replay: Replay = app
        .get_json(&format!("/api/games/{}/replay", classic.id))
        .await;
    let standing = classic
        .actions
        .iter()
        .filter(|logged| !logged.undone)
        .count();
    assert_eq!(replay.steps.len(), standing + 1);
    let mut table = Table::new(Rules::CLASSIC, 4).unwrap();
    assert_eq!(
        replay.steps[0].table.as_deref(),
        Some(table.notation().as_str())
    );
    for step in &replay.steps[1..] {
        assert!(step.game.is_none());
        table.apply(step.action.expect("an action").action).unwrap();
        assert_eq!(step.table.as_deref(), Some(table.notation().as_str()));
        let live: Option<Table> = step.notation.as_deref().map(|text| text.parse().unwrap());
        assert_eq!(live, (!table.is_over()).then_some(table));
    }
    assert!(table.is_over());
    assert_eq!(Some(table), classic.replay_table().ok());
    let raw: serde_json::Value = app
        .get_json(&format!("/api/games/{}/replay", flights.id))
        .await;
    assert!(raw["steps"][0].get("game").is_none());
    assert_eq!(
        raw["steps"][0]["table"],
        "flights red:b,b,b,b yellow:b,b,b,b blue:b,b,b,b red - 0 -"
    );

    // A plyyard game: `game` and `notation` as always, no `table`.
    let raw: serde_json::Value = app
        .get_json(&format!("/api/games/{}/replay", plyyard.id))
        .await;
    let steps = raw["steps"].as_array().unwrap();
    assert_eq!(steps[0]["notation"], "b,b,b,b b,b,b,b red - 0");
    assert!(
        steps
            .iter()
            .all(|step| step.get("table").is_none() && step["game"].is_object())
    );
    assert!(steps.last().unwrap()["notation"].is_null());
}

#[tokio::test]
async fn tables_are_listed_by_edition_and_players_and_replayed_as_table_notation() {
    check(&spawn_app().await).await;
}

#[tokio::test]
async fn tables_are_listed_and_replayed_from_the_sqlite_store() {
    let app = spawn_app_on(StoreKind::Sqlite, |_| {})
        .await
        .expect("SQLite always runs");
    check(&app).await;
}

#[tokio::test]
async fn tables_are_listed_and_replayed_from_the_postgres_store() {
    if let Some(app) = spawn_app_on(StoreKind::Postgres, |_| {}).await {
        check(&app).await;
    }
}
