//! Draw offers (`rules.md` §5): one standing offer, who may answer it, implicit declines, the
//! anti-spam wait, and a game end clearing it.

mod common;

use aeroplane_rules::{EndReason, Event, Game, Outcome};
use common::*;

/// A game where Red is to roll with a plane on the ring, so rolls have legal moves.
fn red_to_roll() -> Game {
    position("10,b,b,b 5,b,b,b red - 0")
}

/// Plays one plain turn for the player to act: a 3 moving plane 0, which passes the turn.
fn plain_turn(game: &mut Game) {
    roll(game, 3);
    move_plane(game, 0);
}

#[test]
fn a_player_may_offer_a_draw_on_either_turn_in_either_phase() {
    for notation in ["10,b,b,b 5,b,b,b red - 0", "10,b,b,b 5,b,b,b red 3 0"] {
        for offerer in [RED, YELLOW] {
            let mut game = position(notation);
            let events = game.offer_draw(offerer).unwrap();
            assert_eq!(events.as_slice(), [Event::DrawOffered { by: offerer }]);
            assert_eq!(game.draw().standing_offer(), Some(offerer));
        }
    }
}

#[test]
fn the_receiver_accepting_ends_the_game_in_a_draw() {
    let mut game = red_to_roll();
    game.offer_draw(RED).unwrap();
    let events = game.accept_draw(YELLOW).unwrap();
    let outcome = Outcome {
        winner: None,
        reason: EndReason::Agreed,
    };
    assert_eq!(
        events.as_slice(),
        [
            Event::DrawAccepted { by: YELLOW },
            Event::GameOver { outcome }
        ]
    );
    assert_eq!(game.outcome(), Some(outcome));
    assert_eq!(game.draw().standing_offer(), None);
}

#[test]
fn the_receiver_declining_removes_the_offer_and_play_goes_on() {
    let mut game = red_to_roll();
    game.offer_draw(YELLOW).unwrap();
    let events = game.decline_draw(RED).unwrap();
    assert_eq!(
        events.as_slice(),
        [Event::DrawDeclined {
            by: RED,
            implicit: false
        }]
    );
    assert_eq!(game.draw().standing_offer(), None);
    assert!(!game.is_over());
}

#[test]
fn only_one_offer_stands_and_a_counter_offer_is_refused_not_taken_as_acceptance() {
    let mut game = red_to_roll();
    game.offer_draw(RED).unwrap();
    assert_refused(&mut game, "offer_pending", |g| g.offer_draw(YELLOW));
    assert_refused(&mut game, "offer_pending", |g| g.offer_draw(RED));
    assert!(!game.is_over());
    assert_eq!(game.draw().standing_offer(), Some(RED));
}

#[test]
fn only_the_receiver_may_accept_or_decline() {
    let mut game = red_to_roll();
    game.offer_draw(RED).unwrap();
    assert_refused(&mut game, "not_offer_receiver", |g| g.accept_draw(RED));
    assert_refused(&mut game, "not_offer_receiver", |g| g.decline_draw(RED));
}

#[test]
fn only_the_offerer_may_withdraw() {
    let mut game = red_to_roll();
    game.offer_draw(RED).unwrap();
    assert_refused(&mut game, "not_offer_owner", |g| g.withdraw_draw(YELLOW));
    let events = game.withdraw_draw(RED).unwrap();
    assert_eq!(events.as_slice(), [Event::DrawWithdrawn { by: RED }]);
    assert_eq!(game.draw().standing_offer(), None);
}

#[test]
fn accepting_declining_or_withdrawing_with_no_offer_is_refused() {
    let mut game = red_to_roll();
    for colour in [RED, YELLOW] {
        assert_refused(&mut game, "no_offer", |g| g.accept_draw(colour));
        assert_refused(&mut game, "no_offer", |g| g.decline_draw(colour));
        assert_refused(&mut game, "no_offer", |g| g.withdraw_draw(colour));
    }
    game.offer_draw(RED).unwrap();
    game.withdraw_draw(RED).unwrap();
    assert_refused(&mut game, "no_offer", |g| g.accept_draw(YELLOW));
}

#[test]
fn a_roll_by_the_receiver_declines_the_offer_implicitly() {
    let mut game = position("10,b,b,b 5,b,b,b yellow - 0");
    game.offer_draw(RED).unwrap();
    let events = roll(&mut game, 3);
    assert_eq!(
        events[1],
        Event::DrawDeclined {
            by: YELLOW,
            implicit: true
        }
    );
    assert_eq!(game.draw().standing_offer(), None);
}

