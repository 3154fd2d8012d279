//! The `aeroplane` target: each room is one bot client (the crate's [`Client`]) per seat playing
//! full games against our server, each on its own WebSocket: two in a `plyyard` room as the
//! benchmarks measure it, two to four in a table room of `flights` or `classic`
//! (`docs/protocol.md` §12), each choosing with the bot crate for its edition. The clients are
//! [inline](ConnectOptions::inline): one room's bots and sockets are one task's, as the
//! yardsticks' two sockets are, so the generator's cost per action is not what limits a closed
//! loop (docs/benchmarks.md, stop 41).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use aeroplane_bot::Level;
use aeroplane_protocol::api::CreateRoom;
use aeroplane_protocol::board::Board;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::{Rules, Side};

use super::pace::{Pacer, wait_until};
use super::{Ended, RoomSlot, Tally, within};
use aeroplane_client::is_rate_limited;
use aeroplane_client::{Api, Client, ClientError, ConnectOptions, Turn, room_url};

/// Plays games in one room slot until the budget is spent.
pub(super) async fn run_room(slot: &mut RoomSlot<'_>) {
    let api = Api::with_local_address(&slot.config.server, slot.source_addr(0))
        .map_err(|_| "http".to_owned());
    while slot.budget.start_game() {
        let outcome = match &api {
            Ok(api) => game(slot, api).await,
            Err(code) => Err(code.clone()),
        };
        if !slot.settle(outcome) {
            break;
        }
    }
}

/// What the bots of one game share.
struct Shared<'a> {
    timeout: Duration,
    level: Level,
    /// The room's schedule: the bots take turns, so they take its slots in turn.
    pacer: &'a Mutex<Pacer>,
    /// In an open loop, the deadline after which nothing more is sent.
    cut_at: Option<Instant>,
}

/// The body of `POST /api/rooms` for a room of `rules` and `players`: exactly today's body
/// (none) for the two-player `plyyard` game, so a default run asks what it always asked.
fn room_request(rules: Rules, players: u8) -> CreateRoom {
    if rules == Rules::PLYYARD && players == 2 {
        return CreateRoom::default();
    }
    // `classic+jump-after-shortcut`: the edition, then its house rules.
    let name = rules.to_string();
    let mut parts = name.split('+').map(str::to_owned);
    CreateRoom {
        ruleset: parts.next(),
        players: Some(players),
        house_rules: parts.collect(),
        ..CreateRoom::default()
    }
}

/// Creates a room, seats one bot per seat and plays one game to the end.
async fn game(slot: &mut RoomSlot<'_>, api: &Api) -> Result<Ended, String> {
    let config = slot.config;
    let timeout = config.action_timeout;
    let request = room_request(config.rules, config.players);
    let room = within(timeout, api.create_room_with(&request))
        .await?
        .map_err(|error| match error {
            aeroplane_client::ApiError::Status { status, .. } => format!("http_{status}"),
            _ => "http".to_owned(),
        })?;
    let colours = match &room.table {
        Some(table) => table.seats.clone(),
        None => vec![Side::Red, Side::Yellow],
    };
    let url = room_url(config.ws_via.as_deref().unwrap_or(&config.server), room.id);
    let mut seats = Vec::with_capacity(colours.len());
    for (connection, colour) in colours.into_iter().enumerate() {
        // Inline: the bot's own task reads its socket (no connection task, no channel), and a
        // dropped socket ends the game as an error instead of being reconnected unseen.
        let options = ConnectOptions {
            bind: slot.source_addr(connection),
            inline: true,
            ..ConnectOptions::default()
        };
        let mut client = within(timeout, Client::connect_with(&url, options))
            .await?
            .map_err(|error| code_of(&error))?;
        within(
            timeout,
            client.join_player(&format!("bot-{}", colour.as_str()), Some(colour), None),
        )
        .await?
        .map_err(|error| code_of(&error))?;
        seats.push(client);
    }
    slot.start_game().await;
    let pacer = Mutex::new(slot.pacer.clone());
    let shared = Shared {
        timeout,
        level: config.level,
        pacer: &pacer,
        cut_at: slot
            .pacer
            .is_open()
            .then_some(slot.budget.deadline)
            .flatten(),
    };
    let seed = slot.tally.games.wrapping_mul(u64::from(config.players)) ^ (slot.index as u64) << 32;
    // The bots run in this one task, taking turns: they share the slot's tally (and its
    // histogram) rather than each making one per game (136 KiB, zeroed, then merged at the
    // game's end, at every game).
    let tally = Mutex::new(&mut slot.tally);
    let bots = seats
        .into_iter()
        .zip(0..)
        .map(|(client, seat)| play_bot(client, seed + seat, &shared, &tally));
    let ended = futures_util::future::join_all(bots).await;
    slot.pacer = pacer
        .into_inner()
        .expect("the pacer's lock is never poisoned");
    let mut outcome = Ok(Ended::Finished);
    for ended in ended {
        match ended {
            Err(code) => outcome = Err(code),
            Ok(Ended::Cut) if outcome.is_ok() => outcome = Ok(Ended::Cut),
            Ok(_) => {}
        }
    }
    outcome
}

