//! [`Table`]: one game of any edition, with two to four players (`docs/rules/`).
//!
//! This is the crate's one engine. [`Game`](crate::Game), the server's two-player `plyyard` type,
//! is a thin facade over a `plyyard` table that translates colours and events. Every action checks
//! everything before it changes anything: a refused action leaves the table exactly as it was.

mod action;
mod draw;
mod event;
#[cfg(feature = "serde")]
mod json;
mod moves;
mod notation;
mod perft;

use crate::board::{Die, Plane, PlaneSet, Position};
use crate::edition::{Rules, Side, ThirdSix};
use crate::error::RuleError;
use crate::event::PassReason;
use crate::game::{EndReason, Forfeit};

pub use action::{TableAction, TableReplayError};
pub use draw::TableDraw;
pub(crate) use event::Record;
pub use event::{MAX_TABLE_EVENTS, TableEvent, TableEvents, TableOutcome, TablePhase};
pub use notation::{Seat, TablePositionError};
pub use perft::table_perft;

/// A complete position of a game of any edition: planes, seats, whose turn, the phase, the six
/// counter, the planes a third six would send back, the places of players who are out, and the
/// draw-offer state.
///
/// Small, `Copy` and hashable, so search and perft copy it freely.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Table {
    pub(crate) rules: Rules,
    pub(crate) seated: [bool; 4],
    pub(crate) planes: [[Position; 4]; 4],
    pub(crate) to_act: Side,
    pub(crate) phase: TablePhase,
    pub(crate) sixes: u8,
    pub(crate) at_stake: PlaneSet,
    /// Per side: 0 while in play, else its final place from 1.
    pub(crate) places: [u8; 4],
    /// The sides seated and still in play, one bit per side index: what `seated` and `places`
    /// say, kept as a mask so that captures and turns find the others without a branch per side.
    playing: u8,
    /// The draw-offer state (its rules are in [`TableDraw`]).
    pub(crate) draw: TableDraw,
}

impl Table {
    /// The initial position for `players` players: every plane in its hangar, Red to roll.
    pub fn new(rules: Rules, players: usize) -> Result<Table, TablePositionError> {
        if !rules.allows_players(players) {
            return Err(TablePositionError::Players { rules, players });
        }
        let mut seated = [false; 4];
        for side in Rules::seating(players) {
            seated[side.index()] = true;
        }
        Ok(Table::initial(rules, seated))
    }

    /// The two-player `plyyard` table in its initial position (what [`Game`](crate::Game) wraps).
    pub(crate) const PLYYARD: Table = Table::initial(Rules::PLYYARD, [true, false, true, false]);

    const fn initial(rules: Rules, seated: [bool; 4]) -> Table {
        let mut playing = 0;
        let mut index = 0;
        while index < 4 {
            if seated[index] {
                playing |= 1 << index;
            }
            index += 1;
        }
        Table {
            rules,
            seated,
            planes: [[Position::Base; 4]; 4],
            to_act: Side::Red,
            phase: TablePhase::AwaitingRoll,
            sixes: 0,
            at_stake: PlaneSet::EMPTY,
            places: [0; 4],
            playing,
            draw: TableDraw::NONE,
        }
    }

    /// The edition and its options.
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// How many players sit at the table (out of play or not).
    pub fn players(&self) -> usize {
        self.seated.iter().filter(|s| **s).count()
    }

