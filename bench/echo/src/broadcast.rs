//! The broadcast echo: connections naming the same room form it, and every text message one of
//! them sends goes to all of them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt as _, StreamExt as _};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

/// One connection's outgoing queue.
type Outgoing = mpsc::UnboundedSender<Message>;

/// The open broadcast rooms by name; a room goes when its last member leaves.
#[derive(Clone, Debug, Default)]
pub struct Rooms {
    rooms: Arc<Mutex<HashMap<String, Arc<Room>>>>,
}

/// The members of one room: each connection's number and outgoing queue.
#[derive(Debug, Default)]
struct Room {
    members: Mutex<Vec<(u64, Outgoing)>>,
}

impl Rooms {
    /// Adds a member to `name`'s room (opening it) and returns the room.
    fn enter(&self, name: &str, member: u64, outgoing: Outgoing) -> Arc<Room> {
        let mut rooms = self.rooms.lock().expect("the rooms lock is never poisoned");
        let room = rooms.entry(name.to_owned()).or_default().clone();
        room.members
            .lock()
            .expect("a room's lock is never poisoned")
            .push((member, outgoing));
        room
    }

    /// Removes a member, and the room once it is empty.
    fn leave(&self, name: &str, room: &Room, member: u64) {
        let mut rooms = self.rooms.lock().expect("the rooms lock is never poisoned");
        let mut members = room
            .members
            .lock()
            .expect("a room's lock is never poisoned");
        members.retain(|(number, _)| *number != member);
        if members.is_empty() {
            rooms.remove(name);
        }
    }

    /// How many rooms are open.
    pub fn len(&self) -> usize {
        self.rooms
            .lock()
            .expect("the rooms lock is never poisoned")
            .len()
    }

    /// Whether no room is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Serves one member of room `name` until its connection ends.
pub(crate) async fn serve(socket: WebSocketStream<TcpStream>, name: String, rooms: Rooms) {
    static NEXT_MEMBER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let member = NEXT_MEMBER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (mut sink, mut stream) = socket.split();
    let (outgoing, mut queue) = mpsc::unbounded_channel::<Message>();
    let room = rooms.enter(&name, member, outgoing);
    let writer = tokio::spawn(async move {
        while let Some(first) = queue.recv().await {
            if sink.feed(first).await.is_err() {
                return;
            }
            while let Ok(next) = queue.try_recv() {
                if sink.feed(next).await.is_err() {
                    return;
                }
            }
            if sink.flush().await.is_err() {
                return;
            }
        }
    });
    while let Some(Ok(message)) = stream.next().await {
        match message {
            Message::Text(text) => {
                let members = room
                    .members
                    .lock()
                    .expect("a room's lock is never poisoned");
                for (_, outgoing) in members.iter() {
                    let _ = outgoing.send(Message::Text(text.clone()));
                }
            }
            Message::Ping(_) | Message::Pong(_) => {}
            _ => break,
        }
    }
    rooms.leave(&name, &room, member);
    writer.abort();
}
