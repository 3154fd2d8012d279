//! Choosing a plane by looking ahead over the dice: expectiminimax with the evaluation at the
//! leaves. `normal` looks no further than its own move; `hard` looks over the coming rolls.

use aeroplane_rules::{Die, Game, Phase, Plane, Position};

use crate::eval::{Weights, evaluate};

/// The plane whose move gives the best expected evaluation for the player to act, looking
/// `rolls` die rolls past this move. `game` must await a move.
pub(crate) fn best_plane(game: &Game, rolls: u8, weights: &Weights) -> Plane {
    let me = game.to_act();
    let mut best: Option<(f32, Plane)> = None;
    for plane in distinct_moves(game) {
        let value = value(&after_move(game, plane), me, rolls, weights);
        if best.is_none_or(|(best_value, _)| value > best_value) {
            best = Some((value, plane));
        }
    }
    best.expect("a game awaiting a move has a legal plane").1
}

/// The expected evaluation of `game` for `me`, looking `rolls` die rolls ahead.
fn value(game: &Game, me: aeroplane_rules::Colour, rolls: u8, weights: &Weights) -> f32 {
    match game.phase() {
        Phase::Over(_) => evaluate(game, me, weights),
        Phase::AwaitingRoll if rolls == 0 => evaluate(game, me, weights),
        Phase::AwaitingRoll => {
            let mut total = 0.0;
            for die in Die::ALL {
                let mut child = *game;
                child
                    .roll(game.to_act(), die)
                    .expect("the player to act may roll");
                total += value(&child, me, rolls - 1, weights);
            }
            total / 6.0
        }
        Phase::AwaitingMove { .. } => {
            let values = distinct_moves(game)
                .map(|plane| value(&after_move(game, plane), me, rolls, weights));
            if game.to_act() == me {
                values.fold(f32::NEG_INFINITY, f32::max)
            } else {
                values.fold(f32::INFINITY, f32::min)
            }
        }
    }
}

/// The legal planes of a game awaiting a move, skipping a plane that stands where an earlier one
/// stands (moving either has the same effect).
pub(crate) fn distinct_moves(game: &Game) -> impl Iterator<Item = Plane> {
    let Phase::AwaitingMove { legal, .. } = game.phase() else {
        panic!("distinct_moves needs a game awaiting a move");
    };
    let planes = game.planes(game.to_act());
    let mut seen: [Option<Position>; 4] = [None; 4];
    legal.iter().filter(move |plane| {
        let position = planes[plane.index()];
        if seen.contains(&Some(position)) {
            return false;
        }
        seen[plane.index()] = Some(position);
        true
    })
}

/// The game after the player to act moves `plane`, which must be legal.
pub(crate) fn after_move(game: &Game, plane: Plane) -> Game {
    let mut child = *game;
    child
        .move_plane(game.to_act(), plane)
        .expect("only legal planes are moved");
    child
}
