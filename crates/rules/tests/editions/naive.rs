//! A second, deliberately plain implementation of `flights.md`, `classic.md` and `rules.md` §4,
//! written from the pages and sharing no code with the crate, to cross-check the perft counts.

use aeroplane_rules::{Plane, Position, Ruleset, Side, Table, TablePhase};

const BASE: i32 = -1;

/// Everything the move generator depends on, as plain numbers: progress per plane (`-1` in the
/// hangar, the centre's progress when finished), seats in play, who acts, the six counter, the
/// planes at stake (bit mask) and the pending roll.
#[derive(Clone, Copy)]
pub(crate) struct State {
    edition: Ruleset,
    jump_after_shortcut: bool,
    planes: [[i32; 4]; 4],
    playing: [bool; 4],
    to_act: usize,
    sixes: u32,
    stake: u32,
    pending: Option<i32>,
}

impl From<&Table> for State {
    fn from(table: &Table) -> State {
        let centre = i32::from(table.rules().finish());
        let progress = |p: Position| match p {
            Position::Base => BASE,
            Position::Route(p) => i32::from(p),
            Position::Finished => centre,
        };
        State {
            edition: table.rules().ruleset(),
            jump_after_shortcut: table.rules().jump_after_shortcut(),
            planes: Side::ALL.map(|s| table.planes(s).map(progress)),
            playing: Side::ALL.map(|s| table.in_play(s)),
            to_act: table.to_act().index(),
            sixes: u32::from(table.sixes()),
            stake: Plane::ALL
                .iter()
                .filter(|p| table.at_stake().contains(**p))
                .map(|p| 1 << p.number())
                .sum(),
            pending: match table.phase() {
                TablePhase::AwaitingMove { roll, .. } => Some(i32::from(roll.value())),
                _ => None,
            },
        }
    }
}

impl State {
    fn centre(&self) -> i32 {
        if self.edition == Ruleset::Plyyard {
            56
        } else {
            57
        }
    }

    fn ring(&self, colour: usize, progress: i32) -> Option<i32> {
        (0..=50)
            .contains(&progress)
            .then(|| (13 * colour as i32 + progress) % 52)
    }

    fn legal(&self, roll: i32) -> Vec<usize> {
        let me = self.to_act;
        (0..4)
            .filter(|&i| {
                let p = self.planes[me][i];
                if p == BASE {
                    match self.edition {
                        Ruleset::Classic => roll % 2 == 0,
                        _ => roll == 6,
                    }
                } else if p == self.centre() {
                    false
                } else {
                    self.edition == Ruleset::Flights || p + roll <= self.centre()
                }
            })
            .collect()
    }

    fn pass(&self) -> State {
        let mut next = self.to_act;
        loop {
            next = (next + 1) % 4;
            if self.playing[next] {
                break;
            }
        }
        State {
            to_act: next,
            sixes: 0,
            stake: 0,
            pending: None,
            ..*self
        }
    }

    /// Sends home the opponents on ring square `square`; returns whether any went.
    fn hit(&mut self, square: i32) -> bool {
        let safe = [0, 8, 13, 21, 26, 34, 39, 47];
        if self.edition == Ruleset::Plyyard && safe.contains(&square) {
            return false;
        }
        let mut any = false;
        for colour in (0..4).filter(|c| *c != self.to_act && self.playing[*c]) {
            for i in 0..4 {
                if self.ring(colour, self.planes[colour][i]) == Some(square) {
                    self.planes[colour][i] = BASE;
                    any = true;
                }
            }
        }
        any
    }

    fn jumps(&self, p: i32) -> bool {
        let flight_square = if self.edition == Ruleset::Flights {
            36
        } else {
            20
        };
        self.edition != Ruleset::Plyyard
            && p % 4 == 0
            && (4..=44).contains(&p)
            && p != flight_square
    }

