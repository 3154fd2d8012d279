//! The file journal store: one `<id>.jsonl` file per room in one directory, one JSON entry per
//! line.
//!
//! Descriptors are bounded: a playing room's journal keeps its file open between appends (an
//! `open` and a `close` per action were 7.6% of the server's CPU under load, issue 18), but at
//! most `--journal-open-files` journals at once, and never more than a quarter of the process's
//! descriptor limit as it stands when a journal asks; every other journal opens its file for each
//! write and closes it again. So rooms, however many, never bring the server to its descriptor
//! limit (issue 20). A journal gives its descriptor back when it is rewritten, deleted or
//! dropped. A rewrite goes to a temporary file renamed over the old one, so a killed process
//! never leaves half a setup behind.
//!
//! Nothing here waits for the disk on a room's task: two `fsync`s per new game stalled every
//! room sharing the runtime's thread (the open-loop benchmark's p99.9 of docs/benchmarks.md).
//! Instead every write marks the store dirty, and its `JournalStore::sync` (every
//! `--journal-sync-ms`, and at shutdown) forces the journals to disk: on Linux with one
//! `syncfs(2)` of their file system, however many rooms are live (a `fdatasync` per journal cost
//! a device cache flush each and about 5% of the server's CPU per action with a thousand rooms);
//! elsewhere file by file. A machine crash can lose at most `--journal-sync-ms` of play.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::future::{BoxFuture, FutureExt};
use uuid::Uuid;

use super::format::{Line, encode_lines};
use super::store::{JournalStore, Loaded, RoomJournal};

/// The journals of every live game of this server, as files in one directory.
#[derive(Debug)]
pub struct FileJournals {
    dir: PathBuf,
    /// The directory itself, open: on Linux one `syncfs(2)` through it forces every journal to
    /// disk at once.
    dir_handle: File,
    /// Whether any journal was written since the last sync; shared with every room's journal,
    /// which only ever sets it (no lock).
    dirty: Arc<AtomicBool>,
    /// The journals' open files, shared with every room's journal.
    handles: Arc<Handles>,
}

/// How many journal files are held open between writes, and how many may be.
#[derive(Debug)]
struct Handles {
    open: AtomicUsize,
    most: usize,
}

impl Handles {
    /// Takes a place for one more open journal file, if there is one.
    fn take(&self) -> bool {
        let most = self.most.min(descriptor_limit() / 4);
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < most).then_some(open + 1)
            })
            .is_ok()
    }

    /// Gives a place back.
    fn give_back(&self) {
        self.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The process's soft limit on open descriptors now (it may be lowered while it runs).
#[cfg(target_os = "linux")]
fn descriptor_limit() -> usize {
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    limit.current.map_or(usize::MAX, |current| {
        usize::try_from(current).unwrap_or(usize::MAX)
    })
}

/// Elsewhere: no limit known.
#[cfg(not(target_os = "linux"))]
fn descriptor_limit() -> usize {
    usize::MAX
}

impl FileJournals {
    /// Journals kept in `dir` (created if missing, readable by the server's user only), at most
    /// `open_files` of them holding their file open between writes.
    pub fn open(dir: PathBuf, open_files: usize) -> io::Result<Arc<FileJournals>> {
        aeroplane_store::private::create_dir_all(&dir)?;
        let dir_handle = File::open(&dir)?;
        Ok(Arc::new(FileJournals {
            dir,
            dir_handle,
            dirty: Arc::new(AtomicBool::new(false)),
            handles: Arc::new(Handles {
                open: AtomicUsize::new(0),
                most: open_files,
            }),
        }))
    }

    /// How many journal files are held open now.
    pub fn open_files(&self) -> usize {
        self.handles.open.load(Ordering::Acquire)
    }

    /// The directory of the journal files.
    pub fn directory(&self) -> &Path {
        &self.dir
    }

    /// Syncs dirty journals every `interval`, for as long as the store exists.
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

    fn journal(&self, path: PathBuf) -> FileJournal {
        FileJournal {
            path,
            dir: self.dir.clone(),
            dirty: self.dirty.clone(),
            file: None,
            handles: self.handles.clone(),
        }
    }

    /// What to hand `force_to_disk`: the directory on Linux, every journal file elsewhere.
    fn sync_handles(&self) -> io::Result<Vec<File>> {
        if cfg!(target_os = "linux") {
            return Ok(vec![self.dir_handle.try_clone()?]);
        }
        let mut handles = Vec::new();
        for entry in fs::read_dir(&self.dir)?.flatten() {
            if entry.file_name().to_string_lossy().ends_with(".jsonl") {
                handles.extend(File::open(entry.path()).ok());
            }
        }
        Ok(handles)
    }
}

impl JournalStore for FileJournals {
    fn create<'a>(
        &'a self,
        id: Uuid,
        entries: &'a [Line],
    ) -> BoxFuture<'a, io::Result<Box<dyn RoomJournal>>> {
        let mut journal = self.journal(self.dir.join(format!("{id}.jsonl")));
        let created = journal
            .replace(entries)
            .map(|()| Box::new(journal) as Box<dyn RoomJournal>);
        std::future::ready(created).boxed()
    }

    fn load_all(&self) -> BoxFuture<'_, Vec<Loaded>> {
        std::future::ready(self.load_now()).boxed()
    }

    fn sync(&self, all: bool) -> BoxFuture<'_, ()> {
        async move {
            if !self.dirty.swap(false, Ordering::AcqRel) && !all {
                return;
            }
            let handles = match self.sync_handles() {
                Ok(handles) => handles,
                Err(error) => {
                    tracing::error!(%error, "cannot open the journals to sync them");
                    return;
                }
            };
            let synced =
                tokio::task::spawn_blocking(move || handles.iter().try_for_each(force_to_disk));
            if let Ok(Err(error)) = synced.await {
                tracing::error!(%error, "cannot sync the journals");
            }
        }
        .boxed()
    }
}

