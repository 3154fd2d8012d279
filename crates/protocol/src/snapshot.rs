//! The whole state of a room in one message, for joining, reconnecting and resyncing.
//!
//! A snapshot is enough to render and check the game with no rules of one's own: the position
//! (every plane, whose turn, the phase with the pending roll and its legal planes, the six counter,
//! the draw state) in the rules crate's JSON form and in the notation of `rules.md` §7, both
//! seats, the fairness fields and the number of the last event it includes.

use aeroplane_rules::{Colour, Game};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::record::{Mode, ResultRecord};

/// Where a room is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoomPhase {
    /// Not both seats are taken yet.
    Waiting,
    /// The game is being played.
    Playing,
    /// The game has ended.
    Over,
}

/// One seat as everyone may see it (never its token).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SeatView {
    /// The player's display name.
    pub name: String,
    /// Whether the player has a live connection now.
    pub connected: bool,
    /// While a disconnected player's seat is held in a live game: the ms left before the game
    /// ends `abandoned` (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_ms: Option<u64>,
    /// The identified player the seat is tied to (`GET /api/players/{id}`); absent for an
    /// anonymous or computer seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<Uuid>,
}

/// Both seats; `null` for a seat nobody has taken.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Seats {
    /// The Red seat (Red rolls first).
    pub red: Option<SeatView>,
    /// The Yellow seat.
    pub yellow: Option<SeatView>,
}

impl Seats {
    /// The seat of `colour`.
    pub fn get(&self, colour: Colour) -> Option<&SeatView> {
        match colour {
            Colour::Red => self.red.as_ref(),
            Colour::Yellow => self.yellow.as_ref(),
        }
    }
}

/// The fairness fields of `fairness.md` as far as they are public yet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FairnessView {
    /// The scheme version, `v1`.
    pub scheme: String,
    /// `hex(SHA-256(server_seed))`, public from the room's creation.
    pub commitment: String,
    /// Red's client seed, once the game has started.
    pub red_seed: Option<String>,
    /// Yellow's client seed, once the game has started.
    pub yellow_seed: Option<String>,
    /// The server seed, only once the game is over.
    pub server_seed: Option<String>,
}

/// Everything a client needs to draw the room as it is after event number `event`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The room (and game) id.
    pub room_id: Uuid,
    /// The kind of room.
    pub mode: Mode,
    /// Waiting, playing or over.
    pub phase: RoomPhase,
    /// The number of the last room event this snapshot includes (0 before any event).
    pub event: u64,
    /// The position in the rules crate's JSON form (`docs/state-json.md`).
    pub game: Game,
    /// The position in the notation of `rules.md` §7; `null` once the game is over.
    pub notation: Option<String>,
    /// Both seats.
    pub seats: Seats,
    /// The dice commitment and seeds.
    pub fairness: FairnessView,
    /// How the game ended, once it has.
    pub result: Option<ResultRecord>,
    /// Computer rooms only: which seat the computer plays, and at which level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<ComputerView>,
    /// Rooms with a turn clock: its length, the time left and the strikes (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockView>,
    /// How many spectators watch (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub spectators: u32,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(count: &u32) -> bool {
    *count == 0
}

/// The turn clock as a snapshot shows it, so a client that (re)joins shows it at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    /// How long each decision may take, in ms.
    pub per_decision_ms: u64,
    /// The ms left for the decision now pending, counted from when the snapshot was sent;
    /// `null` when the clock is not running (before the game, once it is over, while the
    /// computer acts, or while the first decision waits for its player to connect).
    pub remaining_ms: Option<u64>,
    /// Strikes (decisions the clock played) per colour in this game.
    pub strikes: Strikes,
    /// The strikes at which a player forfeits on time.
    pub max_strikes: u32,
}

/// A count per colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Strikes {
    /// Red's count.
    pub red: u32,
    /// Yellow's count.
    pub yellow: u32,
}

/// The computer's seat in a computer room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComputerView {
    /// The colour the computer plays.
    pub colour: Colour,
    /// Its level: `random`, `easy`, `normal` or `hard`.
    pub level: String,
}
