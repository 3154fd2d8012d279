//! What a failed write means for the room: the decision of [`Writer::update`], against a
//! journal store that fails as each test says (a broker's outage cannot be had on demand in
//! a unit test; `tests/integration/cluster_partition.rs` cuts a real one).

use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Mutex};

use aeroplane_protocol::record::{LoggedAction, Mode};
use aeroplane_rules::{Die, Side, TableAction};
use futures_util::future::{BoxFuture, FutureExt};
use time::OffsetDateTime;
use uuid::Uuid;

use super::super::format::{Line, SavedClock, Setup, VERSION};
use super::super::store::{Failure, JournalStore, Loaded, Revoked, RoomJournal, Unacknowledged};
use super::{JournalState, Lost, Writer};

/// What the store was asked and what it is told to answer.
#[derive(Debug, Default)]
struct Script {
    /// The answers of the next writes, in order; a write with none left succeeds.
    failures: VecDeque<io::Error>,
    /// How many writes were tried.
    tries: usize,
    /// The actions written, in order.
    actions: Vec<u64>,
    /// How many rewrites were made.
    rewrites: usize,
    /// Whether the journal asks to be rewritten (until it is).
    wants_rewrite: bool,
    /// The strikes of the clock entries written, in order.
    clocks: Vec<Vec<u32>>,
    /// Whether appends are made at once (`append_now`, as the file store's are) rather than
    /// awaited (as a broker's are).
    at_once: bool,
    /// How many appends were made at once.
    appended_at_once: usize,
}

impl Script {
    fn write(&mut self, entries: &[Line]) -> io::Result<()> {
        self.tries += 1;
        if let Some(failure) = self.failures.pop_front() {
            return Err(failure);
        }
        self.actions
            .extend(entries.iter().filter_map(|line| match line {
                Line::Action(logged) => Some(logged.event),
                _ => None,
            }));
        self.clocks
            .extend(entries.iter().filter_map(|line| match line {
                Line::Clock(clock) => Some(clock.strikes.clone()),
                _ => None,
            }));
        Ok(())
    }
}

/// A store (and its one journal) that writes into a shared [`Script`].
#[derive(Debug, Clone, Default)]
struct Scripted(Arc<Mutex<Script>>);

impl Scripted {
    fn fail_next(&self, error: io::Error) {
        self.0.lock().unwrap().failures.push_back(error);
    }

    fn tries(&self) -> usize {
        self.0.lock().unwrap().tries
    }

    fn actions(&self) -> Vec<u64> {
        self.0.lock().unwrap().actions.clone()
    }

    fn write(&self, entries: &[Line]) -> io::Result<()> {
        self.0.lock().unwrap().write(entries)
    }
}

impl JournalStore for Scripted {
    fn create<'a>(
        &'a self,
        _id: Uuid,
        entries: &'a [Line],
    ) -> BoxFuture<'a, io::Result<Box<dyn RoomJournal>>> {
        let created = self
            .write(entries)
            .map(|()| Box::new(self.clone()) as Box<dyn RoomJournal>);
        async move { created }.boxed()
    }

    fn load_all(&self) -> BoxFuture<'_, Vec<Loaded>> {
        async { Vec::new() }.boxed()
    }

    fn sync(&self, _all: bool) -> BoxFuture<'_, ()> {
        async {}.boxed()
    }
}

impl RoomJournal for Scripted {
    fn append<'a>(&'a mut self, entries: &'a [Line]) -> BoxFuture<'a, io::Result<()>> {
        let written = self.write(entries);
        async move { written }.boxed()
    }

    fn append_now(&mut self, entries: &[Line]) -> Option<io::Result<()>> {
        let mut script = self.0.lock().unwrap();
        if !script.at_once {
            return None;
        }
        script.appended_at_once += 1;
        Some(script.write(entries))
    }

    fn rewrite<'a>(&'a mut self, entries: &'a [Line]) -> BoxFuture<'a, io::Result<()>> {
        {
            let mut script = self.0.lock().unwrap();
            script.rewrites += 1;
            script.wants_rewrite = false;
        }
        self.append(entries)
    }

    fn wants_rewrite(&self) -> bool {
        self.0.lock().unwrap().wants_rewrite
    }

    fn delete(self: Box<Self>) -> BoxFuture<'static, io::Result<()>> {
        async { Ok(()) }.boxed()
    }

    fn set_aside(self: Box<Self>) -> BoxFuture<'static, io::Result<()>> {
        async { Ok(()) }.boxed()
    }
}

/// `count` rolls, numbered 1, 2, …
fn rolls(count: u64) -> Vec<LoggedAction> {
    (1..=count)
        .map(|event| LoggedAction {
            event,
            action: TableAction::Roll {
                colour: Side::Red,
                value: Die::new(3).unwrap(),
            },
            undone: false,
        })
        .collect()
}

/// A started two-player room's setup.
fn setup(id: Uuid) -> Setup {
    Setup {
        version: VERSION,
        id,
        mode: Mode::Online,
        created_at: OffsetDateTime::UNIX_EPOCH,
        started_at: Some(OffsetDateTime::UNIX_EPOCH),
        server_seed: String::new(),
        commitment: String::new(),
        red: None,
        yellow: None,
        blue: None,
        green: None,
        rules: None,
        players: None,
        computer: None,
        computers: Vec::new(),
        turn_clock_ms: None,
    }
}

