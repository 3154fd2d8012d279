//! The journal of a live game: what a restart needs to bring the game back exactly.
//!
//! Each live online game has a file `<data_dir>/rooms/<room id>.jsonl`. Its first line is the
//! setup (mode, seats with names, tokens and client seeds, the server seed and its commitment,
//! when the room was created and the game started); every further line is one accepted action,
//! the same [`LoggedAction`] the game record keeps, or the list of undone events after an undo.
//! An action's line is written (`write(2)`, no fsync) before its events are sent, so a killed
//! process loses nothing that anyone saw; every file is synced to disk every
//! `--journal-sync-ms` and at shutdown, so a machine crash loses at most that much play.
//!
//! At start, [`restore_all`] rebuilds every journaled room: the actions are replayed through the
//! rules crate and the die stream is resumed after as many rolls as the log holds, so the
//! position, a pending roll, the dice stream and the fairness seeds are those of before. The
//! seats are held for the grace period from the restart. Event numbers continue from the last
//! journaled game event (presence events are not journaled); clients take their numbering from
//! the snapshot they get when they rejoin. A journal whose game is over is turned into its record
//! and handed to the outbox. The file is deleted once the finished game's record is in the outbox.
//!
//! Only online rooms are journaled for now: computer and local rooms are lost on restart.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aeroplane_dice::{ClientSeed, DieStream, GameKey, ServerSeed};
use aeroplane_protocol::events::{Reveal, wire_events};
use aeroplane_protocol::record::{LoggedAction, Mode};
use aeroplane_rules::{Action, Colour};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use tokio::sync::mpsc;
use uuid::Uuid;

use super::state::Room;
use super::{RoomContext, RoomHandle, RoomSetup, SeatSetup};
use crate::metrics::RoomView;
use crate::token::SeatToken;

/// The first line of a journal.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Setup {
    /// The journal format.
    version: u32,
    id: Uuid,
    mode: Mode,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    started_at: OffsetDateTime,
    /// The secret server seed, hex (the file is as secret as the seat tokens).
    server_seed: String,
    commitment: String,
    red: SavedSeat,
    yellow: SavedSeat,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct SavedSeat {
    name: String,
    token: String,
    client_seed: String,
}

/// One line of a journal.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    Setup(Box<Setup>),
    Action(LoggedAction),
    /// The events of every action undone so far (after an undo).
    Undone(Vec<u64>),
}

/// One open journal file.
#[derive(Debug)]
struct Journal {
    path: PathBuf,
    file: File,
    /// How many actions of the room's log are written.
    written: usize,
    /// The undone events last written.
    undone: Vec<u64>,
    /// Whether something was written since the last sync.
    dirty: bool,
}

impl Journal {
    /// Writes the setup and `actions` to a new file atomically (temporary file, fsync, rename).
    fn create(dir: &Path, setup: &Setup, actions: &[LoggedAction]) -> io::Result<Journal> {
        let path = dir.join(format!("{}.jsonl", setup.id));
        let temporary = dir.join(format!("{}.jsonl.tmp", setup.id));
        let mut text = line(&Line::Setup(Box::new(setup.clone())));
        for logged in actions {
            text.push_str(&line(&Line::Action(*logged)));
        }
        let undone = undone_events(actions);
        if !undone.is_empty() {
            text.push_str(&line(&Line::Undone(undone.clone())));
        }
        let mut file = File::create(&temporary)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        fs::rename(&temporary, &path)?;
        File::open(dir)?.sync_all()?;
        let file = OpenOptions::new().append(true).open(&path)?;
        Ok(Journal {
            path,
            file,
            written: actions.len(),
            undone,
            dirty: false,
        })
    }

    /// Appends what the log gained since the last call.
    fn catch_up(&mut self, actions: &[LoggedAction]) -> io::Result<()> {
        let mut text = String::new();
        for logged in actions.iter().skip(self.written) {
            text.push_str(&line(&Line::Action(*logged)));
        }
        let undone = undone_events(actions);
        if undone != self.undone {
            text.push_str(&line(&Line::Undone(undone.clone())));
        }
        if text.is_empty() {
            return Ok(());
        }
        self.file.write_all(text.as_bytes())?;
        self.written = actions.len();
        self.undone = undone;
        self.dirty = true;
        Ok(())
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
    open: Mutex<HashMap<Uuid, Journal>>,
}

impl Journals {
    /// Journals kept in `dir` (created if missing).
    pub fn open(dir: PathBuf) -> io::Result<Arc<Journals>> {
        fs::create_dir_all(&dir)?;
        Ok(Arc::new(Journals {
            dir,
            open: Mutex::new(HashMap::new()),
        }))
    }

