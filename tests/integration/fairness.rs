//! Fair dice over the wire: the commitment comes first, the revealed seed reproduces every roll,
//! and (through the test-only seed hook) rare sequences can be played on purpose.

use aeroplane_dice::{ClientSeed, Commitment, DieStream, GameKey, ServerSeed, verify};
use aeroplane_protocol::server::ServerMessage;
use aeroplane_rules::{Die, Game, PassReason, Phase, Plane, Side};

use crate::support::{play_to_end, player_join, seed_where, spawn_app, welcome};

#[tokio::test]
async fn the_revealed_seed_reproduces_every_roll_of_the_game() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let mut red = app.connect(room.id).await;
    welcome(
        red.join(player_join("Ann", None, None, Some("ann's luck".into())))
            .await,
    );
    let mut yellow = app.connect(room.id).await;
    welcome(
        yellow
            .join(player_join("Bob", None, None, Some("🎲 bob".into())))
            .await,
    );
    let started = red
        .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;
    let ServerMessage::GameStarted(started) = started else {
        unreachable!()
    };
    assert_eq!(
        (started.red_seed.as_str(), started.yellow_seed.as_str()),
        ("ann's luck", "🎲 bob")
    );
    yellow.catch_up(red.seen()).await;

    let mut rolls = Vec::new();
    let over = play_to_end(&mut red, &mut yellow, |message| {
        if let ServerMessage::Rolled(rolled) = message {
            rolls.push(rolled.value);
        }
    })
    .await;
    assert_eq!(
        over.commitment, room.commitment,
        "the commitment published at creation"
    );
    let commitment: Commitment = over.commitment.parse().unwrap();
    let server: ServerSeed = over.server_seed.parse().unwrap();
    let red_seed = ClientSeed::new(over.red_seed.clone()).unwrap();
    let yellow_seed = ClientSeed::new(over.yellow_seed.clone()).unwrap();
    assert!(rolls.len() > 20);
    assert_eq!(
        verify(
            &commitment,
            &server,
            &red_seed,
            &yellow_seed,
            rolls.iter().copied()
        ),
        Ok(())
    );

    let record = app.stored_record(room.id).await;
    assert_eq!(record.roll_values(), rolls);
    assert_eq!(record.fairness.server_seed, over.server_seed);
    assert_eq!(record.fairness.red_seed, "ann's luck");
}

#[tokio::test]
async fn a_third_six_in_a_row_is_void_and_passes_the_turn() {
    let seed = seed_where(3, |rolls| rolls == [6, 6, 6]);
    let app = spawn_app().await;
    let room = app.create_room_with_seed(&seed).await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    for _ in 0..2 {
        red.roll().await;
        red.recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
            .await;
        red.move_plane(Plane::new(0).unwrap()).await;
        let moved = red
            .recv_until(|m| matches!(m, ServerMessage::Moved(_)))
            .await;
        assert!(matches!(moved, ServerMessage::Moved(ref m) if m.extra_roll));
    }
    red.roll().await;
    let ServerMessage::Rolled(rolled) = red.recv().await else {
        panic!("no roll")
    };
    assert_eq!((rolled.value.value(), rolled.legal.is_empty()), (6, true));
    let ServerMessage::TurnPassed(passed) = red.recv().await else {
        panic!("the turn did not pass")
    };
    assert_eq!(
        (passed.to, passed.reason),
        (Side::Yellow, PassReason::VoidThirdSix)
    );
    let snapshot = red.sync().await;
    assert_eq!(
        snapshot.notation.as_deref(),
        Some("6,b,b,b b,b,b,b yellow - 0")
    );
    yellow.catch_up(red.seen()).await;
    yellow.roll().await;
    red.recv_until(|m| matches!(m, ServerMessage::Rolled(r) if r.colour == Side::Yellow))
        .await;
}

/// Plays a game locally as the test bots do (first legal plane); returns whether any move
/// captured within the first `limit` actions.
fn captures_early(seed: &[u8; 32], limit: usize) -> bool {
    let key = GameKey::derive(
        &ServerSeed::from_bytes(*seed),
        &ClientSeed::default(),
        &ClientSeed::default(),
    );
    let mut dice = DieStream::new(key);
    let mut game = Game::new();
    for _ in 0..limit {
        let colour = game.to_act();
        let events = match game.phase() {
            Phase::Over(_) => return false,
            Phase::AwaitingRoll => game.roll(colour, dice.next_die()).unwrap(),
            Phase::AwaitingMove { legal, .. } => game
                .move_plane(colour, legal.iter().next().unwrap())
                .unwrap(),
        };
        if events.iter().any(|event| {
            matches!(
                event,
                aeroplane_rules::Event::Moved {
                    capture: Some(_),
                    ..
                }
            )
        }) {
            return true;
        }
    }
    false
}

#[tokio::test]
async fn a_capture_sends_the_captured_planes_home_and_earns_an_extra_roll() {
    let seed = (0u8..=255)
        .map(|n| [n; 32])
        .find(|seed| captures_early(seed, 150))
        .expect("some seed captures early");
    let app = spawn_app().await;
    let room = app.create_room_with_seed(&seed).await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    let mut captures = Vec::new();
    let mut rolls: Vec<Die> = Vec::new();
    play_to_end(&mut red, &mut yellow, |message| match message {
        ServerMessage::Moved(moved) if !moved.captures.is_empty() => captures.push(moved.clone()),
        ServerMessage::Rolled(rolled) => rolls.push(rolled.value),
        _ => {}
    })
    .await;
    let first = captures.first().expect("the chosen seed captures");
    assert!(
        first.extra_roll || first.finished,
        "a capture earns an extra roll"
    );
    assert_ne!(first.captures[0].colour, first.colour);
    assert!(!first.captures[0].square.is_safe());
    let record = app.stored_record(room.id).await;
    assert_eq!(record.roll_values(), rolls);
    assert!(record.replay().unwrap().is_over());
}
