//! A map keyed by connection for a room's few connections, kept as a short list, its first two
//! entries inside the room itself.
//!
//! A room has two to four players and, now and then, some spectators. A `HashMap` put its
//! entries in a table of its own on the heap, hashed every id with SipHash and listed them in an
//! order that changed from run to run. Every action looks up the connection it came from and
//! sends to every connection, and with a thousand rooms that table was rarely in the cache:
//! the lookup was the room task's costliest line in the closed loop's profile (issue 18,
//! docs/benchmarks.md "Stop 36"). Here the two players of an ordinary room sit inline, beside
//! the rest of the room; more spill to one list on the heap (never bigger than the hash table
//! was), searched one by one in the order the connections came: the players, who send the
//! actions, usually came first, and a spectator's lookup costs at most the few dozen
//! comparisons of a full room (`--max-spectators`, 64 by default).

use smallvec::SmallVec;

use crate::room::handle::ConnId;

/// Values by connection, in the order the connections were added; at most one per connection.
#[derive(Debug)]
pub(in crate::room) struct ByConn<T> {
    entries: SmallVec<[(ConnId, T); 2]>,
}

impl<T> Default for ByConn<T> {
    fn default() -> Self {
        ByConn {
            entries: SmallVec::new(),
        }
    }
}

impl<T> ByConn<T> {
    fn position(&self, conn: ConnId) -> Option<usize> {
        self.entries.iter().position(|(id, _)| *id == conn)
    }

    /// The value of `conn`.
    pub(in crate::room) fn get(&self, conn: &ConnId) -> Option<&T> {
        let index = self.position(*conn)?;
        Some(&self.entries[index].1)
    }

    /// The value of `conn`, to change.
    pub(in crate::room) fn get_mut(&mut self, conn: &ConnId) -> Option<&mut T> {
        let index = self.position(*conn)?;
        Some(&mut self.entries[index].1)
    }

    /// Sets the value of `conn`, replacing (in its place) any it had.
    pub(in crate::room) fn insert(&mut self, conn: ConnId, value: T) {
        match self.position(conn) {
            Some(index) => self.entries[index].1 = value,
            None => self.entries.push((conn, value)),
        }
    }

    /// Takes the value of `conn` out; the others keep their order.
    pub(in crate::room) fn remove(&mut self, conn: &ConnId) -> Option<T> {
        let index = self.position(*conn)?;
        Some(self.entries.remove(index).1)
    }

    /// Every connection with its value, in the order they were added.
    pub(in crate::room) fn iter(&self) -> impl Iterator<Item = (&ConnId, &T)> {
        self.entries.iter().map(|(id, value)| (id, value))
    }

    /// Every value, in the order their connections were added.
    pub(in crate::room) fn values(&self) -> impl Iterator<Item = &T> {
        self.entries.iter().map(|(_, value)| value)
    }
}

#[cfg(test)]
mod tests {
    use super::ByConn;

    #[test]
    fn keeps_one_value_per_connection_in_the_order_they_came() {
        let mut conns = ByConn::default();
        for id in [7, 3, 9] {
            conns.insert(id, id * 10);
        }
        conns.insert(3, 31);
        assert_eq!(conns.get(&3), Some(&31));
        assert_eq!(conns.get(&4), None);
        let order: Vec<_> = conns.iter().map(|(id, value)| (*id, *value)).collect();
        assert_eq!(order, [(7, 70), (3, 31), (9, 90)]);
        *conns.get_mut(&9).unwrap() += 1;
        assert_eq!(conns.remove(&7), Some(70));
        assert_eq!(conns.remove(&7), None);
        assert_eq!(conns.values().copied().collect::<Vec<_>>(), [31, 91]);
    }

    #[test]
    fn spills_past_two_connections_and_finds_every_one() {
        let mut conns = ByConn::default();
        for id in 0..70u64 {
            conns.insert(id, id);
        }
        assert!((0..70).all(|id| conns.get(&id) == Some(&id)));
        assert_eq!(conns.values().count(), 70);
    }
}
