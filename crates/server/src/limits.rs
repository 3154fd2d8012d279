//! Limits that keep one client from starving the others: a token bucket per connection, counts
//! of open connections (per client address and in total) held by RAII guards, a count of rooms
//! opened per address per minute, and caps on the rooms open (and waiting) on the server.
//!
//! A "client address" for the per-address limits is an IPv4 address, or the IPv6 prefix of
//! `--ipv6-prefix-len` bits (a /64 by default): one machine usually holds a whole /64, so
//! counting exact IPv6 addresses would let it open rooms without limit ([`client_key`]).
//!
//! The locks here guard small maps only and are never held across `.await`.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use tokio::time::Instant;

use crate::config::Config;
use crate::room::Registry;

/// The client's address, when the server knows it (every request [`crate::serve`] serves).
///
/// This is the TCP peer: behind a reverse proxy it is the proxy's address, so the per-address
/// limits then count the proxy as one client (raise them, or limit at the proxy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddr(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let address = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(address)| address.ip().to_canonical());
        Ok(ClientAddr(address))
    }
}

/// The key one client is counted under: an IPv4 address as it is, an IPv6 address cut to its
/// first `ipv6_prefix_len` bits. (IPv4-mapped IPv6 addresses arrive as IPv4, see [`ClientAddr`].)
pub fn client_key(address: IpAddr, ipv6_prefix_len: u8) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => {
            let bits = u32::from(ipv6_prefix_len.min(128));
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            IpAddr::V6((u128::from(v6) & mask).into())
        }
    }
}

/// A token bucket: `burst` tokens at most, refilled at `rate` tokens per second.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket. A `rate` of zero never refills; a `burst` below one admits nothing.
    pub fn new(rate: f64, burst: f64) -> TokenBucket {
        TokenBucket {
            rate: rate.max(0.0),
            burst: burst.max(0.0),
            tokens: burst.max(0.0),
            last: Instant::now(),
        }
    }

    /// When a token was last asked for (or the bucket made): a connection's frame bucket is asked
    /// at every frame read, so this is when the connection last heard from its client.
    pub fn last_asked(&self) -> Instant {
        self.last
    }

    /// Takes one token if there is one, at `now` (the caller's clock reading, shared with what
    /// else it times: one reading per frame, not one per use).
    pub fn try_take(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Why a new connection was refused before the upgrade.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConnectionRefused {
    /// This client address has `--max-connections-per-address` open already (429).
    #[error("too many connections from this address")]
    PerAddress,
    /// The server has `--max-connections` open already (503).
    #[error("the server has too many connections")]
    Total,
}

/// The open WebSocket connections, per client address and in total.
#[derive(Debug)]
pub struct Connections {
    ipv6_prefix_len: u8,
    per_address: usize,
    total: usize,
    open: Mutex<(HashMap<IpAddr, usize>, usize)>,
}

/// Holds one connection's place in [`Connections`] until dropped.
#[derive(Debug)]
pub struct ConnectionGuard {
    connections: Arc<Connections>,
    address: IpAddr,
}

impl Connections {
    /// Counts with these limits, IPv6 clients by their `/128` address; see
    /// [`Connections::by_prefix`].
    pub fn new(per_address: usize, total: usize) -> Connections {
        Connections::by_prefix(per_address, total, 128)
    }

    /// Counts with these limits, IPv6 clients by their prefix of `ipv6_prefix_len` bits.
    pub fn by_prefix(per_address: usize, total: usize, ipv6_prefix_len: u8) -> Connections {
        Connections {
            ipv6_prefix_len,
            per_address,
            total,
            open: Mutex::new((HashMap::new(), 0)),
        }
    }

    /// Takes a place for a connection from `address`, or says which limit refuses it.
    pub fn try_open(
        self: &Arc<Self>,
        address: IpAddr,
    ) -> Result<ConnectionGuard, ConnectionRefused> {
        let address = client_key(address, self.ipv6_prefix_len);
        let mut open = self.open.lock().expect("connections lock poisoned");
        let (per_address, total) = &mut *open;
        if *total >= self.total {
            return Err(ConnectionRefused::Total);
        }
        let count = per_address.entry(address).or_insert(0);
        if *count >= self.per_address {
            return Err(ConnectionRefused::PerAddress);
        }
        *count += 1;
        *total += 1;
        Ok(ConnectionGuard {
            connections: self.clone(),
            address,
        })
    }

    /// How many connections are open in total.
    pub fn open(&self) -> usize {
        self.open.lock().expect("connections lock poisoned").1
    }
}

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        let mut open = self
            .connections
            .open
            .lock()
            .expect("connections lock poisoned");
        let (per_address, total) = &mut *open;
        *total = total.saturating_sub(1);
        if let Some(count) = per_address.get_mut(&self.address) {
            *count -= 1;
            if *count == 0 {
                per_address.remove(&self.address);
            }
        }
    }
}