    /// Plays plane `i` for the pending roll; `None` when the game ended.
    fn play(&self, i: usize) -> Option<State> {
        let roll = self.pending.unwrap();
        let me = self.to_act;
        let mut s = State {
            pending: None,
            ..*self
        };
        let from = s.planes[me][i];
        let movers: Vec<usize> = if s.edition == Ruleset::Classic && from != BASE {
            (0..4).filter(|j| s.planes[me][*j] == from).collect()
        } else {
            vec![i]
        };
        let set = |s: &mut State, to: i32| movers.iter().for_each(|j| s.planes[me][*j] = to);
        let mut hit = false;
        if from == BASE {
            set(&mut s, 0);
            hit = s.hit(13 * me as i32);
        } else {
            let mut to = from + roll;
            if to > s.centre() {
                to = 2 * s.centre() - to;
            }
            set(&mut s, to);
            if to <= 50 {
                let square = |p: i32| (13 * me as i32 + p) % 52;
                let classic = s.edition == Ruleset::Classic;
                let (flight_from, flight_to) = if classic { (20, 32) } else { (36, 48) };
                let mut touched = vec![to];
                let mut at = to;
                if s.jumps(at) {
                    touched.extend(at + 1..=at + 4);
                    at += 4;
                }
                if s.edition != Ruleset::Plyyard && at == flight_from {
                    at = flight_to;
                    touched.push(at);
                    if classic {
                        let opposite = (me + 2) % 4;
                        if s.playing[opposite] {
                            for p in s.planes[opposite].iter_mut().filter(|p| **p == 53) {
                                *p = BASE;
                                hit = true;
                            }
                        }
                    }
                    if s.jump_after_shortcut && to == flight_from && s.jumps(at) {
                        touched.extend(at + 1..=at + 4);
                        at += 4;
                    }
                }
                set(&mut s, at);
                if !classic {
                    touched = vec![at];
                }
                for p in touched {
                    hit |= s.hit(square(p));
                }
            }
        }
        let finished = s.planes[me][i] == s.centre();
        if roll == 6 {
            let moved: u32 = movers.iter().map(|j| 1 << j).sum();
            s.stake = match s.edition {
                Ruleset::Plyyard => 0,
                Ruleset::Flights => moved,
                Ruleset::Classic => s.stake | moved,
            };
            for j in 0..4 {
                if s.planes[me][j] == s.centre() {
                    s.stake &= !(1 << j);
                }
            }
        }
        if s.planes[me].iter().all(|p| *p == s.centre()) {
            s.playing[me] = false;
            let left = s.playing.iter().filter(|p| **p).count();
            if s.edition != Ruleset::Classic || left == 1 {
                return None;
            }
            return Some(s.pass());
        }
        let bonus = roll == 6 || (s.edition == Ruleset::Plyyard && (hit || finished));
        Some(if bonus { s } else { s.pass() })
    }

    fn third_six(&self) -> State {
        let mut s = *self;
        if s.edition != Ruleset::Plyyard {
            for j in 0..4 {
                if s.stake & (1 << j) != 0 && s.planes[s.to_act][j] != s.centre() {
                    s.planes[s.to_act][j] = BASE;
                }
            }
        }
        s.pass()
    }
}

/// Leaves `depth` rolls below `state`, counted as `table_perft` documents.
pub(crate) fn perft(state: &State, depth: u32) -> u64 {
    if let Some(roll) = state.pending {
        return state
            .legal(roll)
            .into_iter()
            .map(|i| state.play(i).map_or(1, |next| perft(&next, depth)))
            .sum();
    }
    if depth == 0 {
        return 1;
    }
    (1..=6)
        .map(|roll| {
            let sixes = if roll == 6 { state.sixes + 1 } else { 0 };
            let rolled = State {
                sixes,
                stake: if roll == 6 { state.stake } else { 0 },
                pending: Some(roll),
                ..*state
            };
            if sixes == 3 {
                return perft(&rolled.third_six(), depth - 1);
            }
            let legal = rolled.legal(roll);
            if legal.is_empty() {
                return perft(&rolled.pass(), depth - 1);
            }
            legal
                .into_iter()
                .map(|i| rolled.play(i).map_or(1, |next| perft(&next, depth - 1)))
                .sum()
        })
        .sum()
}
