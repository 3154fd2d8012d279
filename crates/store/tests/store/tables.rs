//! The contract for records of format 2 (issue 16): games of `flights` and `classic` with two to
//! four players read back exactly and replay in every store, beside two-player `plyyard` games
//! that stay format 1; the list filters by edition, player count and a winner of any colour; a
//! table game counts for each identified seat and rates nobody.

use aeroplane_protocol::record::{GameRecord, PLYYARD_FORMAT, ResultRecord, TABLE_FORMAT};
use aeroplane_rules::{Colour, EndReason, Rules, Side};
use aeroplane_store::{GameQuery, GameStore, NewPlayer, Saved, StoreError};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::support::game::{Ending, play};
use crate::support::table::{TableEnding, play_table};

/// One game of each shape the contract covers: both editions, two to four players, every
/// ending, and `classic` with its house rule.
fn every_shape() -> Vec<GameRecord> {
    let jump = Rules::classic_with_jump_after_shortcut();
    vec![
        play_table(1, Rules::FLIGHTS, 2, TableEnding::Finished),
        play_table(2, Rules::FLIGHTS, 3, TableEnding::Finished),
        play_table(3, Rules::FLIGHTS, 4, TableEnding::Resigns(Side::Green, 40)),
        play_table(4, Rules::CLASSIC, 2, TableEnding::Resigns(Side::Yellow, 25)),
        play_table(5, Rules::CLASSIC, 3, TableEnding::Agreed(30)),
        play_table(6, Rules::CLASSIC, 4, TableEnding::Finished),
        play_table(7, jump, 4, TableEnding::Resigns(Side::Blue, 12)),
    ]
}

fn ids(records: &[GameRecord]) -> Vec<Uuid> {
    let mut ids: Vec<Uuid> = records.iter().map(|record| record.id).collect();
    ids.sort();
    ids
}

/// `ids`, sorted.
fn sorted<const N: usize>(mut ids: [Uuid; N]) -> [Uuid; N] {
    ids.sort();
    ids
}

/// Checks that `record` replays through a `Table` to its stored result.
fn assert_replays(record: &GameRecord) {
    let table = record.replay_table().expect("the stored log replays");
    assert_eq!(
        ResultRecord::of_table(&table).as_ref(),
        Some(&record.result),
        "game {} replays to its result",
        record.id
    );
}

async fn new_player(store: &dyn GameStore, name: &str) -> Uuid {
    let player = NewPlayer {
        id: Uuid::new_v4(),
        name: name.to_owned(),
        secret_hash: [3; 32],
        created_at: OffsetDateTime::now_utc(),
    };
    store.create_player(&player).await.unwrap();
    player.id
}

#[test]
fn a_classic_game_of_four_played_to_the_end_ranks_every_seat() {
    let record = play_table(6, Rules::CLASSIC, 4, TableEnding::Finished);
    let places = record.result.places.expect("a table ranks its seats");
    let mut ranked: Vec<u8> = Side::ALL
        .into_iter()
        .map(|side| places.get(side).expect("every seat has a place"))
        .collect();
    ranked.sort_unstable();
    assert_eq!(ranked, [1, 2, 3, 4]);
    assert_eq!(record.result.reason, EndReason::Finished);
    assert_eq!(record.format, TABLE_FORMAT);
    assert_eq!(record.fairness.scheme, "v2");
    assert_replays(&record);
}

#[test]
fn one_of_four_resigns_and_the_others_play_on() {
    let record = play_table(3, Rules::FLIGHTS, 4, TableEnding::Resigns(Side::Green, 40));
    let resigned = record
        .actions
        .iter()
        .position(|logged| {
            logged.action
                == aeroplane_rules::TableAction::Resign {
                    colour: Side::Green,
                }
        })
        .expect("Green resigned");
    assert!(resigned + 1 < record.actions.len(), "the game went on");
    let places = record.result.places.unwrap();
    assert_eq!(
        places.green,
        Some(4),
        "a resigning player takes the worst place"
    );
    assert_eq!(places.get(record.result.winner.unwrap()), Some(1));
    assert_eq!(record.players.count(), 4);
    assert_replays(&record);
}