    /// The directory of the journal files.
    pub fn directory(&self) -> &Path {
        &self.dir
    }

    /// Brings the journal of `room` up to date: creates it when the game has started, appends
    /// new actions. Failures are logged; the game goes on without its journal.
    fn write(&self, room: &Room) {
        if room.mode != Mode::Online {
            return;
        }
        let mut open = self.open.lock().expect("journal lock poisoned");
        let result = match open.get_mut(&room.id) {
            Some(journal) => journal.catch_up(&room.actions),
            None if room.dice.is_some() && !room.game.is_over() => {
                let Some(setup) = setup_of(room) else { return };
                Journal::create(&self.dir, &setup, &room.actions).map(|journal| {
                    open.insert(room.id, journal);
                })
            }
            None => Ok(()),
        };
        if let Err(error) = result {
            tracing::error!(%error, "cannot write the game's journal; a restart would lose it");
        }
    }

    /// Deletes the journal of a game whose record is in the outbox.
    pub fn remove(&self, id: Uuid) {
        let journal = self.open.lock().expect("journal lock poisoned").remove(&id);
        let path = journal.map_or_else(|| self.dir.join(format!("{id}.jsonl")), |j| j.path);
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => tracing::warn!(%error, room_id = %id, "cannot delete a journal"),
        }
    }

    /// Forces every journal written since the last sync to disk.
    pub async fn sync(&self, all: bool) {
        let files: Vec<File> = {
            let mut open = self.open.lock().expect("journal lock poisoned");
            open.values_mut()
                .filter(|journal| all || journal.dirty)
                .filter_map(|journal| {
                    journal.dirty = false;
                    journal.file.try_clone().ok()
                })
                .collect()
        };
        if files.is_empty() {
            return;
        }
        let synced = tokio::task::spawn_blocking(move || {
            for file in files {
                if let Err(error) = file.sync_data() {
                    tracing::error!(%error, "cannot sync a journal");
                }
            }
        });
        let _ = synced.await;
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

fn setup_of(room: &Room) -> Option<Setup> {
    let seat = |colour: Colour| {
        room.seat(colour).map(|seat| SavedSeat {
            name: seat.name.clone(),
            token: seat.token.as_str().to_owned(),
            client_seed: seat.client_seed.as_str().to_owned(),
        })
    };
    Some(Setup {
        version: 1,
        id: room.id,
        mode: room.mode,
        created_at: room.created_at,
        started_at: room.started_at?,
        server_seed: room.server_seed.to_hex(),
        commitment: room.commitment.to_string(),
        red: seat(Colour::Red)?,
        yellow: seat(Colour::Yellow)?,
    })
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

/// Why a journal could not be restored.
#[derive(Debug, thiserror::Error)]
enum RestoreError {
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
    #[error("no setup line")]
    NoSetup,
    #[error("bad setup: {0}")]
    BadSetup(String),
    #[error("action {index} does not replay: {error}")]
    Replay {
        index: usize,
        error: aeroplane_rules::RuleError,
    },
}

/// Rebuilds every live game journaled in the journals' directory and opens its room. Answers
/// how many rooms were restored. A journal that cannot be restored is renamed `*.broken` and
/// logged, so it never blocks a start.
pub fn restore_all(context: &RoomContext) -> usize {
    let dir = context.journals.dir.clone();
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(error) => {
            tracing::error!(%error, dir = %dir.display(), "cannot read the journal directory");
            return 0;
        }
    };
    let mut restored = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".jsonl.tmp") {
            let _ = fs::remove_file(&path);
            continue;
        }
        if !name.ends_with(".jsonl") {
            continue;
        }
        match restore(&path, context) {
            Ok(handle) => {
                restored += 1;
                crate::metrics::room_restored();
                tracing::info!(room_id = %handle.id, "restored a live game from its journal");
            }
            Err(error) => {
                tracing::error!(%error, file = %path.display(), "cannot restore a journaled game; renamed to .broken");
                let _ = fs::rename(&path, path.with_extension("jsonl.broken"));
            }
        }
    }
    restored
}