impl FileJournals {
    /// Reads every journal file of the directory.
    fn load_now(&self) -> Vec<Loaded> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(error) => {
                tracing::error!(%error, dir = %self.dir.display(), "cannot read the journal directory");
                return Vec::new();
            }
        };
        let mut loaded = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".jsonl.tmp") {
                // A rewrite that a killed process never renamed: the old file still stands.
                let _ = fs::remove_file(&path);
                continue;
            }
            if !name.ends_with(".jsonl") {
                continue;
            }
            loaded.push(Loaded {
                name: path.display().to_string(),
                entries: read_entries(&path),
                journal: Box::new(self.journal(path)),
            });
        }
        loaded
    }
}

/// Reads a journal's entries; a torn last line (a process killed mid-write) is ignored with
/// everything after it, since everything before it stands.
fn read_entries(path: &Path) -> io::Result<Vec<Line>> {
    let reader = BufReader::new(File::open(path)?);
    let mut entries = Vec::new();
    for (number, text) in reader.lines().enumerate() {
        let text = text?;
        if text.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Line>(&text) {
            Ok(entry) => entries.push(entry),
            Err(error) => {
                tracing::warn!(%error, line = number + 1, file = %path.display(), "journal ends in an unreadable line; ignoring it and what follows");
                break;
            }
        }
    }
    Ok(entries)
}

/// One room's journal file.
#[derive(Debug)]
struct FileJournal {
    path: PathBuf,
    dir: PathBuf,
    dirty: Arc<AtomicBool>,
    /// The file, open for appending, while this journal holds one of the places.
    file: Option<File>,
    handles: Arc<Handles>,
}

impl FileJournal {
    /// Gives back the open file, if this journal holds one.
    fn close(&mut self) {
        if self.file.take().is_some() {
            self.handles.give_back();
        }
    }

    /// Appends entries, through the held file or one opened for this write.
    fn add(&mut self, entries: &[Line]) -> io::Result<()> {
        let text = encode_lines(entries);
        if self.file.is_none() && self.handles.take() {
            match OpenOptions::new().append(true).open(&self.path) {
                Ok(file) => self.file = Some(file),
                Err(error) => {
                    self.handles.give_back();
                    return Err(error);
                }
            }
        }
        match &mut self.file {
            Some(file) => file.write_all(text.as_bytes())?,
            None => OpenOptions::new()
                .append(true)
                .open(&self.path)?
                .write_all(text.as_bytes())?,
        }
        self.dirty.store(true, Ordering::Release);
        Ok(())
    }

