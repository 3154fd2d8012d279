//! The file journal store as a test sees it on disk, read without the server's code: the log's
//! segments (`rooms/journal-<n>.log`, lines `<room id> <entry>`, `<room id> begin <n>` and
//! `<room id> end`) and the one-file journals of servers before the log (`rooms/<id>.jsonl`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use uuid::Uuid;

/// The segment files in `data`'s journal directory, oldest first.
pub(crate) fn segments(data: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(data.join("rooms"))
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| {
                    let name = path.file_name().unwrap().to_string_lossy().into_owned();
                    name.starts_with("journal-") && name.ends_with(".log")
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// Every live journal in `data`, by room: its entries, one JSON text each.
pub(crate) fn live(data: &Path) -> HashMap<Uuid, Vec<String>> {
    let mut rooms: HashMap<Uuid, Vec<String>> = HashMap::new();
    for segment in segments(data) {
        let bytes = std::fs::read(&segment).unwrap();
        let text = String::from_utf8_lossy(&bytes).replace('\0', "\n");
        let mut lines = text.lines().filter(|line| !line.is_empty()).peekable();
        while let Some(line) = lines.next() {
            let Some((id, rest)) = line.split_once(' ') else {
                continue;
            };
            let Ok(id) = Uuid::try_parse(id) else {
                continue;
            };
            if rest == "end" {
                rooms.remove(&id);
            } else if let Some(count) = rest.strip_prefix("begin ") {
                let count: usize = count.parse().unwrap();
                let prefix = format!("{id} ");
                let entries: Vec<String> = (0..count)
                    .map_while(|_| lines.next_if(|next| next.starts_with(&prefix)))
                    .map(|line| line[prefix.len()..].to_owned())
                    .collect();
                if entries.len() == count {
                    rooms.insert(id, entries);
                }
            } else if let Some(entries) = rooms.get_mut(&id) {
                entries.push(rest.to_owned());
            }
        }
    }
    let one_files = std::fs::read_dir(data.join("rooms"))
        .into_iter()
        .flatten()
        .flatten();
    for entry in one_files {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(id) = name
            .strip_suffix(".jsonl")
            .and_then(|id| Uuid::try_parse(id).ok())
        {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            rooms
                .entry(id)
                .or_insert_with(|| text.lines().map(str::to_owned).collect());
        }
    }
    rooms
}

/// Room `room`'s live journal in `data`, if it has one: its entries, one JSON text each.
pub(crate) fn journal_of(data: &Path, room: Uuid) -> Option<Vec<String>> {
    live(data).remove(&room)
}

/// How many action entries room `room`'s live journal holds.
pub(crate) fn actions_in(data: &Path, room: Uuid) -> usize {
    journal_of(data, room)
        .expect("the live game has a journal")
        .iter()
        .filter(|entry| entry.starts_with("{\"action\""))
        .count()
}

/// Makes room `room`'s journal one that a server before the log wrote: the segments are removed
/// and its entries, changed by `edit`, written to `rooms/<room>.jsonl`. Answers that file.
pub(crate) fn as_one_file(data: &Path, room: Uuid, edit: impl FnOnce(String) -> String) -> PathBuf {
    let mut text = journal_of(data, room)
        .expect("the room has a journal")
        .join("\n");
    text.push('\n');
    for segment in segments(data) {
        std::fs::remove_file(segment).unwrap();
    }
    let path = data.join("rooms").join(format!("{room}.jsonl"));
    std::fs::write(&path, edit(text)).unwrap();
    path
}
