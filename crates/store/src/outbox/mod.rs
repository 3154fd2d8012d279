//! The durable outbox: finished games wait on local disk until the store has them.
//!
//! A room hands its record to [`OutboxHandle::submit`], which writes it to a file in the outbox
//! directory and makes that durable (write a temporary file, force it to disk, rename it to
//! `<game id>.json`, force the directory) before it returns. It never waits for the database. A
//! background task writes waiting records to the [`GameStore`], several per round trip, and
//! gives up a file only after the store answered `Inserted` or `AlreadyStored`. While the store
//! fails it retries with exponential backoff. On start it picks up every file an earlier run
//! left behind.
//!
//! A file given up is kept as a spare, `<n>.spare`, for a later record to be written over
//! instead of a new temporary file, up to [`OutboxOptions::spare_files`] (`spare.rs` says why:
//! a file made and deleted per game was dear).
//!
//! # Sync rounds
//!
//! Forcing a file to disk is the dearest part of keeping a record (two `fsync(2)`s per game
//! were about 4% of the server's CPU under load, issue 18), so the records submitted within
//! [`OutboxOptions::sync_window`] of each other share them: one round writes each to its
//! temporary file, forces them all to disk at once (one `syncfs(2)` on Linux, file by file
//! elsewhere), renames each and forces the directory once. A submit returns when its round
//! is done, so it waits up to the window longer than alone; the guarantees below are the same.
//!
//! # Guarantees
//!
//! - **Nothing lost**: once `submit` returned, the record survives a database outage, a crash
//!   and SIGKILL; it stays on disk until the store has it. A submit that had not returned when
//!   the process died may be lost (its temporary file is removed at the next start); the room
//!   never told anyone it was saved.
//! - **Nothing twice**: a record may be sent to the store more than once (a crash between the
//!   store's answer and the file's deletion, or a timeout after the insert committed), but the
//!   store's insert is idempotent on the game id, so it is stored once.
//! - **A record the store refuses for good** ([`StoreError::Rejected`]) is moved to
//!   `rejected/` inside the outbox directory, so it cannot block the others, with an error log
//!   naming the game id and the reason, and the counter `aeroplane_store_rejected_total` (the
//!   `metrics` facade) goes up by one. It is never deleted: **every start retries the records
//!   in `rejected/`** (they go back into the queue), since a new version of the server or a
//!   fixed database may take them; to retry at once, restart the server. A file that is not a
//!   readable record is moved to `corrupt/` likewise and is not retried.
//!
//! A caller that must know when a record is in the store, not only on this disk, submits it
//! with [`OutboxHandle::submit_watched`]: a cluster node keeps a finished game's journal (on
//! NATS, where another node can take it over) until then, so that losing the node's disk cannot
//! lose the game.
//!
//! One outbox owns a directory: do not start two on the same one at once.

use std::collections::{HashMap, VecDeque};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use aeroplane_protocol::record::GameRecord;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use uuid::Uuid;

use crate::{GameStore, Saved, StoreError};

mod spare;
mod sync;

use spare::Spares;
use sync::{Syncer, Unsynced};

/// How the outbox retries and batches.
#[derive(Clone, Debug)]
pub struct OutboxOptions {
    /// The wait after the first failed write; it doubles after each further failure.
    pub initial_backoff: Duration,
    /// The longest wait between two tries.
    pub max_backoff: Duration,
    /// The most records written in one round trip.
    pub batch_size: usize,
    /// How long one write may take before it counts as failed and is retried.
    pub write_timeout: Duration,
    /// How long the first record of a sync round waits for others to share the round's
    /// forcing to disk (see the module docs).
    pub sync_window: Duration,
    /// The most files of stored records kept to write later records over (`spare.rs`); each
    /// takes about a record's size on disk (some 18 kB).
    pub spare_files: usize,
}

impl Default for OutboxOptions {
    fn default() -> OutboxOptions {
        OutboxOptions {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(10),
            batch_size: 100,
            write_timeout: Duration::from_secs(30),
            sync_window: Duration::from_millis(100),
            spare_files: 256,
        }
    }
}

