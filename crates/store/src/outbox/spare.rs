//! Files of stored records, kept to write the next records into (issue 18).
//!
//! Each finished game cost the file system a new file, and later, once the store had the
//! record, its deletion: on ext4 an inode allocated and freed per game. An ext4 without a
//! journal also skips every inode freed in the last minute or more when it allocates one, so
//! at a few hundred games a second the outbox's `open(O_CREAT)`, `unlink` and `rename` took
//! 2.6% of the server's CPU samples in the closed-loop benchmark, 1.6 points of it in finding
//! a free inode (docs/benchmarks.md, stop 47). So a stored record's file is renamed to
//! `<n>.spare` instead of deleted, and a sync round writes the next record over a spare, cut
//! to the record's length, before renaming it to `<id>.json` as it renames a new temporary
//! file. Renames leave the inodes and most of the blocks where they are: with spares, those
//! calls and the `ftruncate` took 1.0%.
//!
//! A spare holds the bytes of a record the store has, or, if the process stopped while a round
//! wrote it, part of a record whose submit never returned. Neither is a record to send, so a
//! start deletes every spare it finds, as it deletes temporary files.
//!
//! A spare is written over only once its rename from `<id>.json` is on disk: after a crash, a
//! rename that was not could bring the old name back on the new bytes, and a start would read
//! them as record `id` (or set them aside as corrupt). So a file given up waits among the
//! `given` until the next round forces the directory to disk, and only then becomes `ready`
//! to be written over: one directory sync per round that has spares to promote.
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

use uuid::Uuid;

use super::file_name;

/// The suffix of a spare file's name.
pub(super) const SUFFIX: &str = ".spare";

/// The spare files of one outbox directory.
#[derive(Debug)]
pub(super) struct Spares {
    /// The spare files on disk, by path.
    pool: Mutex<Pool>,
    /// The most kept.
    most: usize,
}

/// The spare files on disk, by path, in the two stages of the module docs.
#[derive(Debug, Default)]
struct Pool {
    /// Renamed to a spare's name, perhaps not on disk yet.
    given: Vec<PathBuf>,
    /// Renamed, and the directory forced to disk since: may be written over.
    ready: Vec<PathBuf>,
    /// The number in the next spare's name.
    next: u64,
}

impl Spares {
    /// No spare yet, and at most `most` to keep.
    pub(super) fn new(most: usize) -> Spares {
        Spares {
            pool: Mutex::default(),
            most,
        }
    }

    /// Gives up the file of stored record `id` in `dir`: kept as a spare while fewer than the
    /// most are kept, deleted otherwise. A failure is only logged: the record would be sent
    /// again at the next start and stored once all the same.
    pub(super) fn give(&self, dir: &Path, id: Uuid) {
        let path = dir.join(file_name(id));
        let kept = {
            let mut pool = self.pool();
            if pool.given.len() + pool.ready.len() < self.most {
                let spare = dir.join(format!("{}{SUFFIX}", pool.next));
                pool.next += 1;
                let renamed = fs::rename(&path, &spare);
                if renamed.is_ok() {
                    pool.given.push(spare);
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

    /// Makes the spares given up so far ready to be written over, once `sync_directory` (the
    /// outbox directory's `fsync`) has put their renames on disk; if it fails they wait for
    /// the next round. Does nothing, and syncs nothing, when none waits.
    pub(super) fn promote(&self, sync_directory: impl FnOnce() -> io::Result<()>) {
        let given = std::mem::take(&mut self.pool().given);
        if given.is_empty() {
            return;
        }
        let synced = sync_directory();
        let mut pool = self.pool();
        match synced {
            Ok(()) => pool.ready.extend(given),
            Err(error) => {
                tracing::warn!(%error, "outbox: cannot force the directory to disk; spare files wait for the next round");
                pool.given.extend(given);
            }
        }
    }

    /// Writes `bytes` over a ready spare file, cut to their length, and answers its path and
    /// the open file (not forced to disk yet); `None` when no spare is ready, or when writing
    /// one failed (it is then left for the next start to delete).
    pub(super) fn write(&self, bytes: &[u8]) -> Option<(PathBuf, File)> {
        let spare = self.pool().ready.pop()?;
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

    fn pool(&self) -> std::sync::MutexGuard<'_, Pool> {
        self.pool.lock().expect("outbox lock poisoned")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory with the file of record `id` in it, as a round leaves it.
    fn written(id: Uuid) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(file_name(id)), b"{}").unwrap();
        dir
    }

    #[test]
    fn a_given_file_is_written_over_only_after_the_directory_is_synced() {
        let id = Uuid::new_v4();
        let dir = written(id);
        let spares = Spares::new(4);
        spares.give(dir.path(), id);
        assert!(!dir.path().join(file_name(id)).exists());
        assert!(spares.write(b"next").is_none(), "given, not ready yet");

        spares.promote(|| Err(io::Error::other("disk gone")));
        assert!(
            spares.write(b"next").is_none(),
            "the sync failed: still not ready"
        );

        let mut synced = 0;
        spares.promote(|| {
            synced += 1;
            Ok(())
        });
        assert_eq!(synced, 1);
        let (path, _file) = spares.write(b"next").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"next");
        spares.promote(|| panic!("nothing waits, so nothing is synced"));
    }
}
