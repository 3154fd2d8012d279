//! The whole state of a room in one message, for joining, reconnecting and resyncing.
//!
//! A snapshot is enough to render and check the game with no rules of one's own: the position
//! (every plane, whose turn, the phase with the pending roll and its legal planes, the six counter,
//! the draw state) in the rules crate's JSON form and in its notation, the seats, the fairness
//! fields and the number of the last event it includes. A two-player `plyyard` room's position
//! is its `game` (`rules.md` §7); any other room's is its `table` (`docs/rules/README.md`).

use aeroplane_rules::{Game, Side, Table};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::board::Board;
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

/// The seats; `null` for Red's or Yellow's seat while nobody has taken it. Blue's and Green's
/// are absent until taken (a table room's `table.seats` says which colours play).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Seats {
    /// The Red seat (Red rolls first).
    pub red: Option<SeatView>,
    /// The Yellow seat.
    pub yellow: Option<SeatView>,
    /// The Blue seat, in rooms of three or four, once taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blue: Option<SeatView>,
    /// The Green seat, in rooms of four, once taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub green: Option<SeatView>,
}

impl Seats {
    /// The seat of `colour`.
    pub fn get(&self, colour: Side) -> Option<&SeatView> {
        match colour {
            Side::Red => self.red.as_ref(),
            Side::Yellow => self.yellow.as_ref(),
            Side::Blue => self.blue.as_ref(),
            Side::Green => self.green.as_ref(),
        }
    }

    /// The seat of `colour`, to set it.
    pub fn get_mut(&mut self, colour: Side) -> &mut Option<SeatView> {
        match colour {
            Side::Red => &mut self.red,
            Side::Yellow => &mut self.yellow,
            Side::Blue => &mut self.blue,
            Side::Green => &mut self.green,
        }
    }
}

/// The fairness fields of `fairness.md` as far as they are public yet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FairnessView {
    /// The scheme version: `v1` for two-player `plyyard`, `v2` for every other room.
    pub scheme: String,
    /// `hex(SHA-256(server_seed))`, public from the room's creation.
    pub commitment: String,
    /// Red's client seed, once the game has started.
    pub red_seed: Option<String>,
    /// Yellow's client seed, once the game has started.
    pub yellow_seed: Option<String>,
    /// Blue's client seed, once a game that seats Blue has started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blue_seed: Option<String>,
    /// Green's client seed, once a game that seats Green has started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub green_seed: Option<String>,
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
    /// A two-player `plyyard` room's position in the rules crate's JSON form
    /// (`docs/state-json.md`); absent in a table room.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<Game>,
    /// A table room's position (any other edition or player count) in the rules crate's JSON
    /// form of a table (`docs/state-json.md`); absent in a two-player `plyyard` room.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<Table>,
    /// The position in its notation (`rules.md` §7, or `docs/rules/README.md` for a table);
    /// `null` once the game is over.
    pub notation: Option<String>,
    /// The seats.
    pub seats: Seats,
    /// The dice commitment and seeds.
    pub fairness: FairnessView,
    /// How the game ended, once it has.
    pub result: Option<ResultRecord>,
    /// Two-player computer rooms: which seat the computer plays, and at which level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<ComputerView>,
    /// Table computer rooms: every seat the computers play, with their levels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub computers: Vec<ComputerView>,
    /// Rooms with a turn clock: its length, the time left and the strikes (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockView>,
    /// How many spectators watch (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub spectators: u32,
}

impl Snapshot {
    /// The position as a [`Board`]: the `game` of a two-player `plyyard` room, else the `table`.
    pub fn board(&self) -> Board {
        match (self.game, self.table) {
            (Some(game), _) => Board::Plyyard(game),
            (None, Some(table)) => Board::Table(table),
            (None, None) => Board::default(),
        }
    }

    /// A two-player `plyyard` room's game (the initial game for a snapshot of a table room).
    pub fn game(&self) -> Game {
        self.game.unwrap_or_default()
    }
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

/// A count per colour (Blue's and Green's absent when zero).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Strikes {
    /// Red's count.
    pub red: u32,
    /// Yellow's count.
    pub yellow: u32,
    /// Blue's count.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub blue: u32,
    /// Green's count.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub green: u32,
}

/// The computer's seat in a computer room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComputerView {
    /// The colour the computer plays.
    pub colour: Side,
    /// Its level: `random`, `easy`, `normal` or `hard`.
    pub level: String,
}
