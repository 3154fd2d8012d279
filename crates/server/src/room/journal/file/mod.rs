//! The file journal store: the journals of every room in one log, a few segment files in one
//! directory (`<data-dir>/rooms/journal-<number>.log`), each line naming its room.
//!
//! Why one log and not a file per room: an append to one of a thousand files cost about three
//! times an append to one file (each write dirtied its own inode and its time stamps), and a
//! room's rewrite (a seat taken, the game started) created a temporary file and renamed it over
//! the old one, an inode created and one freed per write: half the server's CPU while a
//! thousand rooms opened at once, and the stalls of docs/benchmarks.md's open loop (issue 18).
//! In the log an append, a rewrite and a delete are each one write of a few lines to the
//! segment being written ([`segment`]): no descriptor per room, no file created or renamed, and
//! no lock between rooms (each write reserves its own range of the file). On Linux that write
//! is a copy into the segment mapped in memory (`mapped.rs`), not a system call.
//!
//! A rewrite is atomic as before: its `begin` line says how many entries follow, and a reader
//! counts it only when all of them are there (`load.rs`). What a journal holds is therefore
//! what its last complete `begin` started, with every entry written after it, unless an `end`
//! came later.
//!
//! The log is kept short. At start a new segment is begun (the old ones are only read), and a
//! segment that has grown past [`SEGMENT_BYTES`] is followed by a new one (checked every
//! `--journal-sync-ms`). A journal whose `begin` is two segments old or more asks to be
//! rewritten ([`RoomJournal::wants_rewrite`]): its room's writer does so at its next write, and
//! a room that writes nothing is nudged to (`room/rejournal.rs`). A segment older than every
//! live journal's `begin` holds nothing anyone needs, and is deleted once what moved those
//! journals is on disk.
//!
//! Nothing here waits for the disk on a room's task: every write marks the store dirty, and
//! its `JournalStore::sync` (every `--journal-sync-ms`, and at shutdown) forces the journals to
//! disk: on Linux with one `syncfs(2)` of their file system; elsewhere file by file. A machine
//! crash can lose at most `--journal-sync-ms` of play.
//!
//! Journals of servers before the log (`<room id>.jsonl`, one per room) are read at start like
//! the log's; each is moved into the log by its room's first rewrite, which every restored room
//! makes at once.

mod journal;
mod load;
#[cfg(target_os = "linux")]
mod mapped;
mod segment;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::future::{BoxFuture, FutureExt};
use uuid::Uuid;

use self::journal::{FileJournal, Home};
use self::segment::Segment;
use super::format::Line;
use super::store::{JournalStore, Loaded, RoomJournal};

/// How large a segment grows before the next one is begun.
const SEGMENT_BYTES: u64 = 64 << 20;

/// How many segments newer than its `begin` a journal may fall behind before it asks to be
/// rewritten.
const SEGMENTS_BEHIND: u64 = 2;

/// The journals of every live game of this server, as one log in one directory.
#[derive(Debug)]
pub struct FileJournals {
    log: Arc<Log>,
}

/// What every journal of the store shares.
#[derive(Debug)]
struct Log {
    dir: PathBuf,
    /// The directory itself, open: on Linux one `syncfs(2)` through it forces every journal to
    /// disk at once.
    dir_handle: File,
    /// The segment written now.
    current: Mutex<Arc<Segment>>,
    /// Its number, read without the lock.
    current_number: AtomicU64,
    /// The segment of every live journal's last `begin`, by room. A journal is listed before
    /// its first `begin` is written, and keeps the older of its two segments while a rewrite
    /// is being written, so a segment it may need is never deleted meanwhile.
    homes: Mutex<HashMap<Uuid, u64>>,
    /// The segments on disk before the current one, oldest first.
    older: Mutex<Vec<u64>>,
    /// Whether the segments of the previous run have been read (none is deleted before).
    loaded: AtomicBool,
    /// Whether anything was written since the last sync; every journal only ever sets it.
    dirty: AtomicBool,
    /// How large a segment grows before the next one is begun.
    segment_bytes: u64,
}

/// How much of a segment is written through a memory map: twice the size at which the next
/// segment is begun, for the lines written before the sync task sees it full (past the map they
/// are written with `pwrite(2)`). Only what is written takes disk space or memory.
fn mapped_bytes(segment_bytes: u64) -> u64 {
    segment_bytes.saturating_mul(2)
}

