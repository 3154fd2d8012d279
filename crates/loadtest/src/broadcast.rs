//! The `broadcast` target: the fair ceiling. Each room is two WebSockets to the broadcast echo
//! of `bench/echo` (`/broadcast/<room>`), taking turns like two players with our real `roll` and
//! `move` messages, exactly as the echo target does; but every message goes to *both* sockets,
//! as every event of an authoritative room goes to both players. An action's round trip ends
//! when the sender's own copy arrives; the other player's copy is read before that player acts,
//! as our clients read the opponent's events.

use std::sync::atomic::{AtomicU64, Ordering};

use futures_util::{SinkExt as _, StreamExt as _};
use tokio_tungstenite::tungstenite::Message;

use super::echo::{ACTIONS_PER_GAME, action_text};
use super::pace::wait_until;
use super::socket::{self, Socket};
use super::{Ended, RoomSlot, within};

/// Plays games in one room slot until the budget is spent.
pub(super) async fn run_room(slot: &mut RoomSlot<'_>) {
    while slot.budget.start_game() {
        let outcome = game(slot).await;
        if !slot.settle(outcome) {
            break;
        }
    }
}

/// One player's socket and how many room messages it has read.
struct Seat {
    socket: Socket,
    read: u64,
}

impl Seat {
    /// Reads until `count` room messages have arrived on this socket.
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

/// Opens a room of two sockets and sends one game's worth of actions over them in turn.
async fn game(slot: &mut RoomSlot<'_>) -> Result<Ended, String> {
    let timeout = slot.config.action_timeout;
    static NEXT_ROOM: AtomicU64 = AtomicU64::new(0);
    let room = NEXT_ROOM.fetch_add(1, Ordering::Relaxed);
    let url = format!("{}/broadcast/{room}", socket::ws_base(&slot.config.server));
    let mut seats: Vec<Seat> = Vec::with_capacity(2);
    for connection in 0..2 {
        let socket = within(timeout, socket::open(&url, slot.source_addr(connection))).await??;
        seats.push(Seat { socket, read: 0 });
    }
    slot.pacer.start_game(slot.config.action_timeout).await;
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
        let answered = within(timeout, async {
            // The opponent's earlier actions first, then this one's own copy.
            seat.read_up_to(action).await?;
            seat.socket
                .send(Message::text(text))
                .await
                .map_err(|_| "closed".to_owned())?;
            seat.read_up_to(action + 1).await
        })
        .await;
        match answered {
            Ok(Ok(())) => slot.tally.answered(due),
            Ok(Err(code)) | Err(code) => {
                ended = Err(code);
                break;
            }
        }
    }
    for mut seat in seats {
        let _ = seat.socket.close(None).await;
    }
    ended
}
