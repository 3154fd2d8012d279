//! One segment of the journal log, and the form of its lines.
//!
//! A segment is a file `journal-<number>.log` that rooms write at offsets they reserve: each
//! write takes the next free range of the file with one atomic addition and writes exactly
//! there (`pwrite(2)`), so writes from rooms on different threads never interleave, none waits
//! for another, and a write cut short (a full disk, a killed process) spoils only its own
//! range. Unwritten bytes read as NULs, which the reader takes as line breaks. On Linux the
//! write is a copy into the file mapped in memory (`mapped.rs`), with `pwrite(2)` past the map's
//! end and wherever the map could not be made.
//!
//! Every line names its room: `<room id> <entry as JSON>`, or one of two marks:
//! `<room id> begin <n>`, which starts the room's journal afresh with the `n` entries that
//! follow it in the same write (a rewrite counts only if all `n` are there), and
//! `<room id> end`, which deletes the room's journal.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use uuid::Uuid;

use super::super::format::Line;

/// The file name of segment `number`.
pub(super) fn file_name(number: u64) -> String {
    format!("journal-{number:010}.log")
}

/// The segment number a file name names, if it is a segment's.
pub(super) fn number_of(name: &str) -> Option<u64> {
    name.strip_prefix("journal-")?
        .strip_suffix(".log")?
        .parse()
        .ok()
}

/// One open segment, written at reserved offsets.
#[derive(Debug)]
pub(super) struct Segment {
    /// The segment's number: later segments have higher ones.
    pub(super) number: u64,
    file: File,
    /// The first byte not reserved yet: where the next write goes.
    end: AtomicU64,
    /// The file mapped for writing, if it could be.
    #[cfg(target_os = "linux")]
    mapped: Option<super::mapped::Mapped>,
}

impl Segment {
    /// Creates segment `number` in `dir`, empty and owner-only; on Linux its first `capacity`
    /// bytes (rounded up) are written through a memory map.
    pub(super) fn create(dir: &Path, number: u64, capacity: u64) -> io::Result<Segment> {
        let path = dir.join(file_name(number));
        let file = aeroplane_store::private::create_file(&path)?;
        #[cfg(target_os = "linux")]
        let mapped = match super::mapped::Mapped::new(&file, capacity) {
            Ok(mapped) => Some(mapped),
            Err(error) => {
                tracing::warn!(%error, segment = %path.display(), "cannot map a journal segment; writing it with pwrite(2)");
                None
            }
        };
        #[cfg(not(target_os = "linux"))]
        let _ = capacity;
        Ok(Segment {
            number,
            file,
            end: AtomicU64::new(0),
            #[cfg(target_os = "linux")]
            mapped,
        })
    }

    /// The segment's path in `dir`.
    pub(super) fn path(&self, dir: &Path) -> PathBuf {
        dir.join(file_name(self.number))
    }

    /// How many bytes were reserved so far.
    pub(super) fn len(&self) -> u64 {
        self.end.load(Ordering::Acquire)
    }

    /// Writes `bytes` in a range of its own at the end of the segment.
    pub(super) fn write(&self, bytes: &[u8]) -> io::Result<()> {
        let length = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        let offset = self.end.fetch_add(length, Ordering::AcqRel);
        #[cfg(target_os = "linux")]
        if let Some(mapped) = &self.mapped
            && mapped.write(&self.file, offset, bytes)
        {
            return Ok(());
        }
        write_all_at(&self.file, bytes, offset)
    }
}

#[cfg(unix)]
fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

#[cfg(windows)]
fn write_all_at(file: &File, mut bytes: &[u8], mut offset: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt as _;
    while !bytes.is_empty() {
        match file.seek_write(bytes, offset) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(written) => {
                bytes = &bytes[written..];
                offset += written as u64;
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// Room for one ordinary line (the room's id, a space and an action's entry are about 105
/// bytes): a buffer made this big per entry is written without growing it (growing from
/// nothing took four or five reallocations per action).
pub(super) const LINE_BYTES: usize = 128;

/// Adds room `id`'s lines for `entries` to `text`, one per entry.
pub(super) fn push_entries(text: &mut Vec<u8>, id: Uuid, entries: &[Line]) {
    for entry in entries {
        push_prefix(text, id);
        entry.write_json(text);
        text.push(b'\n');
    }
}

/// Room `id`'s lines that start its journal afresh with `entries`.
pub(super) fn begin(id: Uuid, entries: &[Line]) -> Vec<u8> {
    let mut text = Vec::new();
    push_prefix(&mut text, id);
    text.extend_from_slice(format!("begin {}\n", entries.len()).as_bytes());
    push_entries(&mut text, id, entries);
    text
}

/// Room `id`'s line that deletes its journal.
pub(super) fn end(id: Uuid) -> Vec<u8> {
    let mut text = Vec::new();
    push_prefix(&mut text, id);
    text.extend_from_slice(b"end\n");
    text
}

fn push_prefix(text: &mut Vec<u8>, id: Uuid) {
    text.extend_from_slice(
        id.as_hyphenated()
            .encode_lower(&mut Uuid::encode_buffer())
            .as_bytes(),
    );
    text.push(b' ');
}

/// What one line of a segment says.
#[derive(Debug, PartialEq)]
pub(super) enum Record {
    /// The room's journal starts afresh with the next this many lines.
    Begin(usize),
    /// The room's journal is deleted.
    End,
    /// One entry of the room's journal.
    Entry(Line),
}

/// Reads one line: the room it names and what it says; `None` for a line that is not one
/// (torn by a write cut short).
pub(super) fn parse(line: &str) -> Option<(Uuid, Record)> {
    let (id, rest) = line.split_once(' ')?;
    let id = Uuid::try_parse(id).ok()?;
    let record = if rest == "end" {
        Record::End
    } else if let Some(count) = rest.strip_prefix("begin ") {
        Record::Begin(count.parse().ok()?)
    } else {
        Record::Entry(serde_json::from_str(rest).ok()?)
    };
    Some((id, record))
}

/// The lines of a segment's bytes: split at line breaks and at NULs (bytes never written), and
/// every line that is not valid UTF-8 left out as torn.
pub(super) fn lines(bytes: &[u8]) -> impl Iterator<Item = &str> {
    bytes
        .split(|byte| *byte == b'\n' || *byte == 0)
        .filter(|line| !line.is_empty())
        .filter_map(|line| std::str::from_utf8(line).ok())
}
