//! The position evaluation that `normal` maximises one move deep and `hard` uses at its leaves.
//!
//! A side's score is its material (planes in play, progress, home-lane safety, finished planes)
//! minus the material it expects to lose to real threats: for each of its planes on an unsafe ring
//! square, the opposing planes that could land there next roll ("count back one to six", via
//! [`Game::threats`]), weighted by the chance of rolling one of the values that hit. A threat
//! from the side that rolls next counts fully; a threat from the side that rolls after that
//! counts less, since the threatened side may move away first.

use aeroplane_rules::{Colour, Game, Position};

/// The score of a won game; larger than any material difference.
pub(crate) const WIN: f32 = 10_000.0;

/// Material for a plane that has left its base (a deployment costs a six).
const IN_PLAY: f32 = 12.0;
/// Extra material for a plane in its home lane or finished: no one can capture it any more.
const HOME_SAFE: f32 = 10.0;
/// Extra material for a finished plane.
const FINISHED: f32 = 2.0;
/// How much of a threatened plane's material is at stake, per hitting die value in six, when the
/// attacker rolls next.
const RISK_NEXT: f32 = 1.0;
/// The same when the threatened side rolls first and may still move away.
const RISK_LATER: f32 = 0.3;
/// The worth of being the side to roll next (an extra roll after a six, capture or finish).
const TEMPO: f32 = 4.0;

/// The score of `game` for `me`: positive when `me` stands better.
pub(crate) fn evaluate(game: &Game, me: Colour) -> f32 {
    if let Some(outcome) = game.outcome() {
        return match outcome.winner {
            Some(winner) if winner == me => WIN,
            Some(_) => -WIN,
            None => 0.0,
        };
    }
    let tempo = if game.to_act() == me { TEMPO } else { -TEMPO };
    side_score(game, me) - side_score(game, me.opponent()) + tempo
}

/// Material of one plane, whatever the danger it stands in.
pub(crate) fn material(position: Position) -> f32 {
    match position {
        Position::Base => 0.0,
        Position::Route(progress) if progress > 50 => IN_PLAY + HOME_SAFE + f32::from(progress),
        Position::Route(progress) => IN_PLAY + f32::from(progress),
        Position::Finished => IN_PLAY + HOME_SAFE + FINISHED + 56.0,
    }
}

/// The die values (as a bit set, bit `v` for value `v`) with which `colour`'s opponent could
/// capture a plane of `colour` standing at `position` next roll.
pub(crate) fn hitting_values(game: &Game, colour: Colour, position: Position) -> u8 {
    let Some(square) = position.ring_index(colour) else {
        return 0;
    };
    game.threats(colour.opponent(), square)
        .iter()
        .fold(0, |set, threat| set | 1 << threat.die.value())
}

fn side_score(game: &Game, colour: Colour) -> f32 {
    let risk_weight = if game.to_act() == colour {
        RISK_LATER
    } else {
        RISK_NEXT
    };
    let mut score = 0.0;
    for position in game.planes(colour) {
        let value = material(position);
        let hits = hitting_values(game, colour, position).count_ones();
        score += value - risk_weight * value * hits as f32 / 6.0;
    }
    score
}
