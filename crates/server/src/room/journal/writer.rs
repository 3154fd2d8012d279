//! A room's side of its journal: what the journal holds, and the entries that bring it up to
//! date with the room.

use std::sync::Arc;

use aeroplane_protocol::record::LoggedAction;
use smallvec::SmallVec;
use uuid::Uuid;

use super::format::{Line, SavedClock, Setup};
use super::store::{Failure, JournalStore, RoomJournal};

/// What a room's journal must hold now, borrowed from the room's parts.
#[derive(Debug)]
pub(in crate::room) struct JournalState<'a> {
    /// The action log, undone actions marked.
    pub(in crate::room) actions: &'a [LoggedAction],
    /// How many undos the room has made since it was built; the log is scanned for undone
    /// actions only when this changes (and once when the journal is written from scratch).
    pub(in crate::room) undos: u64,
    /// The turn clock's count.
    pub(in crate::room) clock: &'a SavedClock,
    /// How many times the clock's count changed since the room was built; the count is
    /// compared with the one written only when this changes.
    pub(in crate::room) clock_changes: u32,
    /// Whether the game is over (a journal is never started for a finished game).
    pub(in crate::room) over: bool,
}

/// The entries of one update, the first inline: an ordinary action adds one (its action); a
/// clock strike's two go to the heap. On the heap always, they were an allocation and a free
/// per action (issue 18, stop 35). Room for one only, so that every room's task is no more
/// than a few words bigger.
type Entries = SmallVec<[Line; 1]>;

/// How much of a room a journal holds, so the next write adds only what changed.
#[derive(Debug, Default)]
struct Written {
    /// How many actions of the room's log are written.
    actions: usize,
    /// The room's undo count when the undone events were last looked at (`None`: never).
    undos: Option<u64>,
    /// The clock's count last written.
    clock: SavedClock,
    /// The clock's change count when its count was last looked at (0: never; a clock counts
    /// its changes from 1, see `Clock::changes`). Not an `Option`: that made every room's writer
    /// 16 bytes bigger.
    clock_changes: u32,
}

impl Written {
    /// The entries that bring a journal holding `self` up to `state`.
    fn entries_for(&self, state: &JournalState<'_>) -> Entries {
        let mut entries = Entries::new();
        // The clock's entry goes before the actions it may name, so that a write torn by a
        // crash never leaves an action the clock played looking like the player's own.
        if self.clock_moved(state) {
            entries.push(Line::Clock(state.clock.clone()));
        }
        for logged in state.actions.iter().skip(self.actions) {
            entries.push(Line::Action(*logged));
        }
        // The log is scanned for undone actions only after an undo, never on an ordinary
        // action (a scan per action was about 1% of the server's CPU under load), and once for
        // a journal written from scratch (a restored room's undone actions).
        if self.undos != Some(state.undos) {
            let undone = undone_events(state.actions);
            if self.undos.is_some() || !undone.is_empty() {
                entries.push(Line::Undone(undone));
            }
        }
        entries
    }

    /// Whether the clock's count differs from the one written. It is compared only when the
    /// clock counted something since it was last looked at (and once for a journal written
    /// from scratch), never on an ordinary action.
    fn clock_moved(&self, state: &JournalState<'_>) -> bool {
        (self.clock_changes == 0 || self.clock_changes != state.clock_changes)
            && *state.clock != self.clock
    }

    /// The journal holds `state` now (its entries from [`Written::entries_for`] are written).
    /// The clock's count is copied only when it changed, into the memory it had.
    fn wrote(&mut self, state: &JournalState<'_>) {
        self.actions = state.actions.len();
        self.undos = Some(state.undos);
        if self.clock_moved(state) {
            self.clock.clone_from(state.clock);
        }
        self.clock_changes = state.clock_changes;
    }
}

fn undone_events(actions: &[LoggedAction]) -> Vec<u64> {
    actions
        .iter()
        .filter(|logged| logged.undone)
        .map(|logged| logged.event)
        .collect()
}

/// The room's journal has another owner now, or may have (a write went unacknowledged): the
/// room must stop acting for it.
#[derive(Debug)]
pub(in crate::room) struct Lost;

/// A room's journal and what it holds.
#[derive(Debug)]
pub(in crate::room) struct Writer {
    store: Arc<dyn JournalStore>,
    id: Uuid,
    /// The journal, once started; `None` before, and after it was handed off or deleted.
    journal: Option<Box<dyn RoomJournal>>,
    /// The setup, while it is a waiting room's: the journal is rewritten when it changes. Boxed:
    /// a playing room has none, and inline it made every room 568 bytes bigger (a table's setup
    /// has four seats).
    waiting_setup: Option<Box<Setup>>,
    /// Where the writer stands: written as it goes, or a resumed journal's two steps, or lost.
    stage: Stage,
    written: Written,
}

/// Where a [`Writer`] stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// A journal resumed at start whose room is being rebuilt: updates wait.
    Suspended,
    /// A resumed journal whose room is rebuilt: the next update rewrites it whole.
    Rewrite,
    /// Updates append what the room gained (or rewrite a waiting room's changed setup).
    Current,
    /// The journal was taken from this process: nothing is written any more.
    Lost,
}