/// Brings `writer` up to a room that played `count` rolls.
async fn update(writer: &mut Writer, count: u64) -> Result<(), Lost> {
    let actions = rolls(count);
    let state = JournalState {
        actions: &actions,
        undos: 0,
        clock: &SavedClock::default(),
        clock_changes: 1,
        over: false,
    };
    let id = writer.id;
    writer.update(&state, || setup(id)).await
}

/// A writer whose journal holds one roll.
async fn started(store: &Scripted) -> Writer {
    let mut writer = Writer::new(Arc::new(store.clone()), Uuid::new_v4());
    assert!(update(&mut writer, 1).await.is_ok());
    writer
}

/// A write failing with `error`, then two more updates, with appends made at once or awaited:
/// what each answered, and what the store was asked.
async fn after_failure(error: io::Error, at_once: bool) -> (Scripted, Vec<bool>) {
    let store = Scripted::default();
    store.0.lock().unwrap().at_once = at_once;
    let mut writer = started(&store).await;
    store.fail_next(error);
    let mut answers = Vec::new();
    for count in 2..=4 {
        answers.push(update(&mut writer, count).await.is_ok());
    }
    (store, answers)
}

#[test]
fn a_failure_is_told_by_the_error_the_store_carries() {
    assert_eq!(
        Failure::of(&io::Error::other(Revoked("taken".into()))),
        Failure::Fenced
    );
    assert_eq!(
        Failure::of(&io::Error::other(Unacknowledged("timed out".into()))),
        Failure::Unacknowledged
    );
    assert_eq!(
        Failure::of(&io::Error::from(io::ErrorKind::StorageFull)),
        Failure::Other
    );
}

#[tokio::test]
async fn an_unacknowledged_write_lets_the_room_go_and_nothing_more_is_written() {
    for at_once in [false, true] {
        let (store, answers) = after_failure(
            io::Error::other(Unacknowledged(
                "no acknowledgement within the timeout".into(),
            )),
            at_once,
        )
        .await;
        assert_eq!(answers, [false, false, false], "the room must let go");
        assert_eq!(
            store.tries(),
            2,
            "the create, the failed append, nothing after"
        );
        assert_eq!(store.actions(), [1]);
    }
}

#[tokio::test]
async fn a_fenced_write_lets_the_room_go_and_nothing_more_is_written() {
    for at_once in [false, true] {
        let (store, answers) =
            after_failure(io::Error::other(Revoked("a newer writer".into())), at_once).await;
        assert_eq!(answers, [false, false, false]);
        assert_eq!(store.tries(), 2);
        assert_eq!(store.actions(), [1]);
    }
}

#[tokio::test]
async fn another_failure_lets_the_game_go_on_and_the_next_write_sends_what_was_missing() {
    // A file store's disk error: the single node keeps its documented behaviour.
    for at_once in [false, true] {
        let (store, answers) =
            after_failure(io::Error::from(io::ErrorKind::StorageFull), at_once).await;
        assert_eq!(answers, [true, true, true]);
        assert_eq!(store.tries(), 4);
        assert_eq!(store.actions(), [1, 2, 3, 4], "nothing lost, nothing twice");
        let appended_at_once = store.0.lock().unwrap().appended_at_once;
        assert_eq!(
            appended_at_once,
            if at_once { 3 } else { 0 },
            "a store that appends at once is never awaited for an append"
        );
    }
}

#[tokio::test]
async fn a_journal_its_store_wants_moved_is_rewritten_whole_at_the_next_write() {
    let store = Scripted::default();
    let mut writer = started(&store).await;
    store.0.lock().unwrap().wants_rewrite = true;
    assert!(update(&mut writer, 2).await.is_ok());
    assert!(update(&mut writer, 3).await.is_ok());
    let script = store.0.lock().unwrap();
    assert_eq!(script.rewrites, 1, "rewritten once, then appended to");
    assert_eq!(
        script.actions,
        [1, 1, 2, 3],
        "the rewrite holds every action"
    );
}

#[tokio::test]
async fn a_lost_journal_is_dropped_so_its_lease_can_be_given_back() {
    let store = Scripted::default();
    let mut writer = started(&store).await;
    store.fail_next(io::Error::other(Unacknowledged("timed out".into())));
    assert!(update(&mut writer, 2).await.is_err());
    assert!(
        writer.hand_off().is_none(),
        "no journal left to write or hand off"
    );
}

#[tokio::test]
async fn the_clocks_count_is_written_when_it_changed_and_only_then() {
    let store = Scripted::default();
    let mut writer = Writer::new(Arc::new(store.clone()), Uuid::new_v4());
    let id = writer.id;
    let mut clock = SavedClock {
        strikes: vec![0, 0],
        played: Vec::new(),
    };
    let mut changes = 1;
    for count in 1..=5 {
        match count {
            // A strike: the count changed.
            3 => {
                clock.strikes[1] = 1;
                changes += 1;
            }
            // Counted as a change, yet the same count (played, then refused): nothing to write.
            4 => changes += 2,
            _ => {}
        }
        let actions = rolls(count);
        let state = JournalState {
            actions: &actions,
            undos: 0,
            clock: &clock,
            clock_changes: changes,
            over: false,
        };
        assert!(writer.update(&state, || setup(id)).await.is_ok());
    }
    let script = store.0.lock().unwrap();
    assert_eq!(script.actions, [1, 2, 3, 4, 5]);
    assert_eq!(
        script.clocks,
        [vec![0, 0], vec![0, 1]],
        "the count with the journal's start, then once after the strike"
    );
}
