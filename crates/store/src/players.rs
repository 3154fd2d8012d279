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

/// The two players a record rates, `(red, yellow)`: a two-player `plyyard` record marked rated
/// whose seats hold two different players.
///
/// Ratings are one pool of two-player `plyyard` games (the Glicko-2 update of [`rate_game`]
/// compares two players). A game of another edition, or of three or four players, rates nobody,
/// even if its record says `rated`: it only counts in each identified player's results.
pub(crate) fn rated_pair(record: &GameRecord) -> Option<(Uuid, Uuid)> {
    let red = record.players.red.player_id?;
    let yellow = record.players.yellow.player_id?;
    (record.rated && record.is_plyyard() && red != yellow).then_some((red, yellow))
}

/// How one seat's game counts in its player's results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SeatResult {
    Win,
    Loss,
    Draw,
}

/// How `side`'s game counts: with places (format 2), first place is a win, any other place a
/// loss (a game of three or four has one winner; second place is not half a win), and no place
/// (still in play when a draw was agreed) a draw. Without places, the winner says it: the
/// winner's seat wins, a draw draws, every other seat loses.
fn seat_result(record: &GameRecord, side: Side) -> SeatResult {
    match record.result.places {
        Some(places) => match places.get(side) {
            Some(1) => SeatResult::Win,
            Some(_) => SeatResult::Loss,
            None => SeatResult::Draw,
        },
        None => match record.result.winner {
            None => SeatResult::Draw,
            Some(winner) if winner == side => SeatResult::Win,
            Some(_) => SeatResult::Loss,
        },
    }
}

/// What storing `record` changes for each of its identified players. `standings` are the two
/// rated players' standings before the game (see [`rated_pair`]); without them the game counts
/// but rates nobody. Each identified player counts the game once; a player holding more than one
/// seat (a local game) counts it with no result, having played against themself.
pub(crate) fn changes(
    record: &GameRecord,
    standings: Option<(Standing, Standing)>,
) -> Vec<PlayerChange> {
    let rated = standings
        .filter(|_| rated_pair(record).is_some())
        .map(|(red, yellow)| {
            let winner = record.result.winner.and_then(Side::colour);
            rate_game(red, yellow, winner, record.ended_at)
        });
    let seats: Vec<(Side, Uuid)> = Side::ALL
        .into_iter()
        .filter_map(|side| {
            let id = record.players.seat(side)?.player_id?;
            Some((side, id))
        })
        .collect();
    let mut changes = Vec::new();
    for &(side, id) in &seats {
        if changes.iter().any(|change: &PlayerChange| change.id == id) {
            continue;
        }
        let several_seats = seats.iter().filter(|(_, other)| *other == id).count() > 1;
        let result = (!several_seats).then(|| seat_result(record, side));
        let count = |wanted: SeatResult| i64::from(result == Some(wanted));
        changes.push(PlayerChange {
            id,
            wins: count(SeatResult::Win),
            losses: count(SeatResult::Loss),
            draws: count(SeatResult::Draw),
            rated: rated.and_then(|(red, yellow)| {
                let rating = match side.colour()? {
                    Colour::Red => red,
                    Colour::Yellow => yellow,
                };
                Some((rating, record.ended_at))
            }),
        });
    }
    changes
}