/// Why the outbox could not take a record or open its directory.
#[derive(Debug, thiserror::Error)]
pub enum OutboxError {
    /// The outbox directory could not be read or written.
    #[error("outbox directory {path}: {source}")]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// The record could not be encoded as JSON.
    #[error("cannot encode game record: {0}")]
    Encode(#[from] serde_json::Error),
    /// The outbox stopped before the record was kept (the runtime is shutting down).
    #[error("the outbox stopped before the record was kept")]
    Stopped,
}

/// The durable outbox; [`Outbox::start`] opens one.
#[derive(Debug)]
pub struct Outbox;

impl Outbox {
    /// Opens the outbox in `dir` (created if missing), loads the records an earlier run left
    /// there and starts the task that writes them to `store`. The task ends when every handle
    /// has been dropped; records not yet written stay on disk for the next start.
    pub async fn start(
        dir: PathBuf,
        store: Arc<dyn GameStore>,
        options: OutboxOptions,
    ) -> Result<(OutboxHandle, JoinHandle<()>), OutboxError> {
        // Zero from the start, so a dashboard's `rate()` works from the first scrape.
        metrics::counter!(REJECTED_METRIC).increment(0);
        let load_dir = dir.clone();
        let left = tokio::task::spawn_blocking(move || load(&load_dir))
            .await
            .expect("the outbox loader does not panic")?;
        if !left.is_empty() {
            tracing::info!(pending = left.len(), dir = %dir.display(), "outbox: picked up records left by an earlier run");
        }
        let (depth, _) = watch::channel(left.len());
        let shared = Arc::new(Shared {
            dir,
            queue: Mutex::new(left.into()),
            depth,
            watchers: Mutex::default(),
            sync_rounds: AtomicU64::new(0),
            spares: Spares::new(options.spare_files),
        });
        let (wake, woken) = mpsc::channel(1);
        let (sync, waiting) = mpsc::unbounded_channel();
        let syncer = Syncer {
            shared: Arc::clone(&shared),
            window: options.sync_window,
            waiting,
        };
        tokio::spawn(syncer.run());
        let worker = Worker {
            shared: Arc::clone(&shared),
            store,
            options,
            woken,
        };
        let task = tokio::spawn(worker.run());
        Ok((OutboxHandle { shared, wake, sync }, task))
    }
}

/// Submits records to the outbox; cheap to clone.
#[derive(Clone, Debug)]
pub struct OutboxHandle {
    shared: Arc<Shared>,
    wake: mpsc::Sender<()>,
    /// To the task that makes records durable, in sync rounds.
    sync: mpsc::UnboundedSender<Unsynced>,
}

impl OutboxHandle {
    /// Writes `record` durably to the outbox and returns; the store gets it in the background.
    pub async fn submit(&self, mut record: GameRecord) -> Result<(), OutboxError> {
        let bytes = record.to_json_vec()?;
        let (kept, outcome) = oneshot::channel();
        let unsynced = Unsynced {
            id: record.id,
            bytes,
            kept,
        };
        self.sync.send(unsynced).map_err(|_| OutboxError::Stopped)?;
        outcome.await.map_err(|_| OutboxError::Stopped)??;
        {
            let mut queue = self.shared.queue.lock().expect("outbox lock poisoned");
            queue.push_back(record);
            self.shared.depth.send_replace(queue.len());
        }
        // A full channel means the worker has a wake-up waiting already.
        let _ = self.wake.try_send(());
        Ok(())
    }

    /// Like [`OutboxHandle::submit`], and answers a receiver told what became of the record:
    /// [`Settled::Stored`] once the store has it, [`Settled::Rejected`] if the store refused it
    /// for good (it is then in `rejected/`). The receiver fails if the outbox stops first (the
    /// record stays on disk for the next start).
    pub async fn submit_watched(
        &self,
        record: GameRecord,
    ) -> Result<oneshot::Receiver<Settled>, OutboxError> {
        let (settle, settled) = oneshot::channel();
        let id = record.id;
        // Watched before it is queued, so that the worker cannot settle it unseen.
        self.shared.watchers().entry(id).or_default().push(settle);
        if let Err(error) = self.submit(record).await {
            self.shared.watchers().remove(&id);
            return Err(error);
        }
        Ok(settled)
    }

