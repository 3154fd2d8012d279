//! Rebuilding open rooms (waiting or playing) from their journals: at start-up
//! ([`restore_all`]), and one room at a time ([`restore_one`]) when a cluster node takes over a
//! room whose owner's lease lapsed, so both paths rebuild a room the same way.
//!
//! Every journal the store loads is turned back into a room built like a new one with the
//! journaled seats, then what was played is put back (see [`restore`]) and the room is started
//! the one way every room starts (`task.rs`).

use std::time::Duration;

use aeroplane_dice::{ClientSeed, ServerSeed};
use aeroplane_protocol::board::Board;
use aeroplane_protocol::name::PlayerName;
use aeroplane_protocol::record::{LoggedAction, Mode};
use aeroplane_rules::Side;

use tokio::sync::oneshot;

use super::core::Room;
use super::handle::RoomHandle;
use super::journal::{Line, Loaded, RoomJournal, SavedClock, SavedSeat, Setup, TABLE_VERSION};
use super::setup::{ComputerSeat, RoomContext, RoomSetup, SeatSetup};
use super::task;
use crate::token::SeatToken;

/// Why a journal could not be restored.
#[derive(Debug, thiserror::Error)]
enum RestoreError {
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    #[error("no setup entry")]
    NoSetup,
    #[error("bad setup: {0}")]
    BadSetup(String),
    #[error("action {index} does not replay: {error}")]
    Replay {
        index: usize,
        error: aeroplane_rules::RuleError,
    },
}

fn bad(what: &str) -> RestoreError {
    RestoreError::BadSetup(what.to_owned())
}

/// Rebuilds every live game the journal store holds and opens its room. Answers how many rooms
/// were restored. A journal that cannot be restored is set aside (the file store renames it
/// `*.broken`) and logged, so it never blocks a start. Each restored room has rewritten its
/// journal (or handed a finished game's record to the outbox) before this answers.
pub async fn restore_all(context: &RoomContext) -> usize {
    let mut restored = 0;
    for loaded in context.journals.load_all().await {
        if restore_one(loaded, context).await.is_some() {
            restored += 1;
        }
    }
    restored
}

/// Rebuilds the room of one loaded journal and opens it, as [`restore_all`] does for each (a
/// cluster node taking over a room whose owner died uses this too). Answers the room once it
/// has rewritten its journal (or handed a finished game's record to the outbox); `None` when
/// the journal cannot be restored: it is then set aside and logged.
pub async fn restore_one(loaded: Loaded, context: &RoomContext) -> Option<RoomHandle> {
    let Loaded {
        name,
        entries,
        journal,
    } = loaded;
    let restoring = match entries.map_err(RestoreError::from).and_then(read) {
        Ok(journaled) => restore(journaled, journal, context),
        Err(error) => Err((error, journal)),
    };
    match restoring {
        Ok((handle, journaled)) => {
            // The room's task answers unless it panicked. A room whose rewrite failed has
            // stopped already (its journal is left to whoever owns it next), like any room
            // whose write failed; its handle is answered all the same.
            if journaled.await == Ok(true) {
                tracing::info!(room_id = %handle.id, "restored a live game from its journal");
            } else {
                tracing::warn!(room_id = %handle.id, "restored a live game but could not rewrite its journal; let it go");
            }
            Some(handle)
        }
        Err((error, journal)) => {
            tracing::error!(%error, journal = %name, "cannot restore a journaled game; set aside");
            if let Err(error) = journal.set_aside().await {
                tracing::error!(%error, journal = %name, "cannot set the journal aside");
            }
            None
        }
    }
}

/// What a journal holds.
struct Journaled {
    setup: Setup,
    /// The action log, undone actions marked.
    actions: Vec<LoggedAction>,
    /// The clock's last count.
    clock: SavedClock,
}

/// Reads a journal's entries into its setup, action log and clock count.
fn read(entries: Vec<Line>) -> Result<Journaled, RestoreError> {
    let mut entries = entries.into_iter();
    let Some(Line::Setup(setup)) = entries.next() else {
        return Err(RestoreError::NoSetup);
    };
    let mut actions: Vec<LoggedAction> = Vec::new();
    let mut clock = SavedClock::default();
    for entry in entries {
        match entry {
            Line::Setup(_) => return Err(bad("a second setup entry")),
            Line::Action(logged) => actions.push(logged),
            Line::Undone(events) => {
                for logged in &mut actions {
                    logged.undone = events.contains(&logged.event);
                }
            }
            Line::Clock(count) => clock = count,
        }
    }
    Ok(Journaled {
        setup: *setup,
        actions,
        clock,
    })
}

