//! The outbox's sync rounds: the records submitted within the window of the first are forced
//! to disk together (see the parent module's "Sync rounds"). Apart from the rest of the outbox,
//! which takes records from disk to the store, because this is the only part that makes them
//! durable, and the only one that must keep the order write, force, rename, force.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::spare::Spares;
use super::{OutboxError, Shared, file_name, io_error};

/// A process-wide counter that keeps concurrent temporary file names apart.
static TEMPORARY: AtomicU64 = AtomicU64::new(0);

/// A submitted record on its way to disk, and its submitter waiting to hear it is kept.
pub(super) struct Unsynced {
    pub(super) id: Uuid,
    pub(super) bytes: Vec<u8>,
    pub(super) kept: oneshot::Sender<Result<(), OutboxError>>,
}

/// The task that makes submitted records durable, in sync rounds (see the module docs).
pub(super) struct Syncer {
    pub(super) shared: Arc<Shared>,
    pub(super) window: Duration,
    pub(super) waiting: mpsc::UnboundedReceiver<Unsynced>,
}

impl Syncer {
    /// Runs rounds until every handle is gone and nothing waits.
    pub(super) async fn run(mut self) {
        while let Some(first) = self.waiting.recv().await {
            // The records submitted meanwhile share this round.
            tokio::time::sleep(self.window).await;
            let mut round = vec![first];
            while let Ok(next) = self.waiting.try_recv() {
                round.push(next);
            }
            let shared = Arc::clone(&self.shared);
            self.shared.sync_rounds.fetch_add(1, Ordering::Relaxed);
            // A panic answers nobody: its submitters are told the outbox stopped.
            let _ =
                tokio::task::spawn_blocking(move || sync_round(&shared.dir, &shared.spares, round))
                    .await;
        }
    }
}

/// Makes the records of one round durable and tells each submitter: each written to a ready
/// spare (the spares given up since the last round made ready first) or a new temporary file,
/// all forced to disk, each renamed to `<id>.json`, the directory forced.
fn sync_round(dir: &Path, spares: &Spares, round: Vec<Unsynced>) {
    let directory = match File::open(dir) {
        Ok(directory) => directory,
        Err(source) => return fail_all(round.into_iter(), dir, &source),
    };
    spares.promote(|| directory.sync_all());
    let mut written = Vec::with_capacity(round.len());
    for unsynced in round {
        let file = match spares.write(&unsynced.bytes) {
            Some(spare) => Ok(spare),
            None => write_temporary(dir, unsynced.id, &unsynced.bytes),
        };
        match file {
            Ok((unnamed, file)) => written.push((unsynced, unnamed, file)),
            Err(error) => {
                let _ = unsynced.kept.send(Err(error));
            }
        }
    }
    if written.is_empty() {
        return;
    }
    let files: Vec<&File> = written.iter().map(|(_, _, file)| file).collect();
    if let Err(source) = force_to_disk(&directory, &files) {
        return fail_all(
            written.into_iter().map(|(unsynced, _, _)| unsynced),
            dir,
            &source,
        );
    }
    let mut renamed = Vec::with_capacity(written.len());
    for (unsynced, unnamed, file) in written {
        drop(file);
        let path = dir.join(file_name(unsynced.id));
        match fs::rename(&unnamed, &path) {
            Ok(()) => renamed.push(unsynced),
            Err(source) => {
                let _ = unsynced.kept.send(Err(OutboxError::Io { path, source }));
            }
        }
    }
    match directory.sync_all() {
        Ok(()) => {
            for unsynced in renamed {
                let _ = unsynced.kept.send(Ok(()));
            }
        }
        Err(source) => fail_all(renamed.into_iter(), dir, &source),
    }
}

/// Tells every submitter of `failed` that its record could not be kept.
fn fail_all(failed: impl Iterator<Item = Unsynced>, dir: &Path, source: &io::Error) {
    for unsynced in failed {
        let error = io::Error::new(source.kind(), source.to_string());
        let _ = unsynced.kept.send(Err(io_error(dir)(error)));
    }
}

/// Writes `bytes` to a new temporary file for record `id` (not forced to disk yet).
fn write_temporary(dir: &Path, id: Uuid, bytes: &[u8]) -> Result<(PathBuf, File), OutboxError> {
    let temporary = dir.join(format!(
        "{id}.{}.tmp",
        TEMPORARY.fetch_add(1, Ordering::Relaxed)
    ));
    let mut file = crate::private::create_file(&temporary).map_err(io_error(&temporary))?;
    file.write_all(bytes).map_err(io_error(&temporary))?;
    Ok((temporary, file))
}

/// Forces written `files` to disk: on Linux one `syncfs(2)` of the file system of `directory`
/// (whatever else is dirty on it goes too: the room journals, which force it every second
/// anyway), elsewhere file by file.
#[cfg(target_os = "linux")]
fn force_to_disk(directory: &File, _files: &[&File]) -> io::Result<()> {
    crate::disk::sync_file_system(directory)
}

/// Forces written `files` to disk, file by file.
#[cfg(not(target_os = "linux"))]
fn force_to_disk(_directory: &File, files: &[&File]) -> io::Result<()> {
    files.iter().try_for_each(|file| file.sync_all())
}