    /// How many sync rounds have started since the outbox started.
    pub fn sync_rounds(&self) -> u64 {
        self.shared.sync_rounds.load(Ordering::Relaxed)
    }

    /// How many records wait for the store.
    pub fn depth(&self) -> usize {
        *self.shared.depth.borrow()
    }

    /// Waits until no record waits for the store, or until `deadline`; on timeout, answers how
    /// many still wait (they stay on disk). For graceful shutdown.
    pub async fn flush(&self, deadline: Instant) -> Result<(), usize> {
        let mut depth = self.shared.depth.subscribe();
        match tokio::time::timeout_at(deadline, depth.wait_for(|depth| *depth == 0)).await {
            Ok(_) => Ok(()),
            Err(_) => Err(self.depth()),
        }
    }
}

/// What became of a record submitted with [`OutboxHandle::submit_watched`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// The store has it (inserted now, or stored already).
    Stored,
    /// The store refused it for good; it waits in `rejected/` for the next start.
    Rejected,
}

#[derive(Debug)]
struct Shared {
    dir: PathBuf,
    /// Records waiting for the store, oldest first. Only the worker removes them, from the front.
    queue: Mutex<VecDeque<GameRecord>>,
    depth: watch::Sender<usize>,
    /// Who waits to hear what became of a record, by game id.
    watchers: Mutex<HashMap<Uuid, Vec<oneshot::Sender<Settled>>>>,
    /// The sync rounds started so far.
    sync_rounds: AtomicU64,
    /// Files of stored records, to write the next records into.
    spares: Spares,
}

impl Shared {
    fn watchers(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Vec<oneshot::Sender<Settled>>>> {
        self.watchers.lock().expect("outbox lock poisoned")
    }

    /// Tells whoever watches record `id` what became of it.
    fn settle(&self, id: Uuid, settled: Settled) {
        for watcher in self.watchers().remove(&id).unwrap_or_default() {
            let _ = watcher.send(settled);
        }
    }
}

struct Worker {
    shared: Arc<Shared>,
    store: Arc<dyn GameStore>,
    options: OutboxOptions,
    woken: mpsc::Receiver<()>,
}

impl Worker {
    async fn run(mut self) {
        let mut backoff = self.options.initial_backoff;
        // After a batch was rejected, its records are retried one by one to find the bad one.
        let mut one_by_one: usize = 0;
        loop {
            let size = if one_by_one > 0 {
                1
            } else {
                self.options.batch_size.max(1)
            };
            let batch: Vec<GameRecord> = {
                let queue = self.shared.queue.lock().expect("outbox lock poisoned");
                queue.iter().take(size).cloned().collect()
            };
            if batch.is_empty() {
                match self.woken.recv().await {
                    Some(()) => continue,
                    None => return,
                }
            }
            let written =
                tokio::time::timeout(self.options.write_timeout, self.store.save_batch(&batch))
                    .await
                    .unwrap_or_else(|_| Err(StoreError::Unavailable("write timed out".to_owned())));
            match written {
                Ok(saved) => {
                    for (record, saved) in batch.iter().zip(&saved) {
                        self.shared.spares.give(&self.shared.dir, record.id);
                        self.shared.settle(record.id, Settled::Stored);
                        let already = *saved == Saved::AlreadyStored;
                        tracing::info!(game_id = %record.id, already_stored = already, "outbox: game record written");
                    }
                    self.pop(batch.len());
                    one_by_one = one_by_one.saturating_sub(batch.len());
                    backoff = self.options.initial_backoff;
                }
                Err(StoreError::Rejected(reason)) if batch.len() > 1 => {
                    tracing::warn!(%reason, "outbox: the store rejected a batch; retrying its records one by one");
                    one_by_one = batch.len();
                }
                Err(StoreError::Rejected(reason)) => {
                    let id = batch[0].id;
                    tracing::error!(game_id = %id, %reason, "outbox: the store rejected a game record; moved aside to rejected/, retried at the next start");
                    metrics::counter!(REJECTED_METRIC).increment(1);
                    set_aside(&self.shared.dir, &file_name(id), "rejected");
                    self.shared.settle(id, Settled::Rejected);
                    self.pop(1);
                    one_by_one = one_by_one.saturating_sub(1);
                }
                Err(error) => {
                    tracing::warn!(%error, pending = self.shared.depth.borrow().to_owned(), retry_in_ms = backoff.as_millis() as u64, "outbox: cannot write game records; will retry");
                    if !self.sleep(backoff).await {
                        return;
                    }
                    backoff = (backoff * 2).min(self.options.max_backoff);
                }
            }
        }
    }

