//! The `echo` target: the ceiling. Each room is two WebSockets to the bare echo server
//! (`bench/echo`) taking turns like two players: by default Red sends a `roll`, then a `move`,
//! then Yellow does the same, and so on; with [`Turns::Game`] they act in the order of a real
//! game. The messages are our real `roll` and `move` messages (same sizes, event numbers
//! counting up), and each round trip ends when the echo arrives. A game is
//! [`ACTIONS_PER_GAME`] actions (or the real game's), then both sockets close and the next game
//! opens new ones, as our rooms do. [`play`] is that game, for this target and the broadcast
//! target alike.

use aeroplane_bot::Level;
use aeroplane_protocol::client::{Act, ClientMessage, MovePlane};
use aeroplane_rules::{Colour, Die, Game, Phase, Plane};
use futures_util::{SinkExt as _, StreamExt as _};
use rand::rngs::SmallRng;
use rand::{Rng as _, SeedableRng as _};
use tokio_tungstenite::tungstenite::Message;

use super::pace::wait_until;
use super::socket::{self, Socket};
use super::{Ended, RoomSlot, Turns, within};

/// Actions in one game of the echo and Colyseus targets: about as many as a game of ours
/// between two random bots.
pub(super) const ACTIONS_PER_GAME: u64 = 300;

/// Plays games in one room slot until the budget is spent.
pub(super) async fn run_room(slot: &mut RoomSlot<'_>) {
    let url = format!("{}/echo", socket::ws_base(&slot.config.server));
    let mut game = 0;
    while slot.budget.start_game() {
        let outcome = play(slot, &url, Answer::Echo, game).await;
        game += 1;
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
/// room's schedule, each answered as `answer` says; `game` counts the slot's games (the seed of
/// a real game's order of turns).
pub(super) async fn play(
    slot: &mut RoomSlot<'_>,
    url: &str,
    answer: Answer,
    game: u64,
) -> Result<Ended, String> {
    let timeout = slot.config.action_timeout;
    let seed = (slot.index as u64) << 32 | game;
    let script = script(slot.config.turns, slot.config.level, seed);
    let mut seats: Vec<Seat> = Vec::with_capacity(2);
    for connection in 0..2 {
        let socket = within(timeout, socket::open(url, slot.source_addr(connection))).await??;
        seats.push(Seat { socket, read: 0 });
    }
    slot.start_game().await;
    let mut ended = Ok(Ended::Finished);
    for (action, (seat, text)) in (0..).zip(script) {
        if slot.cut() {
            ended = Ok(Ended::Cut);
            break;
        }
        let seat = &mut seats[seat];
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

/// One game's actions in a yardstick's room, in order: the seat that sends each (0 Red, 1
/// Yellow) and its text.
fn script(turns: Turns, level: Level, seed: u64) -> Vec<(usize, String)> {
    match turns {
        // Red rolls and moves, then Yellow rolls and moves.
        Turns::Alternate => (0..ACTIONS_PER_GAME)
            .map(|action| ((action / 2 % 2) as usize, action_text(action)))
            .collect(),
        Turns::Game => game_script(level, seed),
    }
}

/// The longest real game a script plays: far past any game between bots (about 330 actions
/// between random bots), so that a script always ends.
const LONGEST_GAME: usize = 20_000;

/// The actions of a real `plyyard` game between two bots of `level`, its dice and the random
/// bots' choices drawn from `seed`: who acts when, as in our server's rooms.
fn game_script(level: Level, seed: u64) -> Vec<(usize, String)> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::new();
    let mut script = Vec::new();
    while script.len() < LONGEST_GAME {
        let colour = game.to_act();
        let plane = match game.phase() {
            Phase::AwaitingRoll => {
                let die = Die::ALL[rng.random_range(0..Die::ALL.len())];
                game.roll(colour, die).expect("the player to act may roll");
                None
            }
            Phase::AwaitingMove { .. } => {
                let decision = aeroplane_bot::choose(level, &game, rng.random())
                    .expect("the game awaits a move");
                game.move_plane(colour, decision.plane)
                    .expect("the bot chooses a legal plane");
                Some(decision.plane)
            }
            Phase::Over(_) => break,
        };
        let seat = match colour {
            Colour::Red => 0,
            Colour::Yellow => 1,
        };
        script.push((seat, message_text(script.len() as u64, plane)));
    }
    script
}

/// Action number `action` of a game whose seats alternate two actions each, as our client would
/// send it: a `roll` or a `move`, with the request id and `seen` a real game would have at that
/// point.
fn action_text(action: u64) -> String {
    let plane = (!action.is_multiple_of(2)).then(|| Plane::ALL[(action / 2 % 4) as usize]);
    message_text(action, plane)
}

/// Action number `action` of a game as our client would send it: a `move` of `plane`, or a
/// `roll` when there is none.
fn message_text(action: u64, plane: Option<Plane>) -> String {
    let (id, seen) = (Some(action + 2), action + 3);
    let message = match plane {
        None => ClientMessage::Roll(Act { id, seen }),
        Some(plane) => ClientMessage::Move(MovePlane { id, seen, plane }),
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

    #[test]
    fn a_real_games_script_takes_its_turns_as_the_rules_do_and_repeats_from_its_seed() {
        let script = game_script(Level::Random, 7);
        assert_eq!(script, game_script(Level::Random, 7));
        assert_ne!(script, game_script(Level::Random, 8));
        assert!(
            (20..LONGEST_GAME).contains(&script.len()),
            "{}",
            script.len()
        );
        // Red rolls first; the numbers count up as in `action_text`.
        assert_eq!(script[0], (0, action_text(0)));
        let rolls: Vec<bool> = script
            .iter()
            .map(|(_, text)| text.contains("\"roll\""))
            .collect();
        for (index, (seat, text)) in script.iter().enumerate().skip(1) {
            assert!(text.contains(&format!("\"id\":{}", index + 2)), "{text}");
            if !rolls[index] {
                assert!(
                    rolls[index - 1] && script[index - 1].0 == *seat,
                    "a move follows its roll"
                );
            }
        }
        // Unlike the alternating order, a seat sometimes acts three times in a row (a six, its
        // move, another roll), and a roll sometimes passes the turn without a move.
        let seats: Vec<usize> = script.iter().map(|(seat, _)| *seat).collect();
        assert!(
            seats
                .windows(3)
                .any(|run| run[0] == run[1] && run[1] == run[2])
        );
        assert!((1..script.len()).any(|i| rolls[i - 1] && rolls[i] && seats[i - 1] != seats[i]));
    }

    #[test]
    fn the_alternating_script_is_two_actions_a_seat() {
        let script = script(Turns::Alternate, Level::Random, 0);
        assert_eq!(script.len() as u64, ACTIONS_PER_GAME);
        let seats: Vec<usize> = script.iter().take(6).map(|(seat, _)| *seat).collect();
        assert_eq!(seats, [0, 0, 1, 1, 0, 0]);
    }
}
