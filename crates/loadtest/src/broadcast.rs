//! The `broadcast` target: the fair ceiling. Each room is two WebSockets to the broadcast echo
//! of `bench/echo` (`/broadcast/<room>`), taking turns like two players with our real `roll` and
//! `move` messages, exactly as the echo target does; but every message goes to *both* sockets,
//! as every event of an authoritative room goes to both players. An action's round trip ends
//! when the sender's own copy arrives; the other player's copy is read before that player acts,
//! as our clients read the opponent's events. The seats take turns as the run's [`Turns`] says.
//!
//! [`Turns`]: super::Turns

use std::sync::atomic::{AtomicU64, Ordering};

use super::echo::{Answer, play};
use super::socket;
use super::{Ended, RoomSlot};

/// Plays games in one room slot until the budget is spent.
pub(super) async fn run_room(slot: &mut RoomSlot<'_>) {
    let mut number = 0;
    while slot.budget.start_game() {
        let outcome = game(slot, number).await;
        number += 1;
        if !slot.settle(outcome) {
            break;
        }
    }
}

/// Opens a room of two sockets and sends one game's worth of actions over them in turn; `number`
/// counts the slot's games.
async fn game(slot: &mut RoomSlot<'_>, number: u64) -> Result<Ended, String> {
    static NEXT_ROOM: AtomicU64 = AtomicU64::new(0);
    let room = NEXT_ROOM.fetch_add(1, Ordering::Relaxed);
    let url = format!("{}/broadcast/{room}", socket::ws_base(&slot.config.server));
    play(slot, &url, Answer::Broadcast, number).await
}