/// Rooms opened per client address in the last minute (a sliding window).
///
/// Each address keeps its creations in the order they came, so the expired ones are at the
/// front; addresses with none left in the window are forgotten once a window. Until stop 40 of
/// issue 18 every creation scanned every recorded creation of every address under the lock:
/// 1,000 rooms opened from one address in a minute took half a million clock comparisons.
#[derive(Debug)]
pub struct RoomCreations {
    ipv6_prefix_len: u8,
    per_minute: usize,
    recent: Mutex<Recent>,
}

/// The creations [`RoomCreations`] remembers.
#[derive(Debug, Default)]
struct Recent {
    /// Per address, its creations in the window, oldest first.
    by_address: HashMap<IpAddr, VecDeque<Instant>>,
    /// When addresses with nothing left in the window are next forgotten.
    next_sweep: Option<Instant>,
}

/// The window [`RoomCreations`] counts over.
const WINDOW: Duration = Duration::from_secs(60);

impl RoomCreations {
    /// Counts with this limit, IPv6 clients by their prefix of `ipv6_prefix_len` bits.
    pub fn new(per_minute: usize, ipv6_prefix_len: u8) -> RoomCreations {
        RoomCreations {
            ipv6_prefix_len,
            per_minute,
            recent: Mutex::new(Recent::default()),
        }
    }

    /// Records a room creation by `address`, or refuses it when the address has created
    /// `per_minute` rooms in the last minute.
    pub fn try_create(&self, address: IpAddr) -> bool {
        let address = client_key(address, self.ipv6_prefix_len);
        let now = Instant::now();
        let in_window = |at: &Instant| now.saturating_duration_since(*at) < WINDOW;
        let mut recent = self.recent.lock().expect("room creations lock poisoned");
        // Forget addresses whose window has passed, once a window, so the map stays small.
        if recent.next_sweep.is_none_or(|at| at <= now) {
            recent
                .by_address
                .retain(|_, times| times.back().is_some_and(in_window));
            recent.next_sweep = Some(now + WINDOW);
        }
        let times = recent.by_address.entry(address).or_default();
        while times.front().is_some_and(|at| !in_window(at)) {
            times.pop_front();
        }
        if times.len() >= self.per_minute {
            return false;
        }
        times.push_back(now);
        true
    }

    /// How many addresses it remembers (for tests).
    #[cfg(test)]
    fn addresses(&self) -> usize {
        self.recent
            .lock()
            .expect("room creations lock poisoned")
            .by_address
            .len()
    }
}

/// Why a new room was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RoomRefused {
    /// This client opened `--rooms-per-address-per-minute` rooms in the last minute (429).
    #[error("too many rooms opened from this address; try again in a minute")]
    PerAddress,
    /// The server has `--max-rooms` rooms open (503).
    #[error("the server has too many open rooms; try again later")]
    Rooms,
    /// The server has `--max-waiting-rooms` rooms waiting for players (503).
    #[error("the server has too many rooms waiting for players; join one or try again later")]
    WaitingRooms,
}

/// Every shared limit of the server.
#[derive(Debug)]
pub struct Limits {
    /// Open WebSocket connections.
    pub connections: Arc<Connections>,
    /// Rooms opened per address.
    pub room_creations: RoomCreations,
    /// `--max-rooms`.
    max_rooms: usize,
    /// `--max-waiting-rooms`.
    max_waiting_rooms: usize,
}

impl Limits {
    /// The limits the settings ask for.
    pub fn from_config(config: &Config) -> Limits {
        Limits {
            connections: Arc::new(Connections::by_prefix(
                config.max_connections_per_address,
                config.max_connections,
                config.ipv6_prefix_len,
            )),
            room_creations: RoomCreations::new(
                config.rooms_per_address_per_minute,
                config.ipv6_prefix_len,
            ),
            max_rooms: config.max_rooms,
            max_waiting_rooms: config.max_waiting_rooms,
        }
    }

