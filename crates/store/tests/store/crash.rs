//! SIGKILL: games the outbox accepted survive the process and are stored once after a restart.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;

use aeroplane_rules::Colour;
use aeroplane_store::{GameQuery, GameStore, MemoryStore, Outbox};
use tokio::time::Instant;
use uuid::Uuid;

use crate::support::game::{Ending, play};
use crate::support::switch::Switch;

/// Set in the child process: the outbox directory it submits to.
const CHILD_DIR: &str = "AEROPLANE_STORE_CRASH_CHILD_DIR";

/// The test the child process runs (a no-op in the normal test run).
const CHILD_TEST: &str = "crash::the_child_process_submits_games_until_it_is_killed";

/// How many submitted games the parent waits for before it kills the child.
const BEFORE_KILL: usize = 12;

#[tokio::test]
async fn the_child_process_submits_games_until_it_is_killed() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        return;
    };
    // The database is down for the whole life of this process.
    let down = Switch::new(Arc::new(MemoryStore::new()), false);
    let (outbox, _task) = Outbox::start(dir.into(), down, crate::outbox::quick())
        .await
        .unwrap();
    let mut stdout = std::io::stdout();
    for n in 0.. {
        let record = play(n, Ending::Resigns(Colour::Yellow, 15));
        outbox.submit(record.clone()).await.unwrap();
        // Straight to the process's stdout, past the test harness's output capture.
        writeln!(stdout, "SUBMITTED {}", record.id).unwrap();
        stdout.flush().unwrap();
    }
}

/// Runs the child on `dir`, kills it with SIGKILL once it reported [`BEFORE_KILL`] submitted
/// games, and returns the ids it reported.
fn run_and_kill_child(dir: &std::path::Path) -> Vec<Uuid> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([CHILD_TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_DIR, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut submitted = Vec::new();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let report = |line: std::io::Result<String>, submitted: &mut Vec<Uuid>| {
        if let Some(id) = line.unwrap().strip_prefix("SUBMITTED ") {
            submitted.push(id.parse().unwrap());
        }
    };
    for line in lines.by_ref() {
        report(line, &mut submitted);
        if submitted.len() == BEFORE_KILL {
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL on Unix.
    child.wait().unwrap();
    assert_eq!(
        submitted.len(),
        BEFORE_KILL,
        "the child reported its submits"
    );
    // The child may have reported more submits before the kill reached it: they count too (the
    // test used to stop reading here, and then found more stored games than reported ones).
    for line in lines {
        report(line, &mut submitted);
    }
    submitted
}

/// Restarts an outbox on `dir` with `store` up and checks every reported game is stored once.
async fn restart_and_check(dir: &std::path::Path, store: Arc<dyn GameStore>, submitted: &[Uuid]) {
    let (outbox, task) = Outbox::start(dir.into(), Arc::clone(&store), crate::outbox::quick())
        .await
        .unwrap();
    outbox
        .flush(Instant::now() + std::time::Duration::from_secs(20))
        .await
        .unwrap();
    drop(outbox);
    task.await.unwrap();

    let stored = store
        .list(&GameQuery {
            limit: 100,
            ..GameQuery::default()
        })
        .await
        .unwrap();
    for id in submitted {
        assert_eq!(
            stored.iter().filter(|record| record.id == *id).count(),
            1,
            "game {id}"
        );
    }
    // At most one more: a submit the kill interrupted after its rename but before it answered.
    assert!(
        stored.len() <= submitted.len() + 1,
        "{} stored",
        stored.len()
    );

    // A second restart finds nothing left and writes nothing again.
    let (outbox, _task) = Outbox::start(dir.into(), Arc::clone(&store), crate::outbox::quick())
        .await
        .unwrap();
    assert_eq!(outbox.depth(), 0);
    let again = store
        .list(&GameQuery {
            limit: 100,
            ..GameQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(again.len(), stored.len());
}

#[tokio::test]
async fn games_submitted_before_a_sigkill_are_stored_once_in_sqlite_after_a_restart() {
    if std::env::var(CHILD_DIR).is_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let submitted = run_and_kill_child(dir.path());
    let store = crate::support::stores::sqlite().await;
    restart_and_check(dir.path(), Arc::clone(&store.store), &submitted).await;
}

#[tokio::test]
async fn games_submitted_before_a_sigkill_are_stored_once_in_postgres_after_a_restart() {
    if std::env::var(CHILD_DIR).is_ok() {
        return;
    }
    let Some(store) = crate::support::stores::postgres().await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let submitted = run_and_kill_child(dir.path());
    restart_and_check(dir.path(), Arc::clone(&store.store), &submitted).await;
}
