//! Rebuilding open rooms (waiting or playing) from their journals at start-up.
//!
//! A journal is read line by line; a torn last line (a process killed mid-write) is ignored
//! with everything after it, since everything before it stands. The room is then built as a new
//! room with the journaled seats, and what was played is put back: see [`restore`].

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader};
use std::path::Path;
use std::time::Duration;

use aeroplane_dice::{ClientSeed, DieStream, GameKey, ServerSeed};
use aeroplane_protocol::events::{Reveal, wire_events};
use aeroplane_protocol::name::PlayerName;
use aeroplane_protocol::record::{LoggedAction, Mode};
use aeroplane_protocol::snapshot::RoomPhase;
use aeroplane_rules::{Action, Colour};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{Line, SavedClock, SavedSeat, Setup, VERSION};
use crate::room::bot::{Bot, ComputerSeat, choice_seed};
use crate::room::state::Room;
use crate::room::{RoomContext, RoomHandle, RoomSetup, SeatSetup, task};
use crate::token::SeatToken;

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

/// What a journal holds.
struct Journaled {
    setup: Setup,
    /// The action log, undone actions marked.
    actions: Vec<LoggedAction>,
    /// The clock's last count.
    clock: SavedClock,
}

fn read_lines(path: &Path) -> Result<Journaled, RestoreError> {
    let reader = BufReader::new(File::open(path)?);
    let mut setup = None;
    let mut actions: Vec<LoggedAction> = Vec::new();
    let mut clock = SavedClock::default();
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
            Ok(Line::Clock(count)) => clock = count,
            Err(error) => {
                // The last line of a killed process may be torn; everything before it stands.
                tracing::warn!(%error, line = number + 1, file = %path.display(), "journal ends in an unreadable line; ignoring it and what follows");
                break;
            }
        }
    }
    let setup = setup.ok_or(RestoreError::NoSetup)?;
    Ok(Journaled {
        setup,
        actions,
        clock,
    })
}

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
///   as a new game) and a computer room's bot is started again.
fn restore(path: &Path, context: &RoomContext) -> Result<RoomHandle, RestoreError> {
    let Journaled {
        setup,
        actions,
        clock,
    } = read_lines(path)?;
    let bad = |what: &str| RestoreError::BadSetup(what.to_owned());
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
    let computer = computer_of(&setup)?;
    let mut seats = Vec::new();
    for (colour, saved) in [(Colour::Red, &setup.red), (Colour::Yellow, &setup.yellow)] {
        if let Some(saved) = saved {
            seats.push(seat_of(colour, saved)?);
        }
    }
    let bot = computer
        .map(|computer| bot_of(&setup, computer, context))
        .transpose()?;
    let room_setup = RoomSetup {
        id: setup.id,
        mode: setup.mode,
        server_seed,
        seats,
        turn_clock: setup.turn_clock_ms.map(Duration::from_millis),
    };
    let (inbox, commands) = mpsc::channel(context.config.room_inbox.max(1));
    // `build` starts the game if both seats are set; a waiting room waits again, for a full
    // `--waiting-room-ttl-ms` from now.
    let mut room = task::build(room_setup, computer, context.clone());
    room.created_at = setup.created_at;
    let over = match setup.started_at {
        Some(started_at) => {
            if room.dice.is_none() {
                return Err(bad("a started game without both seats"));
            }
            room.started_at = Some(started_at);
            room.put_back(actions, clock)?;
            room.game.is_over()
        }
        None if !actions.is_empty() => return Err(bad("actions before the game started")),
        None => false,
    };
    if over {
        room.finish();
    } else {
        if room.is_live() {
            room.hold_seats_after_restart();
            // A fresh, full decision time from now for the player to act (see `clock.rs`).
            room.restart_clock(&mut []);
        }
        // Rewrite the journal whole (atomically, over the old file, in the current format), so
        // a torn last line is gone before anything is appended.
        room.journal();
    }
    let handle = RoomHandle { id: room.id, inbox };
    let waiting = room.phase() == RoomPhase::Waiting;
    context.registry.insert(handle.clone(), waiting);
    task::relaunch(room, commands);
    if let Some(bot) = bot.filter(|_| !over) {
        bot.spawn(&handle);
    }
    Ok(handle)
}

/// The computer player of a journaled computer room, with its journaled seat token.
fn bot_of(
    setup: &Setup,
    computer: ComputerSeat,
    context: &RoomContext,
) -> Result<Bot, RestoreError> {
    let saved = match computer.colour {
        Colour::Red => &setup.red,
        Colour::Yellow => &setup.yellow,
    };
    let saved = saved
        .as_ref()
        .ok_or_else(|| RestoreError::BadSetup("the computer has no seat".to_owned()))?;
    let token = SeatToken::from_saved(saved.token.clone());
    // The choice seed only varies the `random` level; without entropy, the room id will do.
    let seed = choice_seed().unwrap_or_else(|_| setup.id.as_u64_pair().0);
    Ok(Bot::new(computer, token, seed, context))
}

/// The computer's seat of a journaled computer room.
fn computer_of(setup: &Setup) -> Result<Option<ComputerSeat>, RestoreError> {
    let bad = |what: &str| RestoreError::BadSetup(what.to_owned());
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
        client_seed: ClientSeed::new(saved.client_seed.clone())
            .map_err(|_| RestoreError::BadSetup("client seed".to_owned()))?,
        token: SeatToken::from_saved(saved.token.clone()),
    })
}

impl Room {
    /// Puts back what a started game played: the die stream resumed after as many rolls as the
    /// log holds (undone ones included), the actions replayed (undone ones skipped) with their
    /// undo points, the event numbers, and the turn clock's strikes.
    fn put_back(
        &mut self,
        actions: Vec<LoggedAction>,
        clock: SavedClock,
    ) -> Result<(), RestoreError> {
        let seed = |colour: Colour| {
            self.seat(colour)
                .map(|seat| seat.client_seed.clone())
                .unwrap_or_default()
        };
        let key = GameKey::derive(&self.server_seed, &seed(Colour::Red), &seed(Colour::Yellow));
        let rolls = actions
            .iter()
            .filter(|logged| matches!(logged.action, Action::Roll { .. }))
            .count() as u64;
        self.dice = Some(DieStream::resume(key, rolls));
        let mut event = self.event;
        for (index, logged) in actions.iter().enumerate() {
            if logged.undone {
                continue;
            }
            let before = self.game;
            let events = self
                .game
                .apply(logged.action)
                .map_err(|error| RestoreError::Replay { index, error })?;
            if !clock.played.contains(&index) {
                self.remember_for_undo(before, logged.action, index);
            }
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
        self.actions = actions;
        self.event = event;
        self.state_event = event;
        self.clock.strikes = clock.strikes;
        self.clock.played = clock.played;
        Ok(())
    }

    /// Holds the seats of a restored game as if every player had just disconnected (`join.rs`):
    /// each person's seat for the grace period from now, the computer's never, and in a local
    /// room, whose one player has nobody to hand the game to, only the colour to act, for the
    /// idle room TTL.
    fn hold_seats_after_restart(&mut self) {
        let now = Instant::now();
        let to_act = self.game.to_act();
        let local = self.mode == Mode::Local;
        let grace = if local {
            self.context.config.idle_room_ttl()
        } else {
            self.context.config.grace()
        };
        for colour in Colour::ALL {
            let held = !self.is_computer(colour) && (!local || colour == to_act);
            if let Some(seat) = self.seat_mut(colour) {
                seat.deadline = held.then_some(now + grace);
            }
        }
    }
}