fn read_lines(path: &Path) -> Result<(Setup, Vec<LoggedAction>), RestoreError> {
    let reader = BufReader::new(File::open(path)?);
    let mut setup = None;
    let mut actions: Vec<LoggedAction> = Vec::new();
    for (number, text) in reader.lines().enumerate() {
        let text = text?;
        if text.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Line>(&text) {
            Ok(Line::Setup(found)) if number == 0 => setup = Some(*found),
            Ok(Line::Setup(_)) => {
                return Err(RestoreError::BadSetup("a second setup line".into()));
            }
            Ok(Line::Action(logged)) => actions.push(logged),
            Ok(Line::Undone(events)) => {
                for logged in &mut actions {
                    logged.undone = events.contains(&logged.event);
                }
            }
            Err(error) => {
                // The last line of a killed process may be torn; everything before it stands.
                tracing::warn!(%error, line = number + 1, file = %path.display(), "journal ends in an unreadable line; ignoring it and what follows");
                break;
            }
        }
    }
    Ok((setup.ok_or(RestoreError::NoSetup)?, actions))
}

fn restore(path: &Path, context: &RoomContext) -> Result<RoomHandle, RestoreError> {
    let (setup, actions) = read_lines(path)?;
    let bad = |what: &str| RestoreError::BadSetup(what.to_owned());
    let server_seed: ServerSeed = setup.server_seed.parse().map_err(|_| bad("server seed"))?;
    if server_seed.commitment().to_string() != setup.commitment {
        return Err(bad("the server seed does not match its commitment"));
    }
    let seat = |colour: Colour, saved: &SavedSeat| -> Result<SeatSetup, RestoreError> {
        Ok(SeatSetup {
            colour,
            name: saved.name.clone(),
            client_seed: ClientSeed::new(saved.client_seed.clone())
                .map_err(|_| bad("client seed"))?,
            token: SeatToken::from_saved(saved.token.clone()),
        })
    };
    let key = GameKey::derive(
        &server_seed,
        &ClientSeed::new(setup.red.client_seed.clone()).map_err(|_| bad("client seed"))?,
        &ClientSeed::new(setup.yellow.client_seed.clone()).map_err(|_| bad("client seed"))?,
    );
    let seats = vec![
        seat(Colour::Red, &setup.red)?,
        seat(Colour::Yellow, &setup.yellow)?,
    ];
    let room_setup = RoomSetup {
        // The turn clock is not journaled: a restored game plays on without one.
        turn_clock: None,
        id: setup.id,
        mode: setup.mode,
        server_seed,
        seats,
    };
    let (inbox, commands) = mpsc::channel(context.config.room_inbox.max(1));
    let mut room = super::task::build(room_setup, context.clone());
    // `build` started the game (both seats are set) and holds each seat for the grace period
    // from now; what follows puts back what was played.
    room.created_at = setup.created_at;
    room.started_at = Some(setup.started_at);
    let rolls = actions
        .iter()
        .filter(|logged| matches!(logged.action, Action::Roll { .. }))
        .count() as u64;
    room.dice = Some(DieStream::resume(key, rolls));
    let mut event = room.event;
    for (index, logged) in actions.iter().enumerate() {
        if logged.undone {
            continue;
        }
        let events = room
            .game
            .apply(logged.action)
            .map_err(|error| RestoreError::Replay { index, error })?;
        let dummy = || Reveal {
            server_seed: String::new(),
            commitment: String::new(),
            red_seed: String::new(),
            yellow_seed: String::new(),
        };
        let produced = wire_events(&events, logged.event, dummy).len() as u64;
        event = event.max(logged.event + produced.saturating_sub(1));
    }
    if let Some(last) = actions.last() {
        event = event.max(last.event);
    }
    room.actions = actions;
    room.event = event;
    room.state_event = event;
    // Rewrite the journal whole (atomically, over the old file), so a torn last line is gone
    // before anything is appended.
    if room.game.is_over() {
        room.finish();
    } else {
        room.journal();
    }
    let handle = RoomHandle { id: room.id, inbox };
    context.registry.insert(handle.clone());
    super::task::launch(room, commands);
    Ok(handle)
}
