//! The editions' notation (`docs/rules/README.md`): examples parse and print back unchanged, and
//! every kind of inconsistent line is refused with the reason.

use aeroplane_rules::{Rules, Side, Table, TablePositionError};

#[test]
fn the_documented_examples_parse_and_print_back_unchanged() {
    for text in [
        "flights red:b,b,b,b yellow:b,b,b,b red - 0 -",
        "flights red:b,b,b,b yellow:b,b,b,b blue:b,b,b,b red - 0 -",
        "classic red:b,b,b,b green:b,b,b,b yellow:b,b,b,b blue:b,b,b,b red - 0 -",
        "classic red:12,12,b,b yellow:3,b,b,b red 6 1 -",
        "classic red=1:f,f,f,f yellow:40,b,b,f blue:2,b,b,b yellow - 0 -",
        "classic+jump-after-shortcut red:17,b,14,b yellow:b,b,b,b red - 1 2",
        "flights red:5,b,b,b yellow=3:b,b,b,b blue:3,b,b,b blue - 0 -",
        "plyyard red:b,b,12,f yellow:b,30,52,b yellow 4 0 -",
    ] {
        let table: Table = text.parse().unwrap_or_else(|e| panic!("`{text}`: {e}"));
        assert_eq!(table.to_string(), text);
    }
}

#[test]
fn the_initial_tables_print_as_documented() {
    assert_eq!(
        Table::new(Rules::FLIGHTS, 3).unwrap().to_string(),
        "flights red:b,b,b,b yellow:b,b,b,b blue:b,b,b,b red - 0 -"
    );
}

/// A check that an error is the expected kind.
type Expected = fn(&TablePositionError) -> bool;

fn refused(text: &str) -> TablePositionError {
    match text.parse::<Table>() {
        Ok(table) => panic!("`{text}` parsed as `{table}`"),
        Err(error) => {
            assert!(!error.to_string().is_empty());
            error
        }
    }
}

#[test]
fn a_line_that_is_not_a_consistent_live_position_is_refused_with_its_reason() {
    use TablePositionError as E;
    let cases: [(&str, Expected); 22] = [
        ("", |e| matches!(e, E::FieldCount(0))),
        ("flights red:b,b,b,b red - 0 -", |e| {
            matches!(e, E::FieldCount(6))
        }),
        ("ludo red:b,b,b,b yellow:b,b,b,b red - 0 -", |e| {
            matches!(e, E::Name(_))
        }),
        (
            "flights+jump-after-shortcut red:b,b,b,b yellow:b,b,b,b red - 0 -",
            |e| matches!(e, E::Name(_)),
        ),
        (
            "plyyard red:b,b,b,b yellow:b,b,b,b blue:b,b,b,b red - 0 -",
            |e| matches!(e, E::Players { players: 3, .. }),
        ),
        ("flights red:b,b,b,b green:b,b,b,b red - 0 -", |e| {
            matches!(e, E::Seating { .. })
        }),
        ("flights yellow:b,b,b,b red:b,b,b,b red - 0 -", |e| {
            matches!(e, E::Seating { .. })
        }),
        ("flights red:b,b,b yellow:b,b,b,b red - 0 -", |e| {
            matches!(
                e,
                E::PlaneCount {
                    side: Side::Red,
                    found: 3
                }
            )
        }),
        ("flights red:b,b,b,57 yellow:b,b,b,b red - 0 -", |e| {
            matches!(e, E::PlaneValue { max: 56, .. })
        }),
        ("plyyard red:b,b,b,56 yellow:b,b,b,b red - 0 -", |e| {
            matches!(e, E::PlaneValue { max: 55, .. })
        }),
        ("flights red b,b,b,b yellow:b,b,b,b red - 0 -", |e| {
            matches!(e, E::FieldCount(_) | E::Seat(_))
        }),
        ("flights red:b,b,b,b yellow:b,b,b,b green - 0 -", |e| {
            matches!(e, E::ToAct(_))
        }),
        ("flights red:b,b,b,b yellow:b,b,b,b red 7 0 -", |e| {
            matches!(e, E::PendingRoll(_))
        }),
        ("flights red:b,b,b,b yellow:b,b,b,b red - 3 -", |e| {
            matches!(e, E::SixCounter(_))
        }),
        ("flights red:b,b,b,b yellow:b,b,b,b red 3 0 -", |e| {
            matches!(e, E::NoLegalPlane(_))
        }),
        ("flights red:b,b,b,b yellow:b,b,b,b red 6 0 -", |e| {
            matches!(e, E::CounterMismatch)
        }),
        ("flights red:4,b,b,b yellow:b,b,b,b red - 0 0", |e| {
            matches!(e, E::AtStake(_))
        }),
        ("flights red:4,5,b,b yellow:b,b,b,b red - 1 01", |e| {
            matches!(e, E::AtStake(_))
        }),
        ("classic red:f,f,f,f yellow:b,b,b,b red - 0 -", |e| {
            matches!(e, E::AllFinished(Side::Red))
        }),
        (
            "flights red=1:f,f,f,f yellow:b,b,b,b blue:b,b,b,b yellow - 0 -",
            |e| matches!(e, E::Places),
        ),
        (
            "classic red=2:f,f,f,f yellow:b,b,b,b blue:b,b,b,b yellow - 0 -",
            |e| matches!(e, E::Places),
        ),
        ("flights red:4,b,b,b yellow:30,b,b,b red - 0 -", |e| {
            matches!(e, E::Collision(_))
        }),
    ];
    for (text, expected) in cases {
        let error = refused(text);
        assert!(
            expected(&error),
            "`{text}` was refused for the wrong reason: {error:?}"
        );
    }
}

#[test]
fn opposing_planes_may_share_a_safe_square_only_in_plyyard() {
    assert!(
        "plyyard red:8,b,b,b yellow:34,b,b,b red - 0 -"
            .parse::<Table>()
            .is_ok()
    );
    refused("classic red:8,b,b,b yellow:34,b,b,b red - 0 -");
}

#[test]
fn a_player_to_act_who_is_out_and_a_lone_player_in_play_are_refused() {
    refused("flights red:5,b,b,b yellow=3:b,b,b,b blue:3,b,b,b yellow - 0 -");
    refused("flights red:5,b,b,b yellow=3:b,b,b,b blue=2:b,b,b,b red - 0 -");
    refused("flights red:5,b,b,b yellow=3:5,b,b,b blue:3,b,b,b red - 0 -");
}
