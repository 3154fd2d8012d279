//! Pins the sizes of what every room holds, so that memory per room does not creep back.
//!
//! Memory per room and per seated connection is a target of the load benchmark
//! (docs/benchmarks.md, stops 13 to 16). These are the room's inline parts, the command its
//! inbox carries (every command queued costs its size) and the inbox's shared state, which must
//! stay on one cache line (`room/inbox.rs`). The bounds are what stop 16 measured (a 64-bit
//! build); a change that grows one past it should say why in the benchmark notes and move the
//! bound with it.

#[cfg(test)]
mod tests {
    use std::mem::size_of;

    use aeroplane_protocol::client::ClientMessage;

    use super::super::core::Room;
    use super::super::handle::RoomCommand;
    use super::super::inbox;
    use super::super::journal::Writer;

    #[test]
    fn a_room_command_stays_small() {
        // A `join` is boxed (144 bytes inline); any other client message is at most 40 bytes.
        assert!(
            size_of::<ClientMessage>() <= 40,
            "{}",
            size_of::<ClientMessage>()
        );
        // 176 bytes before stop 16, when a room's inbox (tokio's channel then) allocated 32
        // slots: 5.5 KiB of inbox per room, then 1.5 KiB. Since stop 39 the inbox grows on
        // demand.
        assert!(
            size_of::<RoomCommand>() <= 48,
            "{}",
            size_of::<RoomCommand>()
        );
    }

    #[test]
    fn an_inbox_state_and_its_lock_fill_one_cache_line() {
        let shared = size_of::<std::sync::Mutex<inbox::State<RoomCommand>>>();
        assert!(shared <= 64, "{shared}");
    }

    #[test]
    fn the_room_and_its_journal_writer_stay_small() {
        // The waiting room's setup is boxed: a playing room has none, and inline it was 568
        // bytes of every room. Stop 31 added 8 (the clock's change count it last looked at,
        // compared at every action instead of the clock's count).
        assert!(size_of::<Writer>() <= 144, "{}", size_of::<Writer>());
        // 1,728 bytes in stop 15, 1,440 in stop 14; 16 more in stop 31 (the writer's 8, and
        // the padding the room's layout gave them). 80 more in stop 36: the two connections of
        // an ordinary room inline (`parts/by_conn.rs`; the hash table they replace took a heap
        // block of 224 bytes) and the earliest seat deadline.
        assert!(size_of::<Room>() <= 1264, "{}", size_of::<Room>());
    }
}
