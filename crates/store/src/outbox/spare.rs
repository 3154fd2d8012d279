//! Files of stored records, kept to write the next records into (issue 18).
//!
//! Each finished game cost the file system a new file, and later, once the store had the
//! record, its deletion: on ext4 an inode allocated and freed per game. An ext4 without a
//! journal also skips every inode freed in the last minute or more when it allocates one, so at
//! a few hundred games a second the outbox's `open(O_CREAT)`, `unlink` and `rename` took 2.6%
//! of the server's CPU samples in the closed-loop benchmark, 1.6 points of it in finding a free
//! inode (docs/benchmarks.md, stop 47). So a stored record's file is renamed to `<n>.spare` instead
//! of deleted, and a sync round writes the next record over a spare, cut to the record's
//! length, before renaming it to `<id>.json` as it renames a new temporary file. Renames leave
//! the inodes and most of the blocks where they are: with spares, those calls and the
//! `ftruncate` took 0.9%.
//!
//! A spare holds the bytes of a record the store has, or, if the process stopped while a round
//! wrote it, part of a record whose submit never returned. Neither is a record to send, so a
//! start deletes every spare it finds, as it deletes temporary files.
//!
//! At most [`OutboxOptions::spare_files`](super::OutboxOptions::spare_files) are kept (256 by
//! default, each about the size of a record, some 18 kB, so about 5 MB); beyond that a stored
//! record's file is deleted as before. The store takes records in batches of up to a hundred
//! and rounds write them a few at a time, so the pool must hold more than a batch: with 64, it
//! was full after each batch (the rest deleted) and empty before the next (new files made), and
//! kept only half the saving.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use uuid::Uuid;

use super::file_name;

/// The suffix of a spare file's name.
pub(super) const SUFFIX: &str = ".spare";

/// The spare files of one outbox directory.
#[derive(Debug)]
pub(super) struct Spares {
    /// The spare files on disk, by path.
    free: Mutex<Vec<PathBuf>>,
    /// The most kept.
    most: usize,
    /// The number in the next spare's name.
    next: AtomicU64,
}

impl Spares {
    /// No spare yet, and at most `most` to keep.
    pub(super) fn new(most: usize) -> Spares {
        Spares {
            free: Mutex::default(),
            most,
            next: AtomicU64::new(0),
        }
    }

    /// Gives up the file of stored record `id` in `dir`: kept as a spare while fewer than the
    /// most are kept, deleted otherwise. A failure is only logged: the record would be sent
    /// again at the next start and stored once all the same.
    pub(super) fn give(&self, dir: &Path, id: Uuid) {
        let path = dir.join(file_name(id));
        let kept = {
            let mut free = self.free();
            if free.len() < self.most {
                let number = self.next.fetch_add(1, Ordering::Relaxed);
                let spare = dir.join(format!("{number}{SUFFIX}"));
                let renamed = fs::rename(&path, &spare);
                if renamed.is_ok() {
                    free.push(spare);
                }
                renamed
            } else {
                fs::remove_file(&path)
            }
        };
        match kept {
            Ok(()) => {}
            // A second submit of the same game shares the file, given up already.
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => {
                tracing::warn!(%error, path = %path.display(), "outbox: cannot give up a written record's file")
            }
        }
    }

    /// Writes `bytes` over a spare file, cut to their length, and answers its path and the
    /// open file (not forced to disk yet); `None` when no spare is kept, or when writing one
    /// failed (it is then left for the next start to delete).
    pub(super) fn write(&self, bytes: &[u8]) -> Option<(PathBuf, File)> {
        let spare = self.free().pop()?;
        let written = OpenOptions::new()
            .write(true)
            .open(&spare)
            .and_then(|mut file| {
                file.write_all(bytes)?;
                file.set_len(bytes.len() as u64)?;
                Ok(file)
            });
        match written {
            Ok(file) => Some((spare, file)),
            Err(error) => {
                tracing::warn!(%error, path = %spare.display(), "outbox: cannot reuse a spare file; writing a new one");
                None
            }
        }
    }

    fn free(&self) -> std::sync::MutexGuard<'_, Vec<PathBuf>> {
        self.free.lock().expect("outbox lock poisoned")
    }
}
