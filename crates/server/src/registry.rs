//! Open rooms by id. The lock guards only the map and is never held across `.await`.

use std::collections::HashMap;
use std::sync::Mutex;

use uuid::Uuid;

use crate::room::RoomHandle;

/// The rooms that are open now.
#[derive(Debug, Default)]
pub struct Registry {
    rooms: Mutex<HashMap<Uuid, RoomHandle>>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Adds an open room.
    pub fn insert(&self, room: RoomHandle) {
        self.rooms
            .lock()
            .expect("registry lock poisoned")
            .insert(room.id, room);
    }

    /// The room with this id, if open.
    pub fn get(&self, id: Uuid) -> Option<RoomHandle> {
        self.rooms
            .lock()
            .expect("registry lock poisoned")
            .get(&id)
            .cloned()
    }

    /// Forgets a room that has closed.
    pub fn remove(&self, id: Uuid) {
        self.rooms
            .lock()
            .expect("registry lock poisoned")
            .remove(&id);
    }

    /// How many rooms are open.
    pub fn len(&self) -> usize {
        self.rooms.lock().expect("registry lock poisoned").len()
    }

    /// Messages waiting in room inboxes: the most in one room, and the total.
    pub fn inbox_queued(&self) -> (usize, usize) {
        let rooms = self.rooms.lock().expect("registry lock poisoned");
        rooms.values().fold((0, 0), |(max, total), room| {
            let queued = room.inbox.max_capacity() - room.inbox.capacity();
            (max.max(queued), total + queued)
        })
    }

    /// Whether no room is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
