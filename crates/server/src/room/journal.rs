//! The journal of an open room: what a restart needs to bring the room and its game back
//! exactly.
//!
//! Each open room whose game is not over (online, computer and local rooms alike, waiting for
//! players or playing) has a file `<data_dir>/rooms/<room id>.jsonl`. Its first line is the
//! setup: the mode, the seats taken so far with names, tokens and client seeds (a local room's
//! one player holds both seats with one token), the server seed and its commitment, when the
//! room was created and (once it has) the game started, the computer's colour and level in a
//! computer room, and the turn clock's length if the room has one. While the room waits for
//! players, the setup is rewritten whole (atomically) whenever a seat is taken and when the game
//! starts, so the invite link and the seat token of a waiting player work after a restart too;
//! a waiting room that closes unplayed deletes its file. Every further line is one accepted
//! action (the same [`LoggedAction`] the game record keeps), the list of undone events after an
//! undo, or the turn clock's strikes and the actions it played, whenever those change. An action's line is written (`write(2)`, no fsync) before
//! its events are sent, so a killed process loses nothing that anyone saw; the journals are
//! synced to disk (on Linux by one `syncfs(2)` for all of them) every `--journal-sync-ms` and at
//! shutdown, so a machine crash loses at most that much play.
//!
//! At start, [`restore_all`] rebuilds every journaled room (`journal/restore.rs`): the actions are
//! replayed through the rules crate and the die stream is resumed after as many rolls as the log
//! holds, so the position, a pending roll, the dice stream and the fairness seeds are those of
//! before. The undo history is rebuilt from the same log: every plane choice that stands and that
//! undo may take back (not the computer's, not one the turn clock played) is a point to go back
//! to, exactly the points the room had before. A computer room's bot is started again and rejoins
//! its seat with its token. The turn clock runs again with its strikes, the player to act getting
//! a full decision time from the restore. The seats are held from the restart as if everyone had
//! just disconnected. Event numbers continue from the last journaled game event (presence and
//! `undone` events are not journaled); clients take their numbering from the snapshot they get
//! when they rejoin. A journal whose game is over is turned into its record and handed to the
//! outbox. The file is deleted once the finished game's record is in the outbox.
//!
//! The format is versioned by the setup's `version`: version 1 (online rooms only) has no
//! computer, clock length or clock lines, and still restores; version 2 has both seats and the
//! start time always (started games only); this server writes version 3, in which a waiting
//! room's setup lacks the seats not yet taken and the start time, and rewrites a restored
//! journal in it.

mod restore;

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aeroplane_protocol::record::{LoggedAction, Mode};
use aeroplane_rules::{Action, Colour};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

pub use restore::restore_all;

use super::state::Room;
use crate::metrics::RoomView;

/// The journal format this server writes; it reads every version from 1 up to this one.
const VERSION: u32 = 3;

/// The first line of a journal.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Setup {
    /// The journal format.
    version: u32,
    id: Uuid,
    mode: Mode,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    /// When the game started; absent while the room waits for players (since version 3).
    #[serde(
        default,
        with = "time::serde::rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    started_at: Option<OffsetDateTime>,
    /// The secret server seed, hex (the file is as secret as the seat tokens).
    server_seed: String,
    commitment: String,
    /// The seats taken; a waiting room's may lack one or both (since version 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    red: Option<SavedSeat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    yellow: Option<SavedSeat>,
    /// The computer's seat, in a computer room (since version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    computer: Option<SavedComputer>,
    /// The turn clock's length in ms, in a room with a clock (since version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    turn_clock_ms: Option<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct SavedSeat {
    name: String,
    token: String,
    client_seed: String,
}

/// The computer's seat of a computer room.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct SavedComputer {
    colour: Colour,
    /// The level's name (`random`, `easy`, `normal`, `hard`).
    level: String,
}

