//! Rebuilding open rooms (waiting or playing) from their journals at start-up.
//!
//! Every journal the store loads is turned back into a room built like a new one with the
//! journaled seats, then what was played is put back (see [`restore`]) and the room is started
//! the one way every room starts (`task.rs`).

use std::time::Duration;

use aeroplane_dice::{ClientSeed, ServerSeed};
use aeroplane_protocol::name::PlayerName;
use aeroplane_protocol::record::{LoggedAction, Mode};
use aeroplane_rules::Colour;

use super::core::Room;
use super::handle::RoomHandle;
use super::journal::{Line, Loaded, RoomJournal, SavedClock, SavedSeat, Setup, VERSION};
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
/// `*.broken`) and logged, so it never blocks a start.
pub fn restore_all(context: &RoomContext) -> usize {
    let mut restored = 0;
    for Loaded {
        name,
        entries,
        journal,
    } in context.journals.load_all()
    {
        let restoring = match entries.map_err(RestoreError::from).and_then(read) {
            Ok(journaled) => restore(journaled, journal, context),
            Err(error) => Err((error, journal)),
        };
        match restoring {
            Ok(handle) => {
                restored += 1;
                tracing::info!(room_id = %handle.id, "restored a live game from its journal");
            }
            Err((error, journal)) => {
                tracing::error!(%error, journal = %name, "cannot restore a journaled game; set aside");
                if let Err(error) = journal.set_aside() {
                    tracing::error!(%error, journal = %name, "cannot set the journal aside");
                }
            }
        }
    }
    restored
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
) -> Result<RoomHandle, Failed> {
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
        Some(_) if !room.timeline.has_started() => Err(bad("a started game without both seats")),
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
        room.journal.resume();
        room.journal_now();
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
    let red = room.seats.client_seed(Colour::Red);
    let yellow = room.seats.client_seed(Colour::Yellow);
    let (mode, assist) = (room.mode, &mut room.assist);
    room.timeline
        .put_back(
            started_at,
            (&red, &yellow),
            actions,
            |before, action, index| {
                if !clock.played.contains(&index) {
                    assist.remember(mode, before, action, index);
                }
            },
        )
        .map_err(|(index, error)| RestoreError::Replay { index, error })?;
    room.clock.put_back(clock);
    Ok(())
}

/// The room a journal's setup describes, its seats taken.
fn setup_of(setup: &Setup) -> Result<RoomSetup, RestoreError> {
    if !(1..=VERSION).contains(&setup.version) {
        return Err(RestoreError::BadSetup(format!(
            "journal version {} (this server reads 1 to {VERSION})",
            setup.version
        )));
    }
    let server_seed: ServerSeed = setup.server_seed.parse().map_err(|_| bad("server seed"))?;
    if server_seed.commitment().to_string() != setup.commitment {
        return Err(bad("the server seed does not match its commitment"));
    }
    let computer = computer_of(setup)?;
    let mut seats = Vec::new();
    for (colour, saved) in [(Colour::Red, &setup.red), (Colour::Yellow, &setup.yellow)] {
        if let Some(saved) = saved {
            seats.push(seat_of(colour, saved)?);
        }
    }
    if let Some(computer) = computer
        && !seats.iter().any(|seat| seat.colour == computer.colour)
    {
        return Err(bad("the computer has no seat"));
    }
    Ok(RoomSetup {
        id: setup.id,
        mode: setup.mode,
        server_seed,
        seats,
        turn_clock: setup.turn_clock_ms.map(Duration::from_millis),
        computer,
    })
}

/// The computer's seat of a journaled computer room.
fn computer_of(setup: &Setup) -> Result<Option<ComputerSeat>, RestoreError> {
    match (setup.mode, &setup.computer) {
        (Mode::Computer, Some(saved)) => Ok(Some(ComputerSeat {
            colour: saved.colour,
            level: saved.level.parse().map_err(|_| bad("computer level"))?,
        })),
        (Mode::Computer, None) => Err(bad("a computer room without its computer")),
        (_, Some(_)) => Err(bad("a computer outside a computer room")),
        (_, None) => Ok(None),
    }
}

/// A journaled seat. A name from an older server that a name may no longer be is cleaned
/// ([`PlayerName::lossy`]), never refused: the game matters more than its spelling.
fn seat_of(colour: Colour, saved: &SavedSeat) -> Result<SeatSetup, RestoreError> {
    Ok(SeatSetup {
        colour,
        name: PlayerName::parse(&saved.name).unwrap_or_else(|_| PlayerName::lossy(&saved.name)),
        client_seed: ClientSeed::new(saved.client_seed.clone()).map_err(|_| bad("client seed"))?,
        token: SeatToken::from_saved(saved.token.clone()),
        player: saved.player_id,
    })
}