/// Locks a mutex of the log; none is held while anything could panic, so none is poisoned.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl FileJournals {
    /// Journals kept in `dir` (created if missing, readable by the server's user only): the
    /// segments found there are read by `load_all`, and a new one is begun for this run.
    pub fn open(dir: PathBuf) -> io::Result<Arc<FileJournals>> {
        FileJournals::open_with(dir, SEGMENT_BYTES)
    }

    /// [`FileJournals::open`], beginning a new segment after `segment_bytes`.
    fn open_with(dir: PathBuf, segment_bytes: u64) -> io::Result<Arc<FileJournals>> {
        aeroplane_store::private::create_dir_all(&dir)?;
        let dir_handle = File::open(&dir)?;
        let mut older: Vec<u64> = fs::read_dir(&dir)?
            .flatten()
            .filter_map(|entry| segment::number_of(&entry.file_name().to_string_lossy()))
            .collect();
        older.sort_unstable();
        let number = older.last().map_or(1, |last| last + 1);
        let current = Segment::create(&dir, number, mapped_bytes(segment_bytes))?;
        Ok(Arc::new(FileJournals {
            log: Arc::new(Log {
                dir,
                dir_handle,
                current: Mutex::new(Arc::new(current)),
                current_number: AtomicU64::new(number),
                homes: Mutex::new(HashMap::new()),
                older: Mutex::new(older),
                loaded: AtomicBool::new(false),
                dirty: AtomicBool::new(false),
                segment_bytes,
            }),
        }))
    }

    /// Syncs dirty journals every `interval` (and begins a new segment, or deletes old ones,
    /// when it is time), for as long as the store exists.
    pub fn sync_periodically(self: &Arc<FileJournals>, interval: Duration) {
        let journals = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(interval);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(journals) = journals.upgrade() else {
                    return;
                };
                journals.sync(false).await;
            }
        });
    }

    /// The segment files on disk now, oldest first (for tests and the operator's curiosity).
    pub fn segments(&self) -> Vec<PathBuf> {
        let mut numbers = lock(&self.log.older).clone();
        numbers.push(self.log.current_number.load(Ordering::Acquire));
        numbers
            .into_iter()
            .map(|number| self.log.dir.join(segment::file_name(number)))
            .collect()
    }
}

impl Log {
    /// The segment written now.
    fn current(&self) -> Arc<Segment> {
        lock(&self.current).clone()
    }

    /// Writes lines to the current segment.
    fn write(&self, bytes: &[u8]) -> io::Result<()> {
        self.current().write(bytes)?;
        self.dirty.store(true, Ordering::Release);
        Ok(())
    }

    /// Starts room `id`'s journal afresh with `entries` (its last `begin` was in segment `old`,
    /// if it had one); answers the segment of the new `begin`.
    fn begin(&self, id: Uuid, entries: &[Line], old: Option<u64>) -> io::Result<u64> {
        let segment = {
            let mut homes = lock(&self.homes);
            let segment = self.current();
            // Until the new `begin` is written, the old one (if any) is what counts.
            homes.entry(id).or_insert(segment.number);
            segment
        };
        match segment.write(&segment::begin(id, entries)) {
            Ok(()) => {
                lock(&self.homes).insert(id, segment.number);
                self.dirty.store(true, Ordering::Release);
                Ok(segment.number)
            }
            Err(error) => {
                let mut homes = lock(&self.homes);
                match old {
                    Some(old) => homes.insert(id, old),
                    None => homes.remove(&id),
                };
                Err(error)
            }
        }
    }

    /// Deletes room `id`'s journal.
    fn end(&self, id: Uuid) -> io::Result<()> {
        self.write(&segment::end(id))?;
        lock(&self.homes).remove(&id);
        Ok(())
    }

    /// Whether a journal begun in segment `home` should be rewritten into the current one.
    fn is_old(&self, home: u64) -> bool {
        home + SEGMENTS_BEHIND <= self.current_number.load(Ordering::Acquire)
    }

    /// The text of room `id`'s journal, entry by entry, as the segments hold it now.
    fn text_of(&self, id: Uuid) -> String {
        let mut numbers = lock(&self.older).clone();
        numbers.push(self.current_number.load(Ordering::Acquire));
        load::read_segments(&self.dir, &numbers, Some(id))
            .remove(&id)
            .and_then(|read| read.text)
            .unwrap_or_default()
    }

    /// Begins a new segment if the current one has grown past its size (only the sync task
    /// calls this, so two never race; the new file is made before the lock is taken).
    fn rotate_if_full(&self) -> io::Result<()> {
        let full = self.current();
        if full.len() < self.segment_bytes {
            return Ok(());
        }
        let next = Arc::new(Segment::create(
            &self.dir,
            full.number + 1,
            mapped_bytes(self.segment_bytes),
        )?);
        *lock(&self.current) = next;
        self.current_number
            .store(full.number + 1, Ordering::Release);
        lock(&self.older).push(full.number);
        tracing::info!(segment = %full.path(&self.dir).display(), bytes = full.len(), "journal segment full; the next one begun");
        Ok(())
    }

    /// The older segments no live journal needs: those before every live journal's `begin`.
    fn collectable(&self) -> Vec<u64> {
        if !self.loaded.load(Ordering::Acquire) {
            return Vec::new();
        }
        let oldest_needed = lock(&self.homes)
            .values()
            .copied()
            .min()
            .unwrap_or(u64::MAX);
        lock(&self.older)
            .iter()
            .copied()
            .take_while(|number| *number < oldest_needed)
            .collect()
    }
}