    /// Removes the first `count` records of the queue, which the worker has just dealt with.
    fn pop(&self, count: usize) {
        let mut queue = self.shared.queue.lock().expect("outbox lock poisoned");
        queue.drain(..count);
        self.shared.depth.send_replace(queue.len());
    }

    /// Waits `duration`; answers false if every handle was dropped meanwhile.
    async fn sleep(&mut self, duration: Duration) -> bool {
        let sleep = tokio::time::sleep(duration);
        tokio::pin!(sleep);
        loop {
            tokio::select! {
                () = &mut sleep => return true,
                woken = self.woken.recv() => if woken.is_none() { return false },
            }
        }
    }
}

/// The counter of records the store refused for good.
pub const REJECTED_METRIC: &str = "aeroplane_store_rejected_total";

fn file_name(id: Uuid) -> String {
    format!("{id}.json")
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> OutboxError + '_ {
    move |source| OutboxError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Moves `name` into the subdirectory `aside` of `dir`, keeping it for a person to look at.
fn set_aside(dir: &Path, name: &str, aside: &str) {
    let target = dir.join(aside);
    let moved = crate::private::create_dir_all(&target)
        .and_then(|()| fs::rename(dir.join(name), target.join(name)));
    if let Err(error) = moved {
        tracing::error!(%error, file = name, "outbox: cannot move a file aside");
    }
}

/// Moves the records in `rejected/` back into the outbox, to be tried again (see the module
/// docs). Failures are logged: the file stays where it is for the next start.
fn retry_rejected(dir: &Path) {
    let rejected = dir.join("rejected");
    let Ok(entries) = fs::read_dir(&rejected) else {
        return;
    };
    let mut retried = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().ends_with(".json") {
            continue;
        }
        match fs::rename(entry.path(), dir.join(&name)) {
            Ok(()) => retried += 1,
            Err(error) => {
                tracing::error!(%error, file = %entry.path().display(), "outbox: cannot retry a rejected record")
            }
        }
    }
    if retried > 0 {
        tracing::info!(
            retried,
            "outbox: retrying the records the store rejected before"
        );
    }
}

/// Creates `dir` if needed, moves the rejected records back, removes temporary files of
/// unfinished submits and spare files, and reads the records left there, oldest first.
fn load(dir: &Path) -> Result<Vec<GameRecord>, OutboxError> {
    crate::private::create_dir_all(dir).map_err(io_error(dir))?;
    retry_rejected(dir);
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if !entry.file_type().map_err(io_error(&path))?.is_file() {
            continue;
        }
        if name.ends_with(".tmp") || name.ends_with(spare::SUFFIX) {
            // A temporary file's submit never returned, so nobody was told the record was
            // kept; a spare holds a stored record, or part of one whose submit never returned.
            fs::remove_file(&path).map_err(io_error(&path))?;
            continue;
        }
        if !name.ends_with(".json") {
            continue;
        }
        let bytes = fs::read(&path).map_err(io_error(&path))?;
        match serde_json::from_slice::<GameRecord>(&bytes) {
            Ok(record) => {
                let modified = entry.metadata().and_then(|meta| meta.modified());
                found.push((modified.unwrap_or(SystemTime::UNIX_EPOCH), record));
            }
            // A record of a format newer than this build reads (left by a newer server before
            // a downgrade) fails here too, its error naming the format: kept, never misread.
            Err(error) => {
                tracing::error!(%error, file = %name, "outbox: not a game record; moved aside to corrupt/");
                set_aside(dir, &name, "corrupt");
            }
        }
    }
    found.sort_by_key(|(modified, _)| *modified);
    Ok(found.into_iter().map(|(_, record)| record).collect())
}
