//! Nudging rooms whose journals their store wants rewritten, when they write nothing by
//! themselves.
//!
//! The file store keeps every journal in one log of segments, and lets an old segment go only
//! once every journal begun in it has been rewritten into a newer one (`journal/file/`). A room
//! rewrites its journal at its next write when asked to, but a room where nobody acts (players
//! gone quiet, a waiting room) writes nothing; every so often each such room is sent a
//! [`RoomCommand::Rejournal`], and the journal write that follows every command rewrites it.

use std::sync::Arc;
use std::time::Duration;

use super::handle::RoomCommand;
use super::journal::JournalStore;
use super::registry::Registry;

/// How often the rooms whose journals are wanted rewritten are nudged.
const EVERY: Duration = Duration::from_secs(10);

/// Nudges, every [`EVERY`] and for as long as the registry exists, each open room whose journal
/// `journals` wants rewritten. A room whose inbox is full is busy, so it writes by itself.
pub fn nudge_periodically(journals: Arc<dyn JournalStore>, registry: &Arc<Registry>) {
    let registry = Arc::downgrade(registry);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(registry) = registry.upgrade() else {
                return;
            };
            for id in journals.wanting_rewrite() {
                if let Some(room) = registry.get(id) {
                    let _ = room.inbox.try_send(RoomCommand::Rejournal);
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use std::io;

    use futures_util::future::{BoxFuture, FutureExt};
    use uuid::Uuid;

    use super::super::handle::RoomHandle;
    use super::super::inbox;
    use super::super::journal::{Line, Loaded, RoomJournal};
    use super::*;

    /// A store that wants one room's journal rewritten.
    #[derive(Debug)]
    struct Wanting(Uuid);

    impl JournalStore for Wanting {
        fn create<'a>(
            &'a self,
            _id: Uuid,
            _entries: &'a [Line],
        ) -> BoxFuture<'a, io::Result<Box<dyn RoomJournal>>> {
            async { Err(io::ErrorKind::Unsupported.into()) }.boxed()
        }

        fn load_all(&self) -> BoxFuture<'_, Vec<Loaded>> {
            async { Vec::new() }.boxed()
        }

        fn sync(&self, _all: bool) -> BoxFuture<'_, ()> {
            async {}.boxed()
        }

        fn wanting_rewrite(&self) -> Vec<Uuid> {
            vec![self.0]
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_room_whose_journal_is_wanted_rewritten_is_nudged() {
        let (quiet, other) = (Uuid::new_v4(), Uuid::new_v4());
        let registry = Arc::new(Registry::new());
        let (inbox, mut commands) = inbox::channel(4);
        registry.insert(RoomHandle { id: quiet, inbox }, false);
        let (inbox, mut others) = inbox::channel(4);
        registry.insert(RoomHandle { id: other, inbox }, false);
        nudge_periodically(Arc::new(Wanting(quiet)), &registry);
        tokio::time::sleep(EVERY * 2 + Duration::from_millis(1)).await;
        assert!(matches!(commands.try_recv(), Ok(RoomCommand::Rejournal)));
        assert!(others.try_recv().is_err(), "only the room asked for");
    }
}