type Failed = (RestoreError, Box<dyn RoomJournal>);

/// Rebuilds one journaled room and opens it:
///
/// - the room is built with the journaled seats, the computer's seat and the turn clock's length;
/// - a room that was waiting for players waits again (its seated players' tokens and seeds are
///   back; it closes `--waiting-room-ttl-ms` from now if nobody comes), and the rest is skipped;
/// - the actions are replayed through the rules crate (undone ones skipped) and the die stream
///   resumed after as many rolls as the log holds, undone rolls included;
/// - every plane choice that stands and that undo may take back becomes an undo point again
///   (`assist.rs` keeps exactly those: undo pops the latest point and marks its move and all
///   that followed undone, so the points left are the undoable moves not undone). Moves the turn
///   clock played are not undoable, as they were not before;
/// - the strikes come back and the turn clock gives the player to act a full decision time from
///   now; the seats are held as if every player had just disconnected;
/// - the journal is rewritten whole in the current format, the room is counted as restored (not
///   as a new game) and a computer room's bot is started again (`task.rs`).
fn restore(
    journaled: Journaled,
    journal: Box<dyn RoomJournal>,
    context: &RoomContext,
) -> Result<(RoomHandle, oneshot::Receiver<bool>), Failed> {
    let Journaled {
        setup,
        actions,
        clock,
    } = journaled;
    let room_setup = match setup_of(&setup) {
        Ok(room_setup) => room_setup,
        Err(error) => return Err((error, journal)),
    };
    // `build` starts the game if every seat is set; a waiting room waits again, for a full
    // `--waiting-room-ttl-ms` from now. The journal stays as it is until the room is whole
    // again, then is rewritten whole (so a torn last entry is gone before anything is appended).
    let mut room = task::build(room_setup, setup.created_at, Some(journal), context.clone());
    let result = match setup.started_at {
        Some(_) if !room.timeline.has_started() => Err(bad("a started game without every seat")),
        Some(started_at) => put_back(&mut room, started_at, actions, clock),
        None if !actions.is_empty() => Err(bad("actions before the game started")),
        None => Ok(()),
    };
    if let Err(error) = result {
        let journal = room
            .journal
            .hand_off()
            .expect("a restored room has its journal");
        return Err((error, journal));
    }
    if room.timeline.game().is_over() {
        room.finish();
    } else {
        if room.is_live() {
            room.hold_seats_after_restart();
            // A fresh, full decision time from now for the player to act (see `clock.rs`).
            room.restart_clock(&mut []);
        }
        // Written again whole by the room's first step (`task.rs`).
        room.journal.resume();
    }
    Ok(task::launch(room, true))
}

/// Puts back what a started game played: the timeline (dice, actions, event numbers), the undo
/// points and the turn clock's count.
fn put_back(
    room: &mut Room,
    started_at: time::OffsetDateTime,
    actions: Vec<LoggedAction>,
    clock: SavedClock,
) -> Result<(), RestoreError> {
    let seeds = room.seats.client_seeds();
    let (mode, assist) = (room.mode, &mut room.assist);
    room.timeline
        .put_back(started_at, &seeds, actions, |before, action, index| {
            if !clock.played.contains(&index) {
                assist.remember(mode, before, action, index);
            }
        })
        .map_err(|(index, error)| RestoreError::Replay { index, error })?;
    room.clock.put_back(clock);
    Ok(())
}

/// The room a journal's setup describes, its seats taken.
fn setup_of(setup: &Setup) -> Result<RoomSetup, RestoreError> {
    if !(1..=TABLE_VERSION).contains(&setup.version) {
        return Err(RestoreError::BadSetup(format!(
            "journal version {} (this server reads 1 to {TABLE_VERSION})",
            setup.version
        )));
    }
    let board = board_of(setup)?;
    let server_seed: ServerSeed = setup.server_seed.parse().map_err(|_| bad("server seed"))?;
    if server_seed.commitment().to_string() != setup.commitment {
        return Err(bad("the server seed does not match its commitment"));
    }
    let computers = computers_of(setup)?;
    let mut seats = Vec::new();
    let saved = [
        (Side::Red, &setup.red),
        (Side::Yellow, &setup.yellow),
        (Side::Blue, &setup.blue),
        (Side::Green, &setup.green),
    ];
    for (colour, saved) in saved {
        match saved {
            Some(_) if !board.sides().contains(&colour) => {
                return Err(bad("a seat of a colour that does not play"));
            }
            Some(saved) => seats.push(seat_of(colour, saved)?),
            None => {}
        }
    }
    for computer in &computers {
        if !seats.iter().any(|seat| seat.colour == computer.colour) {
            return Err(bad("a computer has no seat"));
        }
    }
    Ok(RoomSetup {
        id: setup.id,
        mode: setup.mode,
        board,
        server_seed,
        seats,
        turn_clock: setup.turn_clock_ms.map(Duration::from_millis),
        computers,
    })
}