/// What the turn clock counted: strikes per colour, and the indices in the action log of the
/// actions it played for a player (undo never takes those back).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct SavedClock {
    strikes: [u32; 2],
    played: Vec<usize>,
}

/// One line of a journal.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    Setup(Box<Setup>),
    Action(LoggedAction),
    /// The events of every action undone so far (after an undo).
    Undone(Vec<u64>),
    /// The turn clock's count so far, whenever it changes (since version 2).
    Clock(SavedClock),
}

/// How much of a room a journal holds, so the next write adds only what changed.
#[derive(Debug, Default)]
struct Written {
    /// How many actions of the room's log are written.
    actions: usize,
    /// The undone events last written.
    undone: Vec<u64>,
    /// The clock's count last written.
    clock: SavedClock,
}

impl Written {
    /// The lines that bring a journal holding `self` up to `room`, and what it holds then.
    fn lines_for(&self, room: &Room) -> (String, Written) {
        let mut text = String::new();
        // The clock's line goes before the actions it may name, so that a write torn by a crash
        // never leaves an action the clock played looking like the player's own.
        let same_clock =
            room.clock.strikes == self.clock.strikes && room.clock.played == self.clock.played;
        let clock = if same_clock {
            self.clock.clone()
        } else {
            let clock = SavedClock {
                strikes: room.clock.strikes,
                played: room.clock.played.clone(),
            };
            text.push_str(&line(&Line::Clock(clock.clone())));
            clock
        };
        for logged in room.actions.iter().skip(self.actions) {
            text.push_str(&line(&Line::Action(*logged)));
        }
        // Only computer and local rooms can undo: an online game's log is not scanned on every
        // action (it was about 1% of the server's CPU per action under load).
        let undone = if room.mode == Mode::Online {
            Vec::new()
        } else {
            undone_events(&room.actions)
        };
        if undone != self.undone {
            text.push_str(&line(&Line::Undone(undone.clone())));
        }
        let written = Written {
            actions: room.actions.len(),
            undone,
            clock,
        };
        (text, written)
    }
}

/// One journal file. It is not held open: each write opens it for appending and closes it
/// again, so a thousand idle rooms hold no file descriptors (one client opening rooms must never
/// bring the server to its descriptor limit, issue 20). An `open(2)` per action costs a few
/// microseconds, far below the rest of an action.
#[derive(Debug)]
struct Journal {
    path: PathBuf,
    /// The setup line, while it is a waiting room's: it is rewritten when it changes.
    waiting_setup: Option<String>,
    /// What the file holds.
    written: Written,
}

/// A journal as the server keeps it: the file's state, which only the room's own task locks (so
/// the lock is never contended and file I/O never waits on another room), and whether it was
/// written since the last sync, which the sync task reads without that lock.
#[derive(Debug)]
struct Entry {
    path: PathBuf,
    dirty: AtomicBool,
    journal: Mutex<Journal>,
}

impl Entry {
    /// Brings the journal up to date with `room`: appends what it gained, or rewrites a waiting
    /// room's setup whole when it changed (a seat taken, the game started).
    fn update(&self, dir: &Path, room: &Room) -> io::Result<()> {
        let mut journal = self.journal.lock().expect("journal lock poisoned");
        let wrote = match &journal.waiting_setup {
            None => journal.catch_up(room)?,
            Some(written) => {
                let setup = setup_of(room);
                if *written == line(&Line::Setup(Box::new(setup.clone()))) {
                    journal.catch_up(room)?
                } else {
                    *journal = Journal::create(dir, &setup, room)?;
                    true
                }
            }
        };
        if wrote {
            self.dirty.store(true, Ordering::Release);
        }
        Ok(())
    }
}

