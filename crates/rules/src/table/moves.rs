//! One move, resolved in the order of `flights.md` F5 and `classic.md` C5: walk, land, jump,
//! flight, send home, centre, then another roll or the turn passes.

use super::{Record, Table, TableEvent, TableEvents, TableOutcome, TablePhase};
use crate::board::{Die, LAST_RING_PROGRESS, Plane, PlaneSet, Position, RingIndex};
use crate::edition::{Side, ThirdSix};
use crate::error::RuleError;
use crate::event::PassReason;
use crate::game::EndReason;

/// The crossed lane square of a `classic` shortcut, as progress of the opposite colour.
const CROSSED_LANE_PROGRESS: u8 = 53;

impl Table {
    /// Moves `plane` of `side` (with its stack in `classic`) for the pending roll.
    #[inline]
    pub fn move_plane(&mut self, side: Side, plane: Plane) -> Result<TableEvents, RuleError> {
        let mut events = TableEvents::new();
        self.move_plane_into(side, plane, &mut events)?;
        Ok(events)
    }

    /// As [`Table::move_plane`], writing the events to `events`.
    #[inline]
    pub(crate) fn move_plane_into(
        &mut self,
        side: Side,
        plane: Plane,
        events: &mut impl Record,
    ) -> Result<(), RuleError> {
        let (roll, legal) = match self.phase {
            TablePhase::Over(_) => return Err(RuleError::GameOver),
            _ if side != self.to_act => return Err(RuleError::NotYourTurn),
            TablePhase::AwaitingRoll => return Err(RuleError::RollFirst),
            TablePhase::AwaitingMove { roll, legal } => (roll, legal),
        };
        if !legal.contains(plane) {
            return Err(RuleError::IllegalPlane);
        }
        let movers = self.stack_of(side, plane);
        let sent_home = match self.position(side, plane) {
            Position::Base => self.launch(side, plane, events),
            Position::Route(progress) => self.advance(side, movers, progress, roll, events),
            Position::Finished => unreachable!("a finished plane is never legal"),
        };
        let finished = self.position(side, plane) == Position::Finished;
        if roll.is_six() {
            self.note_moved_on_six(side, movers);
        }
        if finished && self.planes(side) == [Position::Finished; 4] {
            self.finish_player(side, events);
            return Ok(());
        }
        let rewarded = self.rules.rewards_captures_and_finishes() && (sent_home || finished);
        if roll.is_six() || rewarded {
            self.phase = TablePhase::AwaitingRoll;
            events.record(TableEvent::ExtraRoll { side });
        } else {
            self.pass_turn(PassReason::Normal, events);
        }
        Ok(())
    }

    /// A launch onto the start square: it sends home what stands there, and never jumps.
    #[inline]
    fn launch(&mut self, side: Side, plane: Plane, events: &mut impl Record) -> bool {
        self.planes[side.index()][plane.index()] = Position::Route(0);
        events.record(TableEvent::Launched { side, plane });
        // `plyyard` captures only after an advance; its start squares are safe anyway.
        self.send_home_at(side, side.start_square(), events)
    }

    /// Walk, jump, flight and what they send home; returns whether anything was sent home.
    #[inline]
    fn advance(
        &mut self,
        side: Side,
        movers: PlaneSet,
        from: u8,
        roll: Die,
        events: &mut impl Record,
    ) -> bool {
        let rules = self.rules;
        let finish = rules.finish();
        let mut stop = from + roll.value();
        if stop > finish {
            stop = 2 * finish - stop;
        }
        let to = if stop == finish {
            Position::Finished
        } else {
            Position::Route(stop)
        };
        self.place_planes(side, movers, to);
        events.record(TableEvent::Moved {
            side,
            planes: movers,
            from: Position::Route(from),
            to,
        });
        if to == Position::Finished {
            events.record(TableEvent::Finished {
                side,
                planes: movers,
            });
            return false;
        }
        if stop > LAST_RING_PROGRESS {
            return false;
        }
        let along = rules.sends_home_along_the_way();
        let mut sent = along && self.send_home_at_progress(side, stop, events);
        let landed = stop;
        if rules.jumps_from(stop) {
            sent |= self.jump(side, movers, stop, events);
            stop += 4;
        }
        if let Some((flight_from, flight_to)) = rules.flight()
            && stop == flight_from
        {
            self.place_planes(side, movers, Position::Route(flight_to));
            events.record(TableEvent::Flew {
                side,
                planes: movers,
                from: stop,
                to: flight_to,
            });
            if along {
                sent |= self.send_home_in_lane(side.opposite(), events);
                sent |= self.send_home_at_progress(side, flight_to, events);
            }
            stop = flight_to;
            if rules.jump_after_shortcut() && landed == flight_from && rules.jumps_from(stop) {
                sent |= self.jump(side, movers, stop, events);
                stop += 4;
            }
        }
        if !along {
            sent |= self.send_home_at_progress(side, stop, events);
        }
        sent
    }

