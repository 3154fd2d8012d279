//! Helpers: tables from notation, die values and planes from numbers, and a check that a refused
//! action leaves the table exactly as it was.

use aeroplane_rules::{PlaneSet, RuleError, Side, Table, TableEvent, TableEvents};

// Die values, planes and plane sets from plain numbers, as in the plyyard tests.
#[path = "../common/mod.rs"]
mod common;
pub(crate) use common::{die, plane, planes};

/// The table written in the editions' notation; panics with the parser's reason.
pub(crate) fn table(notation: &str) -> Table {
    notation
        .parse()
        .unwrap_or_else(|error| panic!("`{notation}` does not parse: {error}"))
}

/// The player to act rolls `value`; the roll must be accepted.
pub(crate) fn roll(table: &mut Table, value: u8) -> TableEvents {
    let side = table.to_act();
    table
        .roll(side, die(value))
        .unwrap_or_else(|e| panic!("{side} rolling {value} in `{table}` was refused: {e}"))
}

/// The player to act moves plane `number`; the move must be accepted.
pub(crate) fn move_plane(table: &mut Table, number: u8) -> TableEvents {
    let side = table.to_act();
    table
        .move_plane(side, plane(number))
        .unwrap_or_else(|e| panic!("{side} moving {number} in `{table}` was refused: {e}"))
}

/// Plays the pending roll with plane `number`, then checks the whole position.
pub(crate) fn play_and_expect(start: &str, number: u8, expected: &str) -> TableEvents {
    let mut t = table(start);
    let events = move_plane(&mut t, number);
    assert_eq!(
        t.to_string(),
        expected,
        "after moving plane {number} in `{start}`"
    );
    events
}

/// Runs `action`, which must be refused with `code` and leave the table unchanged.
pub(crate) fn assert_refused(
    table: &mut Table,
    code: &str,
    action: impl FnOnce(&mut Table) -> Result<TableEvents, RuleError>,
) {
    let before = *table;
    match action(table) {
        Ok(events) => panic!("expected `{code}`, but the action was accepted: {events:?}"),
        Err(error) => assert_eq!(error.code(), code, "wrong error ({error})"),
    }
    assert_eq!(*table, before, "a refused action changed the table");
}

/// The planes sent home by these events, per side, in order.
pub(crate) fn sent_home(events: &TableEvents) -> Vec<(Side, PlaneSet)> {
    events
        .iter()
        .filter_map(|e| match e {
            TableEvent::SentHome { side, planes, .. } => Some((*side, *planes)),
            _ => None,
        })
        .collect()
}
