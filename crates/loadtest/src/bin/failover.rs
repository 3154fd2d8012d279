//! `aeroplane-failover`: the failover benchmark of issue 15 (`docs/benchmarks.md`, "Failover"):
//! how long a room's players wait, after the node that owns the room dies, for the first message
//! served by the node that took the room over.
//!
//! It opens `--rooms` online rooms on the victim node, seats two clients in each (connected to
//! the victim, or with `--via-others` to the other nodes, which forward to the owner), plays
//! `--warm-actions` actions in each, then SIGKILLs the victim (`--victim-pid`) and times, for
//! each room, from just before the signal to the first `welcome` or `snapshot` its Red player
//! gets again: over its own socket when that socket was forwarded and stayed open, else by
//! reconnecting to the other nodes in turn with its seat token every `--retry-ms`. With
//! `--finish`, both players then play the game to the end, and games that do not finish count
//! as failed.
//!
//! Why a program of its own rather than a mode of `aeroplane-loadtest`: it kills a process
//! mid-run and follows each room through the takeover, which the load generator's accounting
//! (round trips of a steady load) has no place for.

use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use aeroplane_bot::Level;
use aeroplane_client::{Api, Client, ClientError, ConnectOptions, Turn, room_url};
use aeroplane_protocol::board::Board;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::Side;
use clap::Parser;
use futures_util::future::join_all;
use uuid::Uuid;

/// The failover benchmark: rooms on one node, the node SIGKILLed, the time until each room is
/// served again by another node.
#[derive(Parser, Debug)]
#[command(name = "aeroplane-failover", version, about, long_about = None)]
struct Args {
    /// The HTTP base URL of the node that owns the rooms and is killed.
    #[arg(long)]
    victim: String,
    /// The victim's process id, sent SIGKILL once every room has played its warm-up actions.
    #[arg(long)]
    victim_pid: u32,
    /// The other nodes' HTTP base URLs, comma-separated; reconnecting clients try them in turn.
    #[arg(long, value_delimiter = ',', required = true)]
    others: Vec<String>,
    /// How many rooms (each an online game of two clients).
    #[arg(long, default_value_t = 120)]
    rooms: usize,
    /// Actions played in each room before the kill.
    #[arg(long, default_value_t = 4)]
    warm_actions: usize,
    /// Seat the clients on the other nodes (forwarded to the victim) instead of on the victim.
    #[arg(long)]
    via_others: bool,
    /// The pause between two reconnection attempts, in milliseconds.
    #[arg(long, default_value_t = 50)]
    retry_ms: u64,
    /// Play every game to the end after the failover.
    #[arg(long)]
    finish: bool,
    /// How long one room may take to be served again before it counts as failed, in seconds.
    #[arg(long, default_value_t = 60)]
    give_up_s: u64,
    /// Print the summary as one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// One room of the benchmark: its id and its two players.
struct Room {
    id: Uuid,
    index: usize,
    red: Seat,
    yellow: Seat,
}

/// One player: the connection (if open) and what it takes to reconnect.
struct Seat {
    client: Option<Client>,
    name: &'static str,
    token: String,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    match runtime.block_on(run(args)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("aeroplane-failover: {error:#}");
            ExitCode::from(2)
        }
    }
}

async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let opened = join_all((0..args.rooms).map(|index| open_room(&args, index))).await;
    let mut rooms = Vec::with_capacity(args.rooms);
    for room in opened {
        rooms.push(room?);
    }
    eprintln!(
        "{} rooms seated and warm ({} actions each); killing {}",
        rooms.len(),
        args.warm_actions,
        args.victim_pid
    );
    let killed_at = Instant::now();
    let status = Command::new("kill")
        .args(["-KILL", &args.victim_pid.to_string()])
        .status()?;
    anyhow::ensure!(status.success(), "kill -KILL {} failed", args.victim_pid);
    let outcomes = join_all(
        rooms
            .iter_mut()
            .map(|room| served_again(&args, room, killed_at)),
    )
    .await;
    let mut waits: Vec<Duration> = outcomes.iter().flatten().copied().collect();
    let unserved = outcomes.iter().filter(|outcome| outcome.is_none()).count();
    waits.sort();
    let unfinished = if args.finish {
        let finished = join_all(rooms.iter_mut().map(|room| finish(&args, room))).await;
        Some(finished.iter().filter(|done| !**done).count())
    } else {
        None
    };
    report(&args, &waits, unserved, unfinished);
    let failed = unserved > 0 || unfinished.is_some_and(|count| count > 0);
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Creates room `index` on the victim, seats both players and plays the warm-up actions.
async fn open_room(args: &Args, index: usize) -> anyhow::Result<Room> {
    let api = Api::new(&args.victim)?;
    let created = api.create_room().await?;
    let node = if args.via_others {
        &args.others[index % args.others.len()]
    } else {
        &args.victim
    };
    let url = room_url(node, created.id);
    let mut red = connect(&url).await?;
    let red_token = welcome_token(red.join_player("red", Some(Side::Red), None).await?)?;
    let mut yellow = connect(&url).await?;
    let yellow_token = welcome_token(
        yellow
            .join_player("yellow", Some(Side::Yellow), None)
            .await?,
    )?;
    let mut room = Room {
        id: created.id,
        index,
        red: Seat {
            client: Some(red),
            name: "red",
            token: red_token,
        },
        yellow: Seat {
            client: Some(yellow),
            name: "yellow",
            token: yellow_token,
        },
    };
    for action in 0..args.warm_actions {
        let seed = (index as u64) << 16 | action as u64;
        if !step(&mut room, seed).await? {
            break;
        }
    }
    Ok(room)
}

