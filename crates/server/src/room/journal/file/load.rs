//! Reading the journals a previous run left: the log's segments, oldest first, and the one-file
//! journals of servers before the log (`<room id>.jsonl`).
//!
//! A room's journal is what its last complete `begin` started, with every entry written after
//! it, unless an `end` came later. The reader forgives what a write cut short leaves behind
//! (a killed process, a full disk): a torn line is left out; a rewrite that lacks some of its
//! lines counts for nothing, so the journal before it stands; and an action already read (the
//! writer sends again what a failed write may have half written) is read once.

use std::collections::HashMap;
use std::fs;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use uuid::Uuid;

use super::super::format::Line;
use super::segment::{self, Record};

/// One room's journal as read so far.
#[derive(Debug)]
pub(super) struct Read {
    /// The segment of its last complete `begin`.
    pub(super) segment: u64,
    /// Its entries.
    pub(super) entries: Vec<Line>,
    /// The text of its lines, when asked for (to set a journal aside).
    pub(super) text: Option<String>,
    /// The event of the last action read.
    last_action: Option<u64>,
}

impl Read {
    /// Adds an entry, unless it is an action read already.
    fn push(&mut self, entry: Line, line: &str) {
        if let Line::Action(logged) = &entry {
            if self.last_action.is_some_and(|last| logged.event <= last) {
                return;
            }
            self.last_action = Some(logged.event);
        }
        if let Some(text) = &mut self.text {
            text.push_str(line.split_once(' ').map_or(line, |(_, entry)| entry));
            text.push('\n');
        }
        self.entries.push(entry);
    }
}

/// Reads the segments numbered `numbers` (in that order) in `dir`: every journal they hold
/// that no `end` closed, or only room `only`'s with the text of its entries.
pub(super) fn read_segments(
    dir: &Path,
    numbers: &[u64],
    only: Option<Uuid>,
) -> HashMap<Uuid, Read> {
    let mut rooms: HashMap<Uuid, Read> = HashMap::new();
    for &number in numbers {
        let path = dir.join(segment::file_name(number));
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) => {
                tracing::error!(%error, file = %path.display(), "cannot read a journal segment; its journals are lost");
                continue;
            }
        };
        let mut torn = 0usize;
        let mut lines = segment::lines(&bytes).peekable();
        while let Some(line) = lines.next() {
            let Some((id, record)) = segment::parse(line) else {
                torn += 1;
                continue;
            };
            if only.is_some_and(|only| only != id) {
                continue;
            }
            match record {
                Record::End => {
                    rooms.remove(&id);
                }
                Record::Entry(entry) => {
                    // Without its room, the entry belongs to a journal begun in a segment since
                    // deleted, or ended.
                    if let Some(room) = rooms.get_mut(&id) {
                        room.push(entry, line);
                    }
                }
                Record::Begin(count) => {
                    let mut room = Read {
                        segment: number,
                        entries: Vec::with_capacity(count),
                        text: only.map(|_| String::new()),
                        last_action: None,
                    };
                    // A rewrite's lines follow its `begin` in the same write, so they are next.
                    let mut taken = 0;
                    while taken < count {
                        let Some(next) = lines.peek() else { break };
                        let Some((same, Record::Entry(entry))) = segment::parse(next) else {
                            break;
                        };
                        if same != id {
                            break;
                        }
                        room.push(entry, next);
                        lines.next();
                        taken += 1;
                    }
                    if taken == count {
                        rooms.insert(id, room);
                    } else {
                        tracing::warn!(room_id = %id, file = %path.display(), "a journal's rewrite was cut short; the journal before it stands");
                    }
                }
            }
        }
        if torn > 0 {
            tracing::warn!(lines = torn, file = %path.display(), "journal lines torn by a write cut short; left out");
        }
    }
    rooms
}

/// A journal file of a server before the log.
#[derive(Debug)]
pub(super) struct OneFile {
    /// The file.
    pub(super) path: PathBuf,
    /// The room it names (from its file name, else from its setup).
    pub(super) id: Option<Uuid>,
    /// Its entries.
    pub(super) entries: io::Result<Vec<Line>>,
}

/// Reads the one-file journals in `dir`, removing what a killed rewrite of theirs left.
pub(super) fn read_one_files(dir: &Path) -> Vec<OneFile> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) => {
            tracing::error!(%error, dir = %dir.display(), "cannot read the journal directory");
            return Vec::new();
        }
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".jsonl.tmp") {
            // A rewrite that a killed process never renamed: the old file still stands.
            let _ = fs::remove_file(&path);
            continue;
        }
        let Some(stem) = name.strip_suffix(".jsonl") else {
            continue;
        };
        let entries = read_one_file(&path);
        let id = Uuid::try_parse(stem).ok().or_else(|| match &entries {
            Ok(entries) => match entries.first() {
                Some(Line::Setup(setup)) => Some(setup.id),
                _ => None,
            },
            Err(_) => None,
        });
        found.push(OneFile { path, id, entries });
    }
    found
}

/// Reads a one-file journal's entries; a torn last line (a process killed mid-write) is ignored
/// with everything after it, since everything before it stands.
fn read_one_file(path: &Path) -> io::Result<Vec<Line>> {
    let reader = BufReader::new(fs::File::open(path)?);
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
