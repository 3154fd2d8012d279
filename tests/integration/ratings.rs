//! Ratings: a rated online game updates both players' Glicko-2 ratings exactly once (the numbers
//! are the `skillratings` crate's own), however often the record is handed over and across a
//! restart; computer and local games leave ratings alone; quick match prefers the closer rating.

use std::time::Duration;

use aeroplane_protocol::api::{Leaderboard, PlayerProfile, QuickMatched};
use aeroplane_protocol::record::GameRecord;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::Side;
use aeroplane_store::Saved;
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};
use uuid::Uuid;

use crate::child::ServerProcess;
use crate::computer::create;
use crate::identity::{Identity, join_as, new_identity, new_identity_at, profile};
use crate::support::{Client, TestApp, connect_to, spawn_app, spawn_app_with, welcome};

/// How a test game ends.
#[derive(Clone, Copy, Debug)]
enum End {
    /// This colour resigns at once.
    Resigns(Side),
    /// Red offers a draw and Yellow accepts.
    Draw,
}

/// Seats `red` and `yellow` as identified players in a new online room of the server at `addr`.
async fn seat(
    http: &reqwest::Client,
    addr: std::net::SocketAddr,
    red: &Identity,
    yellow: &Identity,
) -> (Uuid, Client, Client) {
    let room = create_at(http, addr).await;
    let mut red_client = connect_to(addr, room).await;
    welcome(red_client.join(join_as(red, Some(Side::Red), None)).await);
    let mut yellow_client = connect_to(addr, room).await;
    welcome(
        yellow_client
            .join(join_as(yellow, Some(Side::Yellow), None))
            .await,
    );
    for client in [&mut red_client, &mut yellow_client] {
        client
            .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
            .await;
    }
    (room, red_client, yellow_client)
}

async fn create_at(http: &reqwest::Client, addr: std::net::SocketAddr) -> Uuid {
    crate::computer::create_at(
        http,
        format!("http://{addr}/api/rooms"),
        serde_json::json!({ "mode": "online" }),
    )
    .await
    .id
}

/// Plays a game between `red` and `yellow` that ends as `end`; answers the room id.
async fn play(app: &TestApp, red: &Identity, yellow: &Identity, end: End) -> GameRecord {
    let (room, mut red_client, mut yellow_client) = seat(&app.http, app.addr, red, yellow).await;
    finish(&mut red_client, &mut yellow_client, end).await;
    app.stored_record(room).await
}

async fn finish(red: &mut Client, yellow: &mut Client, end: End) {
    match end {
        End::Resigns(Side::Red) => red.resign().await,
        End::Resigns(_) => yellow.resign().await,
        End::Draw => {
            red.offer_draw().await;
            yellow
                .recv_until(|m| matches!(m, ServerMessage::DrawOffered(_)))
                .await;
            yellow.accept_draw().await;
        }
    }
    for client in [red, yellow] {
        client
            .recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
            .await;
    }
}

/// The crate's own numbers for one game, from Red's side.
fn crates_own(
    red: Glicko2Rating,
    yellow: Glicko2Rating,
    end: End,
) -> (Glicko2Rating, Glicko2Rating) {
    let outcome = match end {
        End::Resigns(Side::Red) => Outcomes::LOSS,
        End::Resigns(_) => Outcomes::WIN,
        End::Draw => Outcomes::DRAW,
    };
    glicko2(&red, &yellow, &outcome, &Glicko2Config::new())
}

fn assert_close(profile: &PlayerProfile, expected: Glicko2Rating) {
    assert!(
        (profile.rating.rating - expected.rating).abs() < 1e-6
            && (profile.rating.deviation - expected.deviation).abs() < 1e-6,
        "{profile:?} is not {expected:?}"
    );
}

#[tokio::test]
async fn the_rating_numbers_match_the_crates_own_for_known_results() {
    let app = spawn_app().await;
    let ann = new_identity(&app, "Ann").await;
    let bob = new_identity(&app, "Bob").await;
    let mut ann_rating = Glicko2Rating::new();
    let mut bob_rating = Glicko2Rating::new();
    // Games played within a day: no deviation growth between them.
    for (red, yellow, end) in [
        (&ann, &bob, End::Resigns(Side::Yellow)),
        (&bob, &ann, End::Draw),
        (&ann, &bob, End::Resigns(Side::Red)),
    ] {
        let record = play(&app, red, yellow, end).await;
        assert!(record.rated);
        let (red_before, yellow_before) = if red.id == ann.id {
            (ann_rating, bob_rating)
        } else {
            (bob_rating, ann_rating)
        };
        let (red_after, yellow_after) = crates_own(red_before, yellow_before, end);
        if red.id == ann.id {
            (ann_rating, bob_rating) = (red_after, yellow_after);
        } else {
            (bob_rating, ann_rating) = (red_after, yellow_after);
        }
        assert_close(&profile(&app, ann.id).await, ann_rating);
        assert_close(&profile(&app, bob.id).await, bob_rating);
    }
    // The first result is the crate's documented example: 1662 and 1338, deviations 290.
    let first = crates_own(
        Glicko2Rating::new(),
        Glicko2Rating::new(),
        End::Resigns(Side::Yellow),
    );
    assert_eq!(
        (first.0.rating.round(), first.1.rating.round()),
        (1662.0, 1338.0)
    );
    let ann_profile = profile(&app, ann.id).await;
    assert_eq!(
        (
            ann_profile.games,
            ann_profile.wins,
            ann_profile.losses,
            ann_profile.draws
        ),
        (3, 1, 1, 1)
    );

    let board: Leaderboard = app.get_json("/api/leaderboard?limit=10").await;
    assert_eq!(board.players.len(), 2);
    assert_eq!(board.players[0].rank, 1);
    assert!(board.players[0].rating >= board.players[1].rating);
    assert!(
        board
            .players
            .iter()
            .all(|entry| entry.games == 3 && entry.provisional)
    );
}

