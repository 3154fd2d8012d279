//! A bounded soak: many games at once, each with random disconnects and reconnects; every game
//! ends with the result its record holds, every room closes, and memory comes back near its
//! start. Prints its figures (run with `--nocapture` to see them; `docs/benchmarks.md` has them).

use std::time::{Duration, Instant};

use aeroplane_protocol::server::{GameOver, ServerMessage};
use aeroplane_rules::Side;

use crate::support::{TestApp, TurnView, spawn_app_with};

const GAMES: usize = 50;
const AT_ONCE: usize = 10;

/// The resident memory of this process, in KiB (Linux; 0 elsewhere).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

/// Plays one game to the end; before some actions (chosen by `seed`) the player to act drops its
/// socket and comes back with its token. Returns the `game_over` and the reconnects made.
async fn play_with_reconnects(app: &TestApp, seed: u64) -> (uuid::Uuid, GameOver, u32) {
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    let mut turn = TurnView::of(&red);
    let mut random = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut reconnects = 0;
    loop {
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        if random.is_multiple_of(25) {
            let seat = if turn.actor() == Side::Red {
                &mut red
            } else {
                &mut yellow
            };
            let token = seat.token.clone().unwrap();
            // Half the time the old socket is dropped first (a disconnect, then the seat is
            // reclaimed); otherwise the new connection replaces the live one (4001).
            let old = std::mem::replace(seat, app.connect(room.id).await);
            let old = if random.is_multiple_of(2) {
                drop(old);
                None
            } else {
                Some(old)
            };
            seat.join_with_token(&token).await;
            drop(old);
            reconnects += 1;
            // A new Red connection starts from its welcome, not from the events before it.
            turn = TurnView::of(&red);
        }
        let actor = if turn.actor() == Side::Red {
            &mut red
        } else {
            &mut yellow
        };
        match turn.pending() {
            None => actor.roll().await,
            Some(legal) => actor.move_plane(legal.iter().next().unwrap()).await,
        }
        turn.sent();
        while !turn.settled() {
            let message = red.recv().await;
            if let ServerMessage::Error(error) = &message {
                panic!("unexpected error: {error:?}");
            }
            if let ServerMessage::GameOver(over) = message {
                yellow.catch_up(over.event).await;
                return (room.id, over, reconnects);
            }
            turn.follow(&message);
        }
        yellow.catch_up(red.seen()).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_games_with_reconnects_all_end_correctly_and_every_room_closes() {
    let app = std::sync::Arc::new(
        spawn_app_with(|config| {
            config.finished_room_ttl_ms = 200;
            config.grace_ms = 30_000;
            // Every client here is 127.0.0.1.
            config.rooms_per_address_per_minute = 10_000;
            config.max_connections_per_address = 10_000;
        })
        .await,
    );
    let rss_start = rss_kib();
    let started = Instant::now();
    let mut results = Vec::new();
    let mut reconnects = 0;
    for batch in 0..GAMES / AT_ONCE {
        let games = (0..AT_ONCE).map(|n| {
            let app = app.clone();
            let seed = (batch * AT_ONCE + n) as u64 + 1;
            tokio::spawn(async move { play_with_reconnects(&app, seed).await })
        });
        for game in futures_util::future::join_all(games).await {
            let (room, over, made) = game.unwrap();
            reconnects += made;
            results.push((room, over));
        }
    }
    let played = started.elapsed();
    for (room, over) in &results {
        let record = app.stored_record(*room).await;
        assert_eq!(&record.result, &over.result);
        assert!(
            over.result.winner.is_some(),
            "a played-out game has a winner"
        );
    }
    // Every room closes once its finished game's TTL has passed.
    let deadline = Instant::now() + Duration::from_secs(10);
    for (room, _) in &results {
        loop {
            let status = app
                .http
                .get(app.url(&format!("/api/rooms/{room}")))
                .send()
                .await
                .unwrap()
                .status();
            if status == 404 {
                break;
            }
            assert!(Instant::now() < deadline, "room {room} is still open");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let rss_end = rss_kib();
    println!(
        "soak: {GAMES} games ({AT_ONCE} at once) with {reconnects} reconnects in {played:?}; \
         every room closed; RSS {rss_start} KiB -> {rss_end} KiB"
    );
    assert!(reconnects > 0);
    // Memory returns near its start: allow for allocator caches and the test's own records.
    assert!(
        rss_end < rss_start + 64 * 1024,
        "RSS grew from {rss_start} to {rss_end} KiB"
    );
}