/// The game a journaled setup plays: two-player `plyyard` up to version 3, the journaled edition
/// and player count from version 4.
fn board_of(setup: &Setup) -> Result<Board, RestoreError> {
    match (setup.rules, setup.players) {
        (None, None) if setup.version < TABLE_VERSION => Ok(Board::default()),
        (Some(rules), Some(players)) if setup.version == TABLE_VERSION => {
            Board::new(rules, usize::from(players))
                .map_err(|error| RestoreError::BadSetup(error.to_string()))
        }
        _ => Err(bad(
            "the edition and player count do not fit the journal version",
        )),
    }
}

/// The computers' seats of a journaled computer room: its one `computer` (up to version 3) or
/// its `computers` (version 4).
fn computers_of(setup: &Setup) -> Result<Vec<ComputerSeat>, RestoreError> {
    let saved: Vec<_> = setup.computer.iter().chain(&setup.computers).collect();
    match (setup.mode, saved.is_empty()) {
        (Mode::Computer, true) => Err(bad("a computer room without its computer")),
        (Mode::Computer, false) => saved
            .into_iter()
            .map(|saved| {
                Ok(ComputerSeat {
                    colour: saved.colour,
                    level: saved.level.parse().map_err(|_| bad("computer level"))?,
                })
            })
            .collect(),
        (_, false) => Err(bad("a computer outside a computer room")),
        (_, true) => Ok(Vec::new()),
    }
}

/// A journaled seat. A name from an older server that a name may no longer be is cleaned
/// ([`PlayerName::lossy`]), never refused: the game matters more than its spelling.
fn seat_of(colour: Side, saved: &SavedSeat) -> Result<SeatSetup, RestoreError> {
    Ok(SeatSetup {
        colour,
        name: PlayerName::parse(&saved.name).unwrap_or_else(|_| PlayerName::lossy(&saved.name)),
        client_seed: ClientSeed::new(saved.client_seed.clone()).map_err(|_| bad("client seed"))?,
        token: SeatToken::from_saved(saved.token.clone()),
        player: saved.player_id,
    })
}

#[cfg(test)]
mod tests {
    //! A second journal store, kept in memory: a room journals into it and is restored from it
    //! with no change to the room, as a broker's stream will be (issue 14).

    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    use aeroplane_protocol::client::decode;
    use aeroplane_protocol::snapshot::RoomPhase;
    use aeroplane_store::{GameStore, MemoryStore, Outbox, OutboxOptions};
    use futures_util::future::{BoxFuture, FutureExt};
    use uuid::Uuid;

    use super::*;
    use crate::config::Config;
    use crate::lifecycle::Lifecycle;
    use crate::outgoing::{self, Closer};
    use crate::room::journal::JournalStore;
    use crate::room::{Registry, RoomCommand};

    type Shelf = Arc<Mutex<BTreeMap<Uuid, Vec<Line>>>>;

    #[derive(Debug, Default)]
    struct MemoryJournals {
        shelf: Shelf,
    }

    #[derive(Debug)]
    struct MemoryJournal {
        id: Uuid,
        shelf: Shelf,
    }

    type Written<'a> = BoxFuture<'a, std::io::Result<()>>;

    impl RoomJournal for MemoryJournal {
        fn append<'a>(&'a mut self, entries: &'a [Line]) -> Written<'a> {
            let mut shelf = self.shelf.lock().unwrap();
            shelf.entry(self.id).or_default().extend_from_slice(entries);
            async { Ok(()) }.boxed()
        }

        fn rewrite<'a>(&'a mut self, entries: &'a [Line]) -> Written<'a> {
            self.shelf.lock().unwrap().insert(self.id, entries.to_vec());
            async { Ok(()) }.boxed()
        }

        fn delete(self: Box<Self>) -> Written<'static> {
            self.shelf.lock().unwrap().remove(&self.id);
            async { Ok(()) }.boxed()
        }

