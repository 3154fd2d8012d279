//! The outbox: nothing lost, nothing twice, never waiting on the database.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use aeroplane_protocol::record::{GameRecord, RECORD_FORMAT};
use aeroplane_rules::Colour;
use aeroplane_store::{GameQuery, GameStore, Outbox, OutboxOptions, Settled};
use tokio::time::Instant;

use crate::support::game::{Ending, play};
use crate::support::stores::TestStore;
use crate::support::switch::{POISON, Switch};

/// Runs one outbox check on every store: `outbox::<check>::{memory, sqlite, postgres}`.
macro_rules! on_every_store {
    ($(async fn $name:ident($store:ident: TestStore) $body:block)*) => {$(
        mod $name {
            use super::*;

            async fn check($store: TestStore) $body

            #[tokio::test]
            async fn memory() {
                check(crate::support::stores::memory()).await;
            }

            #[tokio::test]
            async fn sqlite() {
                check(crate::support::stores::sqlite().await).await;
            }

            #[tokio::test]
            async fn postgres() {
                if let Some(store) = crate::support::stores::postgres().await {
                    check(store).await;
                }
            }
        }
    )*};
}

/// Retries every few milliseconds, so the tests run fast.
pub fn quick() -> OutboxOptions {
    OutboxOptions {
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(40),
        batch_size: 4,
        write_timeout: Duration::from_millis(500),
        sync_window: Duration::from_millis(5),
        spare_files: 256,
    }
}

fn in_seconds(seconds: u64) -> Instant {
    Instant::now() + Duration::from_secs(seconds)
}

fn records(count: u64) -> Vec<GameRecord> {
    (0..count)
        .map(|n| play(100 + n, Ending::Resigns(Colour::Yellow, 10 + n as usize)))
        .collect()
}

/// The files of `dir` whose name ends in `suffix`.
fn files(dir: &Path, suffix: &str) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|entry| {
            entry
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(suffix)
        })
        .count()
}

/// Asserts that `store` holds exactly `records`, each once.
pub async fn assert_stored_once(store: &dyn GameStore, records: &[GameRecord]) {
    let listed = store
        .list(&GameQuery {
            limit: 100,
            ..GameQuery::default()
        })
        .await
        .unwrap();
    let mut listed: Vec<_> = listed.iter().map(|record| record.id).collect();
    let mut expected: Vec<_> = records.iter().map(|record| record.id).collect();
    listed.sort();
    expected.sort();
    assert_eq!(listed, expected);
    for record in records {
        assert_eq!(store.get(record.id).await.unwrap().as_ref(), Some(record));
    }
}

