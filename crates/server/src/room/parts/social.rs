//! What an online room keeps for quick messages and the rematch. How the room handles `say`
//! and `rematch` is `room/social.rs`.

use std::collections::BTreeMap;
use std::time::Duration;

use aeroplane_dice::ClientSeed;
use aeroplane_protocol::server::RematchReady;
use aeroplane_rules::Side;
use tokio::time::Instant;

/// The shortest time between two quick messages of one seat.
pub(in crate::room) const SAY_INTERVAL: Duration = Duration::from_secs(2);

/// A room's quick-message limits and rematch requests.
#[derive(Debug, Default)]
pub(in crate::room) struct Social {
    /// When each seat last sent a quick message.
    pub(in crate::room) last_said: BTreeMap<Side, Instant>,
    /// The client seed each player asked for a rematch with, once asked.
    pub(in crate::room) rematch: BTreeMap<Side, ClientSeed>,
    /// The new room's answers per colour of this room, once every player asked.
    pub(in crate::room) ready: Option<BTreeMap<Side, RematchReady>>,
}
