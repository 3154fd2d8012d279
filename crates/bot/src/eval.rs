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

/// The weights of the evaluation, in squares of progress.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Weights {
    /// Material for a plane that has left its base (a deployment costs a six).
    pub(crate) in_play: f32,
    /// Extra material for a plane in its home lane or finished: no one can capture it any more.
    pub(crate) home_safe: f32,
    /// Extra material for a finished plane.
    pub(crate) finished: f32,
    /// How much of a threatened plane's material is at stake, per hitting die value in six, when
    /// the attacker rolls next.
    pub(crate) risk_next: f32,
    /// The same when the threatened side rolls first and may still move away.
    pub(crate) risk_later: f32,
    /// The worth of being the side to roll next (an extra roll after a six, capture or finish).
    pub(crate) tempo: f32,
}

impl Weights {
    /// The weights every level uses.
    pub(crate) const DEFAULT: Weights = Weights {
        in_play: 24.0,
        home_safe: 10.0,
        finished: 2.0,
        risk_next: 1.0,
        risk_later: 0.3,
        tempo: 4.0,
    };
}

/// The score of `game` for `me`: positive when `me` stands better.
pub(crate) fn evaluate(game: &Game, me: Colour, weights: &Weights) -> f32 {
    if let Some(outcome) = game.outcome() {
        return match outcome.winner {
            Some(winner) if winner == me => WIN,
            Some(_) => -WIN,
            None => 0.0,
        };
    }
    let tempo = if game.to_act() == me {
        weights.tempo
    } else {
        -weights.tempo
    };
    side_score(game, me, weights) - side_score(game, me.opponent(), weights) + tempo
}

/// Material of one plane, whatever the danger it stands in.
fn material(position: Position, w: &Weights) -> f32 {
    match position {
        Position::Base => 0.0,
        Position::Route(progress) if progress > 50 => w.in_play + w.home_safe + f32::from(progress),
        Position::Route(progress) => w.in_play + f32::from(progress),
        Position::Finished => w.in_play + w.home_safe + w.finished + 56.0,
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

fn side_score(game: &Game, colour: Colour, weights: &Weights) -> f32 {
    let risk_weight = if game.to_act() == colour {
        weights.risk_later
    } else {
        weights.risk_next
    };
    let mut score = 0.0;
    for position in game.planes(colour) {
        let value = material(position, weights);
        let hits = hitting_values(game, colour, position).count_ones();
        score += value - risk_weight * value * hits as f32 / 6.0;
    }
    score
}