/// Plays one seat until the game is over, timing each action to its first event (about 80
/// lines: the schedule, the send and the wait belong to one timed action).
async fn play_bot(
    mut client: Client,
    seed: u64,
    shared: &Shared<'_>,
    tally: &Mutex<&mut Tally>,
) -> Result<Ended, String> {
    let timeout = shared.timeout;
    let mut turn_seed = seed;
    let ended = loop {
        let waited = match shared.cut_at {
            None => within(timeout, client.wait_my_turn()).await,
            Some(cut_at) => tokio::select! {
                waited = within(timeout, client.wait_my_turn()) => waited,
                () = tokio::time::sleep_until(cut_at.into()) => break Ok(Ended::Cut),
            },
        };
        let turn = match waited {
            Ok(Ok(turn)) => turn,
            Ok(Err(error)) => break Err(code_of(&error)),
            Err(code) => break Err(code),
        };
        let plane = match turn {
            Turn::Over(_) => break Ok(Ended::Finished),
            Turn::Roll => None,
            Turn::Move { .. } => {
                turn_seed = turn_seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let decision = match client.board() {
                    Board::Plyyard(game) => aeroplane_bot::choose(shared.level, game, turn_seed),
                    Board::Table(table) => {
                        aeroplane_bot::choose_table(shared.level, table, turn_seed)
                    }
                };
                match decision {
                    Ok(decision) => Some(decision.plane),
                    Err(_) => break Err("bot".into()),
                }
            }
        };
        let due = shared
            .pacer
            .lock()
            .expect("the pacer's lock is never poisoned")
            .next_due();
        if shared.cut_at.is_some_and(|cut_at| due >= cut_at) {
            break Ok(Ended::Cut);
        }
        let due = wait_until(due).await;
        let sent = match plane {
            None => client.roll(),
            Some(plane) => client.move_plane(plane),
        };
        let request = match sent {
            Ok(request) => request,
            Err(error) => break Err(code_of(&error)),
        };
        let seen = client.seen();
        let answered = within(timeout, async {
            loop {
                match client.next_message().await? {
                    // A rate-limited message is refused unread, without its id.
                    ServerMessage::Error(error)
                        if error.id == Some(request) || is_rate_limited(error.code) =>
                    {
                        return Ok(Some(error.code));
                    }
                    message if message.event().is_some_and(|event| event > seen) => {
                        return Ok(None);
                    }
                    _ => {}
                }
            }
        })
        .await;
        match answered {
            Ok(Ok(None)) => tally
                .lock()
                .expect("the tally's lock is never poisoned")
                .answered(due),
            Ok(Ok(Some(code))) => {
                tally
                    .lock()
                    .expect("the tally's lock is never poisoned")
                    .error(code.as_str().to_owned());
                if is_rate_limited(code) {
                    // Back off before trying again; the server will not read faster.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            Ok(Err(error)) => break Err(code_of(&error)),
            Err(code) => break Err(code),
        }
    };
    if let (Ok(Ended::Cut), Some(cut_at)) = (&ended, shared.cut_at) {
        tokio::time::sleep_until((cut_at + super::CLOSE_AFTER_CUT).into()).await;
    }
    client.close();
    ended
}

fn code_of(error: &ClientError) -> String {
    match error {
        ClientError::Refused(refusal) => refusal.code.as_str().to_owned(),
        ClientError::Connect { .. } | ClientError::BadUrl(_) => "connect".to_owned(),
        ClientError::Closed { .. } => "closed".to_owned(),
        ClientError::NoSeat => "no_seat".to_owned(),
    }
}
