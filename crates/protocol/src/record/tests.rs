//! The tests of `record.rs`: a logged action's JSON, by serde and by hand, for every action.

use aeroplane_rules::{Die, Forfeit, Plane, Side, TableAction};

use super::*;

/// The form the derived serializer wrote, with `flatten`.
#[derive(Serialize)]
struct Derived {
    event: u64,
    #[serde(flatten)]
    action: TableAction,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    undone: bool,
}

#[test]
fn a_logged_action_writes_the_json_its_derived_form_wrote_and_reads_it_back() {
    let mut actions = Vec::new();
    for colour in Side::ALL {
        actions.extend([
            TableAction::Roll {
                colour,
                value: Die::new(6).unwrap(),
            },
            TableAction::Move {
                colour,
                plane: Plane::new(3).unwrap(),
            },
            TableAction::Resign { colour },
            TableAction::OfferDraw { colour },
            TableAction::AcceptDraw { colour },
            TableAction::DeclineDraw { colour },
            TableAction::WithdrawDraw { colour },
            TableAction::Forfeit {
                colour,
                reason: Forfeit::Abandoned,
            },
            TableAction::Forfeit {
                colour,
                reason: Forfeit::Timeout,
            },
        ]);
    }
    for (event, action) in (7..).zip(actions) {
        for undone in [false, true] {
            let logged = LoggedAction {
                event,
                action,
                undone,
            };
            let json = serde_json::to_string(&logged).unwrap();
            let mut written = Vec::new();
            logged.write_json(&mut written);
            assert_eq!(String::from_utf8(written).unwrap(), json, "{logged:?}");
            let derived = serde_json::to_string(&Derived {
                event,
                action,
                undone,
            })
            .unwrap();
            assert_eq!(json, derived);
            let tag = serde_json::from_str::<serde_json::Value>(&json).unwrap()["action"].take();
            assert_eq!(tag, action.name(), "the name of {action:?}");
            assert_eq!(serde_json::from_str::<LoggedAction>(&json).unwrap(), logged);
        }
    }
}

#[test]
fn a_logged_action_written_by_hand_is_serde_jsons_text_for_every_value_and_event() {
    let mut actions = Vec::new();
    for colour in Side::ALL {
        actions.extend(Die::ALL.map(|value| TableAction::Roll { colour, value }));
        actions.extend(Plane::ALL.map(|plane| TableAction::Move { colour, plane }));
        actions.push(TableAction::Forfeit {
            colour,
            reason: Forfeit::Timeout,
        });
    }
    let events = [0, 1, 9, 10, 99, 100, 12_345, u64::from(u32::MAX), u64::MAX];
    let mut log = Vec::new();
    for event in events {
        for &action in &actions {
            for undone in [false, true] {
                let logged = LoggedAction {
                    event,
                    action,
                    undone,
                };
                let mut written = Vec::new();
                logged.write_json(&mut written);
                let json = serde_json::to_string(&logged).unwrap();
                assert_eq!(String::from_utf8(written).unwrap(), json);
                log.push(logged);
            }
        }
    }
    assert_eq!(actions_json(&log), serde_json::to_string(&log).unwrap());
    assert_eq!(
        actions_json(&log[..1]),
        serde_json::to_string(&log[..1]).unwrap()
    );
    assert_eq!(actions_json(&[]), "[]");
}
