//! The draw-offer flow of `rules.md` §5 over the wire.

use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::{Colour, EndReason, RuleError, Side};

use crate::support::spawn_app;

#[tokio::test]
async fn an_accepted_draw_offer_ends_the_game_drawn_and_is_stored() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    red.offer_draw().await;
    let offered = yellow.recv().await;
    assert!(
        matches!(offered, ServerMessage::DrawOffered(ref o) if o.by == Side::Red),
        "{offered:?}"
    );
    yellow.accept_draw().await;
    yellow
        .recv_until(|m| matches!(m, ServerMessage::DrawAccepted(_)))
        .await;
    let ServerMessage::GameOver(over) = yellow.recv().await else {
        panic!("no game over")
    };
    assert_eq!(
        (over.result.winner, over.result.reason),
        (None, EndReason::Agreed)
    );
    red.recv_until(|m| matches!(m, ServerMessage::GameOver(_)))
        .await;
    let record = app.stored_record(room.id).await;
    assert_eq!(record.result.reason, EndReason::Agreed);
    // Nothing more can be played.
    red.roll().await;
    red.expect_error(ErrorCode::Rule(RuleError::GameOver)).await;
}

#[tokio::test]
async fn a_declined_offer_lets_play_go_on_and_an_early_re_offer_is_refused() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    red.offer_draw().await;
    yellow
        .recv_until(|m| matches!(m, ServerMessage::DrawOffered(_)))
        .await;
    // Only one offer stands at a time: a counter-offer is refused, not taken as acceptance.
    yellow.offer_draw().await;
    yellow
        .expect_error(ErrorCode::Rule(RuleError::OfferPending))
        .await;
    // Only the receiver may decline.
    red.recv_until(|m| matches!(m, ServerMessage::DrawOffered(_)))
        .await;
    red.decline_draw().await;
    red.expect_error(ErrorCode::Rule(RuleError::NotOfferReceiver))
        .await;
    yellow.decline_draw().await;
    let declined = yellow.recv().await;
    assert!(
        matches!(declined, ServerMessage::DrawDeclined(ref d) if d.by == Side::Yellow && !d.implicit),
        "{declined:?}"
    );
    red.catch_up(yellow.seen()).await;
    red.offer_draw().await;
    red.expect_error(ErrorCode::Rule(RuleError::OfferTooSoon))
        .await;
    // The game goes on: Red can roll.
    red.roll().await;
    red.recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
        .await;
}

#[tokio::test]
async fn an_offer_can_be_withdrawn_only_by_its_maker() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    red.offer_draw().await;
    yellow
        .recv_until(|m| matches!(m, ServerMessage::DrawOffered(_)))
        .await;
    yellow.withdraw_draw().await;
    yellow
        .expect_error(ErrorCode::Rule(RuleError::NotOfferOwner))
        .await;
    red.recv_until(|m| matches!(m, ServerMessage::DrawOffered(_)))
        .await;
    red.withdraw_draw().await;
    let withdrawn = yellow.recv().await;
    assert!(matches!(withdrawn, ServerMessage::DrawWithdrawn(ref w) if w.by == Side::Red));
    yellow.accept_draw().await;
    yellow
        .expect_error(ErrorCode::Rule(RuleError::NoOffer))
        .await;
    let snapshot = yellow.sync().await;
    assert_eq!(snapshot.game().draw().standing_offer(), None);
}

#[tokio::test]
async fn a_roll_by_the_receiver_lapses_a_standing_offer() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    // Yellow offers on Red's turn; Red answers by rolling.
    yellow.offer_draw().await;
    red.recv_until(|m| matches!(m, ServerMessage::DrawOffered(_)))
        .await;
    let snapshot = red.sync().await;
    assert_eq!(
        snapshot.game().draw().standing_offer(),
        Some(Colour::Yellow)
    );
    red.roll().await;
    red.recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
        .await;
    let declined = red.recv().await;
    assert!(
        matches!(declined, ServerMessage::DrawDeclined(ref d) if d.by == Side::Red && d.implicit),
        "{declined:?}"
    );
    assert_eq!(red.sync().await.game().draw().standing_offer(), None);
}
