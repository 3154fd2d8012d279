//! Players as the store keeps them, and what storing a game changes for its players: shared by
//! every store, so they all count and rate alike.

use aeroplane_protocol::record::GameRecord;
use aeroplane_rules::{Colour, Side};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::rating::{Rating, Standing, rate_game};

/// A new player, as `POST /api/players` creates one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewPlayer {
    /// The player id.
    pub id: Uuid,
    /// The display name (already parsed as a player name).
    pub name: String,
    /// The SHA-256 hash of the player's secret; the secret itself is never stored.
    pub secret_hash: [u8; 32],
    /// When the player was created.
    pub created_at: OffsetDateTime,
}

/// A stored player.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPlayer {
    /// The player id.
    pub id: Uuid,
    /// The display name.
    pub name: String,
    /// The SHA-256 hash of the player's secret.
    pub secret_hash: [u8; 32],
    /// When the player was created.
    pub created_at: OffsetDateTime,
    /// The rating after the last rated game, and when that game ended.
    pub standing: Standing,
    /// Rated games stored.
    pub rated_games: u64,
    /// Games stored with this player in a seat, of every mode.
    pub games: u64,
    /// Of those, the games won.
    pub wins: u64,
    /// Of those, the games lost.
    pub losses: u64,
    /// Of those, the games drawn.
    pub draws: u64,
}

/// What storing one game changes for one of its players.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PlayerChange {
    pub(crate) id: Uuid,
    pub(crate) wins: i64,
    pub(crate) losses: i64,
    pub(crate) draws: i64,
    /// The new rating and the game's end, for a rated game.
    pub(crate) rated: Option<(Rating, OffsetDateTime)>,
}

/// The two players a record rates, `(red, yellow)`: a record marked rated whose seats hold two
/// different players.
pub(crate) fn rated_pair(record: &GameRecord) -> Option<(Uuid, Uuid)> {
    let red = record.players.red.player_id?;
    let yellow = record.players.yellow.player_id?;
    (record.rated && red != yellow).then_some((red, yellow))
}

/// What storing `record` changes for each of its identified players. `standings` are the two
/// rated players' standings before the game (see [`rated_pair`]); without them the game counts
/// but rates nobody. A player holding both seats (a local game) counts one game and no result.
pub(crate) fn changes(
    record: &GameRecord,
    standings: Option<(Standing, Standing)>,
) -> Vec<PlayerChange> {
    let red = record.players.red.player_id;
    let yellow = record.players.yellow.player_id;
    let rated = standings
        .filter(|_| rated_pair(record).is_some())
        .map(|(red, yellow)| {
            let winner = record.result.winner.and_then(Side::colour);
            rate_game(red, yellow, winner, record.ended_at)
        });
    let mut changes = Vec::new();
    for (colour, id) in [(Colour::Red, red), (Colour::Yellow, yellow)] {
        let Some(id) = id else { continue };
        if changes.iter().any(|change: &PlayerChange| change.id == id) {
            continue;
        }
        let both_seats = red == yellow;
        let result = |wanted: Option<Colour>| {
            i64::from(!both_seats && record.result.winner == wanted.map(Side::from))
        };
        changes.push(PlayerChange {
            id,
            wins: result(Some(colour)),
            losses: result(Some(colour.opponent())),
            draws: result(None),
            rated: rated.map(|(red, yellow)| {
                let rating = if colour == Colour::Red { red } else { yellow };
                (rating, record.ended_at)
            }),
        });
    }
    changes
}
