//! The contract every store keeps: memory, SQLite and PostgreSQL alike.

use std::collections::HashSet;

use aeroplane_protocol::record::GameRecord;
use aeroplane_rules::Colour;
use aeroplane_store::{Cursor, GameQuery, GameStore, Saved, StoreError};
use time::Duration;

use crate::support::game::{Ending, play};

/// Runs one contract check against every store: `contract::<check>::{memory, sqlite, postgres}`.
macro_rules! for_every_store {
    ($(async fn $name:ident($store:ident: &dyn GameStore) $body:block)*) => {$(
        mod $name {
            use super::*;

            async fn check($store: &dyn GameStore) $body

            #[tokio::test]
            async fn memory() {
                check(&*crate::support::stores::memory().store).await;
            }

            #[tokio::test]
            async fn sqlite() {
                check(&*crate::support::stores::sqlite().await.store).await;
            }

            #[tokio::test]
            async fn postgres() {
                if let Some(store) = crate::support::stores::postgres().await {
                    check(&*store.store).await;
                }
            }
        }
    )*};
}

/// `count` games Red won, with distinct ids, whose ends are `spacing` apart, oldest first.
fn games(count: u64, spacing: Duration) -> Vec<GameRecord> {
    let first = play(1, Ending::Resigns(Colour::Yellow, 30));
    (0..count)
        .map(|n| {
            let mut record = play(n, Ending::Resigns(Colour::Yellow, 20 + n as usize));
            record.ended_at = first.ended_at + spacing * n as i32;
            record
        })
        .collect()
}

fn query() -> GameQuery {
    GameQuery::default()
}

fn ids(records: &[GameRecord]) -> Vec<uuid::Uuid> {
    records.iter().map(|record| record.id).collect()
}

/// The ids of `records` in list order: newest first, then the larger id first.
fn newest_first(records: &[GameRecord]) -> Vec<uuid::Uuid> {
    let mut sorted = records.to_vec();
    sorted.sort_by_key(|record| std::cmp::Reverse(Cursor::after(record)));
    ids(&sorted)
}

async fn save_all(store: &dyn GameStore, records: &[GameRecord]) {
    for record in records {
        assert_eq!(store.save(record).await.unwrap(), Saved::Inserted);
    }
}