for_every_store! {
    async fn tables_of_every_edition_and_count_read_back_exactly_and_replay(store: &dyn GameStore) {
        let records = every_shape();
        for record in &records {
            assert_eq!(record.format, TABLE_FORMAT);
            assert_eq!(store.save(record).await.unwrap(), Saved::Inserted, "{}", record.ruleset);
        }
        for record in &records {
            let stored = store.get(record.id).await.unwrap().expect("the game is stored");
            assert_eq!(&stored, record);
            assert_replays(&stored);
        }
        let listed = store.list(&GameQuery::default()).await.unwrap();
        assert_eq!(ids(&listed), ids(&records));
        assert!(records.iter().all(|record| listed.contains(record)), "listed exactly too");
    }

    async fn a_plyyard_game_still_reads_back_as_the_format_1_record_it_was(store: &dyn GameStore) {
        let plyyard = play(30, Ending::Finished);
        let table = play_table(31, Rules::FLIGHTS, 2, TableEnding::Finished);
        store.save_batch(&[plyyard.clone(), table.clone()]).await.unwrap();

        let stored = store.get(plyyard.id).await.unwrap().unwrap();
        assert_eq!(stored, plyyard);
        assert_eq!(stored.format, PLYYARD_FORMAT);
        let json = serde_json::to_value(&stored).unwrap();
        assert_eq!(json, serde_json::to_value(&plyyard).unwrap());
        assert!(json.get("house_rules").is_none());
        assert!(json["result"].get("places").is_none());
        assert!(json["players"].get("blue").is_none());
        assert!(json["fairness"].get("blue_seed").is_none());
        stored.replay().expect("a plyyard game replays through Game");

        let table = store.get(table.id).await.unwrap().unwrap();
        assert_eq!(table.format, TABLE_FORMAT, "a two-player game of another edition is format 2");
    }

    async fn the_list_filters_by_ruleset_and_players(store: &dyn GameStore) {
        let plyyard = play(40, Ending::Resigns(Colour::Red, 9));
        let flights3 = play_table(41, Rules::FLIGHTS, 3, TableEnding::Resigns(Side::Red, 8));
        let flights4 = play_table(42, Rules::FLIGHTS, 4, TableEnding::Agreed(10));
        let classic2 = play_table(43, Rules::CLASSIC, 2, TableEnding::Resigns(Side::Red, 6));
        let classic4 = play_table(
            44,
            Rules::classic_with_jump_after_shortcut(),
            4,
            TableEnding::Agreed(20),
        );
        let all = [plyyard.clone(), flights3.clone(), flights4.clone(), classic2.clone(), classic4.clone()];
        store.save_batch(&all).await.unwrap();

        let list = async |ruleset: Option<&str>, players: Option<u32>| {
            let query = GameQuery {
                ruleset: ruleset.map(str::to_owned),
                players,
                ..GameQuery::default()
            };
            ids(&store.list(&query).await.unwrap())
        };
        assert_eq!(list(Some("plyyard"), None).await, sorted([plyyard.id]));
        assert_eq!(list(Some("flights"), None).await, sorted([flights3.id, flights4.id]));
        assert_eq!(
            list(Some("classic"), None).await,
            sorted([classic2.id, classic4.id]),
            "whatever house rules were on"
        );
        assert_eq!(list(None, Some(2)).await, sorted([plyyard.id, classic2.id]));
        assert_eq!(list(None, Some(3)).await, sorted([flights3.id]));
        assert_eq!(list(None, Some(4)).await, sorted([flights4.id, classic4.id]));
        assert_eq!(list(Some("classic"), Some(4)).await, sorted([classic4.id]));
        assert!(list(Some("plyyard"), Some(4)).await.is_empty());

        for ruleset in ["chess", "PLYYARD", ""] {
            let bad = GameQuery { ruleset: Some(ruleset.to_owned()), ..GameQuery::default() };
            assert!(matches!(store.list(&bad).await, Err(StoreError::BadQuery(_))), "{ruleset:?}");
        }
        for players in [0, 1, 5] {
            let bad = GameQuery { players: Some(players), ..GameQuery::default() };
            assert!(matches!(store.list(&bad).await, Err(StoreError::BadQuery(_))), "{players}");
        }
    }

    async fn the_result_filter_finds_a_winner_of_every_colour(store: &dyn GameStore) {
        // Games of four played to a finish, until each colour has won one.
        let mut winners: Vec<GameRecord> = Vec::new();
        for seed in 100.. {
            let record = play_table(seed, Rules::FLIGHTS, 4, TableEnding::Finished);
            let winner = record.result.winner.expect("a finished game has a winner");
            if !winners.iter().any(|won| won.result.winner == Some(winner)) {
                winners.push(record);
            }
            assert!(seed < 200, "every colour wins one of a hundred games");
            if winners.len() == 4 {
                break;
            }
        }
        let draw = play_table(99, Rules::CLASSIC, 3, TableEnding::Agreed(5));
        assert_eq!(draw.result.winner, None);
        store.save_batch(&winners).await.unwrap();
        store.save(&draw).await.unwrap();

        for record in &winners {
            let colour = record.result.winner.unwrap().as_str();
            let query = GameQuery { result: Some(colour.to_owned()), ..GameQuery::default() };
            assert_eq!(ids(&store.list(&query).await.unwrap()), [record.id], "{colour}");
        }
        let draws = GameQuery { result: Some("draw".to_owned()), ..GameQuery::default() };
        assert_eq!(ids(&store.list(&draws).await.unwrap()), [draw.id]);
    }

    async fn the_player_filters_find_every_seat(store: &dyn GameStore) {
        let mut blue = play_table(50, Rules::FLIGHTS, 3, TableEnding::Resigns(Side::Yellow, 5));
        let mut green = play_table(51, Rules::CLASSIC, 4, TableEnding::Resigns(Side::Red, 5));
        let other = play_table(52, Rules::CLASSIC, 4, TableEnding::Resigns(Side::Red, 7));
        blue.players.blue.as_mut().unwrap().name = "mei".to_owned();
        green.players.green.as_mut().unwrap().name = "mei".to_owned();
        let id = Uuid::new_v4();
        blue.players.blue.as_mut().unwrap().player_id = Some(id);
        green.players.green.as_mut().unwrap().player_id = Some(id);
        store.save_batch(&[blue.clone(), green.clone(), other]).await.unwrap();

        let by_name = GameQuery { player: Some("mei".to_owned()), ..GameQuery::default() };
        assert_eq!(ids(&store.list(&by_name).await.unwrap()), ids(&[blue.clone(), green.clone()]));
        let by_id = GameQuery { player_id: Some(id), ..GameQuery::default() };
        assert_eq!(ids(&store.list(&by_id).await.unwrap()), ids(&[blue, green]));
    }

    async fn a_nul_in_a_blue_or_green_seat_or_a_house_rule_is_rejected(store: &dyn GameStore) {
        let mut blue = play_table(53, Rules::FLIGHTS, 3, TableEnding::Resigns(Side::Red, 3));
        blue.players.blue.as_mut().unwrap().name = "Bo\u{0}".to_owned();
        let mut green = play_table(54, Rules::FLIGHTS, 4, TableEnding::Resigns(Side::Red, 3));
        green.players.green.as_mut().unwrap().level = Some("\u{0}".to_owned());
        let mut rule = play_table(55, Rules::CLASSIC, 2, TableEnding::Resigns(Side::Red, 3));
        rule.house_rules = vec!["x\u{0}".to_owned()];
        let mut green_alone = play_table(56, Rules::FLIGHTS, 4, TableEnding::Resigns(Side::Red, 3));
        green_alone.players.blue = None;
        for record in [&blue, &green, &rule, &green_alone] {
            assert!(matches!(store.save(record).await, Err(StoreError::Rejected(_))), "{record:?}");
            assert_eq!(store.get(record.id).await.unwrap(), None);
        }
    }

    async fn the_blue_and_green_seeds_are_stored_losslessly(store: &dyn GameStore) {
        let mut record = play_table(57, Rules::CLASSIC, 4, TableEnding::Resigns(Side::Blue, 9));
        record.fairness.blue_seed = Some("b\u{0}飞\u{202e}".to_owned());
        record.fairness.green_seed = Some(String::new());
        store.save(&record).await.unwrap();
        assert_eq!(store.get(record.id).await.unwrap(), Some(record));
    }

    async fn a_table_game_counts_for_each_identified_seat_and_rates_nobody(store: &dyn GameStore) {
        let mut record = play_table(6, Rules::CLASSIC, 4, TableEnding::Finished);
        let places = record.result.places.unwrap();
        let mut players = Vec::new();
        for side in Side::ALL {
            let id = new_player(store, side.as_str()).await;
            let seat = match side {
                Side::Red => &mut record.players.red,
                Side::Yellow => &mut record.players.yellow,
                Side::Blue => record.players.blue.as_mut().unwrap(),
                Side::Green => record.players.green.as_mut().unwrap(),
            };
            seat.player_id = Some(id);
            players.push((side, id));
        }
        // Even a record that says so is not rated: ratings are of two-player plyyard games.
        record.rated = true;
        assert_eq!(store.save(&record).await.unwrap(), Saved::Inserted);
        assert_eq!(store.save(&record).await.unwrap(), Saved::AlreadyStored);

        for (side, id) in players {
            let player = store.player(id).await.unwrap().unwrap();
            let won = places.get(side) == Some(1);
            assert_eq!(
                (player.games, player.wins, player.losses, player.draws),
                (1, u64::from(won), u64::from(!won), 0),
                "{side:?} placed {:?}",
                places.get(side)
            );
            assert_eq!((player.rated_games, player.standing.rated_at), (0, None));
        }
        assert!(store.leaderboard(10).await.unwrap().is_empty());
    }

    async fn a_draw_at_a_table_counts_a_draw_for_the_players_still_in_play(store: &dyn GameStore) {
        let mut record = play_table(58, Rules::FLIGHTS, 3, TableEnding::Resigns(Side::Blue, 4));
        assert_eq!(record.result.places.unwrap().blue, Some(3));
        // The same seats, but Red and Yellow then agree a draw.
        let draw = play_table(59, Rules::FLIGHTS, 3, TableEnding::Agreed(8));
        assert_eq!(draw.result.winner, None);
        let (red, blue) = (new_player(store, "Ann").await, new_player(store, "Bob").await);
        record.players.red.player_id = Some(red);
        record.players.blue.as_mut().unwrap().player_id = Some(blue);
        let mut draw = draw;
        draw.players.red.player_id = Some(red);
        draw.players.blue.as_mut().unwrap().player_id = Some(blue);
        store.save_batch(&[record.clone(), draw]).await.unwrap();

        let red_won = record.result.winner == Some(Side::Red);
        let red = store.player(red).await.unwrap().unwrap();
        assert_eq!((red.games, red.wins, red.losses, red.draws), (2, u64::from(red_won), u64::from(!red_won), 1));
        let blue = store.player(blue).await.unwrap().unwrap();
        assert_eq!((blue.games, blue.wins, blue.losses, blue.draws), (2, 0, 1, 1));
    }

    async fn one_player_in_several_seats_counts_one_game_with_no_result(store: &dyn GameStore) {
        let mut record = play_table(60, Rules::CLASSIC, 3, TableEnding::Resigns(Side::Yellow, 10));
        let ann = new_player(store, "Ann").await;
        record.players.red.player_id = Some(ann);
        record.players.blue.as_mut().unwrap().player_id = Some(ann);
        store.save(&record).await.unwrap();
        let ann = store.player(ann).await.unwrap().unwrap();
        assert_eq!((ann.games, ann.wins, ann.losses, ann.draws), (1, 0, 0, 0));
    }
}