impl Journal {
    /// Writes the setup and everything `room` holds to a new file atomically (temporary file,
    /// rename), so a killed process never leaves half a setup behind.
    ///
    /// Nothing here waits for the disk: this runs on the room's task, and two `fsync`s per new
    /// game stalled every room sharing the runtime's thread (the open-loop benchmark's p99.9 of
    /// docs/benchmarks.md). The new file is dirty, so the next periodic sync forces it to disk
    /// with the rest: a machine crash can lose a game started less than `--journal-sync-ms`
    /// before it, the same bound as for any other play.
    fn create(dir: &Path, setup: &Setup, room: &Room) -> io::Result<Journal> {
        let path = dir.join(format!("{}.jsonl", setup.id));
        let temporary = dir.join(format!("{}.jsonl.tmp", setup.id));
        let setup_line = line(&Line::Setup(Box::new(setup.clone())));
        let waiting_setup = setup.started_at.is_none().then(|| setup_line.clone());
        let mut text = setup_line;
        let (lines, written) = Written::default().lines_for(room);
        text.push_str(&lines);
        let mut file = aeroplane_store::private::create_file(&temporary)?;
        file.write_all(text.as_bytes())?;
        drop(file);
        fs::rename(&temporary, &path)?;
        Ok(Journal {
            path,
            waiting_setup,
            written,
        })
    }

    /// Appends what the room gained since the last call; answers whether it wrote anything.
    fn catch_up(&mut self, room: &Room) -> io::Result<bool> {
        let (text, written) = self.written.lines_for(room);
        if text.is_empty() {
            return Ok(false);
        }
        OpenOptions::new()
            .append(true)
            .open(&self.path)?
            .write_all(text.as_bytes())?;
        self.written = written;
        Ok(true)
    }
}

fn line(line: &Line) -> String {
    let mut text = serde_json::to_string(line).expect("journal lines encode");
    text.push('\n');
    text
}

fn undone_events(actions: &[LoggedAction]) -> Vec<u64> {
    actions
        .iter()
        .filter(|logged| logged.undone)
        .map(|logged| logged.event)
        .collect()
}

/// The journals of every live game of this server, and where they live.
#[derive(Debug)]
pub struct Journals {
    dir: PathBuf,
    /// The directory itself, open: on Linux one `syncfs(2)` through it forces every journal to
    /// disk at once.
    dir_handle: File,
    /// The journals by room id. This lock guards the map only: no file I/O happens under it.
    open: Mutex<HashMap<Uuid, Arc<Entry>>>,
}

impl Journals {
    /// Journals kept in `dir` (created if missing).
    pub fn open(dir: PathBuf) -> io::Result<Arc<Journals>> {
        aeroplane_store::private::create_dir_all(&dir)?;
        let dir_handle = File::open(&dir)?;
        Ok(Arc::new(Journals {
            dir,
            dir_handle,
            open: Mutex::new(HashMap::new()),
        }))
    }

    /// The directory of the journal files.
    pub fn directory(&self) -> &Path {
        &self.dir
    }

    /// Brings the journal of `room` up to date: creates it when the room opens, rewrites a
    /// waiting room's setup when a seat is taken or the game starts, appends new actions, undone
    /// events and the clock's count. Failures are logged; the game goes on without its journal.
    fn write(&self, room: &Room) {
        let entry = self
            .open
            .lock()
            .expect("journals lock poisoned")
            .get(&room.id)
            .cloned();
        let result = match entry {
            Some(entry) => entry.update(&self.dir, room),
            None if !room.game.is_over() => {
                Journal::create(&self.dir, &setup_of(room), room).map(|journal| {
                    let entry = Entry {
                        path: journal.path.clone(),
                        dirty: AtomicBool::new(true),
                        journal: Mutex::new(journal),
                    };
                    let mut open = self.open.lock().expect("journals lock poisoned");
                    open.insert(room.id, Arc::new(entry));
                })
            }
            None => Ok(()),
        };
        if let Err(error) = result {
            crate::telemetry::journal_write_failed();
            tracing::error!(%error, "cannot write the room's journal; a restart would lose it");
        }
    }