for_every_store! {
    async fn a_saved_game_reads_back_exactly_and_replays_to_its_result(store: &dyn GameStore) {
        let record = play(42, Ending::Finished);
        assert!(record.actions.len() > 100, "a whole game: {} actions", record.actions.len());
        assert!(record.actions.iter().any(|logged| logged.undone));
        assert_eq!(store.save(&record).await.unwrap(), Saved::Inserted);

        let stored = store.get(record.id).await.unwrap().expect("the game is stored");
        assert_eq!(stored, record);
        let replayed = stored.replay().expect("the stored log replays");
        let outcome = replayed.outcome().expect("the replayed game is over");
        assert_eq!((outcome.winner, outcome.reason), (stored.result.plyyard_winner(), stored.result.reason));
    }

    async fn every_ending_reads_back_exactly(store: &dyn GameStore) {
        let records = [
            play(1, Ending::Finished),
            play(2, Ending::Resigns(Colour::Yellow, 10)),
            play(3, Ending::Resigns(Colour::Red, 0)),
            play(4, Ending::Agreed(25)),
        ];
        save_all(store, &records).await;
        for record in &records {
            assert_eq!(store.get(record.id).await.unwrap().as_ref(), Some(record));
        }
    }

    async fn times_are_kept_in_utc_to_the_microsecond(store: &dyn GameStore) {
        let mut record = play(5, Ending::Resigns(Colour::Red, 5));
        let offset = time::UtcOffset::from_hms(2, 0, 0).unwrap();
        record.ended_at = (record.ended_at + Duration::nanoseconds(999)).to_offset(offset);
        store.save(&record).await.unwrap();

        let stored = store.get(record.id).await.unwrap().unwrap();
        assert_eq!(stored.ended_at, record.ended_at - Duration::nanoseconds(999));
        assert_eq!(stored.ended_at.offset(), time::UtcOffset::UTC);
    }

    async fn a_game_that_was_never_saved_reads_as_none(store: &dyn GameStore) {
        assert_eq!(store.get(uuid::Uuid::new_v4()).await.unwrap(), None);
    }

    async fn saving_a_game_twice_stores_it_once(store: &dyn GameStore) {
        let record = play(7, Ending::Finished);
        assert_eq!(store.save(&record).await.unwrap(), Saved::Inserted);
        assert_eq!(store.save(&record).await.unwrap(), Saved::AlreadyStored);
        assert_eq!(ids(&store.list(&query()).await.unwrap()), [record.id]);
    }

    async fn a_batch_says_what_happened_to_each_game_and_stores_each_once(store: &dyn GameStore) {
        let (old, new) = (play(8, Ending::Finished), play(9, Ending::Agreed(12)));
        store.save(&old).await.unwrap();
        let batch = [old.clone(), new.clone(), new.clone()];
        let saved = store.save_batch(&batch).await.unwrap();
        assert_eq!(saved, [Saved::AlreadyStored, Saved::Inserted, Saved::AlreadyStored]);
        assert_eq!(store.list(&query()).await.unwrap().len(), 2);
        assert_eq!(store.get(new.id).await.unwrap(), Some(new));
        assert_eq!(store.save_batch(&[]).await.unwrap(), []);
    }

    async fn the_list_is_newest_first(store: &dyn GameStore) {
        let records = games(6, Duration::minutes(3));
        for n in [3, 0, 5, 1, 4, 2] {
            store.save(&records[n]).await.unwrap();
        }
        let listed = store.list(&query()).await.unwrap();
        assert_eq!(ids(&listed), newest_first(&records));
        assert_eq!(listed[0].id, records[5].id);
    }

    async fn the_list_filters_by_player_in_either_seat(store: &dyn GameStore) {
        let mut records = games(5, Duration::seconds(1));
        records[0].players.red.name = "mei".into();
        records[2].players.yellow.name = "mei".into();
        records[3].players.red.name = "meiko".into();
        save_all(store, &records).await;

        let mei = GameQuery { player: Some("mei".into()), ..query() };
        assert_eq!(ids(&store.list(&mei).await.unwrap()), [records[2].id, records[0].id]);
        let nobody = GameQuery { player: Some("nobody".into()), ..query() };
        assert!(store.list(&nobody).await.unwrap().is_empty());
    }

    async fn the_list_filters_by_result(store: &dyn GameStore) {
        let red = play(11, Ending::Resigns(Colour::Yellow, 3));
        let yellow = play(12, Ending::Resigns(Colour::Red, 8));
        let draw = play(13, Ending::Agreed(4));
        save_all(store, &[red.clone(), yellow.clone(), draw.clone()]).await;

        for (result, expected) in [("red", &red), ("yellow", &yellow), ("draw", &draw)] {
            let filtered = GameQuery { result: Some(result.into()), ..query() };
            assert_eq!(ids(&store.list(&filtered).await.unwrap()), [expected.id], "{result}");
        }
        let unknown = GameQuery { result: Some("purple".into()), ..query() };
        assert!(matches!(store.list(&unknown).await, Err(StoreError::BadQuery(_))));
    }

    async fn player_and_result_filters_combine(store: &dyn GameStore) {
        let mut records = vec![
            play(21, Ending::Resigns(Colour::Yellow, 3)),
            play(22, Ending::Resigns(Colour::Red, 3)),
            play(23, Ending::Resigns(Colour::Yellow, 5)),
        ];
        records[0].players.yellow.name = "kai".into();
        records[1].players.red.name = "kai".into();
        save_all(store, &records).await;

        let kai_lost_as_yellow =
            GameQuery { player: Some("kai".into()), result: Some("red".into()), ..query() };
        assert_eq!(ids(&store.list(&kai_lost_as_yellow).await.unwrap()), [records[0].id]);
    }

    async fn pages_follow_each_other_without_gaps_or_repeats(store: &dyn GameStore) {
        // Twenty-three games, in groups of three that ended at the same microsecond, so the id
        // breaks ties inside a page and across page boundaries.
        let mut records = games(23, Duration::ZERO);
        let start = records[0].ended_at;
        for (n, record) in records.iter_mut().enumerate() {
            record.ended_at = start + Duration::seconds((n / 3) as i64);
        }
        save_all(store, &records).await;

        let mut seen = Vec::new();
        let mut before = None;
        loop {
            let page = store.list(&GameQuery { limit: 5, before: before.clone(), ..query() }).await.unwrap();
            assert!(page.len() <= 5);
            if page.is_empty() {
                break;
            }
            before = Some(Cursor::after(page.last().unwrap()).to_string());
            seen.extend(ids(&page));
        }
        assert_eq!(seen, newest_first(&records));
        assert_eq!(seen.iter().collect::<HashSet<_>>().len(), 23);
    }

    async fn pages_of_a_filtered_list_follow_each_other(store: &dyn GameStore) {
        let mut records = games(12, Duration::milliseconds(1));
        for record in records.iter_mut().step_by(2) {
            record.players.yellow.name = "zoe".into();
        }
        save_all(store, &records).await;

        let zoe = |before| GameQuery { player: Some("zoe".into()), result: Some("red".into()), limit: 4, before, ..query() };
        let first = store.list(&zoe(None)).await.unwrap();
        let second = store.list(&zoe(Some(Cursor::after(&first[3]).to_string()))).await.unwrap();
        let expected: Vec<_> = records.iter().step_by(2).cloned().collect();
        assert_eq!([ids(&first), ids(&second)].concat(), newest_first(&expected));
    }

    async fn a_game_saved_after_a_page_was_read_does_not_shift_the_next_page(store: &dyn GameStore) {
        let records = games(6, Duration::seconds(1));
        save_all(store, &records).await;
        let first = store.list(&GameQuery { limit: 3, ..query() }).await.unwrap();
        let mut newer = play(99, Ending::Finished);
        newer.ended_at = records[5].ended_at + Duration::hours(1);
        store.save(&newer).await.unwrap();

        let before = Some(Cursor::after(&first[2]).to_string());
        let second = store.list(&GameQuery { limit: 3, before, ..query() }).await.unwrap();
        assert_eq!(ids(&second), [records[2].id, records[1].id, records[0].id]);
    }

    async fn the_limit_caps_the_page_and_defaults_to_twenty(store: &dyn GameStore) {
        let records = games(25, Duration::seconds(1));
        store.save_batch(&records).await.unwrap();

        assert_eq!(store.list(&GameQuery { limit: 1, ..query() }).await.unwrap().len(), 1);
        assert_eq!(store.list(&GameQuery { limit: 0, ..query() }).await.unwrap().len(), 20);
        assert_eq!(store.list(&GameQuery { limit: 100, ..query() }).await.unwrap().len(), 25);
        let too_many = GameQuery { limit: 101, ..query() };
        assert!(matches!(store.list(&too_many).await, Err(StoreError::BadQuery(_))));
    }

    async fn a_cursor_that_no_page_handed_out_is_refused(store: &dyn GameStore) {
        for before in ["", "yesterday", "12_34", "99999999999999999999_00000000000000000000000000000000"] {
            let bad = GameQuery { before: Some(before.into()), ..query() };
            assert!(matches!(store.list(&bad).await, Err(StoreError::BadCursor)), "{before:?}");
        }
    }

    async fn a_reachable_store_answers_the_readiness_check(store: &dyn GameStore) {
        store.ping().await.unwrap();
    }
}