#[tokio::test]
async fn a_rated_game_updates_both_ratings_once_when_the_record_is_handed_over_again() {
    let app = spawn_app().await;
    let ann = new_identity(&app, "Ann").await;
    let bob = new_identity(&app, "Bob").await;
    let record = play(&app, &ann, &bob, End::Resigns(Side::Red)).await;
    let ann_after = profile(&app, ann.id).await;
    let bob_after = profile(&app, bob.id).await;
    assert_eq!(ann_after.rating.rating.round(), 1338.0);
    assert_eq!(bob_after.rating.rating.round(), 1662.0);

    // The outbox hands the record over again (one at a time and in a batch): nothing changes.
    assert_eq!(app.store.save(&record).await.unwrap(), Saved::AlreadyStored);
    let batch = app
        .store
        .save_batch(&[record.clone(), record.clone()])
        .await
        .unwrap();
    assert_eq!(batch, [Saved::AlreadyStored, Saved::AlreadyStored]);
    assert_eq!(profile(&app, ann.id).await, ann_after);
    assert_eq!(profile(&app, bob.id).await, bob_after);
}

#[tokio::test]
async fn a_replayed_outbox_after_a_restart_never_rates_twice() {
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    let mut server = ServerProcess::start(data.path(), None, &["--shutdown-deadline-ms", "3000"]);
    let base = format!("http://{}", server.addr);
    let ann = new_identity_at(&http, &base, "Ann").await;
    let bob = new_identity_at(&http, &base, "Bob").await;
    let (room, mut red, mut yellow) = seat(&http, server.addr, &ann, &bob).await;
    finish(&mut red, &mut yellow, End::Resigns(Side::Yellow)).await;
    let record = crate::restart::record_from(&http, &server, room).await;
    assert!(record.rated);
    let profile_at = |base: String, id: Uuid| {
        let http = http.clone();
        async move {
            http.get(format!("{base}/api/players/{id}"))
                .send()
                .await
                .unwrap()
                .json::<PlayerProfile>()
                .await
                .unwrap()
        }
    };
    let ann_after = profile_at(base.clone(), ann.id).await;
    assert_eq!(ann_after.rating.rating.round(), 1662.0);
    assert!(server.terminate(Duration::from_secs(10)).success());

    // The record is back in the outbox, as if its delivery had not been acknowledged.
    let outbox = data.path().join("outbox");
    std::fs::create_dir_all(&outbox).unwrap();
    std::fs::write(
        outbox.join(format!("{room}.json")),
        serde_json::to_vec(&record).unwrap(),
    )
    .unwrap();
    let server = ServerProcess::start(data.path(), None, &[]);
    let base = format!("http://{}", server.addr);
    let deadline = tokio::time::Instant::now() + crate::support::TIMEOUT;
    while outbox.join(format!("{room}.json")).exists() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the outbox was never replayed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(profile_at(base.clone(), ann.id).await, ann_after);
    let bob_after = profile_at(base.clone(), bob.id).await;
    assert_eq!(
        (bob_after.rating.rating.round(), bob_after.games),
        (1338.0, 1)
    );
}

#[tokio::test]
async fn computer_and_local_games_leave_ratings_alone() {
    let app = spawn_app_with(|config| config.bot_pace_ms = 0).await;
    let ann = new_identity(&app, "Ann").await;
    for mode in ["computer", "local"] {
        let room = create(&app, serde_json::json!({ "mode": mode })).await;
        let mut client = app.connect(room.id).await;
        welcome(client.join(join_as(&ann, None, None)).await);
        client
            .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
            .await;
        client.resign().await;
        let record = app.stored_record(room.id).await;
        assert!(!record.rated, "{mode}");
        assert!(
            [
                record.players.red.player_id,
                record.players.yellow.player_id
            ]
            .contains(&Some(ann.id)),
            "{mode}: the record names the player"
        );
    }
    let ann = profile(&app, ann.id).await;
    assert_eq!((ann.rating.rating, ann.rating.deviation), (1500.0, 350.0));
    assert_eq!(ann.games, 2, "both games count in the history");
    let board: Leaderboard = app.get_json("/api/leaderboard").await;
    assert!(board.players.is_empty(), "no rated game, no leaderboard");
}

