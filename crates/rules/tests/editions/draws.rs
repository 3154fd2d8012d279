//! Draw offers at a table (`flights.md` F8.3, `classic.md` C9.4): with more than two players in
//! play the draw needs every other player's acceptance, one decline or a receiver's roll ends the
//! offer, and a player leaving play lets it lapse.

use aeroplane_rules::{EndReason, Rules, Side, Table, TableEvent, TableOutcome};

use crate::helpers::{assert_refused, roll, table};

fn three() -> Table {
    table("flights red:5,b,b,b yellow:9,b,b,b blue:3,b,b,b red - 0 -")
}

#[test]
fn with_three_players_the_draw_is_agreed_only_when_both_receivers_accept() {
    let mut t = three();
    t.offer_draw(Side::Red).unwrap();
    let events = t.accept_draw(Side::Yellow).unwrap();
    assert_eq!(
        events.as_slice(),
        [TableEvent::DrawAccepted { by: Side::Yellow }]
    );
    assert!(!t.is_over());
    assert!(t.draw().has_agreed(Side::Yellow));
    assert!(!t.draw().has_agreed(Side::Blue));
    let events = t.accept_draw(Side::Blue).unwrap();
    let outcome = TableOutcome {
        winner: None,
        reason: EndReason::Agreed,
    };
    assert_eq!(
        events.as_slice(),
        [
            TableEvent::DrawAccepted { by: Side::Blue },
            TableEvent::GameOver { outcome }
        ]
    );
    assert_eq!(t.outcome(), Some(outcome));
    assert_eq!(t.draw().standing_offer(), None);
}

#[test]
fn one_decline_ends_the_offer_even_after_another_receiver_accepted() {
    let mut t = three();
    t.offer_draw(Side::Blue).unwrap();
    t.accept_draw(Side::Red).unwrap();
    let events = t.decline_draw(Side::Yellow).unwrap();
    assert_eq!(
        events.as_slice(),
        [TableEvent::DrawDeclined {
            by: Side::Yellow,
            implicit: false
        }]
    );
    assert_eq!(t.draw().standing_offer(), None);
    assert!(!t.draw().has_agreed(Side::Red));
    assert_refused(&mut t, "no_offer", |t| t.accept_draw(Side::Red));
}

#[test]
fn who_has_answered_may_not_answer_again_and_only_the_offerer_withdraws() {
    let mut t = three();
    t.offer_draw(Side::Yellow).unwrap();
    assert_refused(&mut t, "offer_pending", |t| t.offer_draw(Side::Blue));
    assert_refused(&mut t, "not_offer_receiver", |t| {
        t.accept_draw(Side::Yellow)
    });
    t.accept_draw(Side::Red).unwrap();
    assert_refused(&mut t, "not_offer_receiver", |t| t.accept_draw(Side::Red));
    assert_refused(&mut t, "not_offer_receiver", |t| t.decline_draw(Side::Red));
    assert_refused(&mut t, "not_offer_owner", |t| t.withdraw_draw(Side::Red));
    assert_refused(&mut t, "not_offer_receiver", |t| t.accept_draw(Side::Green));
    let events = t.withdraw_draw(Side::Yellow).unwrap();
    assert_eq!(
        events.as_slice(),
        [TableEvent::DrawWithdrawn { by: Side::Yellow }]
    );
    assert_refused(&mut t, "no_offer", |t| t.withdraw_draw(Side::Yellow));
}

#[test]
fn a_roll_declines_only_for_a_receiver_who_has_not_accepted() {
    let mut t = three();
    t.offer_draw(Side::Blue).unwrap();
    t.accept_draw(Side::Red).unwrap();
    // Red, to act, has accepted: its roll leaves the offer standing.
    let events = roll(&mut t, 2);
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(t.draw().standing_offer(), Some(Side::Blue));
    crate::helpers::move_plane(&mut t, 0);
    assert_eq!(t.to_act(), Side::Yellow);
    let events = roll(&mut t, 2);
    assert_eq!(
        events[1],
        TableEvent::DrawDeclined {
            by: Side::Yellow,
            implicit: true
        }
    );
    assert_eq!(t.draw().standing_offer(), None);
}

#[test]
fn the_offerer_may_offer_again_once_the_turn_has_come_back_to_it() {
    let mut t = three();
    t.offer_draw(Side::Yellow).unwrap();
    t.withdraw_draw(Side::Yellow).unwrap();
    assert_refused(&mut t, "offer_too_soon", |t| t.offer_draw(Side::Yellow));
    assert!(!t.draw().may_offer(Side::Yellow));
    // Red plays a 2 (its turn passes to Yellow).
    roll(&mut t, 2);
    crate::helpers::move_plane(&mut t, 0);
    assert_eq!(t.to_act(), Side::Yellow);
    assert!(t.draw().may_offer(Side::Yellow));
    t.offer_draw(Side::Yellow).unwrap();
}

#[test]
fn a_player_leaving_while_the_game_goes_on_lets_the_offer_lapse() {
    let mut t = three();
    t.offer_draw(Side::Red).unwrap();
    t.accept_draw(Side::Yellow).unwrap();
    let events = t.resign(Side::Blue).unwrap();
    assert!(
        events.contains(&TableEvent::DrawLapsed { by: Side::Red }),
        "{events:?}"
    );
    assert_eq!(t.draw().standing_offer(), None);
    assert!(!t.is_over());
    // Blue is out: it may neither offer nor answer.
    assert_refused(&mut t, "not_your_turn", |t| t.offer_draw(Side::Blue));
    t.offer_draw(Side::Yellow).unwrap();
    assert_refused(&mut t, "not_offer_receiver", |t| t.accept_draw(Side::Blue));
    t.accept_draw(Side::Red).unwrap();
    assert_eq!(t.outcome().map(|o| o.reason), Some(EndReason::Agreed));
}

#[test]
fn in_classic_a_draw_after_someone_finished_leaves_it_the_winner() {
    let mut t = table("classic red=1:f,f,f,f yellow:40,b,b,f blue:2,b,b,b yellow - 0 -");
    t.offer_draw(Side::Blue).unwrap();
    assert_refused(&mut t, "not_offer_receiver", |t| t.accept_draw(Side::Red));
    t.accept_draw(Side::Yellow).unwrap();
    assert_eq!(
        t.outcome(),
        Some(TableOutcome {
            winner: Some(Side::Red),
            reason: EndReason::Agreed
        })
    );
}

#[test]
fn with_two_players_a_table_offers_draws_as_plyyard_does() {
    for rules in [Rules::PLYYARD, Rules::FLIGHTS, Rules::CLASSIC] {
        let mut t = Table::new(rules, 2).unwrap();
        t.offer_draw(Side::Yellow).unwrap();
        let events = t.accept_draw(Side::Red).unwrap();
        assert_eq!(events.len(), 2, "{rules}: {events:?}");
        assert_eq!(t.outcome().map(|o| o.winner), Some(None));
        assert_refused(&mut t, "game_over", |t| t.offer_draw(Side::Red));
    }
}

#[test]
fn check_roll_accepts_exactly_what_roll_accepts() {
    let mut t = three();
    for side in Side::ALL {
        let allowed = t.check_roll(side);
        let mut copy = t;
        assert_eq!(
            allowed,
            copy.roll(side, crate::helpers::die(2)).map(drop),
            "{side}"
        );
    }
    roll(&mut t, 2);
    assert_refused(&mut t, "move_first", |t| {
        t.roll(Side::Red, crate::helpers::die(1))
    });
    assert_eq!(
        t.check_roll(Side::Red).map_err(|e| e.code()),
        Err("move_first")
    );
}
