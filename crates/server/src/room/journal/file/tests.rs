//! The file store's log: what a restart reads back after appends, rewrites, ends, writes cut
//! short, new segments and the journals of servers before the log.

use std::io::Write as _;

use aeroplane_protocol::record::LoggedAction;
use aeroplane_rules::{Side, TableAction};

use super::super::format;
use super::*;

fn action(event: u64) -> Line {
    Line::Action(LoggedAction {
        event,
        action: TableAction::Resign { colour: Side::Red },
        undone: false,
    })
}

/// Opens the store in `dir` again, as a restarted server does, and reads what it holds.
async fn reopen(dir: &Path, segment_bytes: u64) -> (Arc<FileJournals>, HashMap<Uuid, Vec<Line>>) {
    let store = FileJournals::open_with(dir.to_owned(), segment_bytes).unwrap();
    let loaded = store.load_all().await;
    let read = loaded
        .into_iter()
        .map(|loaded| {
            let id = entries_id(&loaded);
            (id, loaded.entries.unwrap())
        })
        .collect();
    (store, read)
}

fn entries_id(loaded: &Loaded) -> Uuid {
    let name = &loaded.name;
    let start = name.find('(').map_or(0, |at| at + 1);
    Uuid::try_parse(name[start..].trim_end_matches(')')).unwrap()
}

fn segment_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| segment::number_of(name).is_some())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_restart_reads_every_journal_as_its_room_left_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileJournals::open(dir.path().to_owned()).unwrap();
    let (kept, rewritten, deleted) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    let mut first = store.create(kept, &[action(1)]).await.unwrap();
    let mut second = store.create(rewritten, &[action(1)]).await.unwrap();
    let third = store.create(deleted, &[action(1)]).await.unwrap();
    first.append(&[action(2), action(3)]).await.unwrap();
    second.append(&[action(2)]).await.unwrap();
    second.rewrite(&[action(5)]).await.unwrap();
    // An append made at once (as a room makes every append to this store) lands like one
    // awaited.
    second.append_now(&[action(6)]).unwrap().unwrap();
    first.append_now(&[action(4)]).unwrap().unwrap();
    third.delete().await.unwrap();
    drop((first, second, store));

    let (_store, read) = reopen(dir.path(), SEGMENT_BYTES).await;
    assert_eq!(read.len(), 2);
    assert_eq!(
        read[&kept],
        vec![action(1), action(2), action(3), action(4)]
    );
    assert_eq!(read[&rewritten], vec![action(5), action(6)]);
}

#[tokio::test]
async fn each_start_writes_a_new_segment_and_lets_the_old_ones_go_once_nobody_needs_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileJournals::open(dir.path().to_owned()).unwrap();
    let id = Uuid::new_v4();
    store.create(id, &[action(1)]).await.unwrap();
    drop(store);
    assert_eq!(segment_files(dir.path()), vec!["journal-0000000001.log"]);

    let store = FileJournals::open(dir.path().to_owned()).unwrap();
    let mut loaded = store.load_all().await;
    assert_eq!(loaded.len(), 1);
    assert_eq!(
        segment_files(dir.path()),
        vec!["journal-0000000001.log", "journal-0000000002.log"]
    );
    // The restored journal still begins in the first segment: it is kept through a sync.
    store.sync(true).await;
    assert_eq!(segment_files(dir.path()).len(), 2);
    // Rewritten (as every restored room does at once), it needs the first segment no more.
    let mut journal = loaded.pop().unwrap().journal;
    journal.rewrite(&[action(1), action(2)]).await.unwrap();
    store.sync(false).await;
    assert_eq!(segment_files(dir.path()), vec!["journal-0000000002.log"]);
    drop((journal, store));
    let (_store, read) = reopen(dir.path(), SEGMENT_BYTES).await;
    assert_eq!(read[&id], vec![action(1), action(2)]);
}

#[tokio::test]
async fn a_full_segment_is_followed_by_a_new_one_and_old_journals_ask_to_be_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileJournals::open_with(dir.path().to_owned(), 1).unwrap();
    store.load_all().await;
    let (quiet, busy) = (Uuid::new_v4(), Uuid::new_v4());
    let mut quiet_journal = store.create(quiet, &[action(1)]).await.unwrap();
    let mut busy_journal = store.create(busy, &[action(1)]).await.unwrap();
    // Each sync finds the segment full (one byte is enough) and begins the next.
    store.sync(false).await;
    busy_journal.append(&[action(2)]).await.unwrap();
    assert!(!busy_journal.wants_rewrite());
    store.sync(false).await;
    assert!(quiet_journal.wants_rewrite());
    assert_eq!(store.wanting_rewrite().len(), 2);
    busy_journal.rewrite(&[action(1), action(2)]).await.unwrap();
    assert_eq!(store.wanting_rewrite(), vec![quiet]);
    // The quiet journal begins in the first segment and has lines in none other: every segment
    // stays while it is there.
    store.sync(false).await;
    assert_eq!(segment_files(dir.path()).len(), 4);
    quiet_journal.rewrite(&[action(1)]).await.unwrap();
    store.sync(false).await;
    let files = segment_files(dir.path());
    assert_eq!(
        files,
        vec![
            "journal-0000000003.log",
            "journal-0000000004.log",
            "journal-0000000005.log"
        ]
    );
    drop((quiet_journal, busy_journal, store));
    let (_store, read) = reopen(dir.path(), SEGMENT_BYTES).await;
    assert_eq!(read[&quiet], vec![action(1)]);
    assert_eq!(read[&busy], vec![action(1), action(2)]);
}

