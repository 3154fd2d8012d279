//! The record of a finished game: what the outbox hands to the store and the API serves.

use aeroplane_dice::SCHEME;
use aeroplane_protocol::record::{
    FairnessRecord, GameRecord, LoggedAction, Mode, PLYYARD_FORMAT, PlayerKind, PlayerRecord,
    Players, ResultRecord,
};
use aeroplane_rules::{Colour, RULESET, TableAction};
use time::OffsetDateTime;

use super::core::Room;

/// The complete record of the finished game.
pub(super) fn of(room: &Room) -> Option<GameRecord> {
    let outcome = room.timeline.game().outcome()?;
    let player = |colour: Colour| {
        let computer = room
            .assist
            .computer()
            .filter(|computer| computer.colour == colour);
        PlayerRecord {
            name: room.seats.name(colour),
            kind: match computer {
                Some(_) => PlayerKind::Computer,
                None => PlayerKind::Human,
            },
            level: computer.map(|computer| computer.level.as_str().to_owned()),
            player_id: room.seats.player(colour),
        }
    };
    let red = room.seats.player(Colour::Red);
    let yellow = room.seats.player(Colour::Yellow);
    // Rated: an online game between two different identified players (whatever its ending).
    let rated = room.mode == Mode::Online && red.is_some() && yellow.is_some() && red != yellow;
    let count = |pred: fn(&LoggedAction) -> bool| {
        u32::try_from(
            room.timeline
                .actions()
                .iter()
                .filter(|logged| pred(logged))
                .count(),
        )
        .unwrap_or(u32::MAX)
    };
    let seed = |colour| room.seats.client_seed(colour).as_str().to_owned();
    let now = OffsetDateTime::now_utc();
    Some(GameRecord {
        format: PLYYARD_FORMAT,
        id: room.id,
        ruleset: RULESET.to_owned(),
        house_rules: Vec::new(),
        mode: room.mode,
        created_at: room.timeline.created_at(),
        started_at: room.timeline.started_at().unwrap_or(now),
        ended_at: now,
        players: Players {
            red: player(Colour::Red),
            yellow: player(Colour::Yellow),
            blue: None,
            green: None,
        },
        rated,
        result: ResultRecord::plyyard(outcome.winner, outcome.reason),
        // Undone rolls still count: each consumed a value of the die stream.
        rolls: count(|logged| matches!(logged.action, TableAction::Roll { .. })),
        moves: count(|logged| !logged.undone && matches!(logged.action, TableAction::Move { .. })),
        actions: room.timeline.actions().to_vec(),
        fairness: FairnessRecord {
            scheme: SCHEME.to_owned(),
            commitment: room.timeline.commitment().to_string(),
            server_seed: room.timeline.server_seed().to_hex(),
            red_seed: seed(Colour::Red),
            yellow_seed: seed(Colour::Yellow),
            blue_seed: None,
            green_seed: None,
        },
    })
}
