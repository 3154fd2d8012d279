//! Open rooms by id, which of them wait for players, and the seats identified players hold in
//! them (`GET /api/players/me/live`). The lock guards only the map and is
//! never held across `.await`; the number of open rooms is also published on a channel, so a
//! shutdown waits for the last room to close without polling. A shutdown stops the rooms
//! through it too ([`Registry::stop_all`]): it knows every open room, and it holds the lock under
//! which a room opened during the shutdown is stopped as it is added.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use aeroplane_protocol::record::Mode;
use aeroplane_rules::Side;
use tokio::sync::watch;
use uuid::Uuid;

use super::handle::{RoomCommand, RoomHandle};
use crate::token::SeatToken;

/// A seat an identified player holds in an open room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSeat {
    /// The room.
    pub room_id: Uuid,
    /// The seat's colour (Red's for the player of a local room, who holds every seat).
    pub colour: Side,
    /// The seat's token.
    pub token: SeatToken,
    /// The kind of room.
    pub mode: Mode,
}

/// The rooms that are open now.
#[derive(Debug)]
pub struct Registry {
    rooms: Mutex<Rooms>,
    /// How many rooms are open.
    open: watch::Sender<usize>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry {
            rooms: Mutex::default(),
            open: watch::Sender::new(0),
        }
    }
}

#[derive(Debug, Default)]
struct Rooms {
    open: HashMap<Uuid, RoomHandle>,
    /// The open rooms whose game has not started (for `--max-waiting-rooms`).
    waiting: HashSet<Uuid>,
    /// The seats identified players hold in open rooms, by player id, oldest first.
    players: HashMap<Uuid, Vec<PlayerSeat>>,
    /// The server is shutting down: every room added from now on is stopped at once.
    stopping: bool,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Rooms> {
        self.rooms.lock().expect("registry lock poisoned")
    }

    /// Adds an open room; `waiting` when its game has not started.
    pub fn insert(&self, room: RoomHandle, waiting: bool) {
        let mut rooms = self.lock();
        if waiting {
            rooms.waiting.insert(room.id);
        }
        if rooms.stopping {
            // Opened (restored by a takeover, say) while the server shuts down. A room gone
            // already has nothing to stop.
            let _ = room.inbox.send_now(RoomCommand::Stop);
        }
        rooms.open.insert(room.id, room);
        self.open.send_replace(rooms.open.len());
    }

    /// Stops every open room, and every room added from now on, for a shutdown: each gets a
    /// [`RoomCommand::Stop`] behind what its inbox holds, even a full one, closes its connections
    /// with 1001 `shutting_down` and keeps its game in its journal. [`Registry::closed`] then
    /// waits for the last of them.
    pub fn stop_all(&self) {
        let mut rooms = self.lock();
        rooms.stopping = true;
        for room in rooms.open.values() {
            // A room whose task has ended is removed from here as it closes.
            let _ = room.inbox.send_now(RoomCommand::Stop);
        }
    }

    /// The game of room `id` started: it waits no more.
    pub fn started(&self, id: Uuid) {
        self.lock().waiting.remove(&id);
    }

    /// The room with this id, if open.
    pub fn get(&self, id: Uuid) -> Option<RoomHandle> {
        self.lock().open.get(&id).cloned()
    }

    /// Forgets a room that has closed, and the seats players held in it.
    pub fn remove(&self, id: Uuid) {
        let mut rooms = self.lock();
        rooms.open.remove(&id);
        rooms.waiting.remove(&id);
        rooms.players.retain(|_, seats| {
            seats.retain(|seat| seat.room_id != id);
            !seats.is_empty()
        });
        self.open.send_replace(rooms.open.len());
    }

    /// `player` holds this seat (once per room and colour).
    pub fn seat_held(&self, player: Uuid, seat: PlayerSeat) {
        let mut rooms = self.lock();
        let seats = rooms.players.entry(player).or_default();
        if !seats
            .iter()
            .any(|held| held.room_id == seat.room_id && held.colour == seat.colour)
        {
            seats.push(seat);
        }
    }

    /// The seats `player` holds in open rooms, oldest first.
    pub fn seats_of(&self, player: Uuid) -> Vec<PlayerSeat> {
        self.lock()
            .players
            .get(&player)
            .cloned()
            .unwrap_or_default()
    }

    /// Waits until no room is open.
    pub async fn closed(&self) {
        let mut open = self.open.subscribe();
        // The sender lives as long as `self`, so this cannot fail.
        let _ = open.wait_for(|count| *count == 0).await;
    }

    /// How many rooms are open.
    pub fn len(&self) -> usize {
        self.lock().open.len()
    }

    /// How many rooms are open, and how many of them wait for players.
    pub fn counts(&self) -> (usize, usize) {
        let rooms = self.lock();
        (rooms.open.len(), rooms.waiting.len())
    }

    /// Messages waiting in room inboxes: the most in one room, and the total.
    pub fn inbox_queued(&self) -> (usize, usize) {
        let rooms = self.lock();
        rooms.open.values().fold((0, 0), |(max, total), room| {
            let queued = room.inbox.max_capacity() - room.inbox.capacity();
            (max.max(queued), total + queued)
        })
    }

    /// Whether no room is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::super::handle::{RoomCommand, RoomHandle};
    use super::super::inbox;
    use super::Registry;

    /// Adds a room with an inbox of `capacity` to `registry`; answers its handle and the room's
    /// end of its inbox.
    fn open(registry: &Registry, capacity: usize) -> (RoomHandle, inbox::Receiver<RoomCommand>) {
        let (inbox, commands) = inbox::channel(capacity);
        let room = RoomHandle {
            id: Uuid::new_v4(),
            inbox,
        };
        registry.insert(room.clone(), false);
        (room, commands)
    }

    #[tokio::test]
    async fn a_shutdown_stops_every_open_room_even_a_full_one_and_every_room_opened_after() {
        let registry = Registry::new();
        let (room, mut full) = open(&registry, 1);
        room.inbox.try_send(RoomCommand::Rejournal).unwrap();
        let (_, mut quiet) = open(&registry, 4);
        assert!(quiet.try_recv().is_err(), "nothing before the shutdown");

        registry.stop_all();
        // Behind what was queued, past the full inbox's capacity.
        assert!(matches!(full.recv().await, Some(RoomCommand::Rejournal)));
        assert!(matches!(full.recv().await, Some(RoomCommand::Stop)));
        assert!(matches!(quiet.recv().await, Some(RoomCommand::Stop)));

        // A room opened during the shutdown is stopped as it is added.
        let (_, mut late) = open(&registry, 4);
        assert!(matches!(late.try_recv(), Ok(RoomCommand::Stop)));
    }
}