on_every_store! {
    async fn games_submitted_while_the_store_is_down_are_written_once_when_it_returns(store: TestStore) {
        let dir = tempfile::tempdir().unwrap();
        let switch = Switch::new(Arc::clone(&store.store), false);
        let (outbox, _task) = Outbox::start(dir.path().into(), switch.clone(), quick()).await.unwrap();
        let games = records(6);
        for record in &games {
            outbox.submit(record.clone()).await.unwrap();
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert_eq!(outbox.depth(), 6);
        assert_eq!(files(dir.path(), ".json"), 6);
        assert!(switch.refused.load(Ordering::SeqCst) >= 3, "the outbox kept retrying");
        assert!(store.store.list(&GameQuery::default()).await.unwrap().is_empty());

        switch.set_up(true);
        outbox.flush(in_seconds(10)).await.unwrap();
        assert_stored_once(&*store.store, &games).await;
        assert_eq!(switch.inserted.load(Ordering::SeqCst), 6);
        assert_eq!(files(dir.path(), ".json"), 0);
        assert_eq!(outbox.depth(), 0);
    }

    async fn an_outbox_started_on_a_directory_writes_what_an_earlier_one_left(store: TestStore) {
        let dir = tempfile::tempdir().unwrap();
        let games = records(5);
        {
            let down = Switch::new(Arc::clone(&store.store), false);
            let (outbox, task) = Outbox::start(dir.path().into(), down, quick()).await.unwrap();
            for record in &games {
                outbox.submit(record.clone()).await.unwrap();
            }
            drop(outbox);
            tokio::time::timeout(Duration::from_secs(5), task).await.unwrap().unwrap();
        }
        assert_eq!(files(dir.path(), ".json"), 5);

        let (outbox, _task) =
            Outbox::start(dir.path().into(), Arc::clone(&store.store), quick()).await.unwrap();
        outbox.flush(in_seconds(10)).await.unwrap();
        assert_stored_once(&*store.store, &games).await;
        assert_eq!(files(dir.path(), ".json"), 0);
    }

    async fn a_game_already_stored_is_not_written_again(store: TestStore) {
        let dir = tempfile::tempdir().unwrap();
        let switch = Switch::new(Arc::clone(&store.store), true);
        let (outbox, _task) = Outbox::start(dir.path().into(), switch.clone(), quick()).await.unwrap();
        let game = play(7, Ending::Finished);
        store.store.save(&game).await.unwrap();
        outbox.submit(game.clone()).await.unwrap();
        outbox.submit(game.clone()).await.unwrap();
        outbox.flush(in_seconds(10)).await.unwrap();
        assert_stored_once(&*store.store, &[game]).await;
        assert_eq!(switch.inserted.load(Ordering::SeqCst), 0);
    }

    async fn a_game_the_store_rejects_is_set_aside_and_the_others_are_written(store: TestStore) {
        let dir = tempfile::tempdir().unwrap();
        let switch = Switch::new(Arc::clone(&store.store), false);
        let (outbox, _task) = Outbox::start(dir.path().into(), switch.clone(), quick()).await.unwrap();
        let mut games = records(5);
        games[2].players.red.name = POISON.into();
        for record in &games {
            outbox.submit(record.clone()).await.unwrap();
        }
        switch.set_up(true);
        outbox.flush(in_seconds(10)).await.unwrap();

        let poisoned = games.remove(2);
        assert_stored_once(&*store.store, &games).await;
        assert!(dir.path().join("rejected").join(format!("{}.json", poisoned.id)).is_file());
        assert_eq!(files(dir.path(), ".json"), 0);
    }

    async fn a_watched_record_is_told_when_the_store_has_it_or_refused_it(store: TestStore) {
        let dir = tempfile::tempdir().unwrap();
        let switch = Switch::new(Arc::clone(&store.store), false);
        let (outbox, _task) = Outbox::start(dir.path().into(), switch.clone(), quick()).await.unwrap();
        let mut games = records(2);
        games[1].players.red.name = POISON.into();
        let mut stored = outbox.submit_watched(games[0].clone()).await.unwrap();
        let rejected = outbox.submit_watched(games[1].clone()).await.unwrap();
        // On disk is not in the store: nothing is told while the store is down.
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(switch.refused.load(Ordering::SeqCst) >= 2, "the outbox kept retrying");
        assert_eq!(stored.try_recv(), Err(tokio::sync::oneshot::error::TryRecvError::Empty));

        switch.set_up(true);
        let told = tokio::time::timeout(Duration::from_secs(10), stored).await.unwrap();
        assert_eq!(told, Ok(Settled::Stored));
        assert_stored_once(&*store.store, &games[..1]).await;
        let told = tokio::time::timeout(Duration::from_secs(10), rejected).await.unwrap();
        assert_eq!(told, Ok(Settled::Rejected));
    }

    async fn a_rejected_record_is_retried_at_the_next_start(store: TestStore) {
        // What an older server left in `rejected/`: a game whose seed holds a NUL, which
        // PostgreSQL text refused before the seeds were kept as bytes (issue 20).
        let dir = tempfile::tempdir().unwrap();
        let mut game = play(9, Ending::Finished);
        game.fairness.red_seed = "seed\u{0}".into();
        let rejected = dir.path().join("rejected");
        std::fs::create_dir_all(&rejected).unwrap();
        let file = rejected.join(format!("{}.json", game.id));
        std::fs::write(&file, serde_json::to_vec(&game).unwrap()).unwrap();
        let mut refused = play(10, Ending::Finished);
        refused.players.red.name = "Ann\u{0}".into();
        let refused_file = rejected.join(format!("{}.json", refused.id));
        std::fs::write(&refused_file, serde_json::to_vec(&refused).unwrap()).unwrap();

        let (outbox, _task) =
            Outbox::start(dir.path().into(), Arc::clone(&store.store), quick()).await.unwrap();
        outbox.flush(in_seconds(10)).await.unwrap();
        assert_stored_once(&*store.store, &[game]).await;
        assert!(!file.exists());
        assert!(refused_file.is_file(), "still refused, so set aside again for the next start");
    }

    async fn a_record_an_older_server_left_without_a_format_is_written(store: TestStore) {
        let dir = tempfile::tempdir().unwrap();
        let game = play(11, Ending::Finished);
        let mut old = serde_json::to_value(&game).unwrap();
        assert_eq!(old["format"], aeroplane_protocol::record::PLYYARD_FORMAT);
        old.as_object_mut().unwrap().remove("format");
        std::fs::write(
            dir.path().join(format!("{}.json", game.id)),
            serde_json::to_vec(&old).unwrap(),
        )
        .unwrap();
        let (outbox, _task) =
            Outbox::start(dir.path().into(), Arc::clone(&store.store), quick()).await.unwrap();
        outbox.flush(in_seconds(10)).await.unwrap();
        assert_eq!(game.format, 1, "an unversioned record is of format 1");
        assert_stored_once(&*store.store, &[game]).await;
    }
}

#[tokio::test]
async fn submit_returns_at_once_while_the_store_hangs() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::support::stores::memory();
    let switch = Switch::new(Arc::clone(&store.store), true);
    switch.set_hang(true);
    let (outbox, _task) = Outbox::start(dir.path().into(), switch.clone(), quick())
        .await
        .unwrap();
    let games = records(4);
    for record in &games {
        let submitted = tokio::time::timeout(Duration::from_secs(2), outbox.submit(record.clone()));
        submitted
            .await
            .expect("submit does not wait for the store")
            .unwrap();
    }
    assert_eq!(outbox.depth(), 4);
    assert_eq!(
        outbox
            .flush(Instant::now() + Duration::from_millis(50))
            .await,
        Err(4)
    );

    switch.set_hang(false);
    outbox.flush(in_seconds(10)).await.unwrap();
    assert_stored_once(&*store.store, &games).await;
}