        fn set_aside(self: Box<Self>) -> Written<'static> {
            self.delete()
        }
    }

    impl JournalStore for MemoryJournals {
        fn create<'a>(
            &'a self,
            id: Uuid,
            entries: &'a [Line],
        ) -> BoxFuture<'a, std::io::Result<Box<dyn RoomJournal>>> {
            self.shelf.lock().unwrap().insert(id, entries.to_vec());
            let shelf = self.shelf.clone();
            let journal: Box<dyn RoomJournal> = Box::new(MemoryJournal { id, shelf });
            async { Ok(journal) }.boxed()
        }

        fn load_all(&self) -> BoxFuture<'_, Vec<Loaded>> {
            let shelf = self.shelf.lock().unwrap();
            let journal = |id: &Uuid| MemoryJournal {
                id: *id,
                shelf: self.shelf.clone(),
            };
            let loaded = shelf
                .iter()
                .map(|(id, entries)| Loaded {
                    name: id.to_string(),
                    entries: Ok(entries.clone()),
                    journal: Box::new(journal(id)),
                })
                .collect();
            async { loaded }.boxed()
        }

        fn sync(&self, _all: bool) -> BoxFuture<'_, ()> {
            async {}.boxed()
        }
    }

    async fn context(journals: Arc<MemoryJournals>, dir: &std::path::Path) -> RoomContext {
        let store: Arc<dyn GameStore> = Arc::new(MemoryStore::new());
        let options = OutboxOptions::default();
        let (outbox, _writer) = Outbox::start(dir.join("outbox"), store.clone(), options)
            .await
            .unwrap();
        RoomContext {
            config: Arc::new(Config::defaults()),
            store,
            registry: Arc::new(Registry::new()),
            outbox,
            journals,
            lifecycle: Arc::new(Lifecycle::default()),
        }
    }

    fn seat(colour: Side, name: &str) -> (SeatSetup, String) {
        let token = SeatToken::generate().unwrap();
        let text = token.as_str().to_owned();
        let seat = SeatSetup {
            colour,
            name: PlayerName::parse(name).unwrap(),
            client_seed: ClientSeed::default(),
            token,
            player: None,
        };
        (seat, text)
    }

    async fn status(room: &RoomHandle) -> aeroplane_protocol::api::RoomStatus {
        room.status(std::time::Duration::from_secs(10))
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn a_room_journals_into_another_store_and_comes_back_from_it() {
        let dir = tempfile::tempdir().unwrap();
        let journals = Arc::new(MemoryJournals::default());
        let first = context(journals.clone(), dir.path()).await;
        let (red, red_token) = seat(Side::Red, "Ann");
        let (yellow, _) = seat(Side::Yellow, "Bob");
        let id = Uuid::new_v4();
        let setup = RoomSetup {
            id,
            mode: Mode::Online,
            board: Board::default(),
            server_seed: ServerSeed::generate().unwrap(),
            seats: vec![red, yellow],
            turn_clock: None,
            computers: Vec::new(),
        };
        let room = task::open_journaled(setup, first.clone()).await.unwrap();
        // Red comes and rolls: event 1 started the game, event 2 says Red connected.
        let (outbox, _frames) = outgoing::queue(64, Arc::new(Closer::default()));
        room.inbox
            .send(RoomCommand::Connect { conn: 1, outbox })
            .await
            .unwrap();
        let join =
            format!(r#"{{"type":"join","role":"player","name":"Ann","token":"{red_token}"}}"#);
        for text in [join.as_str(), r#"{"type":"roll","seen":2}"#] {
            let message = decode(text).unwrap();
            let command = RoomCommand::Message { conn: 1, message };
            room.inbox.send(command).await.unwrap();
        }
        let before = status(&room).await;
        assert_eq!(before.phase, RoomPhase::Playing);
        assert!(before.event >= 3, "the roll was played: {before:?}");
        let kept = journals.shelf.lock().unwrap()[&id].clone();
        assert!(matches!(kept[0], Line::Setup(_)), "{kept:?}");
        assert!(
            kept.iter().any(|line| matches!(line, Line::Action(_))),
            "{kept:?}"
        );

        // The server stops; another starts on the same journals and finds the game.
        first.lifecycle.drain();
        first.registry.stop_all();
        first.registry.closed().await;
        let second = context(journals.clone(), dir.path()).await;
        assert_eq!(restore_all(&second).await, 1);
        let restored = second.registry.get(id).expect("the room is open again");
        let after = status(&restored).await;
        assert_eq!(after.phase, RoomPhase::Playing);
        // Numbering goes on from the last game event, here the last event of all.
        assert_eq!(after.event, before.event);
        second.lifecycle.drain();
        second.registry.stop_all();
        second.registry.closed().await;
    }
}