/// A connection that does not reconnect by itself: the benchmark reconnects, to another node.
async fn connect(url: &str) -> Result<Client, ClientError> {
    let options = ConnectOptions {
        reconnect_attempts: 0,
        ..ConnectOptions::default()
    };
    Client::connect_with(url, options).await
}

fn welcome_token(welcome: aeroplane_protocol::server::Welcome) -> anyhow::Result<String> {
    welcome
        .token
        .ok_or_else(|| anyhow::anyhow!("a player's welcome has no seat token"))
}

/// Plays one action of whichever player is to act; `false` once the game is over.
async fn step(room: &mut Room, seed: u64) -> Result<bool, ClientError> {
    let (Some(red), Some(yellow)) = (room.red.client.as_mut(), room.yellow.client.as_mut()) else {
        return Err(ClientError::NoSeat);
    };
    loop {
        for client in [&mut *red, &mut *yellow] {
            match client.my_turn() {
                Some(Turn::Over(_)) => return Ok(false),
                Some(Turn::Roll) => {
                    client.roll()?;
                    return Ok(true);
                }
                Some(Turn::Move { .. }) => {
                    let plane = match client.board() {
                        Board::Plyyard(game) => aeroplane_bot::choose(Level::Random, game, seed)
                            .map(|decision| decision.plane),
                        Board::Table(table) => {
                            aeroplane_bot::choose_table(Level::Random, table, seed)
                                .map(|decision| decision.plane)
                        }
                    };
                    client.move_plane(plane.map_err(|_| ClientError::NoSeat)?)?;
                    return Ok(true);
                }
                None => {}
            }
        }
        tokio::select! {
            message = red.next_message() => { message?; }
            message = yellow.next_message() => { message?; }
        }
    }
}

/// How long after `killed_at` room's Red player was served again; `None` if not within
/// `--give-up-s`.
async fn served_again(args: &Args, room: &mut Room, killed_at: Instant) -> Option<Duration> {
    let deadline = killed_at + Duration::from_secs(args.give_up_s);
    if let Some(client) = room.red.client.as_mut() {
        // A forwarded socket may stay open: the first snapshot or welcome on it is the new
        // owner's. A closed one (the victim's own) falls through to reconnecting.
        loop {
            match tokio::time::timeout_at(deadline.into(), client.next_message()).await {
                Err(_) => return None,
                Ok(Ok(ServerMessage::Snapshot(_) | ServerMessage::Welcome(_))) => {
                    return Some(killed_at.elapsed());
                }
                Ok(Ok(_)) => {}
                Ok(Err(_)) => break,
            }
        }
        room.red.client = None;
    }
    let mut attempt = room.index;
    while Instant::now() < deadline {
        let node = &args.others[attempt % args.others.len()];
        attempt += 1;
        if let Ok(client) = rejoin(node, room.id, &room.red).await {
            room.red.client = Some(client);
            return Some(killed_at.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(args.retry_ms)).await;
    }
    None
}

/// A new connection to room `id` through `node`, joined with the seat's token.
async fn rejoin(node: &str, id: Uuid, seat: &Seat) -> Result<Client, ClientError> {
    let mut client = connect(&room_url(node, id)).await?;
    client.join_with_token(seat.name, &seat.token).await?;
    Ok(client)
}

/// Reconnects whichever player has no open connection and plays the game to its end; `false`
/// when it could not.
async fn finish(args: &Args, room: &mut Room) -> bool {
    let deadline = Instant::now() + Duration::from_secs(args.give_up_s);
    let mut seed = (room.index as u64) << 32;
    loop {
        if Instant::now() > deadline {
            return false;
        }
        for seat in [&mut room.red, &mut room.yellow] {
            if seat.client.is_none() {
                for node in &args.others {
                    if let Ok(client) = rejoin(node, room.id, seat).await {
                        seat.client = Some(client);
                        break;
                    }
                }
            }
        }
        seed += 1;
        match tokio::time::timeout_at(deadline.into(), step(room, seed)).await {
            Ok(Ok(true)) => {}
            Ok(Ok(false)) => return true,
            Err(_) => return false,
            Ok(Err(_)) => {
                // A socket closed under us: drop both and reconnect them.
                room.red.client = None;
                room.yellow.client = None;
                tokio::time::sleep(Duration::from_millis(args.retry_ms)).await;
            }
        }
    }
}

/// Prints the summary: percentiles of the wait, and what failed.
fn report(args: &Args, waits: &[Duration], unserved: usize, unfinished: Option<usize>) {
    let millis = |at: f64| -> Option<f64> {
        if waits.is_empty() {
            return None;
        }
        let index = ((waits.len() as f64 * at).ceil() as usize).clamp(1, waits.len()) - 1;
        Some(waits[index].as_secs_f64() * 1e3)
    };
    let summary = serde_json::json!({
        "rooms": args.rooms,
        "via_others": args.via_others,
        "served_again": waits.len(),
        "unserved": unserved,
        "unfinished": unfinished,
        "p50_ms": millis(0.50),
        "p90_ms": millis(0.90),
        "p99_ms": millis(0.99),
        "max_ms": millis(1.0),
        "min_ms": waits.first().map(|wait| wait.as_secs_f64() * 1e3),
    });
    if args.json {
        println!("{summary}");
        return;
    }
    let show = |value: Option<f64>| value.map_or("-".to_owned(), |ms| format!("{ms:.0} ms"));
    println!(
        "rooms {}  served again {}  unserved {}{}",
        args.rooms,
        waits.len(),
        unserved,
        unfinished.map_or(String::new(), |count| format!("  unfinished {count}"))
    );
    println!(
        "failover: min {}  p50 {}  p90 {}  p99 {}  max {}",
        show(summary["min_ms"].as_f64()),
        show(millis(0.50)),
        show(millis(0.90)),
        show(millis(0.99)),
        show(millis(1.0))
    );
}