    /// Jumps `movers` 4 on from `from`; in `classic` sends home what it passes and lands on.
    fn jump(&mut self, side: Side, movers: PlaneSet, from: u8, events: &mut impl Record) -> bool {
        self.place_planes(side, movers, Position::Route(from + 4));
        events.record(TableEvent::Jumped {
            side,
            planes: movers,
            from,
            to: from + 4,
        });
        let mut sent = false;
        if self.rules.sends_home_along_the_way() {
            for progress in from + 1..=from + 4 {
                sent |= self.send_home_at_progress(side, progress, events);
            }
        }
        sent
    }

    #[inline]
    fn place_planes(&mut self, side: Side, planes: PlaneSet, to: Position) {
        for (plane, position) in Plane::ALL.into_iter().zip(&mut self.planes[side.index()]) {
            if planes.contains(plane) {
                *position = to;
            }
        }
    }

    #[inline]
    fn send_home_at_progress(
        &mut self,
        side: Side,
        progress: u8,
        events: &mut impl Record,
    ) -> bool {
        let square = side.start_square().advanced(progress);
        self.send_home_at(side, square, events)
    }

    /// Sends every opposing plane in play on ring `square` home, unless the square is safe.
    #[inline]
    fn send_home_at(&mut self, mover: Side, square: RingIndex, events: &mut impl Record) -> bool {
        if self.rules.is_safe(square) {
            return false;
        }
        let mut sent = false;
        let mut victims = self.others_in_play(mover);
        while victims != 0 {
            let victim = Side::from_index(victims.trailing_zeros() as usize);
            victims &= victims - 1;
            let progress = square.steps_from(victim.start_square());
            if progress <= LAST_RING_PROGRESS {
                sent |= self.send_home(victim, Position::Route(progress), Some(square), events);
            }
        }
        sent
    }

    /// The lane square a `classic` shortcut crosses (`classic.md` C1.5).
    fn send_home_in_lane(&mut self, victim: Side, events: &mut impl Record) -> bool {
        self.in_play(victim)
            && self.send_home(victim, Position::Route(CROSSED_LANE_PROGRESS), None, events)
    }

    #[inline]
    fn send_home(
        &mut self,
        victim: Side,
        at: Position,
        square: Option<RingIndex>,
        events: &mut impl Record,
    ) -> bool {
        let mut planes = PlaneSet::EMPTY;
        for (plane, position) in Plane::ALL.into_iter().zip(&mut self.planes[victim.index()]) {
            if *position == at {
                *position = Position::Base;
                planes = planes.with(plane);
            }
        }
        if planes.is_empty() {
            return false;
        }
        events.record(TableEvent::SentHome {
            side: victim,
            planes,
            square,
        });
        true
    }

    /// Records what a third six would send back after a move made with a six.
    #[inline]
    fn note_moved_on_six(&mut self, side: Side, movers: PlaneSet) {
        let on_route =
            |table: &Table, plane: Plane| matches!(table.position(side, plane), Position::Route(_));
        self.at_stake = match self.rules.third_six() {
            ThirdSix::Nothing => PlaneSet::EMPTY,
            ThirdSix::LastMoved => movers.iter().filter(|p| on_route(self, *p)).collect(),
            ThirdSix::AllMoved => self
                .at_stake
                .iter()
                .chain(movers.iter())
                .filter(|p| on_route(self, *p))
                .collect(),
        };
    }

    /// All four of `side`'s planes are at the centre (`flights.md` F8.1, `classic.md` C9).
    fn finish_player(&mut self, side: Side, events: &mut impl Record) {
        let place = self.best_free_place();
        self.take_place(side, place, events);
        let outcome = TableOutcome {
            winner: Some(side),
            reason: EndReason::Finished,
        };
        if self.rules.ends_at_first_finish() {
            self.end(outcome, events);
        } else if !self.close_if_one_left(EndReason::Finished, events) {
            self.lapse_offer(events);
            self.pass_turn(PassReason::Normal, events);
        }
    }
}