#[test]
fn a_receivers_roll_with_no_legal_move_declines_the_offer() {
    let mut game = Game::new();
    game.offer_draw(YELLOW).unwrap();
    let events = roll(&mut game, 2);
    assert!(events.contains(&Event::DrawDeclined {
        by: RED,
        implicit: true
    }));
    assert_eq!(game.draw().standing_offer(), None);
}

#[test]
fn a_receivers_void_third_six_declines_the_offer() {
    let mut game = position("10,b,b,b 5,b,b,b yellow - 2");
    game.offer_draw(RED).unwrap();
    let events = roll(&mut game, 6);
    assert!(events.contains(&Event::DrawDeclined {
        by: YELLOW,
        implicit: true
    }));
    assert_eq!(game.draw().standing_offer(), None);
}

#[test]
fn a_move_by_the_receiver_does_not_decline_the_offer() {
    let mut game = position("10,b,b,b 5,b,b,b yellow 3 0");
    game.offer_draw(RED).unwrap();
    move_plane(&mut game, 0);
    assert_eq!(game.draw().standing_offer(), Some(RED));
}

#[test]
fn the_offerers_own_rolls_never_affect_the_offer() {
    let mut game = red_to_roll();
    game.offer_draw(RED).unwrap();
    roll(&mut game, 6);
    move_plane(&mut game, 0);
    roll(&mut game, 6);
    move_plane(&mut game, 0);
    roll(&mut game, 6); // void third six
    assert_eq!(game.to_act(), YELLOW);
    assert_eq!(game.draw().standing_offer(), Some(RED));
    let mut game = red_to_roll();
    game.offer_draw(RED).unwrap();
    roll(&mut game, 3);
    move_plane(&mut game, 0);
    assert_eq!(game.draw().standing_offer(), Some(RED));
}

#[test]
fn an_offer_made_on_ones_own_turn_may_be_repeated_only_after_the_opponents_next_turn() {
    let mut game = red_to_roll();
    game.offer_draw(RED).unwrap();
    game.decline_draw(YELLOW).unwrap();
    assert_refused(&mut game, "offer_too_soon", |g| g.offer_draw(RED));
    plain_turn(&mut game); // Red's turn ends: not enough.
    assert_eq!(game.to_act(), YELLOW);
    assert_refused(&mut game, "offer_too_soon", |g| g.offer_draw(RED));
    roll(&mut game, 3);
    assert_refused(&mut game, "offer_too_soon", |g| g.offer_draw(RED));
    move_plane(&mut game, 0); // Yellow's turn ends: now Red may offer again.
    assert_eq!(game.to_act(), RED);
    assert!(game.draw().may_offer(RED));
    game.offer_draw(RED).unwrap();
}

#[test]
fn an_offer_made_on_the_opponents_turn_may_be_repeated_once_that_turn_ends() {
    let mut game = position("10,b,b,b 5,b,b,b yellow - 0");
    game.offer_draw(RED).unwrap();
    game.decline_draw(YELLOW).unwrap();
    assert_refused(&mut game, "offer_too_soon", |g| g.offer_draw(RED));
    plain_turn(&mut game);
    assert_eq!(game.to_act(), RED);
    game.offer_draw(RED).unwrap();
}

#[test]
fn an_offer_blocks_its_offerer_however_it_ended() {
    // Withdrawn rather than declined, and implicitly declined by a roll.
    let mut game = red_to_roll();
    game.offer_draw(RED).unwrap();
    game.withdraw_draw(RED).unwrap();
    assert_refused(&mut game, "offer_too_soon", |g| g.offer_draw(RED));
    let mut game = position("10,b,b,b 5,b,b,b yellow - 0");
    game.offer_draw(RED).unwrap();
    roll(&mut game, 6);
    assert_eq!(game.draw().standing_offer(), None);
    assert_refused(&mut game, "offer_too_soon", |g| g.offer_draw(RED));
}

#[test]
fn the_wait_applies_only_to_the_player_who_offered() {
    let mut game = red_to_roll();
    game.offer_draw(RED).unwrap();
    game.decline_draw(YELLOW).unwrap();
    assert!(game.draw().may_offer(YELLOW));
    game.offer_draw(YELLOW).unwrap();
    assert_eq!(game.draw().standing_offer(), Some(YELLOW));
}

#[test]
fn the_game_ending_removes_a_standing_offer() {
    let mut resigned = red_to_roll();
    resigned.offer_draw(RED).unwrap();
    resigned.resign(YELLOW).unwrap();
    assert_eq!(resigned.draw().standing_offer(), None);

    // The receiver's winning move does not decline the offer, but the end of the game removes it.
    let mut won = position("10,b,b,b 55,f,f,f yellow 1 0");
    won.offer_draw(RED).unwrap();
    move_plane(&mut won, 0);
    assert!(won.is_over());
    assert_eq!(won.draw().standing_offer(), None);
}
