//! The journal of an open room: what a restart needs to bring the room and its game back
//! exactly.
//!
//! Each open room whose game is not over (online, computer and local rooms alike, waiting for
//! players or playing) owns a journal: a list of entries ([`Line`]) kept by a [`JournalStore`].
//! The room writes it through its [`Writer`], which knows what the journal holds and adds only
//! what changed; the store only appends, rewrites, deletes, syncs and loads. The file store
//! ([`FileJournals`], `file/`) keeps every journal in one log of segment files,
//! `<data_dir>/rooms/journal-<number>.log`, one JSON entry per line after the room's id (each
//! room's journal had a file of its own, `<room id>.jsonl`, before issue 18; those still
//! restore); the NATS store ([`NatsJournals`], `nats/`, with `--nats-url`) keeps them
//! on a JetStream stream, a subject per room, each room leased to one node; both plug in behind
//! the same two traits without touching the room. A store may take a journal away from this
//! process (another node owns the room now): the journal's `revoked` token is cancelled or a
//! write fails with [`Revoked`], and the room stops at once, sending nothing it held. No lock is
//! shared by rooms around I/O: each room writes its own journal from its own task (into the
//! file store's log at a range of the file it reserved alone).
//!
//! The first entry is the setup: the mode, the seats taken so far with names, tokens and client seeds (a local room's
//! one player holds every seat with one token), the server seed and its commitment, when the
//! room was created and (once it has) the game started, the computer's colour and level in a
//! computer room, and the turn clock's length if the room has one. While the room waits for
//! players, the setup is rewritten whole (atomically) whenever a seat is taken and when the game
//! starts, so the invite link and the seat token of a waiting player work after a restart too;
//! a waiting room that closes unplayed deletes its journal. Every further entry is one accepted
//! action (the same [`LoggedAction`] the game record keeps), the list of undone events after an
//! undo, or the turn clock's strikes and the actions it played, whenever those change. An
//! action's entry is written (in the file store by `write(2)`, no fsync) before its events are
//! sent, so a killed process loses nothing that anyone saw; the journals are
//! synced to disk (on Linux by one `syncfs(2)` for all of them) every `--journal-sync-ms` and at
//! shutdown, so a machine crash loses at most that much play.
//!
//! At start, `restore_all` rebuilds every journaled room (`room/restore.rs`): the actions are
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
//! outbox. The journal is deleted once the finished game's record is in the outbox (the room
//! hands its journal to the task that puts the record there).
//!
//! The format is versioned by the setup's `version`: version 1 (online rooms only) has no
//! computer, clock length or clock lines, and still restores; version 2 has both seats and the
//! start time always (started games only); this server writes version 3 for a two-player
//! `plyyard` room, in which a waiting room's setup lacks the seats not yet taken and the start
//! time, and rewrites a restored journal in it. A table room (any other edition or player
//! count) writes version 4: version 3 with its edition, its player count, Blue's and Green's
//! seats and every computer's; a server that reads only up to version 3 refuses it rather than
//! restore it as a two-player game.

mod file;
mod format;
pub mod nats;
mod store;
mod writer;

pub use file::FileJournals;
pub use format::{Line, SavedClock, SavedComputer, SavedSeat, Setup, TABLE_VERSION, VERSION};
pub use nats::NatsJournals;
pub use store::{Failure, JournalStore, Loaded, Revoked, RoomJournal, Unacknowledged, is_revoked};
pub(super) use writer::{JournalState, Lost, Writer};
