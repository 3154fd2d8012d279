//! One room's journal in the log (or, until its first rewrite, in a file of its own left by a
//! server before the log).

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::{BoxFuture, FutureExt};
use uuid::Uuid;

use super::super::format::{Line, encode_lines};
use super::super::store::RoomJournal;
use super::Log;
use super::segment;

thread_local! {
    /// The lines of an append, made in one buffer per thread and copied into the log: an
    /// append is nearly always one or two lines, and a buffer allocated and freed for each was
    /// a `malloc(3)` and a `free(3)` at every action (issue 18).
    static LINES: std::cell::RefCell<Vec<u8>> =
        std::cell::RefCell::new(Vec::with_capacity(LINES_KEPT));
}

/// The most the buffer of [`LINES`] keeps between appends.
const LINES_KEPT: usize = 4 * segment::LINE_BYTES;

/// Where a journal's entries are.
#[derive(Debug)]
pub(super) enum Home {
    /// In the log, from its last `begin`, which is in this segment.
    Log(u64),
    /// In a file of its own, `<room id>.jsonl`, written by a server before the log; its first
    /// rewrite moves it into the log.
    OneFile(PathBuf),
}

/// One room's journal.
#[derive(Debug)]
pub(super) struct FileJournal {
    pub(super) log: Arc<Log>,
    pub(super) id: Uuid,
    pub(super) home: Home,
}

impl FileJournal {
    fn add(&mut self, entries: &[Line]) -> io::Result<()> {
        match &self.home {
            Home::Log(_) => LINES.with_borrow_mut(|text| {
                // Room for many lines (a journal that caught up after a failed write) is not
                // kept past the next append.
                text.clear();
                text.shrink_to(LINES_KEPT);
                segment::push_entries(text, self.id, entries);
                self.log.write(text)
            }),
            Home::OneFile(path) => OpenOptions::new()
                .append(true)
                .open(path)?
                .write_all(encode_lines(entries).as_bytes()),
        }
    }

    fn replace(&mut self, entries: &[Line]) -> io::Result<()> {
        let old = match &self.home {
            Home::Log(segment) => Some(*segment),
            Home::OneFile(_) => None,
        };
        let segment = self.log.begin(self.id, entries, old)?;
        if let Home::OneFile(path) = &self.home {
            remove(path)?;
        }
        self.home = Home::Log(segment);
        Ok(())
    }

    fn remove(self) -> io::Result<()> {
        match &self.home {
            Home::Log(_) => self.log.end(self.id),
            Home::OneFile(path) => remove(path),
        }
    }

    /// Copies the journal to `<room id>.jsonl.broken` (a file in the form of a one-file
    /// journal, for an operator to read) and deletes it.
    fn put_aside(self) -> io::Result<()> {
        match &self.home {
            Home::Log(_) => {
                let text = self.log.text_of(self.id);
                let path = self.log.dir.join(format!("{}.jsonl.broken", self.id));
                aeroplane_store::private::create_file(&path)?.write_all(text.as_bytes())?;
                self.log.end(self.id)
            }
            Home::OneFile(path) => fs::rename(path, path.with_extension("jsonl.broken")),
        }
    }
}

/// Removes a file; one already gone is removed.
fn remove(path: &std::path::Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

impl RoomJournal for FileJournal {
    fn append<'a>(&'a mut self, entries: &'a [Line]) -> BoxFuture<'a, io::Result<()>> {
        std::future::ready(self.add(entries)).boxed()
    }

    fn append_now(&mut self, entries: &[Line]) -> Option<io::Result<()>> {
        Some(self.add(entries))
    }

    fn rewrite<'a>(&'a mut self, entries: &'a [Line]) -> BoxFuture<'a, io::Result<()>> {
        std::future::ready(self.replace(entries)).boxed()
    }

    fn delete(self: Box<Self>) -> BoxFuture<'static, io::Result<()>> {
        std::future::ready(self.remove()).boxed()
    }

    fn set_aside(self: Box<Self>) -> BoxFuture<'static, io::Result<()>> {
        std::future::ready(self.put_aside()).boxed()
    }

    fn wants_rewrite(&self) -> bool {
        match self.home {
            Home::Log(segment) => self.log.is_old(segment),
            Home::OneFile(_) => true,
        }
    }
}
