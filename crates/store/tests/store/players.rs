//! The players' part of the contract: identities, counts, ratings applied exactly once in the
//! transaction that stores a game, the leaderboard and the list by player id.

use aeroplane_protocol::record::{GameRecord, Mode};
use aeroplane_rules::Colour;
use aeroplane_store::rating::{Rating, Standing, rate_game};
use aeroplane_store::{GameQuery, GameStore, NewPlayer, Saved, StoreError};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use crate::support::game::{Ending, play};

async fn new_player(store: &dyn GameStore, name: &str) -> Uuid {
    let player = NewPlayer {
        id: Uuid::new_v4(),
        name: name.to_owned(),
        secret_hash: [7; 32],
        created_at: OffsetDateTime::now_utc(),
    };
    store.create_player(&player).await.unwrap();
    player.id
}

/// An online game between `red` and `yellow` (ids), rated as asked.
fn online(seed: u64, ending: Ending, red: Uuid, yellow: Uuid, rated: bool) -> GameRecord {
    let mut record = play(seed, ending);
    record.mode = Mode::Online;
    record.players.yellow.kind = aeroplane_protocol::record::PlayerKind::Human;
    record.players.yellow.level = None;
    record.players.red.player_id = Some(red);
    record.players.yellow.player_id = Some(yellow);
    record.rated = rated;
    record
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

for_every_store! {
    async fn a_new_player_reads_back_with_the_starting_rating(store: &dyn GameStore) {
        let id = new_player(store, "Ann").await;
        let player = store.player(id).await.unwrap().expect("the player is stored");
        assert_eq!(player.name, "Ann");
        assert_eq!(player.secret_hash, [7; 32]);
        assert_eq!(player.standing, Standing { rating: Rating::START, rated_at: None });
        assert_eq!((player.games, player.wins, player.losses, player.draws, player.rated_games), (0, 0, 0, 0, 0));
        assert_eq!(store.player(Uuid::new_v4()).await.unwrap(), None);
    }

    async fn a_player_id_is_created_once(store: &dyn GameStore) {
        let player = NewPlayer {
            id: Uuid::new_v4(),
            name: "Ann".into(),
            secret_hash: [1; 32],
            created_at: OffsetDateTime::now_utc(),
        };
        store.create_player(&player).await.unwrap();
        assert!(matches!(store.create_player(&player).await, Err(StoreError::Rejected(_))));
    }

    async fn a_player_can_be_renamed(store: &dyn GameStore) {
        let id = new_player(store, "Ann").await;
        assert!(store.rename_player(id, "Annie").await.unwrap());
        assert_eq!(store.player(id).await.unwrap().unwrap().name, "Annie");
        assert!(!store.rename_player(Uuid::new_v4(), "Nobody").await.unwrap());
    }

    async fn a_rated_game_rates_both_players_once_however_often_it_is_saved(store: &dyn GameStore) {
        let (ann, bob) = (new_player(store, "Ann").await, new_player(store, "Bob").await);
        let record = online(70, Ending::Resigns(Colour::Yellow, 20), ann, bob, true);
        assert_eq!(store.save(&record).await.unwrap(), Saved::Inserted);
        assert_eq!(store.save(&record).await.unwrap(), Saved::AlreadyStored);
        let again = store.save_batch(&[record.clone(), record.clone()]).await.unwrap();
        assert_eq!(again, [Saved::AlreadyStored, Saved::AlreadyStored]);

        let new = Standing { rating: Rating::START, rated_at: None };
        let (red, yellow) = rate_game(new, new, Some(Colour::Red), record.ended_at);
        let ann = store.player(ann).await.unwrap().unwrap();
        let bob = store.player(bob).await.unwrap().unwrap();
        assert!(close(ann.standing.rating.rating, red.rating), "{ann:?}");
        assert!(close(ann.standing.rating.deviation, red.deviation));
        assert!(close(bob.standing.rating.rating, yellow.rating), "{bob:?}");
        assert_eq!(ann.standing.rating.rating.round(), 1662.0, "the crate's documented numbers");
        assert_eq!((ann.games, ann.wins, ann.losses, ann.rated_games), (1, 1, 0, 1));
        assert_eq!((bob.games, bob.wins, bob.losses, bob.rated_games), (1, 0, 1, 1));
        assert!(ann.standing.rated_at.is_some());
    }

    async fn a_batch_rates_its_games_in_order(store: &dyn GameStore) {
        let (ann, bob) = (new_player(store, "Ann").await, new_player(store, "Bob").await);
        let first = online(71, Ending::Resigns(Colour::Yellow, 20), ann, bob, true);
        let mut second = online(72, Ending::Agreed(20), bob, ann, true);
        second.ended_at = first.ended_at + Duration::minutes(10);
        let saved = store.save_batch(&[first.clone(), second.clone()]).await.unwrap();
        assert_eq!(saved, [Saved::Inserted, Saved::Inserted]);

        let new = Standing { rating: Rating::START, rated_at: None };
        let (ann1, bob1) = rate_game(new, new, Some(Colour::Red), first.ended_at);
        let (bob2, ann2) = rate_game(
            Standing { rating: bob1, rated_at: Some(first.ended_at) },
            Standing { rating: ann1, rated_at: Some(first.ended_at) },
            None,
            second.ended_at,
        );
        let ann = store.player(ann).await.unwrap().unwrap();
        let bob = store.player(bob).await.unwrap().unwrap();
        assert!(close(ann.standing.rating.rating, ann2.rating), "{ann:?} vs {ann2:?}");
        assert!(close(bob.standing.rating.deviation, bob2.deviation));
        assert_eq!((ann.games, ann.wins, ann.draws, ann.rated_games), (2, 1, 1, 2));
    }

    async fn unrated_games_count_but_leave_ratings_alone(store: &dyn GameStore) {
        let (ann, bob) = (new_player(store, "Ann").await, new_player(store, "Bob").await);
        let unrated = online(73, Ending::Resigns(Colour::Red, 20), ann, bob, false);
        let mut computer = play(74, Ending::Resigns(Colour::Yellow, 20));
        computer.players.red.player_id = Some(ann);
        let mut local = online(75, Ending::Finished, bob, bob, true);
        local.mode = Mode::Local;
        for record in [&unrated, &computer, &local] {
            assert_eq!(store.save(record).await.unwrap(), Saved::Inserted);
        }
        let ann = store.player(ann).await.unwrap().unwrap();
        let bob = store.player(bob).await.unwrap().unwrap();
        assert_eq!(ann.standing.rating, Rating::START);
        assert_eq!(bob.standing.rating, Rating::START);
        assert_eq!((ann.games, ann.wins, ann.losses, ann.rated_games), (2, 1, 1, 0));
        assert_eq!((bob.games, bob.wins, bob.losses, bob.draws), (2, 1, 0, 0), "a local game counts once, with no result");
        assert!(store.leaderboard(10).await.unwrap().is_empty());
    }

    async fn the_leaderboard_holds_rated_players_by_rating(store: &dyn GameStore) {
        let ann = new_player(store, "Ann").await;
        let bob = new_player(store, "Bob").await;
        let cid = new_player(store, "Cid").await;
        new_player(store, "Unrated").await;
        let first = online(76, Ending::Resigns(Colour::Yellow, 20), ann, bob, true);
        let mut second = online(77, Ending::Resigns(Colour::Red, 20), bob, cid, true);
        second.ended_at = first.ended_at + Duration::minutes(1);
        store.save_batch(&[first, second]).await.unwrap();
        let board = store.leaderboard(10).await.unwrap();
        let ids: Vec<Uuid> = board.iter().map(|player| player.id).collect();
        assert_eq!(ids[0], ann);
        assert_eq!(ids.len(), 3);
        assert!(board.windows(2).all(|pair| pair[0].standing.rating.rating >= pair[1].standing.rating.rating));
        assert_eq!(store.leaderboard(1).await.unwrap().len(), 1);
        for limit in [0, aeroplane_store::MAX_LEADERBOARD + 1] {
            assert!(matches!(store.leaderboard(limit).await, Err(StoreError::BadQuery(_))));
        }
    }

    async fn the_list_filters_by_player_id_in_either_seat(store: &dyn GameStore) {
        let (ann, bob) = (new_player(store, "Ann").await, new_player(store, "Bob").await);
        let first = online(78, Ending::Resigns(Colour::Yellow, 20), ann, bob, true);
        let second = online(79, Ending::Resigns(Colour::Yellow, 21), bob, Uuid::new_v4(), false);
        let anonymous = play(80, Ending::Finished);
        for record in [&first, &second, &anonymous] {
            store.save(record).await.unwrap();
        }
        let by = |id| GameQuery { player_id: Some(id), ..GameQuery::default() };
        let ann_games = store.list(&by(ann)).await.unwrap();
        assert_eq!(ann_games, std::slice::from_ref(&first), "read back exactly, player ids and rated flag too");
        let mut bob_games: Vec<Uuid> = store.list(&by(bob)).await.unwrap().iter().map(|game| game.id).collect();
        bob_games.sort();
        let mut expected = vec![first.id, second.id];
        expected.sort();
        assert_eq!(bob_games, expected);
        assert!(store.list(&by(Uuid::new_v4())).await.unwrap().is_empty());
    }

    async fn a_rating_is_grown_for_the_days_since_the_last_rated_game(store: &dyn GameStore) {
        let (ann, bob) = (new_player(store, "Ann").await, new_player(store, "Bob").await);
        let first = online(81, Ending::Resigns(Colour::Yellow, 20), ann, bob, true);
        let mut later = online(82, Ending::Resigns(Colour::Red, 20), ann, bob, true);
        later.ended_at = first.ended_at + Duration::days(30);
        store.save(&first).await.unwrap();
        store.save(&later).await.unwrap();
        let new = Standing { rating: Rating::START, rated_at: None };
        let (ann1, bob1) = rate_game(new, new, Some(Colour::Red), first.ended_at);
        let (ann2, _) = rate_game(
            Standing { rating: ann1, rated_at: Some(first.ended_at) },
            Standing { rating: bob1, rated_at: Some(first.ended_at) },
            Some(Colour::Yellow),
            later.ended_at,
        );
        let stored = store.player(ann).await.unwrap().unwrap();
        assert!(close(stored.standing.rating.rating, ann2.rating), "{stored:?} vs {ann2:?}");
    }
}