for_every_store! {
    async fn client_seeds_are_stored_losslessly_whatever_they_hold(store: &dyn GameStore) {
        // Issue 20: PostgreSQL text refused a NUL, and the game was lost.
        let mut record = play(60, Ending::Resigns(Colour::Red, 12));
        record.fairness.red_seed = "\u{0}".to_owned();
        record.fairness.yellow_seed = "a\u{0}b\u{1}\u{1b}[2J\u{7f}é飞\u{202e}\u{feff}".to_owned();
        let mut every_ascii = play(61, Ending::Finished);
        every_ascii.fairness.red_seed = (0u8..64).map(char::from).collect();
        every_ascii.fairness.yellow_seed = (64u8..128).map(char::from).collect();
        for record in [&record, &every_ascii] {
            assert_eq!(store.save(record).await.unwrap(), Saved::Inserted);
            assert_eq!(store.get(record.id).await.unwrap().as_ref(), Some(record));
        }
        let listed = store.list(&query()).await.unwrap();
        assert!(listed.contains(&record) && listed.contains(&every_ascii));
    }

    async fn a_record_holding_a_nul_in_a_name_is_rejected_by_every_store(store: &dyn GameStore) {
        let mut record = play(62, Ending::Finished);
        record.players.yellow.name = "Bob\u{0}".to_owned();
        assert!(
            matches!(store.save(&record).await, Err(StoreError::Rejected(_))),
            "a NUL in a name is refused for good, alike in every store"
        );
        assert_eq!(store.get(record.id).await.unwrap(), None);
    }

    async fn a_player_filter_that_is_no_name_is_a_bad_query(store: &dyn GameStore) {
        for player in ["\u{0}", "Ann\u{1b}[2J", "A\u{202e}nn", &"x".repeat(33)] {
            let query = GameQuery { player: Some(player.to_owned()), ..query() };
            assert!(
                matches!(store.list(&query).await, Err(StoreError::BadQuery(_))),
                "{player:?}"
            );
        }
    }
}