    /// Replaces the file with one holding `entries`: a temporary file renamed over it.
    fn replace(&mut self, entries: &[Line]) -> io::Result<()> {
        // The open file is the one about to be replaced.
        self.close();
        let name = self.path.file_name().unwrap_or_default().to_string_lossy();
        let temporary = self.dir.join(format!("{name}.tmp"));
        let mut file = aeroplane_store::private::create_file(&temporary)?;
        file.write_all(encode_lines(entries).as_bytes())?;
        drop(file);
        fs::rename(&temporary, &self.path)?;
        self.dirty.store(true, Ordering::Release);
        Ok(())
    }
}

impl Drop for FileJournal {
    fn drop(&mut self) {
        self.close();
    }
}

impl RoomJournal for FileJournal {
    fn append<'a>(&'a mut self, entries: &'a [Line]) -> BoxFuture<'a, io::Result<()>> {
        std::future::ready(self.add(entries)).boxed()
    }

    fn rewrite<'a>(&'a mut self, entries: &'a [Line]) -> BoxFuture<'a, io::Result<()>> {
        std::future::ready(self.replace(entries)).boxed()
    }

    fn delete(mut self: Box<Self>) -> BoxFuture<'static, io::Result<()>> {
        self.close();
        let deleted = match fs::remove_file(&self.path) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
            _ => Ok(()),
        };
        std::future::ready(deleted).boxed()
    }

    fn set_aside(mut self: Box<Self>) -> BoxFuture<'static, io::Result<()>> {
        self.close();
        let renamed = fs::rename(&self.path, self.path.with_extension("jsonl.broken"));
        std::future::ready(renamed).boxed()
    }
}

/// Forces the journals to disk: `syncfs(2)` through the directory's handle.
#[cfg(target_os = "linux")]
fn force_to_disk(directory: &File) -> io::Result<()> {
    rustix::fs::syncfs(directory).map_err(io::Error::from)
}

/// Forces one journal file to disk.
#[cfg(not(target_os = "linux"))]
fn force_to_disk(file: &File) -> io::Result<()> {
    file.sync_data()
}

#[cfg(test)]
mod tests {
    use aeroplane_protocol::record::LoggedAction;
    use aeroplane_rules::{Side, TableAction};

    use super::*;

    fn action(event: u64) -> Line {
        Line::Action(LoggedAction {
            event,
            action: TableAction::Resign { colour: Side::Red },
            undone: false,
        })
    }

    #[tokio::test]
    async fn at_most_the_allowed_number_of_journals_hold_their_file_open() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileJournals::open(dir.path().join("rooms"), 2).unwrap();
        let mut journals = Vec::new();
        for _ in 0..3 {
            journals.push(store.create(Uuid::new_v4(), &[action(1)]).await.unwrap());
        }
        // A new or rewritten journal holds nothing open; appending takes a place while any is left.
        assert_eq!(store.open_files(), 0);
        for journal in &mut journals {
            journal.append(&[action(2)]).await.unwrap();
        }
        assert_eq!(store.open_files(), 2);
        // The third appends all the same, opening and closing its file.
        journals[2].append(&[action(3)]).await.unwrap();
        journals.remove(0).delete().await.unwrap();
        assert_eq!(store.open_files(), 1);
        // A rewrite replaces the file: the open one is given back.
        journals[0].rewrite(&[action(9)]).await.unwrap();
        assert_eq!(store.open_files(), 0);
        journals[0].append(&[action(10)]).await.unwrap();
        assert_eq!(store.open_files(), 1);
        drop(journals);
        assert_eq!(store.open_files(), 0);
    }

    #[tokio::test]
    async fn appends_after_a_rewrite_go_to_the_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileJournals::open(dir.path().join("rooms"), 8).unwrap();
        let id = Uuid::new_v4();
        let mut journal = store.create(id, &[action(1)]).await.unwrap();
        journal.append(&[action(2)]).await.unwrap();
        journal.rewrite(&[action(5)]).await.unwrap();
        journal.append(&[action(6)]).await.unwrap();
        let loaded = store.load_all().await;
        let entries = loaded[0].entries.as_ref().unwrap();
        assert_eq!(entries, &vec![action(5), action(6)]);
    }
}
