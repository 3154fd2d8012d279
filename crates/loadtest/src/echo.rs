//! The `echo` target: the ceiling. Each room is two WebSockets to the bare echo server
//! (`bench/echo`) taking turns like two players: Red sends a `roll`, then a `move`, then Yellow
//! does the same, and so on. The messages are our real `roll` and `move` messages (same sizes,
//! event numbers counting up), and each round trip ends when the echo arrives. A game is
//! [`ACTIONS_PER_GAME`] actions, then both sockets close and the next game opens new ones, as
//! our rooms do. [`play`] is that game, for this target and the broadcast target alike.

use aeroplane_protocol::client::{Act, ClientMessage, MovePlane};
use aeroplane_rules::Plane;
use futures_util::{SinkExt as _, StreamExt as _};
use tokio_tungstenite::tungstenite::Message;

use super::pace::wait_until;
use super::socket::{self, Socket};
use super::{Ended, RoomSlot, within};

/// Actions in one game of the echo and Colyseus targets: about as many as a game of ours
/// between two random bots.
pub(super) const ACTIONS_PER_GAME: u64 = 300;

/// Plays games in one room slot until the budget is spent.
pub(super) async fn run_room(slot: &mut RoomSlot<'_>) {
    let url = format!("{}/echo", socket::ws_base(&slot.config.server));
    while slot.budget.start_game() {
        let outcome = play(slot, &url, Answer::Echo).await;
        if !slot.settle(outcome) {
            break;
        }
    }
}

/// What answers an action in a yardstick's room.
#[derive(Clone, Copy, Debug)]
pub(super) enum Answer {
    /// Its echo, to its sender alone.
    Echo,
    /// Its copy to both seats: the sender reads the opponent's earlier actions first, then its
    /// own copy, as our clients read the opponent's events.
    Broadcast,
}

/// One player's socket in a yardstick's room, and how many text messages it has read.
struct Seat {
    socket: Socket,
    /// Text messages read so far.
    read: u64,
}

impl Seat {
    /// Sends one text message.
    async fn send(&mut self, text: String) -> Result<(), String> {
        self.socket
            .send(Message::text(text))
            .await
            .map_err(|_| "closed".to_owned())
    }

    /// Reads until `count` text messages have arrived on this socket.
    async fn read_up_to(&mut self, count: u64) -> Result<(), String> {
        while self.read < count {
            match self.socket.next().await {
                Some(Ok(Message::Text(_))) => self.read += 1,
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return Err("closed".to_owned()),
            }
        }
        Ok(())
    }
}

/// Opens two sockets to `url` and plays one game's worth of actions over them in turn, on the
/// room's schedule, each answered as `answer` says.
pub(super) async fn play(
    slot: &mut RoomSlot<'_>,
    url: &str,
    answer: Answer,
) -> Result<Ended, String> {
    let timeout = slot.config.action_timeout;
    let mut seats: Vec<Seat> = Vec::with_capacity(2);
    for connection in 0..2 {
        let socket = within(timeout, socket::open(url, slot.source_addr(connection))).await??;
        seats.push(Seat { socket, read: 0 });
    }
    slot.start_game().await;
    let mut ended = Ok(Ended::Finished);
    for action in 0..ACTIONS_PER_GAME {
        if slot.cut() {
            ended = Ok(Ended::Cut);
            break;
        }
        // Red rolls and moves, then Yellow rolls and moves.
        let seat = &mut seats[(action / 2 % 2) as usize];
        let text = action_text(action);
        let due = wait_until(slot.pacer.next_due()).await;
        if slot.cut() {
            ended = Ok(Ended::Cut);
            break;
        }
        let exchange = async {
            match answer {
                Answer::Echo => {
                    seat.send(text).await?;
                    seat.read_up_to(seat.read + 1).await
                }
                Answer::Broadcast => {
                    seat.read_up_to(action).await?;
                    seat.send(text).await?;
                    seat.read_up_to(action + 1).await
                }
            }
        };
        match within(timeout, exchange).await {
            Ok(Ok(())) => slot.tally.answered(due),
            Ok(Err(code)) | Err(code) => {
                ended = Err(code);
                break;
            }
        }
    }
    if matches!(ended, Ok(Ended::Cut)) {
        slot.budget.wait_to_close().await;
    }
    for mut seat in seats {
        let _ = seat.socket.close(None).await;
    }
    ended
}

/// Action number `action` of a game as our client would send it: a `roll` or a `move`, with the
/// request id and `seen` a real game would have at that point.
pub(super) fn action_text(action: u64) -> String {
    let (id, seen) = (Some(action + 2), action + 3);
    let message = if action.is_multiple_of(2) {
        ClientMessage::Roll(Act { id, seen })
    } else {
        let plane = Plane::ALL[(action / 2 % 4) as usize];
        ClientMessage::Move(MovePlane { id, seen, plane })
    };
    serde_json::to_string(&message).expect("client messages serialize")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_actions_are_our_roll_and_move_messages() {
        assert_eq!(action_text(0), r#"{"type":"roll","id":2,"seen":3}"#);
        assert_eq!(
            action_text(1),
            r#"{"type":"move","id":3,"seen":4,"plane":0}"#
        );
    }
}
