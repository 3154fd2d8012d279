//! What a room is opened from and what it shares with the server.

use std::sync::Arc;

use aeroplane_bot::Level;
use aeroplane_dice::{ClientSeed, ServerSeed};
use aeroplane_protocol::board::Board;
use aeroplane_protocol::name::PlayerName;
use aeroplane_protocol::record::{GameRecord, Mode};
use aeroplane_rules::Side;
use aeroplane_store::{GameStore, OutboxHandle};

use super::journal::{JournalStore, RoomJournal};
use super::registry::Registry;
use crate::config::Config;
use crate::lifecycle::Lifecycle;
use crate::token::SeatToken;

/// The display name of the computer's seat.
pub(super) const NAME: &str = "Computer";

/// The seat the computer plays in a computer room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComputerSeat {
    /// The computer's colour.
    pub colour: Side,
    /// How strongly it plays.
    pub level: Level,
}

impl ComputerSeat {
    /// The computer's seat, taken before its room opens: a new token, and a client seed drawn by
    /// the server from the operating system's CSPRNG, as `fairness.md` asks.
    pub fn seat(&self) -> Result<SeatSetup, getrandom::Error> {
        let token = SeatToken::generate()?;
        let mut seed = [0u8; 16];
        getrandom::fill(&mut seed)?;
        let client_seed =
            ClientSeed::new(hex::encode(seed)).expect("32 hex digits fit a client seed");
        Ok(SeatSetup {
            colour: self.colour,
            name: PlayerName::parse(NAME).expect("the computer's name is a name"),
            client_seed,
            token,
            player: None,
        })
    }
}

/// A seat taken before the room opens (quick match, rematch, the computer's seat).
#[derive(Debug)]
pub struct SeatSetup {
    /// The colour.
    pub colour: Side,
    /// The player's display name.
    pub name: PlayerName,
    /// The player's dice seed.
    pub client_seed: ClientSeed,
    /// The token the player will present.
    pub token: SeatToken,
    /// The identified player the seat is tied to (`None`: anonymous, or the computer).
    pub player: Option<uuid::Uuid>,
}

/// Everything a new room starts from.
#[derive(Debug)]
pub struct RoomSetup {
    /// The room id.
    pub id: uuid::Uuid,
    /// The kind of room.
    pub mode: Mode,
    /// The game in its initial position: the edition, its house rules and how many play.
    pub board: Board,
    /// The secret dice seed.
    pub server_seed: ServerSeed,
    /// Seats taken in advance (in a computer room, the computer's among them).
    pub seats: Vec<SeatSetup>,
    /// The turn clock: how long each decision may take (`None`: no clock).
    pub turn_clock: Option<std::time::Duration>,
    /// The computers' seats, in a computer room (one to three); their bots start with the room.
    pub computers: Vec<ComputerSeat>,
}

/// What every room shares with the server.
#[derive(Clone)]
pub struct RoomContext {
    /// The settings.
    pub config: Arc<Config>,
    /// Where finished games go.
    pub store: Arc<dyn GameStore>,
    /// The open rooms, so a room can remove itself when it closes.
    pub registry: Arc<Registry>,
    /// Where finished games' records wait for the store (on disk).
    pub outbox: OutboxHandle,
    /// Where the rooms' journals are kept.
    pub journals: Arc<dyn JournalStore>,
    /// Draining and stopping.
    pub lifecycle: Arc<Lifecycle>,
}

impl RoomContext {
    /// Hands a finished game's record to the durable outbox without blocking the room, then
    /// deletes the game's journal: once the record is in the outbox on this node's disk, or,
    /// for a journal another node could take over (on NATS, `revoked()` is `Some`), once the
    /// database has it. Such a journal outlives this node, its disk included: kept (with its
    /// lease, so nobody else takes it meanwhile) until the game is stored, it lets another
    /// node restore the finished game and store it should this node die first. Should the
    /// outbox fail, the journal stays and the next owner hands the record over again.
    pub(crate) fn keep_record(&self, record: GameRecord, journal: Option<Box<dyn RoomJournal>>) {
        let context = self.clone();
        let submitting = context.lifecycle.submitting();
        tokio::spawn(async move {
            let id = record.id;
            let outlives_node = journal
                .as_ref()
                .is_some_and(|journal| journal.revoked().is_some());
            let settled = if outlives_node {
                context.outbox.submit_watched(record).await.map(Some)
            } else {
                context.outbox.submit(record).await.map(|()| None)
            };
            let settled = match settled {
                Ok(settled) => settled,
                Err(error) => {
                    return tracing::error!(room_id = %id, %error, "cannot put the game record in the outbox; its journal keeps it for the next start");
                }
            };
            tracing::info!(room_id = %id, "game record in the outbox");
            if let Some(settled) = settled {
                // The record is on this node's disk: a shutdown need not wait for the database.
                drop(submitting);
                if settled.await.is_err() {
                    // The outbox stopped (a shutdown): the journal's next owner stores the game.
                    return;
                }
                tracing::debug!(room_id = %id, "game record stored; its journal is deleted");
            }
            if let Some(journal) = journal
                && let Err(error) = journal.delete().await
            {
                tracing::warn!(%error, room_id = %id, "cannot delete a journal");
            }
        });
    }
}
