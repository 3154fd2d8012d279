//! Limits that keep one client from starving the others: a token bucket per connection, counts
//! of open connections (per client address and in total) held by RAII guards, and a count of
//! rooms created per address per minute.
//!
//! The locks here guard small maps only and are never held across `.await`.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use tokio::time::Instant;

use crate::config::Config;

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

    /// Takes one token if there is one.
    pub fn try_take(&mut self) -> bool {
        let now = Instant::now();
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
    /// Counts with these limits.
    pub fn new(per_address: usize, total: usize) -> Connections {
        Connections {
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

/// Rooms created per client address in the last minute (a sliding window).
#[derive(Debug)]
pub struct RoomCreations {
    per_minute: usize,
    recent: Mutex<HashMap<IpAddr, Vec<Instant>>>,
}

/// The window [`RoomCreations`] counts over.
const WINDOW: Duration = Duration::from_secs(60);

impl RoomCreations {
    /// Counts with this limit.
    pub fn new(per_minute: usize) -> RoomCreations {
        RoomCreations {
            per_minute,
            recent: Mutex::new(HashMap::new()),
        }
    }

    /// Records a room creation by `address`, or refuses it when the address has created
    /// `per_minute` rooms in the last minute.
    pub fn try_create(&self, address: IpAddr) -> bool {
        let now = Instant::now();
        let mut recent = self.recent.lock().expect("room creations lock poisoned");
        // Forget addresses whose window has passed, so the map stays small.
        recent.retain(|_, times| {
            times.retain(|at| now.saturating_duration_since(*at) < WINDOW);
            !times.is_empty()
        });
        let times = recent.entry(address).or_default();
        if times.len() >= self.per_minute {
            return false;
        }
        times.push(now);
        true
    }
}

/// Every shared limit of the server.
#[derive(Debug)]
pub struct Limits {
    /// Open WebSocket connections.
    pub connections: Arc<Connections>,
    /// Rooms created per address.
    pub room_creations: RoomCreations,
}

impl Limits {
    /// The limits the settings ask for.
    pub fn from_config(config: &Config) -> Limits {
        Limits {
            connections: Arc::new(Connections::new(
                config.max_connections_per_address,
                config.max_connections,
            )),
            room_creations: RoomCreations::new(config.rooms_per_address_per_minute),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_bucket_admits_its_burst_then_its_rate() {
        let mut bucket = TokenBucket::new(2.0, 3.0);
        assert_eq!((0..5).filter(|_| bucket.try_take()).count(), 3);
        tokio::time::advance(Duration::from_millis(1000)).await;
        assert_eq!((0..5).filter(|_| bucket.try_take()).count(), 2);
        tokio::time::advance(Duration::from_secs(60)).await;
        assert_eq!((0..5).filter(|_| bucket.try_take()).count(), 3);
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
        let creations = RoomCreations::new(2);
        let one: IpAddr = "10.0.0.1".parse().unwrap();
        assert!(creations.try_create(one) && creations.try_create(one));
        assert!(!creations.try_create(one));
        assert!(creations.try_create("10.0.0.2".parse().unwrap()));
        tokio::time::advance(Duration::from_secs(61)).await;
        assert!(creations.try_create(one));
    }
}
