//! A map keyed by colour for the handful of seats a room has, kept as a short sorted list.
//!
//! A `BTreeMap` allocates a whole node of eleven entries for its first one: with a 128-byte
//! seat that is about 1.4 KiB per room for two seats. This holds exactly the seats a room has
//! (reserved for its player count), in colour order like the `BTreeMap` it replaces, with the
//! same methods so the seats read as before.

use aeroplane_rules::Side;

/// Values by colour, in colour order; at most one per colour.
#[derive(Debug)]
pub(in crate::room) struct BySide<T> {
    entries: Vec<(Side, T)>,
}

impl<T> BySide<T> {
    /// An empty map with room for `capacity` colours without growing.
    pub(in crate::room) fn with_capacity(capacity: usize) -> BySide<T> {
        BySide {
            entries: Vec::with_capacity(capacity),
        }
    }

    fn position(&self, side: Side) -> Result<usize, usize> {
        self.entries.binary_search_by(|(key, _)| key.cmp(&side))
    }

    /// The value of `side`.
    pub(in crate::room) fn get(&self, side: &Side) -> Option<&T> {
        let index = self.position(*side).ok()?;
        Some(&self.entries[index].1)
    }

    /// The value of `side`, to change.
    pub(in crate::room) fn get_mut(&mut self, side: &Side) -> Option<&mut T> {
        let index = self.position(*side).ok()?;
        Some(&mut self.entries[index].1)
    }

    /// Sets the value of `side`, replacing any it had.
    pub(in crate::room) fn insert(&mut self, side: Side, value: T) {
        match self.position(side) {
            Ok(index) => self.entries[index].1 = value,
            Err(index) => self.entries.insert(index, (side, value)),
        }
    }

    /// Whether `side` has a value.
    pub(in crate::room) fn contains_key(&self, side: &Side) -> bool {
        self.position(*side).is_ok()
    }

    /// Whether no colour has a value.
    pub(in crate::room) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every colour with its value, in colour order.
    pub(in crate::room) fn iter(&self) -> impl Iterator<Item = (&Side, &T)> {
        self.entries.iter().map(|(side, value)| (side, value))
    }

    /// Every colour with its value to change, in colour order.
    pub(in crate::room) fn iter_mut(&mut self) -> impl Iterator<Item = (&Side, &mut T)> {
        self.entries.iter_mut().map(|(side, value)| (&*side, value))
    }

    /// Every value, in colour order.
    pub(in crate::room) fn values(&self) -> impl Iterator<Item = &T> {
        self.entries.iter().map(|(_, value)| value)
    }

    /// Every value to change, in colour order.
    pub(in crate::room) fn values_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.entries.iter_mut().map(|(_, value)| value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_stay_in_colour_order_whatever_the_order_they_came_in() {
        let mut map = BySide::with_capacity(2);
        map.insert(Side::Green, 4);
        map.insert(Side::Red, 1);
        map.insert(Side::Yellow, 2);
        map.insert(Side::Red, 9);
        let sides: Vec<Side> = map.iter().map(|(side, _)| *side).collect();
        let mut sorted = sides.clone();
        sorted.sort();
        assert_eq!(sides, sorted);
        assert_eq!(map.values().copied().collect::<Vec<_>>().len(), 3);
        assert_eq!(map.get(&Side::Red), Some(&9));
        assert!(!map.contains_key(&Side::Blue));
    }
}