#[tokio::test]
async fn records_submitted_together_share_one_sync_round_and_each_is_on_disk_when_submit_returns() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::support::stores::memory();
    // The store hangs, so every file stays where the submit left it.
    let switch = Switch::new(Arc::clone(&store.store), true);
    switch.set_hang(true);
    // A window far longer than it takes to hand eight records over.
    let options = OutboxOptions {
        sync_window: Duration::from_secs(1),
        ..quick()
    };
    let (outbox, _task) = Outbox::start(dir.path().into(), switch.clone(), options)
        .await
        .unwrap();
    let games = records(8);
    let submits = games.iter().map(|record| outbox.submit(record.clone()));
    for submitted in futures_util::future::join_all(submits).await {
        submitted.unwrap();
    }
    assert_eq!(outbox.sync_rounds(), 1);
    for record in &games {
        let kept = std::fs::read(dir.path().join(format!("{}.json", record.id))).unwrap();
        assert_eq!(
            serde_json::from_slice::<GameRecord>(&kept).unwrap(),
            *record
        );
    }
    assert_eq!(files(dir.path(), ".tmp"), 0);

    // A record submitted after the round is the next round's.
    outbox.submit(play(99, Ending::Finished)).await.unwrap();
    assert_eq!(outbox.sync_rounds(), 2);
    switch.set_hang(false);
    outbox.flush(in_seconds(10)).await.unwrap();
}