    /// Admits one more room opened by `address` (every way of opening one goes through here):
    /// the server's caps first, so a refused request does not use up the client's minute, then
    /// the client's own count. `waiting` says whether the room will wait for a player (every
    /// room but a quick match's, whose seats are both taken).
    ///
    /// The caps are checked, not reserved: requests racing each other may pass a cap by as many
    /// rooms as there are requests in flight.
    pub fn admit_room(
        &self,
        rooms: &Registry,
        address: Option<IpAddr>,
        waiting: bool,
    ) -> Result<(), RoomRefused> {
        let (open, waiting_now) = rooms.counts();
        if open >= self.max_rooms {
            return Err(RoomRefused::Rooms);
        }
        if waiting && waiting_now >= self.max_waiting_rooms {
            return Err(RoomRefused::WaitingRooms);
        }
        match address {
            Some(address) if !self.room_creations.try_create(address) => {
                Err(RoomRefused::PerAddress)
            }
            _ => Ok(()),
        }
    }

    /// Admits the creation of a player (`POST /api/players`), counted against the client's
    /// per-minute room creations (`--rooms-per-address-per-minute`): one who makes identities
    /// in bulk is slowed like one who opens rooms in bulk.
    pub fn admit_player(&self, address: Option<IpAddr>) -> Result<(), RoomRefused> {
        match address {
            Some(address) if !self.room_creations.try_create(address) => {
                Err(RoomRefused::PerAddress)
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_admits_its_burst_then_its_rate() {
        let mut bucket = TokenBucket::new(2.0, 3.0);
        let start = Instant::now();
        assert_eq!((0..5).filter(|_| bucket.try_take(start)).count(), 3);
        let later = start + Duration::from_millis(1000);
        assert_eq!((0..5).filter(|_| bucket.try_take(later)).count(), 2);
        let much_later = later + Duration::from_secs(60);
        assert_eq!((0..5).filter(|_| bucket.try_take(much_later)).count(), 3);
    }

    #[test]
    fn connection_places_are_given_back_when_their_guards_drop() {
        let connections = Arc::new(Connections::new(2, 3));
        let one: IpAddr = "10.0.0.1".parse().unwrap();
        let two: IpAddr = "10.0.0.2".parse().unwrap();
        let a = connections.try_open(one).unwrap();
        let _b = connections.try_open(one).unwrap();
        assert_eq!(
            connections.try_open(one).unwrap_err(),
            ConnectionRefused::PerAddress
        );
        let _c = connections.try_open(two).unwrap();
        assert_eq!(
            connections.try_open(two).unwrap_err(),
            ConnectionRefused::Total
        );
        drop(a);
        assert_eq!(connections.open(), 2);
        let _d = connections.try_open(one).unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn room_creations_are_counted_over_a_sliding_minute() {
        let creations = RoomCreations::new(2, 64);
        let one: IpAddr = "10.0.0.1".parse().unwrap();
        assert!(creations.try_create(one) && creations.try_create(one));
        assert!(!creations.try_create(one));
        assert!(creations.try_create("10.0.0.2".parse().unwrap()));
        tokio::time::advance(Duration::from_secs(61)).await;
        assert!(creations.try_create(one));
        // The window slides: one more creation 30 s on, but a third waits until the first is
        // a minute old.
        tokio::time::advance(Duration::from_secs(30)).await;
        assert!(creations.try_create(one));
        tokio::time::advance(Duration::from_secs(29)).await;
        assert!(!creations.try_create(one));
        tokio::time::advance(Duration::from_secs(2)).await;
        assert!(creations.try_create(one));
    }

    #[tokio::test(start_paused = true)]
    async fn addresses_without_a_creation_in_the_window_are_forgotten() {
        let creations = RoomCreations::new(5, 64);
        for last in 1..=100u8 {
            assert!(creations.try_create(IpAddr::from([10, 0, 0, last])));
        }
        assert_eq!(creations.addresses(), 100);
        tokio::time::advance(Duration::from_secs(61)).await;
        assert!(creations.try_create("10.0.1.1".parse().unwrap()));
        assert_eq!(creations.addresses(), 1);
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_prefix() {
        let one: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let same: IpAddr = "2001:db8:1:2:ffff:ffff:ffff:ffff".parse().unwrap();
        let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_key(one, 64), client_key(same, 64));
        assert_ne!(client_key(one, 64), client_key(other, 64));
        assert_eq!(client_key(one, 48), client_key(other, 48));
        assert_ne!(client_key(one, 128), client_key(same, 128));
        let v4: IpAddr = "10.0.0.1".parse().unwrap();
        assert_eq!(client_key(v4, 64), v4);
        let connections = Arc::new(Connections::by_prefix(1, 10, 64));
        let _held = connections.try_open(one).unwrap();
        assert_eq!(
            connections.try_open(same).unwrap_err(),
            ConnectionRefused::PerAddress
        );
        assert!(connections.try_open(other).is_ok());
    }
}
