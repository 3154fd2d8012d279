//! The record of a finished game: what the outbox hands to the store and the API serves.
//!
//! A two-player `plyyard` game is written as record format 1, exactly as before; a game of any
//! other edition or player count as format 2, with every seat, the house rules, every place and
//! the seeds of dice scheme `v2` (`crates/protocol/src/record.rs`).

use aeroplane_protocol::record::{
    FairnessRecord, GameRecord, LoggedAction, Mode, PlayerKind, PlayerRecord, Players,
};
use aeroplane_rules::{Side, TableAction};
use time::OffsetDateTime;

use super::core::Room;

/// The complete record of the finished game.
pub(super) fn of(room: &Room) -> Option<GameRecord> {
    let board = room.timeline.game();
    let result = board.result()?;
    let sides = board.sides();
    let player = |colour: Side| {
        let computer = room.assist.computer_of(colour);
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
    let seated = |colour: Side| sides.contains(&colour).then(|| player(colour));
    let red = room.seats.player(Side::Red);
    let yellow = room.seats.player(Side::Yellow);
    // Rated: a two-player online `plyyard` game between two different identified players
    // (whatever its ending). Games of the other editions and of three or four are not rated.
    let rated = room.mode == Mode::Online
        && !board.is_table()
        && red.is_some()
        && yellow.is_some()
        && red != yellow;
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
    let seated_seed = |colour: Side| sides.contains(&colour).then(|| seed(colour));
    let rules = board.rules();
    let now = OffsetDateTime::now_utc();
    Some(GameRecord {
        format: GameRecord::format_for(rules, board.players()),
        id: room.id,
        ruleset: rules.ruleset().as_str().to_owned(),
        house_rules: rules
            .house_rules()
            .iter()
            .map(|rule| (*rule).to_owned())
            .collect(),
        mode: room.mode,
        created_at: room.timeline.created_at(),
        started_at: room.timeline.started_at().unwrap_or(now),
        ended_at: now,
        players: Players {
            red: player(Side::Red),
            yellow: player(Side::Yellow),
            blue: seated(Side::Blue),
            green: seated(Side::Green),
        },
        rated,
        result,
        // Undone rolls still count: each consumed a value of the die stream.
        rolls: count(|logged| matches!(logged.action, TableAction::Roll { .. })),
        moves: count(|logged| !logged.undone && matches!(logged.action, TableAction::Move { .. })),
        actions: room.timeline.actions().to_vec(),
        fairness: FairnessRecord {
            scheme: room.timeline.scheme().as_str().to_owned(),
            commitment: room.timeline.commitment().to_string(),
            server_seed: room.timeline.server_seed().to_hex(),
            red_seed: seed(Side::Red),
            yellow_seed: seed(Side::Yellow),
            blue_seed: seated_seed(Side::Blue),
            green_seed: seated_seed(Side::Green),
        },
    })
}