impl JournalStore for FileJournals {
    fn create<'a>(
        &'a self,
        id: Uuid,
        entries: &'a [Line],
    ) -> BoxFuture<'a, io::Result<Box<dyn RoomJournal>>> {
        let created = self.log.begin(id, entries, None).map(|segment| {
            Box::new(FileJournal {
                log: self.log.clone(),
                id,
                home: Home::Log(segment),
            }) as Box<dyn RoomJournal>
        });
        std::future::ready(created).boxed()
    }

    fn load_all(&self) -> BoxFuture<'_, Vec<Loaded>> {
        std::future::ready(self.load_now()).boxed()
    }

    fn sync(&self, all: bool) -> BoxFuture<'_, ()> {
        async move {
            if let Err(error) = self.log.rotate_if_full() {
                tracing::error!(%error, "cannot begin a new journal segment; the current one grows on");
            }
            let collectable = self.log.collectable();
            if !self.log.dirty.swap(false, Ordering::AcqRel) && !all && collectable.is_empty() {
                return;
            }
            let handles = match self.sync_handles() {
                Ok(handles) => handles,
                Err(error) => {
                    tracing::error!(%error, "cannot open the journals to sync them");
                    return;
                }
            };
            let dir = self.log.dir.clone();
            let paths: Vec<PathBuf> = collectable
                .iter()
                .map(|number| dir.join(segment::file_name(*number)))
                .collect();
            // What made those segments unneeded (the rewrites and ends written before this
            // sync) is on disk before they go.
            let synced = tokio::task::spawn_blocking(move || {
                handles.iter().try_for_each(force_to_disk)?;
                paths.iter().try_for_each(|path| match fs::remove_file(path) {
                    Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
                    _ => Ok(()),
                })
            });
            match synced.await {
                Ok(Ok(())) => lock(&self.log.older).retain(|number| !collectable.contains(number)),
                Ok(Err(error)) => tracing::error!(%error, "cannot sync the journals"),
                Err(error) => tracing::error!(%error, "the journal sync stopped"),
            }
        }
        .boxed()
    }

    fn wanting_rewrite(&self) -> Vec<Uuid> {
        lock(&self.log.homes)
            .iter()
            .filter(|(_, home)| self.log.is_old(**home))
            .map(|(id, _)| *id)
            .collect()
    }
}

impl FileJournals {
    /// Reads every journal of the previous run: the older segments', then the one-file
    /// journals of servers before the log (a room in both is the log's).
    fn load_now(&self) -> Vec<Loaded> {
        let log = &self.log;
        let numbers = lock(&log.older).clone();
        let rooms = load::read_segments(&log.dir, &numbers, None);
        let mut loaded = Vec::with_capacity(rooms.len());
        {
            let mut homes = lock(&log.homes);
            for (id, read) in rooms {
                homes.insert(id, read.segment);
                loaded.push(Loaded {
                    name: format!("{} ({id})", segment::file_name(read.segment)),
                    entries: Ok(read.entries),
                    journal: Box::new(FileJournal {
                        log: log.clone(),
                        id,
                        home: Home::Log(read.segment),
                    }),
                });
            }
        }
        for one in load::read_one_files(&log.dir) {
            let in_log = one.id.is_some_and(|id| lock(&log.homes).contains_key(&id));
            if in_log {
                // Moved into the log by a run killed before it removed the file.
                let _ = fs::remove_file(&one.path);
                continue;
            }
            loaded.push(Loaded {
                name: one.path.display().to_string(),
                entries: one.entries,
                journal: Box::new(FileJournal {
                    log: log.clone(),
                    id: one.id.unwrap_or_default(),
                    home: Home::OneFile(one.path),
                }),
            });
        }
        log.loaded.store(true, Ordering::Release);
        loaded
    }

    /// What to hand `force_to_disk`: the directory on Linux, every journal file elsewhere.
    fn sync_handles(&self) -> io::Result<Vec<File>> {
        if cfg!(target_os = "linux") {
            return Ok(vec![self.log.dir_handle.try_clone()?]);
        }
        let mut handles = Vec::new();
        for entry in fs::read_dir(&self.log.dir)?.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".jsonl") || segment::number_of(&name).is_some() {
                handles.extend(File::open(entry.path()).ok());
            }
        }
        Ok(handles)
    }

    /// The directory of the journals.
    pub fn directory(&self) -> &Path {
        &self.log.dir
    }
}

/// Forces the journals to disk: `syncfs(2)` through the directory's handle.
#[cfg(target_os = "linux")]
fn force_to_disk(directory: &File) -> io::Result<()> {
    aeroplane_store::disk::sync_file_system(directory)
}

/// Forces one journal file to disk.
#[cfg(not(target_os = "linux"))]
fn force_to_disk(file: &File) -> io::Result<()> {
    file.sync_data()
}