    /// The seated colours in turn order.
    pub fn sides(&self) -> impl Iterator<Item = Side> + Clone + '_ {
        Side::ALL
            .into_iter()
            .filter(|side| self.seated[side.index()])
    }

    /// Whether `side` sits at this table.
    pub const fn is_seated(&self, side: Side) -> bool {
        self.seated[side.index()]
    }

    /// Whether `side` sits here and is still playing (not finished, not resigned).
    #[inline]
    pub const fn in_play(&self, side: Side) -> bool {
        self.playing & (1 << side.index()) != 0
    }

    /// The final place of `side` once it is out of play (1 is the winner), else `None`.
    pub const fn place(&self, side: Side) -> Option<u8> {
        match self.places[side.index()] {
            0 => None,
            place => Some(place),
        }
    }

    /// The four planes of `side` (all `Base` for a colour that is not seated).
    #[inline]
    pub const fn planes(&self, side: Side) -> [Position; 4] {
        self.planes[side.index()]
    }

    /// Where one plane is.
    #[inline]
    pub const fn position(&self, side: Side, plane: Plane) -> Position {
        self.planes[side.index()][plane.index()]
    }

    /// The player who acts next (after game over: the one who would have).
    pub const fn to_act(&self) -> Side {
        self.to_act
    }

    /// What the table waits for.
    pub const fn phase(&self) -> TablePhase {
        self.phase
    }

    /// Consecutive sixes rolled in the current turn, `0..=2`.
    pub const fn sixes(&self) -> u8 {
        self.sixes
    }

    /// The planes of the player to act that a third six would send back to the hangar.
    pub const fn at_stake(&self) -> PlaneSet {
        self.at_stake
    }

    /// How the game ended, or `None` while it is live.
    pub const fn outcome(&self) -> Option<TableOutcome> {
        match self.phase {
            TablePhase::Over(outcome) => Some(outcome),
            _ => None,
        }
    }

    /// Whether the game has ended.
    pub const fn is_over(&self) -> bool {
        matches!(self.phase, TablePhase::Over(_))
    }

    /// The ring square of a plane of `side` at `position`, if it is on the ring.
    pub const fn ring_square(side: Side, position: Position) -> Option<crate::RingIndex> {
        match position {
            Position::Route(progress) if progress <= crate::board::LAST_RING_PROGRESS => {
                Some(side.start_square().advanced(progress))
            }
            _ => None,
        }
    }

    /// The planes of `side` that stand with `plane` and move with it: in `classic` its whole
    /// stack, elsewhere the plane alone (a plane in the hangar or at the centre is always alone).
    #[inline]
    pub fn stack_of(&self, side: Side, plane: Plane) -> PlaneSet {
        let position = self.position(side, plane);
        if !self.rules.stacks() || !matches!(position, Position::Route(_)) {
            return PlaneSet::EMPTY.with(plane);
        }
        Plane::ALL
            .into_iter()
            .filter(|other| self.position(side, *other) == position)
            .collect()
    }

    /// The planes of `side` that could move for `roll` (`flights.md` F3.3, `classic.md` C3.2).
    #[inline]
    pub fn legal_planes(&self, side: Side, roll: Die) -> PlaneSet {
        let (finish, launches, bounces) = (
            self.rules.finish(),
            self.rules.launches(roll),
            self.rules.bounces(),
        );
        let mut legal = PlaneSet::EMPTY;
        for (plane, position) in Plane::ALL.into_iter().zip(self.planes(side)) {
            let movable = match position {
                Position::Base => launches,
                Position::Route(progress) => bounces || progress + roll.value() <= finish,
                Position::Finished => false,
            };
            if movable {
                legal = legal.with(plane);
            }
        }
        legal
    }

    /// What moving `plane` of `side` for `roll` would do, whoever is to act now: the table and the
    /// events after the move, or `None` if `side` is not in play or the move is not legal for that
    /// roll. Bots weigh threats with it ("which opponent could send this plane home next?") and
    /// hints explain themselves with it; it never changes `self`.
    pub fn preview(&self, side: Side, plane: Plane, roll: Die) -> Option<(Table, TableEvents)> {
        if self.is_over() || !self.in_play(side) {
            return None;
        }
        let legal = self.legal_planes(side, roll);
        if !legal.contains(plane) {
            return None;
        }
        let mut after = *self;
        after.to_act = side;
        after.sixes = u8::from(roll.is_six());
        after.at_stake = PlaneSet::EMPTY;
        after.phase = TablePhase::AwaitingMove { roll, legal };
        let events = after.move_plane(side, plane).ok()?;
        Some((after, events))
    }

    /// Whether `side` may roll now: `Ok` exactly when [`Table::roll`] would accept a roll, whatever
    /// the die shows. The server asks this before drawing a die value, so a refused roll never
    /// consumes one.
    #[inline]
    pub fn check_roll(&self, side: Side) -> Result<(), RuleError> {
        match self.phase {
            TablePhase::Over(_) => Err(RuleError::GameOver),
            _ if side != self.to_act => Err(RuleError::NotYourTurn),
            TablePhase::AwaitingMove { .. } => Err(RuleError::MoveFirst),
            TablePhase::AwaitingRoll => Ok(()),
        }
    }

    /// Rolls `die` for `side`, the player to act. A roll by a receiver of a standing draw offer
    /// who has not accepted it declines it ([`TableDraw`]).
    #[inline]
    pub fn roll(&mut self, side: Side, die: Die) -> Result<TableEvents, RuleError> {
        let mut events = TableEvents::new();
        self.roll_into(side, die, &mut events)?;
        Ok(events)
    }

    /// As [`Table::roll`], writing the events to `events`.
    #[inline]
    pub(crate) fn roll_into(
        &mut self,
        side: Side,
        die: Die,
        events: &mut impl Record,
    ) -> Result<(), RuleError> {
        self.check_roll(side)?;
        self.sixes = if die.is_six() { self.sixes + 1 } else { 0 };
        if !die.is_six() {
            self.at_stake = PlaneSet::EMPTY;
        }
        let void = die.is_six() && self.sixes == 3;
        let legal = if void {
            PlaneSet::EMPTY
        } else {
            self.legal_planes(side, die)
        };
        events.record(TableEvent::Rolled {
            side,
            value: die,
            legal,
        });
        self.decline_by_rolling(side, events);
        if void {
            self.send_back_at_stake(side, events);
            self.pass_turn(PassReason::VoidThirdSix, events);
        } else if legal.is_empty() {
            self.pass_turn(PassReason::NoLegalMove, events);
        } else {
            self.phase = TablePhase::AwaitingMove { roll: die, legal };
        }
        Ok(())
    }

    /// `side` resigns (`flights.md` F8.2): with two players in play the other wins; with more,
    /// `side` takes the worst free place and leaves (its planes go to its hangar). Refused for a
    /// side that is not in play.
    pub fn resign(&mut self, side: Side) -> Result<TableEvents, RuleError> {
        let mut events = TableEvents::new();
        self.resign_into(side, &mut events)?;
        Ok(events)
    }

    /// As [`Table::resign`], writing the events to `events`.
    pub(crate) fn resign_into(
        &mut self,
        side: Side,
        events: &mut impl Record,
    ) -> Result<(), RuleError> {
        self.leave(side, EndReason::Resigned, events)?;
        Ok(())
    }

    /// Ends `side`'s game by a server policy (abandoned, timeout), handled as a resignation.
    pub fn forfeit(&mut self, side: Side, reason: Forfeit) -> Result<TableEvents, RuleError> {
        let mut events = TableEvents::new();
        self.forfeit_into(side, reason, &mut events)?;
        Ok(events)
    }

    /// As [`Table::forfeit`], writing the events to `events`.
    pub(crate) fn forfeit_into(
        &mut self,
        side: Side,
        reason: Forfeit,
        events: &mut impl Record,
    ) -> Result<(), RuleError> {
        let reason = match reason {
            Forfeit::Abandoned => EndReason::Abandoned,
            Forfeit::Timeout => EndReason::Timeout,
        };
        self.leave(side, reason, events)?;
        Ok(())
    }

    fn leave(
        &mut self,
        side: Side,
        reason: EndReason,
        events: &mut impl Record,
    ) -> Result<(), RuleError> {
        self.ensure_live()?;
        if !self.in_play(side) {
            return Err(RuleError::NotYourTurn);
        }
        if reason == EndReason::Resigned {
            events.record(TableEvent::Resigned { side });
        }
        let place = self.worst_free_place();
        self.take_place(side, place, events);
        if self.close_if_one_left(reason, events) {
            return Ok(());
        }
        // The game goes on without `side`: its planes leave the board.
        self.planes[side.index()] = [Position::Base; 4];
        self.lapse_offer(events);
        if side == self.to_act {
            self.pass_turn(PassReason::Normal, events);
        }
        Ok(())
    }

    /// The third six's penalty (`flights.md` F3.6, `classic.md` C3.5).
    #[inline]
    fn send_back_at_stake(&mut self, side: Side, events: &mut impl Record) {
        if self.rules.third_six() == ThirdSix::Nothing {
            return;
        }
        let returned: PlaneSet = self
            .at_stake
            .iter()
            .filter(|plane| matches!(self.position(side, *plane), Position::Route(_)))
            .collect();
        for plane in returned.iter() {
            self.planes[side.index()][plane.index()] = Position::Base;
        }
        events.record(TableEvent::ThirdSix { side, returned });
    }

    fn in_play_count(&self) -> usize {
        Side::ALL.into_iter().filter(|s| self.in_play(*s)).count()
    }

    fn best_free_place(&self) -> u8 {
        (1..=self.players() as u8)
            .find(|place| !self.places.contains(place))
            .expect("a player in play has a free place")
    }

    fn worst_free_place(&self) -> u8 {
        (1..=self.players() as u8)
            .rev()
            .find(|place| !self.places.contains(place))
            .expect("a player in play has a free place")
    }

    /// Gives `side` its final place (from 1): it is out of play.
    pub(crate) const fn set_place(&mut self, side: Side, place: u8) {
        self.places[side.index()] = place;
        self.playing &= !(1 << side.index());
    }

    /// The sides in play other than `side`, one bit per side index.
    #[inline]
    pub(crate) const fn others_in_play(&self, side: Side) -> u8 {
        self.playing & !(1 << side.index())
    }

    fn take_place(&mut self, side: Side, place: u8, events: &mut impl Record) {
        self.set_place(side, place);
        events.record(TableEvent::Out { side, place });
    }

    /// If one player is left in play, gives it the last free place and ends the game.
    fn close_if_one_left(&mut self, reason: EndReason, events: &mut impl Record) -> bool {
        if self.in_play_count() != 1 {
            return false;
        }
        let last = Side::ALL
            .into_iter()
            .find(|s| self.in_play(*s))
            .expect("one player is in play");
        let place = self.best_free_place();
        self.take_place(last, place, events);
        let winner = Side::ALL.into_iter().find(|s| self.places[s.index()] == 1);
        self.end(TableOutcome { winner, reason }, events);
        true
    }

    fn end(&mut self, outcome: TableOutcome, events: &mut impl Record) {
        self.phase = TablePhase::Over(outcome);
        self.draw.clear();
        events.record(TableEvent::GameOver { outcome });
    }

    /// The next player in play after `side`, clockwise.
    #[inline]
    pub fn next_after(&self, side: Side) -> Side {
        let others = self.others_in_play(side) as u32;
        if others == 0 {
            return side;
        }
        // The others' bits twice over, shifted so that bit 0 is the seat after `side`: the lowest
        // bit set is the number of seats to go round, less one.
        let ahead = (others | others << 4) >> (side.index() + 1);
        Side::from_index(side.index() + 1 + ahead.trailing_zeros() as usize)
    }

    #[inline]
    fn pass_turn(&mut self, reason: PassReason, events: &mut impl Record) {
        let from = self.to_act;
        let to = self.next_after(from);
        self.to_act = to;
        self.sixes = 0;
        self.at_stake = PlaneSet::EMPTY;
        self.phase = TablePhase::AwaitingRoll;
        // The turn passed to `to`: its wait to offer a draw again is over.
        self.draw.set_may_offer(to, true);
        events.record(TableEvent::TurnPassed { from, to, reason });
    }
}
