//! The evaluation and the search of the table bots.
//!
//! A side's material counts planes in play, progress, runway safety and planes at the centre. The
//! score of a position for `me` is its material minus the material it expects to lose next roll
//! (for each opponent and die value, the worst that opponent could send home), plus the material
//! it could send home itself, against a blend of the best and the average opponent.

use aeroplane_rules::{Die, Plane, Position, Side, Table, TableEvent, TablePhase};

use super::{after_move, distinct_moves};

/// The score of a won game; larger than any material difference.
const WIN: f32 = 10_000.0;
/// Material for a plane out of its hangar (a launch costs a roll).
const IN_PLAY: f32 = 24.0;
/// Extra material for a plane in its runway or at the centre.
const SAFE: f32 = 10.0;
/// Share of the threatened material counted when the attacker rolls next.
const RISK_NEXT: f32 = 1.0;
/// The same when other players roll first.
const RISK_LATER: f32 = 0.4;
/// Share of the material `me` could send home next roll.
const THREAT: f32 = 0.3;
/// The worth of rolling next.
const TEMPO: f32 = 4.0;

/// The plane whose move gives the best expected score for the player to act, looking `rolls`
/// rolls past the move.
pub(crate) fn best_plane(table: &Table, rolls: u8) -> Plane {
    let me = table.to_act();
    let mut best: Option<(f32, Plane)> = None;
    for plane in distinct_moves(table) {
        let value = value(&after_move(table, plane).0, me, rolls);
        if best.is_none_or(|(best_value, _)| value > best_value) {
            best = Some((value, plane));
        }
    }
    best.expect("a table awaiting a move has a legal plane").1
}

/// The expected score of `table` for `me`, `rolls` rolls ahead. An opponent is assumed to play
/// the move that is best for itself by material, not the one worst for `me`: with three or four
/// players nobody plays against one player alone.
fn value(table: &Table, me: Side, rolls: u8) -> f32 {
    match table.phase() {
        TablePhase::Over(_) => evaluate(table, me),
        TablePhase::AwaitingRoll if rolls == 0 => evaluate(table, me),
        TablePhase::AwaitingRoll => {
            let total: f32 = Die::ALL
                .into_iter()
                .map(|die| {
                    let mut child = *table;
                    child
                        .roll(table.to_act(), die)
                        .expect("the player to act may roll");
                    value(&child, me, rolls - 1)
                })
                .sum();
            total / 6.0
        }
        TablePhase::AwaitingMove { .. } if table.to_act() == me => distinct_moves(table)
            .map(|plane| value(&after_move(table, plane).0, me, rolls))
            .fold(f32::NEG_INFINITY, f32::max),
        TablePhase::AwaitingMove { .. } => {
            let them = table.to_act();
            let choice = distinct_moves(table)
                .map(|plane| after_move(table, plane).0)
                .max_by(|a, b| standing(a, them).total_cmp(&standing(b, them)))
                .expect("a table awaiting a move has a legal plane");
            value(&choice, me, rolls)
        }
    }
}

/// The score of `table` for `me`: positive when `me` stands better than its opponents.
pub(crate) fn evaluate(table: &Table, me: Side) -> f32 {
    if let Some(place) = table.place(me) {
        let players = table.players() as f32;
        return WIN * (1.0 - 2.0 * (f32::from(place) - 1.0) / (players - 1.0));
    }
    if table.is_over() {
        return -WIN;
    }
    let tempo = if table.to_act() == me { TEMPO } else { 0.0 };
    standing(table, me) - risk(table, me) + THREAT * threat(table, me) + tempo
}

/// Material of `me` minus a blend of the strongest and the average opponent still in play.
fn standing(table: &Table, me: Side) -> f32 {
    let opponents: Vec<f32> = table
        .sides()
        .filter(|side| *side != me && table.in_play(*side))
        .map(|side| material_of(table, side))
        .collect();
    let strongest = opponents.iter().copied().fold(0.0, f32::max);
    let average = opponents.iter().sum::<f32>() / opponents.len().max(1) as f32;
    material_of(table, me) - 0.5 * (strongest + average)
}

fn material_of(table: &Table, side: Side) -> f32 {
    let finish = table.rules().finish();
    table
        .planes(side)
        .into_iter()
        .map(|position| material(position, finish))
        .sum()
}

/// Material of one plane at `position`.
fn material(position: Position, finish: u8) -> f32 {
    match position {
        Position::Base => 0.0,
        Position::Route(progress) if progress > 50 => IN_PLAY + SAFE + f32::from(progress),
        Position::Route(progress) => IN_PLAY + f32::from(progress),
        Position::Finished => IN_PLAY + 2.0 * SAFE + f32::from(finish),
    }
}

