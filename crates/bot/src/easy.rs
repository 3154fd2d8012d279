//! The `easy` bot's fixed priorities and the `random` bot's seeded pick.

use aeroplane_rules::{Event, Game, Phase, Plane, PlaneSet, Position};

/// The first plane by fixed priorities: a capture, then a finish, then a deployment, then the
/// most advanced plane that can move. `game` must await a move.
pub(crate) fn choose(game: &Game) -> Plane {
    let Phase::AwaitingMove { legal, .. } = game.phase() else {
        panic!("easy::choose needs a game awaiting a move");
    };
    let me = game.to_act();
    let effects = |plane: Plane| {
        let mut after = *game;
        after
            .move_plane(me, plane)
            .expect("only legal planes are moved")
    };
    let captures = |plane: &Plane| {
        matches!(
            effects(*plane)[0],
            Event::Moved {
                capture: Some(_),
                ..
            }
        )
    };
    let finishes =
        |plane: &Plane| matches!(effects(*plane)[0], Event::Moved { finished: true, .. });
    let deploys = |plane: &Plane| game.position(me, *plane) == Position::Base;
    legal
        .iter()
        .find(captures)
        .or_else(|| legal.iter().find(finishes))
        .or_else(|| legal.iter().find(deploys))
        .or_else(|| {
            legal
                .iter()
                .max_by_key(|plane| (progress(game, *plane), std::cmp::Reverse(*plane)))
        })
        .expect("a game awaiting a move has a legal plane")
}

/// A legal plane picked uniformly from `seed`.
pub(crate) fn random(legal: PlaneSet, seed: u64) -> Plane {
    let index = splitmix64(seed) % legal.len() as u64;
    legal
        .iter()
        .nth(index as usize)
        .expect("the index is below the number of legal planes")
}

fn progress(game: &Game, plane: Plane) -> u8 {
    game.position(game.to_act(), plane).progress().unwrap_or(0)
}

/// One step of SplitMix64: a portable, well-mixed hash of the seed.
fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