/// Starts an outbox on `dir` as an earlier run left it, with a memory store, and waits until it
/// has written everything it found there; answers the store.
async fn flush_what_was_left(dir: &Path) -> TestStore {
    let store = crate::support::stores::memory();
    let (outbox, _task) = Outbox::start(dir.into(), Arc::clone(&store.store), quick())
        .await
        .unwrap();
    outbox.flush(in_seconds(10)).await.unwrap();
    store
}

#[tokio::test]
async fn leftover_temporary_and_unreadable_files_do_not_stop_the_outbox() {
    let dir = tempfile::tempdir().unwrap();
    let game = play(3, Ending::Finished);
    std::fs::write(dir.path().join("half-written.7.tmp"), b"{\"id\":").unwrap();
    std::fs::write(dir.path().join("garbage.json"), b"not json").unwrap();
    std::fs::write(
        dir.path().join(format!("{}.json", game.id)),
        serde_json::to_vec(&game).unwrap(),
    )
    .unwrap();

    let store = flush_what_was_left(dir.path()).await;
    assert_stored_once(&*store.store, &[game]).await;
    assert_eq!(files(dir.path(), ".tmp"), 0);
    assert!(dir.path().join("corrupt").join("garbage.json").is_file());
}

/// The inode number of `path`: the same file under another name has the same.
fn inode(path: &Path) -> u64 {
    std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(path).unwrap())
}

#[tokio::test]
async fn a_stored_record_s_file_is_kept_and_the_next_record_is_written_over_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::support::stores::memory();
    let switch = Switch::new(Arc::clone(&store.store), true);
    let (outbox, _task) = Outbox::start(dir.path().into(), switch.clone(), quick())
        .await
        .unwrap();
    let long = play(20, Ending::Resigns(Colour::Yellow, 60));
    let short = play(21, Ending::Resigns(Colour::Yellow, 5));
    let long_bytes = serde_json::to_vec(&long).unwrap();
    let short_bytes = serde_json::to_vec(&short).unwrap();
    assert!(long_bytes.len() > short_bytes.len() + 1_000);

    outbox.submit(long.clone()).await.unwrap();
    let long_inode = inode(&dir.path().join(format!("{}.json", long.id)));
    outbox.flush(in_seconds(10)).await.unwrap();
    assert_eq!(files(dir.path(), ".json"), 0);
    assert_eq!(files(dir.path(), ".spare"), 1);

    // The store hangs, so the next record's file stays where its round put it.
    switch.set_hang(true);
    outbox.submit(short.clone()).await.unwrap();
    let kept = dir.path().join(format!("{}.json", short.id));
    assert_eq!(
        inode(&kept),
        long_inode,
        "written over the spare, not a new file"
    );
    assert_eq!(
        std::fs::read(&kept).unwrap(),
        short_bytes,
        "cut to the shorter record's length"
    );
    assert_eq!(files(dir.path(), ".spare"), 0);
    assert_eq!(files(dir.path(), ".tmp"), 0);
    switch.set_hang(false);
    outbox.flush(in_seconds(10)).await.unwrap();
    assert_stored_once(&*store.store, &[long, short]).await;
}