#[tokio::test]
async fn what_a_write_cut_short_leaves_is_read_as_if_it_had_never_been_tried() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileJournals::open(dir.path().to_owned()).unwrap();
    let (id, other) = (Uuid::new_v4(), Uuid::new_v4());
    let mut journal = store.create(id, &[action(1), action(2)]).await.unwrap();
    let log = store.log.clone();
    // A rewrite that lost its last line, and a line torn half way: the rest of each one's
    // range was never written, so it reads as NULs.
    let mut cut = segment::begin(id, &[action(7), action(8)]);
    let kept = cut.len() - 60;
    cut[kept..].fill(0);
    log.write(&cut).unwrap();
    let mut torn = format!("{other} {{\"action\":{{\"event\":1}}}}\n").into_bytes();
    let kept = torn.len() / 2;
    torn[kept..].fill(0);
    log.write(&torn).unwrap();
    store.create(other, &[action(1)]).await.unwrap();
    // An append tried again after a failure that had half written it.
    let mut twice = Vec::new();
    segment::push_entries(&mut twice, id, &[action(3)]);
    log.write(&twice).unwrap();
    journal.append(&[action(3), action(4)]).await.unwrap();
    drop((journal, store, log));

    let (_store, read) = reopen(dir.path(), SEGMENT_BYTES).await;
    assert_eq!(read[&id], (1..=4).map(action).collect::<Vec<_>>());
    assert_eq!(read[&other], vec![action(1)]);
}

#[tokio::test]
async fn a_journal_set_aside_is_copied_out_for_an_operator_and_never_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileJournals::open(dir.path().to_owned()).unwrap();
    let id = Uuid::new_v4();
    let mut journal = store.create(id, &[action(1)]).await.unwrap();
    journal.append(&[action(2)]).await.unwrap();
    journal.set_aside().await.unwrap();
    let broken = fs::read_to_string(dir.path().join(format!("{id}.jsonl.broken"))).unwrap();
    assert_eq!(broken, format::encode_lines(&[action(1), action(2)]));
    drop(store);
    let (_store, read) = reopen(dir.path(), SEGMENT_BYTES).await;
    assert!(read.is_empty());
}

#[tokio::test]
async fn a_journal_file_of_a_server_before_the_log_is_read_and_moved_into_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let (id, moved) = (Uuid::new_v4(), Uuid::new_v4());
    let one_file = dir.path().join(format!("{id}.jsonl"));
    let mut file = fs::File::create(&one_file).unwrap();
    file.write_all(format::encode_lines(&[action(1), action(2)]).as_bytes())
        .unwrap();
    // A journal moved into the log by a run killed before it removed its old file.
    let store = FileJournals::open(dir.path().to_owned()).unwrap();
    store.create(moved, &[action(9)]).await.unwrap();
    fs::write(
        dir.path().join(format!("{moved}.jsonl")),
        format::encode_lines(&[action(1)]),
    )
    .unwrap();
    drop(store);

    let store = FileJournals::open(dir.path().to_owned()).unwrap();
    let mut loaded = store.load_all().await;
    assert_eq!(loaded.len(), 2);
    assert!(!dir.path().join(format!("{moved}.jsonl")).exists());
    let position = loaded
        .iter()
        .position(|loaded| loaded.name.ends_with(".jsonl"))
        .unwrap();
    let mut journal = loaded.swap_remove(position);
    assert_eq!(journal.entries.unwrap(), vec![action(1), action(2)]);
    assert!(journal.journal.wants_rewrite());
    journal
        .journal
        .rewrite(&[action(1), action(2)])
        .await
        .unwrap();
    assert!(!one_file.exists());
    journal.journal.append(&[action(3)]).await.unwrap();
    drop((journal.journal, loaded, store));
    let (_store, read) = reopen(dir.path(), SEGMENT_BYTES).await;
    assert_eq!(read[&id], vec![action(1), action(2), action(3)]);
    assert_eq!(read[&moved], vec![action(9)]);
}

/// Appends `count` actions after the first, one write each, and answers the journal.
async fn append_many(store: Arc<FileJournals>, id: Uuid, count: u64) -> Box<dyn RoomJournal> {
    let mut journal = store.create(id, &[action(1)]).await.unwrap();
    for event in 2..=count {
        journal.append(&[action(event)]).await.unwrap();
    }
    journal
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn lines_written_through_the_map_and_past_its_end_from_many_threads_all_read_back() {
    let dir = tempfile::tempdir().unwrap();
    // A map of 1 MiB (sixteen chunks); no sync runs, so the segment is never rotated and the
    // writes go on past the map's end with pwrite(2).
    let store = FileJournals::open_with(dir.path().to_owned(), 512 << 10).unwrap();
    store.load_all().await;
    let path = store.log.current().path(dir.path());
    let first = Uuid::new_v4();
    let journal = append_many(store.clone(), first, 100).await;
    let length = fs::metadata(&path).unwrap().len();
    assert!(
        length > 0 && length.is_multiple_of(mapped::CHUNK),
        "the map's file grows by whole chunks, not by what pwrite(2) wrote: {length} bytes"
    );
    let ids: Vec<Uuid> = (0..4).map(|_| Uuid::new_v4()).collect();
    let writers: Vec<_> = ids
        .iter()
        .map(|&id| tokio::spawn(append_many(store.clone(), id, 3_000)))
        .collect();
    let mut journals = vec![journal];
    for writer in writers {
        journals.push(writer.await.unwrap());
    }
    assert!(store.log.current().len() > 1 << 20, "past the map's end");
    drop((journals, store));

    let (_store, read) = reopen(dir.path(), SEGMENT_BYTES).await;
    assert_eq!(read[&first], (1..=100).map(action).collect::<Vec<_>>());
    for id in ids {
        assert_eq!(read[&id], (1..=3_000).map(action).collect::<Vec<_>>());
    }
}
