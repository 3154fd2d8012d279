//! Idle connections: open many WebSockets to our server, join rooms, and then say nothing, so
//! the server's memory per idle connection can be read (`aeroplane loadtest --idle N`).
//!
//! Two layouts, because a connection never exists without a room:
//!
//! - [`IdleLayout::Seated`] (the default): two players per room, the game started and waiting
//!   for Red's roll that never comes. This is the real idle case (players thinking), and what it
//!   measures per connection includes half a room. Online rooms have no turn clock unless asked
//!   for, so these games wait for ever.
//! - [`IdleLayout::Spectators`]: spectators, [`SPECTATORS_PER_ROOM`] to a room (the server's
//!   default limit) in rooms nobody plays in, so the rooms' share is small and the figure is
//!   close to the cost of a connection alone.
//!
//! Comparing the two gives the cost of a waiting room besides its two connections.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;
use std::time::Duration;

use futures_util::StreamExt as _;

use aeroplane_client::{Api, ApiError, Client, ClientError, ConnectOptions, room_url};

/// Spectators per room in the [`IdleLayout::Spectators`] layout (the server's default limit).
pub const SPECTATORS_PER_ROOM: usize = 64;

/// Rooms being opened at the same time.
const OPENING_AT_ONCE: usize = 64;

/// How the idle connections sit in rooms (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IdleLayout {
    /// Two seated players per room, the game started and nobody acting.
    #[default]
    Seated,
    /// Spectators only, many to a room.
    Spectators,
}

impl IdleLayout {
    /// The name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            IdleLayout::Seated => "seated",
            IdleLayout::Spectators => "spectators",
        }
    }

    /// Connections in one room.
    pub fn per_room(self) -> usize {
        match self {
            IdleLayout::Seated => 2,
            IdleLayout::Spectators => SPECTATORS_PER_ROOM,
        }
    }
}

impl fmt::Display for IdleLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for IdleLayout {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        [IdleLayout::Seated, IdleLayout::Spectators]
            .into_iter()
            .find(|layout| layout.as_str() == text)
            .ok_or_else(|| format!("`{text}` is not a layout: expected seated or spectators"))
    }
}

/// What to open.
#[derive(Clone, Debug)]
pub struct IdleConfig {
    /// The server's HTTP base URL.
    pub server: String,
    /// Connections to open.
    pub connections: usize,
    /// How they sit in rooms.
    pub layout: IdleLayout,
    /// Local addresses to spread connections over, round robin; empty means the default.
    pub source_addrs: Vec<IpAddr>,
    /// The longest wait for any one step (creating a room, connecting, joining).
    pub timeout: Duration,
}

/// Connections held open; dropping it closes them.
pub struct IdleConnections {
    clients: Vec<Client>,
    /// Rooms the connections sit in.
    pub rooms: usize,
    /// Connections that could not be opened or joined, by error code.
    pub errors: std::collections::BTreeMap<String, u64>,
}

impl IdleConnections {
    /// Connections open and joined.
    pub fn open(&self) -> usize {
        self.clients.len()
    }

    /// Closes every connection.
    pub fn close(self) {
        for client in self.clients {
            client.close();
        }
    }
}

/// Opens and joins `config.connections` connections, a few rooms at a time.
pub async fn open(config: &IdleConfig) -> IdleConnections {
    let per_room = config.layout.per_room();
    let rooms = config.connections.div_ceil(per_room);
    let mut opened = futures_util::stream::iter(0..rooms)
        .map(|room| {
            let first = room * per_room;
            let count = per_room.min(config.connections - first);
            open_room(config, first, count)
        })
        .buffer_unordered(OPENING_AT_ONCE);
    let mut idle = IdleConnections {
        clients: Vec::with_capacity(config.connections),
        rooms,
        errors: Default::default(),
    };
    while let Some((clients, errors)) = opened.next().await {
        idle.clients.extend(clients);
        for code in errors {
            *idle.errors.entry(code).or_default() += 1;
        }
    }
    idle
}

/// Creates one room and joins `count` connections to it, the `first`-th connection first.
async fn open_room(config: &IdleConfig, first: usize, count: usize) -> (Vec<Client>, Vec<String>) {
    let mut clients = Vec::with_capacity(count);
    let mut errors = Vec::new();
    let bind = |connection: usize| {
        (!config.source_addrs.is_empty())
            .then(|| config.source_addrs[connection % config.source_addrs.len()])
    };
    let created = match Api::with_local_address(&config.server, bind(first)) {
        Ok(api) => tokio::time::timeout(config.timeout, api.create_room())
            .await
            .map_err(|_| "timeout".to_owned())
            .and_then(|created| created.map_err(|error| api_code(&error))),
        Err(error) => Err(api_code(&error)),
    };
    let room = match created {
        Ok(room) => room,
        Err(code) => return (clients, vec![code; count]),
    };
    let url = room_url(&config.server, room.id);
    for connection in first..first + count {
        let options = ConnectOptions {
            bind: bind(connection),
            reconnect_attempts: 0,
            ..ConnectOptions::default()
        };
        let joined = tokio::time::timeout(config.timeout, async {
            let mut client = Client::connect_with(&url, options).await?;
            let name = format!("idle-{connection}");
            match config.layout {
                IdleLayout::Seated => client.join_player(&name, None, None).await?,
                IdleLayout::Spectators => client.join_spectator(&name).await?,
            };
            Ok::<_, ClientError>(client)
        })
        .await;
        match joined {
            Ok(Ok(client)) => clients.push(client),
            Ok(Err(error)) => errors.push(client_code(&error)),
            Err(_) => errors.push("timeout".to_owned()),
        }
    }
    (clients, errors)
}

fn api_code(error: &ApiError) -> String {
    match error {
        ApiError::Status { status, .. } => format!("http_{status}"),
        _ => "http".to_owned(),
    }
}

fn client_code(error: &ClientError) -> String {
    match error {
        ClientError::Refused(refusal) => refusal.code.as_str().to_owned(),
        ClientError::Connect { .. } | ClientError::BadUrl(_) => "connect".to_owned(),
        ClientError::Closed { .. } => "closed".to_owned(),
        ClientError::NoSeat => "no_seat".to_owned(),
    }
}
