//! Hostile names and seeds (issue 20, point 1): a name that is not a [`PlayerName`] is refused
//! with `bad_field` wherever it comes in, and a client seed is kept whatever it holds, so a
//! finished game never vanishes because of what a player typed.
//!
//! [`PlayerName`]: aeroplane_protocol::name::PlayerName

use aeroplane_protocol::api::ApiError;
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::record::GameRecord;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::Side;

use crate::support::{
    StoreKind, TestApp, assert_dice_verify, play_to_end, player_join, spawn_app, spawn_app_on,
};

/// Names no player may have, each with what makes it hostile. `hostile.rs` sends them too.
pub(crate) fn hostile_names() -> Vec<(&'static str, String)> {
    vec![
        ("a NUL", "Ann\u{0}".to_owned()),
        ("only a NUL", "\u{0}".to_owned()),
        (
            "a screen-clearing escape",
            "\u{1b}[2J\u{1b}[HAnn".to_owned(),
        ),
        ("a window-title escape", "\u{1b}]0;owned\u{7}".to_owned()),
        ("a bell", "Ann\u{7}".to_owned()),
        ("a newline", "Ann\nBob".to_owned()),
        ("a C1 control (CSI)", "Ann\u{9b}2J".to_owned()),
        ("DEL", "Ann\u{7f}".to_owned()),
        ("a right-to-left override", "Ann\u{202e}nloc".to_owned()),
        ("a bidi isolate", "\u{2067}Ann".to_owned()),
        ("a zero width space", "A\u{200b}nn".to_owned()),
        ("a byte order mark", "\u{feff}Ann".to_owned()),
        ("a line separator", "Ann\u{2028}Bob".to_owned()),
        ("only white space", " \u{3000} ".to_owned()),
        ("33 characters", "飞".repeat(33)),
    ]
}

#[tokio::test]
async fn a_join_with_a_hostile_name_is_refused_with_bad_field_and_takes_no_seat() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let mut client = app.connect(room.id).await;
    for (what, name) in hostile_names() {
        let ServerMessage::Error(error) = client.join(player_join(&name, None, None, None)).await
        else {
            panic!("{what}: the join was accepted");
        };
        assert_eq!(error.code, ErrorCode::BadField, "{what}");
    }
    // No seat was taken: two players with plain names still fill the room.
    let (mut red, _yellow) = app.start_game(&room).await;
    assert_eq!(red.sync().await.seats.red.unwrap().name, "Ann");
}

