//! The broadcast echo: connections naming the same room form it, and every text message one of
//! them sends goes to all of them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt as _, StreamExt as _};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

/// One connection's outgoing queue.
type Outgoing = mpsc::UnboundedSender<Message>;

/// What the room sends one member, as its writer takes it.
pub(crate) type Queue = mpsc::UnboundedReceiver<Message>;

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
    /// Adds a new member to `name`'s room (opening it), and answers it with what the room will
    /// send it; it stays until the member is dropped.
    ///
    /// A connection joins while its handshake is answered, before the answer is sent, so that a
    /// client that has its answer is in the room: joined only after, a client's second socket
    /// could miss the first message its other socket sent at once (which callgrind's slowness
    /// made happen, `bench/instructions.sh`).
    pub(crate) fn join(&self, name: &str) -> (Member, Queue) {
        static NEXT_MEMBER: AtomicU64 = AtomicU64::new(0);
        let number = NEXT_MEMBER.fetch_add(1, Ordering::Relaxed);
        let (outgoing, queue) = mpsc::unbounded_channel::<Message>();
        let room = {
            let mut rooms = self.rooms.lock().expect("the rooms lock is never poisoned");
            let room = rooms.entry(name.to_owned()).or_default().clone();
            room.members
                .lock()
                .expect("a room's lock is never poisoned")
                .push((number, outgoing));
            room
        };
        let member = Member {
            rooms: self.clone(),
            name: name.to_owned(),
            room,
            number,
        };
        (member, queue)
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

/// A connection's place in a room: in it from [`Rooms::join`] until dropped.
#[derive(Debug)]
pub(crate) struct Member {
    rooms: Rooms,
    name: String,
    room: Arc<Room>,
    number: u64,
}

impl Member {
    /// Sends `text` to every member of this member's room, itself included.
    fn broadcast(&self, text: &Utf8Bytes) {
        let members = self
            .room
            .members
            .lock()
            .expect("a room's lock is never poisoned");
        for (_, outgoing) in members.iter() {
            let _ = outgoing.send(Message::Text(text.clone()));
        }
    }
}

impl Drop for Member {
    /// Leaves the room, and closes it once it is empty.
    fn drop(&mut self) {
        let mut rooms = self
            .rooms
            .rooms
            .lock()
            .expect("the rooms lock is never poisoned");
        let mut members = self
            .room
            .members
            .lock()
            .expect("a room's lock is never poisoned");
        members.retain(|(number, _)| *number != self.number);
        if members.is_empty() {
            rooms.remove(&self.name);
        }
    }
}

/// Serves `member` on `socket`, writing what its `queue` holds, until the connection ends; then
/// it leaves its room.
pub(crate) async fn serve(socket: WebSocketStream<TcpStream>, member: Member, mut queue: Queue) {
    let (mut sink, mut stream) = socket.split();
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
            Message::Text(text) => member.broadcast(&text),
            Message::Ping(_) | Message::Pong(_) => {}
            _ => break,
        }
    }
    drop(member);
    writer.abort();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_is_in_its_room_from_its_join_until_it_is_dropped() {
        let rooms = Rooms::default();
        let (first, mut first_queue) = rooms.join("r");
        let (second, mut second_queue) = rooms.join("r");
        let (other, other_queue) = rooms.join("s");
        assert_eq!(rooms.len(), 2);
        // Joined, a member gets what any member of its room sends, before anything is served.
        first.broadcast(&Utf8Bytes::from_static("hello"));
        for queue in [&mut first_queue, &mut second_queue] {
            assert_eq!(queue.try_recv().unwrap(), Message::text("hello"));
        }
        assert!(other_queue.is_empty());
        drop(first);
        assert_eq!(rooms.len(), 2);
        second.broadcast(&Utf8Bytes::from_static("again"));
        assert_eq!(second_queue.try_recv().unwrap(), Message::text("again"));
        drop(second);
        drop(other);
        assert!(rooms.is_empty());
    }
}