impl Writer {
    /// The writer of room `id`'s journal, not started yet.
    pub(in crate::room) fn new(store: Arc<dyn JournalStore>, id: Uuid) -> Writer {
        Writer {
            store,
            id,
            journal: None,
            waiting_setup: None,
            stage: Stage::Current,
            written: Written::default(),
        }
    }

    /// The writer of a journal found at start. It writes nothing until [`Writer::resume`] (the
    /// room is being rebuilt from it), then rewrites it whole at the next update (so a torn last
    /// entry is gone before anything is appended, and the format is this server's).
    pub(in crate::room) fn resumed(
        store: Arc<dyn JournalStore>,
        id: Uuid,
        journal: Box<dyn RoomJournal>,
    ) -> Writer {
        let mut writer = Writer::new(store, id);
        writer.journal = Some(journal);
        writer.stage = Stage::Suspended;
        writer
    }

    /// Lets a resumed journal be written again.
    pub(in crate::room) fn resume(&mut self) {
        if self.stage == Stage::Suspended {
            self.stage = Stage::Rewrite;
        }
    }

    /// Brings the journal up to date with `state`: starts it for a new room, rewrites it whole
    /// when a waiting room's `setup` changed (a seat taken, the game started) or after a
    /// restore, and otherwise appends what the room gained. Failures are logged and counted;
    /// the game goes on without its journal (the next update sends what is missing), except
    /// when the store says another owner has the room now or that it could not acknowledge the
    /// write ([`Failure`]): then nothing of it may be sent, and the room must let go ([`Lost`]).
    pub(in crate::room) async fn update(
        &mut self,
        state: &JournalState<'_>,
        setup: impl FnOnce() -> Setup,
    ) -> Result<(), Lost> {
        if self.stage == Stage::Lost {
            return Err(Lost);
        }
        let Err(error) = self.try_update(state, setup).await else {
            return Ok(());
        };
        crate::telemetry::journal_write_failed();
        let reason = match Failure::of(&error) {
            Failure::Fenced => {
                tracing::warn!(%error, "the journal refused a write: another node owns the room now");
                "fenced"
            }
            Failure::Unacknowledged => {
                tracing::error!(%error, "the journal did not acknowledge a write: letting the room go, nothing of it sent");
                "unacknowledged"
            }
            Failure::Other => {
                tracing::error!(%error, "cannot write the room's journal; a restart would lose it");
                return Ok(());
            }
        };
        crate::metrics::room_let_go(reason);
        // The journal is (or may be by now) another owner's: never write, delete or hand it
        // off from here. Dropping it gives its lease back, if the broker answers.
        self.journal = None;
        self.stage = Stage::Lost;
        Err(Lost)
    }

    /// Cancelled once the journal is taken from this process (see `RoomJournal::revoked`).
    pub(in crate::room) fn revoked(&self) -> Option<tokio_util::sync::CancellationToken> {
        self.journal.as_ref().and_then(|journal| journal.revoked())
    }

    async fn try_update(
        &mut self,
        state: &JournalState<'_>,
        setup: impl FnOnce() -> Setup,
    ) -> std::io::Result<()> {
        if self.stage == Stage::Suspended || (self.journal.is_none() && state.over) {
            return Ok(());
        }
        // A restored journal is rewritten in this server's format; a journal its store wants
        // moved (the file store's log letting an old segment go) is rewritten too.
        let rewrite_pending = self.stage == Stage::Rewrite
            || self
                .journal
                .as_ref()
                .is_some_and(|journal| journal.wants_rewrite());
        let may_rewrite = self.journal.is_none() || rewrite_pending || self.waiting_setup.is_some();
        if !may_rewrite {
            return self.append(state).await;
        }
        let setup = setup();
        let same = self.journal.is_some() && self.waiting_setup.as_deref() == Some(&setup);
        if same && !rewrite_pending {
            return self.append(state).await;
        }
        let gained = Written::default().entries_for(state);
        let setup = Box::new(setup);
        let mut entries = vec![Line::Setup(setup.clone())];
        entries.extend(gained);
        match &mut self.journal {
            Some(journal) => journal.rewrite(&entries).await?,
            None => self.journal = Some(self.store.create(self.id, &entries).await?),
        }
        self.waiting_setup = setup.started_at.is_none().then_some(setup);
        self.stage = Stage::Current;
        self.written = Written::default();
        self.written.wrote(state);
        Ok(())
    }

    async fn append(&mut self, state: &JournalState<'_>) -> std::io::Result<()> {
        let Some(journal) = &mut self.journal else {
            return Ok(());
        };
        let entries = self.written.entries_for(state);
        if entries.is_empty() {
            return Ok(());
        }
        match journal.append_now(&entries) {
            Some(appended) => appended?,
            None => journal.append(&entries).await?,
        }
        self.written.wrote(state);
        Ok(())
    }

    /// Hands the journal over (to the task that puts the finished game's record in the outbox,
    /// which deletes it then); the room writes no more.
    pub(in crate::room) fn hand_off(&mut self) -> Option<Box<dyn RoomJournal>> {
        self.journal.take()
    }

    /// Deletes the journal (a room closing unplayed).
    pub(in crate::room) async fn delete(&mut self) {
        if let Some(journal) = self.journal.take()
            && let Err(error) = journal.delete().await
        {
            tracing::warn!(%error, room_id = %self.id, "cannot delete a journal");
        }
    }
}

#[cfg(test)]
mod tests;