/// The material `me` expects to lose next roll: per opponent and die value, the most that
/// opponent could send home, weighted by how soon it rolls.
fn risk(table: &Table, me: Side) -> f32 {
    let next = if table.to_act() == me {
        None
    } else {
        Some(table.to_act())
    };
    table
        .sides()
        .filter(|side| *side != me && table.in_play(*side))
        .map(|attacker| {
            let weight = if Some(attacker) == next {
                RISK_NEXT
            } else {
                RISK_LATER
            };
            weight * best_hits(table, attacker, |victim| victim == me) / 6.0
        })
        .sum()
}

/// The material `me` could send home with its next roll, summed over the six values.
fn threat(table: &Table, me: Side) -> f32 {
    best_hits(table, me, |victim| victim != me) / 6.0
}

/// Summed over the six die values: the most material of `victims` that `attacker` could send
/// home with one move.
fn best_hits(table: &Table, attacker: Side, victims: impl Fn(Side) -> bool) -> f32 {
    hits(table, attacker, victims, true)
}

/// [`best_hits`], with or without the [`in_reach`] filter (the tests compare the two).
fn hits(table: &Table, attacker: Side, victims: impl Fn(Side) -> bool, filter: bool) -> f32 {
    let finish = table.rules().finish();
    let positions = table.planes(attacker);
    Die::ALL
        .into_iter()
        .map(|die| {
            let mut best = 0.0f32;
            for plane in Plane::ALL {
                let position = positions[plane.index()];
                let repeated = Plane::ALL[..plane.index()]
                    .iter()
                    .any(|earlier| positions[earlier.index()] == position);
                let hopeless = filter && !in_reach(table, attacker, position, &victims);
                if repeated || position == Position::Finished || hopeless {
                    continue;
                }
                let Some((_, events)) = table.preview(attacker, plane, die) else {
                    continue;
                };
                let lost: f32 = events
                    .iter()
                    .filter_map(|event| match *event {
                        TableEvent::SentHome { side, planes, .. } if victims(side) => Some(
                            planes
                                .iter()
                                .map(|p| material(table.position(side, p), finish))
                                .sum::<f32>(),
                        ),
                        _ => None,
                    })
                    .sum();
                best = best.max(lost);
            }
            best
        })
        .sum()
}

/// The farthest a move reaches along the ring: a walk of 6, a jump of 4, a flight of 12 and (with
/// `classic`'s house rule) another jump of 4.
const REACH: u8 = 26;

/// Whether a plane of `attacker` at `position` could send any of `victims` home with one move:
/// a cheap filter that spares [`Table::preview`] for planes nobody stands in front of.
fn in_reach(
    table: &Table,
    attacker: Side,
    position: Position,
    victims: &impl Fn(Side) -> bool,
) -> bool {
    let (from, reach) = match position {
        Position::Base => (attacker.start_square(), 0),
        Position::Route(progress) if progress <= 50 => {
            (attacker.start_square().advanced(progress), REACH)
        }
        // A plane in its runway or at the centre never sends anyone home.
        _ => return false,
    };
    let lane_crossing = table.rules().sends_home_along_the_way();
    table
        .sides()
        .filter(|side| *side != attacker && table.in_play(*side) && victims(*side))
        .flat_map(|side| table.planes(side).map(move |p| (side, p)))
        .any(|(side, victim)| match Table::ring_square(side, victim) {
            Some(square) => square.steps_from(from) <= reach,
            None => lane_crossing && victim == Position::Route(53),
        })
}

#[cfg(test)]
mod tests {
    use aeroplane_rules::{Die, Rules, Table, TablePhase};

    use super::hits;

    #[test]
    fn the_reach_filter_never_changes_what_an_attacker_could_send_home() {
        for (rules, players) in [
            (Rules::FLIGHTS, 4),
            (Rules::CLASSIC, 4),
            (Rules::classic_with_jump_after_shortcut(), 3),
            (Rules::PLYYARD, 2),
        ] {
            let mut table = Table::new(rules, players).unwrap();
            let mut seed = 7u64;
            for _ in 0..3000 {
                if table.is_over() {
                    break;
                }
                for attacker in table.sides() {
                    let filtered = hits(&table, attacker, |v| v != attacker, true);
                    let all = hits(&table, attacker, |v| v != attacker, false);
                    assert_eq!(filtered, all, "{attacker} in `{table}`");
                }
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let pick = (seed >> 33) as usize;
                let side = table.to_act();
                match table.phase() {
                    TablePhase::AwaitingRoll => table.roll(side, Die::ALL[pick % 6]).map(drop),
                    TablePhase::AwaitingMove { legal, .. } => {
                        let plane = legal.iter().nth(pick % legal.len()).unwrap();
                        table.move_plane(side, plane).map(drop)
                    }
                    TablePhase::Over(_) => unreachable!(),
                }
                .unwrap();
            }
        }
    }
}