    /// Deletes the journal of a game whose record is in the outbox.
    pub fn remove(&self, id: Uuid) {
        let entry = self
            .open
            .lock()
            .expect("journals lock poisoned")
            .remove(&id);
        let path = entry.map_or_else(
            || self.dir.join(format!("{id}.jsonl")),
            |entry| entry.path.clone(),
        );
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => tracing::warn!(%error, room_id = %id, "cannot delete a journal"),
        }
    }

    /// Forces every journal written since the last sync to disk.
    ///
    /// On Linux this is one `syncfs(2)` of the journals' file system, however many rooms are
    /// live: with a thousand rooms, a `fdatasync` per journal file cost a device cache flush each
    /// and about 5% of the server's CPU per action (see docs/benchmarks.md). Elsewhere each dirty
    /// file is synced on its own.
    pub async fn sync(&self, all: bool) {
        let handles: Vec<File> = {
            let open = self.open.lock().expect("journals lock poisoned");
            let mut handles = Vec::new();
            for entry in open.values() {
                if !entry.dirty.swap(false, Ordering::AcqRel) && !all {
                    continue;
                }
                if !cfg!(target_os = "linux") {
                    // Opening a file is I/O under the map's lock; only off Linux, where every
                    // dirty journal needs its own sync anyway.
                    handles.extend(File::open(&entry.path).ok());
                } else if handles.is_empty() {
                    // The directory reaches the whole file system: one handle does.
                    handles.extend(self.dir_handle.try_clone().ok());
                }
            }
            handles
        };
        if handles.is_empty() {
            return;
        }
        let synced =
            tokio::task::spawn_blocking(move || handles.iter().try_for_each(force_to_disk));
        if let Ok(Err(error)) = synced.await {
            tracing::error!(%error, "cannot sync the journals");
        }
    }

    /// Syncs dirty journals every `interval`, for as long as the journals exist.
    pub fn sync_periodically(self: &Arc<Journals>, interval: Duration) {
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

fn setup_of(room: &Room) -> Setup {
    let seat = |colour: Colour| {
        room.seat(colour).map(|seat| SavedSeat {
            name: seat.name.to_string(),
            token: seat.token.as_str().to_owned(),
            client_seed: seat.client_seed.as_str().to_owned(),
        })
    };
    Setup {
        version: VERSION,
        id: room.id,
        mode: room.mode,
        created_at: room.created_at,
        started_at: room.started_at,
        server_seed: room.server_seed.to_hex(),
        commitment: room.commitment.to_string(),
        red: seat(Colour::Red),
        yellow: seat(Colour::Yellow),
        computer: room.assist.computer.map(|computer| SavedComputer {
            colour: computer.colour,
            level: computer.level.as_str().to_owned(),
        }),
        turn_clock_ms: room.clock.deadline_ms(),
    }
}

impl Room {
    /// Brings this room's journal up to date (see the module docs).
    pub(super) fn journal(&mut self) {
        let journals = self.context.journals.clone();
        journals.write(self);
    }

    /// What the metrics follow of this room now.
    pub(super) fn view(&self) -> RoomView {
        let role = |player: bool| {
            self.conns
                .iter()
                .filter(|(id, _)| **id != super::BOT_CONN)
                .filter(|(_, conn)| match conn.role {
                    Some(super::state::Joined::Player(_)) => player,
                    Some(super::state::Joined::Spectator) => !player,
                    None => false,
                })
                .count()
        };
        RoomView {
            phase: Some(self.phase()),
            players: role(true),
            spectators: role(false),
            actions: self.actions.len(),
            ended: self.game.outcome().map(|outcome| outcome.reason.as_str()),
        }
    }

    /// Journals and counts what changed since `before`.
    pub(super) fn account(&mut self, before: RoomView) {
        self.journal();
        let after = self.view();
        if after != before {
            let new: Vec<Action> = self
                .actions
                .iter()
                .skip(before.actions)
                .map(|logged| logged.action)
                .collect();
            crate::metrics::room_changed(self.mode, before, after, &new);
        }
    }
}
