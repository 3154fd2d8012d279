//! The parts a room is made of, each owning its state and knowing nothing of the room: the
//! seats, the timeline, the turn clock's state, the assistant's state and the social state.
//! The room (`room/core.rs`) holds one of each and the flows beside it use them.

pub(super) mod assist;
pub(super) mod by_conn;
pub(super) mod by_side;
pub(super) mod clock;
pub(super) mod seats;
pub(super) mod social;
pub(super) mod timeline;