#[tokio::test]
async fn quick_match_refuses_a_hostile_name_with_bad_field() {
    let app = spawn_app().await;
    for (what, name) in hostile_names() {
        let response = app
            .http
            .post(app.url("/api/quick-match"))
            .json(&serde_json::json!({ "name": name }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{what}");
        let error: ApiError = response.json().await.unwrap();
        assert_eq!(error.code, ErrorCode::BadField, "{what}");
    }
}

#[tokio::test]
async fn listing_games_by_a_hostile_name_is_a_bad_field_not_a_500() {
    let Some(app) = spawn_app_on(StoreKind::Postgres, |_| {}).await else {
        return;
    };
    for player in ["%00", "Ann%00", "%1B%5B2J", "A%E2%80%AEnn", "%C2%9B"] {
        let response = app
            .http
            .get(app.url(&format!("/api/games?player={player}")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{player}");
        let error: ApiError = response.json().await.unwrap();
        assert_eq!(error.code, ErrorCode::BadField, "{player}");
    }
}

/// Seeds that PostgreSQL text could not hold, or that a careless store might alter.
fn hostile_seeds() -> [(&'static str, &'static str); 2] {
    [
        ("\u{0}", "a\u{0}b\u{1b}[2J\u{7f}é飞"),
        ("\u{202e}\u{feff}\u{1}", ""),
    ]
}

/// Plays a game between two seeds in `app` and answers its record as the games API serves it.
async fn play_with_seeds(app: &TestApp, red_seed: &str, yellow_seed: &str) -> GameRecord {
    let room = app.create_room().await;
    let mut red = app.connect(room.id).await;
    red.join(player_join(
        "Ann",
        Some(Side::Red),
        None,
        Some(red_seed.into()),
    ))
    .await;
    let mut yellow = app.connect(room.id).await;
    let join = player_join("Bob", Some(Side::Yellow), None, Some(yellow_seed.into()));
    yellow.join(join).await;
    red.recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;
    yellow.catch_up(red.seen()).await;
    play_to_end(&mut red, &mut yellow, |_| {}).await;
    app.stored_record(room.id).await;
    let response = app
        .http
        .get(app.url(&format!("/api/games/{}", room.id)))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "the finished game is served");
    response.json().await.unwrap()
}

async fn a_game_with_hostile_seeds_is_stored_exactly(kind: StoreKind) {
    let Some(app) = spawn_app_on(kind, |_| {}).await else {
        return;
    };
    for (red_seed, yellow_seed) in hostile_seeds() {
        let record = play_with_seeds(&app, red_seed, yellow_seed).await;
        assert_eq!(record.fairness.red_seed, red_seed);
        assert_eq!(record.fairness.yellow_seed, yellow_seed);
        assert_dice_verify(&record);
    }
    let rejected = app.data_dir().join("outbox").join("rejected");
    assert!(
        !rejected.exists() || std::fs::read_dir(&rejected).unwrap().next().is_none(),
        "no record was refused"
    );
}

#[tokio::test]
async fn a_game_with_a_nul_in_a_client_seed_is_stored_exactly_in_postgres() {
    a_game_with_hostile_seeds_is_stored_exactly(StoreKind::Postgres).await;
}

#[tokio::test]
async fn a_game_with_a_nul_in_a_client_seed_is_stored_exactly_in_sqlite() {
    a_game_with_hostile_seeds_is_stored_exactly(StoreKind::Sqlite).await;
}

/// Sums every series of `metric` in a Prometheus text.
fn metric_total(text: &str, metric: &str) -> f64 {
    text.lines()
        .filter(|line| line.starts_with(metric) && !line.starts_with('#'))
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[tokio::test]
async fn a_record_the_database_refuses_is_set_aside_logged_counted_and_never_dropped() {
    // What an older server could leave in the outbox: a finished game whose name holds a NUL.
    let mut record: Option<GameRecord> = None;
    let Some(app) = spawn_app_on(StoreKind::Postgres, |config| {
        let game: GameRecord = serde_json::from_value(serde_json::json!({
            "id": uuid::Uuid::new_v4(),
            "ruleset": "plyyard",
            "mode": "online",
            "created_at": "2026-01-01T00:00:00Z",
            "started_at": "2026-01-01T00:00:01Z",
            "ended_at": "2026-01-01T00:00:02Z",
            "players": {
                "red": { "name": "Ann\u{0}", "kind": "human" },
                "yellow": { "name": "Bob", "kind": "human" }
            },
            "result": { "winner": "red", "reason": "resigned" },
            "rolls": 0,
            "moves": 0,
            "actions": [],
            "fairness": {
                "scheme": "v1",
                "commitment": "00",
                "server_seed": "00",
                "red_seed": "",
                "yellow_seed": ""
            }
        }))
        .expect("a record");
        let outbox = config.data_dir.join("outbox");
        std::fs::create_dir_all(&outbox).unwrap();
        let file = outbox.join(format!("{}.json", game.id));
        std::fs::write(file, serde_json::to_vec(&game).unwrap()).unwrap();
        record = Some(game);
    })
    .await
    else {
        return;
    };
    let record = record.unwrap();
    let rejected = app
        .data_dir()
        .join("outbox")
        .join("rejected")
        .join(format!("{}.json", record.id));
    let deadline = tokio::time::Instant::now() + crate::support::TIMEOUT;
    while !rejected.is_file() {
        assert!(tokio::time::Instant::now() < deadline, "never set aside");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let text = app
        .http
        .get(app.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metric_total(&text, aeroplane_store::REJECTED_METRIC) >= 1.0,
        "counted:\n{text}"
    );
}