#[tokio::test]
async fn at_most_the_spare_files_asked_for_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::support::stores::memory();
    // Down while the records are submitted, so that none is stored (and none of their files
    // given up) before all are on disk.
    let switch = Switch::new(Arc::clone(&store.store), false);
    let options = OutboxOptions {
        spare_files: 5,
        ..quick()
    };
    let (outbox, _task) = Outbox::start(dir.path().into(), switch.clone(), options)
        .await
        .unwrap();
    let games = records(8);
    for record in &games {
        outbox.submit(record.clone()).await.unwrap();
    }
    switch.set_up(true);
    outbox.flush(in_seconds(30)).await.unwrap();
    assert_stored_once(&*store.store, &games).await;
    assert_eq!(files(dir.path(), ".json"), 0);
    assert_eq!(files(dir.path(), ".spare"), 5);
}

#[tokio::test]
async fn spare_files_an_earlier_run_left_are_deleted_not_sent() {
    // A spare holds a stored record, or part of one a round was writing when the process
    // stopped: neither is a record to send.
    let dir = tempfile::tempdir().unwrap();
    let stored = play(30, Ending::Finished);
    let left = [dir.path().join("5.spare"), dir.path().join("6.spare")];
    std::fs::write(&left[0], serde_json::to_vec(&stored).unwrap()).unwrap();
    std::fs::write(&left[1], b"{\"format\":2,\"id\":").unwrap();
    let game = play(31, Ending::Finished);
    let game_bytes = serde_json::to_vec(&game).unwrap();
    std::fs::write(dir.path().join(format!("{}.json", game.id)), &game_bytes).unwrap();

    let store = flush_what_was_left(dir.path()).await;
    assert_stored_once(&*store.store, &[game]).await;
    assert!(left.iter().all(|spare| !spare.exists()));
    // The one spare now is the stored game's file.
    let spares: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|suffix| suffix == "spare"))
        .collect();
    assert_eq!(spares.len(), 1);
    assert_eq!(std::fs::read(&spares[0]).unwrap(), game_bytes);
    assert!(!dir.path().join("corrupt").exists());
}

#[tokio::test]
async fn a_record_of_a_newer_format_is_set_aside_not_misread() {
    // What a newer server left before this one replaced it: kept on disk for it, never stored
    // as something it is not.
    let dir = tempfile::tempdir().unwrap();
    let game = play(4, Ending::Finished);
    let newer = play(5, Ending::Finished);
    let mut newer_json = serde_json::to_value(&newer).unwrap();
    newer_json["format"] = (RECORD_FORMAT + 1).into();
    let newer_name = format!("{}.json", newer.id);
    std::fs::write(
        dir.path().join(&newer_name),
        serde_json::to_vec(&newer_json).unwrap(),
    )
    .unwrap();
    std::fs::write(
        dir.path().join(format!("{}.json", game.id)),
        serde_json::to_vec(&game).unwrap(),
    )
    .unwrap();

    let store = flush_what_was_left(dir.path()).await;
    assert_stored_once(&*store.store, &[game]).await;
    assert!(dir.path().join("corrupt").join(&newer_name).is_file());
}

#[tokio::test]
async fn games_wait_on_disk_while_postgres_is_unreachable_and_a_restart_writes_them() {
    let dir = tempfile::tempdir().unwrap();
    let games = records(3);
    {
        let url = format!(
            "postgres://postgres@127.0.0.1:{}/postgres",
            crate::support::closed_port()
        );
        let unreachable = Arc::new(aeroplane_store::PostgresStore::connect_lazy(&url).unwrap());
        let (outbox, task) = Outbox::start(dir.path().into(), unreachable, quick())
            .await
            .unwrap();
        for record in &games {
            outbox.submit(record.clone()).await.unwrap();
        }
        assert_eq!(
            outbox
                .flush(Instant::now() + Duration::from_millis(300))
                .await,
            Err(3)
        );
        drop(outbox);
        tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .unwrap()
            .unwrap();
    }

    let store = crate::support::stores::sqlite().await;
    let (outbox, _task) = Outbox::start(dir.path().into(), Arc::clone(&store.store), quick())
        .await
        .unwrap();
    outbox.flush(in_seconds(10)).await.unwrap();
    assert_stored_once(&*store.store, &games).await;
}
