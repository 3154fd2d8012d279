//! What the connection's task keeps at hand for every frame stays small.

use super::EveryFrame;

#[test]
fn the_per_frame_state_stays_within_two_cache_lines() {
    // 96 bytes in stop 52 of issue 18: a field added here is read at every frame, and past 128
    // bytes the struct spans a third line.
    let size = std::mem::size_of::<EveryFrame>();
    assert!(size <= 96, "{size}");
}