/// Asks for a quick match as `identity` (anonymously without one), in a task of its own.
fn quick_match(
    app: &TestApp,
    identity: Option<&Identity>,
) -> tokio::task::JoinHandle<QuickMatched> {
    let mut request = app.http.post(app.url("/api/quick-match"));
    if let Some(identity) = identity {
        request = request.bearer_auth(identity.credentials());
    }
    let name = identity.map_or("Guest", |identity| identity.name.as_str());
    let request = request.json(&serde_json::json!({ "name": name }));
    tokio::spawn(async move {
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    })
}

#[tokio::test]
async fn quick_match_prefers_the_closer_rating_among_several_waiting() {
    let app = spawn_app_with(|config| {
        // Long enough for all three requests to be waiting before anyone is paired.
        config.quick_match_window_ms = 3_000;
        config.quick_match_wait_ms = 20_000;
    })
    .await;
    let high = new_identity(&app, "High").await;
    let low = new_identity(&app, "Low").await;
    let middle = new_identity(&app, "Middle").await;
    play(&app, &high, &low, End::Resigns(Side::Yellow)).await;
    assert_eq!(profile(&app, high.id).await.rating.rating.round(), 1662.0);
    assert_eq!(profile(&app, low.id).await.rating.rating.round(), 1338.0);

    // High asks first and Low second: first come, first served would pair them. Middle (1500)
    // is closer to High, and High's window ends first.
    let first = quick_match(&app, Some(&high));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let second = quick_match(&app, Some(&low));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let third = quick_match(&app, Some(&middle));
    let (first, third) = (first.await.unwrap(), third.await.unwrap());
    assert_eq!(first.room_id, third.room_id, "High plays Middle");
    assert_eq!(
        first.colour,
        Side::Red,
        "the one whose window ended first plays Red"
    );
    // Low waited past its window: the next request to arrive is paired with it at once.
    let fourth = quick_match(&app, None).await.unwrap();
    let second = second.await.unwrap();
    assert_eq!(second.room_id, fourth.room_id, "Low plays the next one");
    assert_ne!(second.room_id, first.room_id);
}

#[tokio::test]
async fn a_game_restored_after_sigkill_keeps_its_players_and_is_rated_once() {
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    let mut server = ServerProcess::start(data.path(), None, &[]);
    let base = format!("http://{}", server.addr);
    let ann = new_identity_at(&http, &base, "Ann").await;
    let bob = new_identity_at(&http, &base, "Bob").await;
    let (room, mut red, mut yellow) = seat(&http, server.addr, &ann, &bob).await;
    let red_token = red.token.clone().expect("Red's token");
    let yellow_token = yellow.token.clone().expect("Yellow's token");
    crate::restart::play_some(&mut red, &mut yellow, 4).await;
    let before = red.sync().await;
    server.kill();

    // The journal kept who sat where: the players come back with their tokens alone.
    let server = ServerProcess::start(data.path(), None, &[]);
    let base = format!("http://{}", server.addr);
    let (mut red, mut yellow) =
        crate::restart::rejoin(&server, room, &red_token, &yellow_token, &before).await;
    finish(&mut red, &mut yellow, End::Resigns(Side::Red)).await;
    let record = crate::restart::record_from(&http, &server, room).await;
    assert_eq!(record.players.red.player_id, Some(ann.id));
    assert_eq!(record.players.yellow.player_id, Some(bob.id));
    assert!(record.rated);
    let profile: PlayerProfile = http
        .get(format!("{base}/api/players/{}", bob.id))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        (profile.rating.rating.round(), profile.games, profile.wins),
        (1662.0, 1, 1)
    );
}

/// A rated game through a real server on `kind`'s store: both players rated, the game listed by
/// player id, the leaderboard read from the database.
async fn a_rated_game_is_kept_by_the_store(kind: crate::support::StoreKind) {
    let Some(app) = crate::support::spawn_app_on(kind, |_| {}).await else {
        return;
    };
    let ann = new_identity(&app, "Ann").await;
    let bob = new_identity(&app, "Bob").await;
    let record = play(&app, &ann, &bob, End::Draw).await;
    assert!(record.rated);
    let ann_profile = profile(&app, ann.id).await;
    assert_eq!((ann_profile.games, ann_profile.draws), (1, 1));
    let (ann_rating, _) = crates_own(Glicko2Rating::new(), Glicko2Rating::new(), End::Draw);
    assert_close(&ann_profile, ann_rating);
    let list: aeroplane_protocol::api::GameList =
        app.get_json(&format!("/api/games?player={}", bob.id)).await;
    assert_eq!(
        list.games.iter().map(|game| game.id).collect::<Vec<_>>(),
        [record.id]
    );
    let board: Leaderboard = app.get_json("/api/leaderboard").await;
    assert_eq!(board.players.len(), 2);
}

#[tokio::test]
async fn a_rated_game_is_kept_by_sqlite() {
    a_rated_game_is_kept_by_the_store(crate::support::StoreKind::Sqlite).await;
}

#[tokio::test]
async fn a_rated_game_is_kept_by_postgres() {
    a_rated_game_is_kept_by_the_store(crate::support::StoreKind::Postgres).await;
}
