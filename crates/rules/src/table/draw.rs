//! Draw offers at a table of two to four players (`rules.md` §5 for two; `flights.md` F8.3 and
//! `classic.md` C9.4 for more).

use super::{Record, Table, TableEvent, TableEvents, TableOutcome};
use crate::edition::Side;
use crate::error::RuleError;
use crate::game::EndReason;

/// The draw-offer state of a table, and the rules it follows:
///
/// - Any player in play may offer a draw at any time while the game is live, on any player's turn
///   and in either phase. Only one offer stands at a time: while it stands nobody can make another
///   (`offer_pending`; a counter-offer is refused, not taken as acceptance).
/// - The *receivers* are the other players in play. The draw is agreed when every receiver has
///   accepted: the game ends with reason `agreed` and no winner (in `classic`, a player who already
///   finished first stays the winner). With two players that is the one receiver's acceptance. A receiver who has accepted has answered: it may not accept or decline again, and
///   neither may the offerer (`not_offer_receiver`). One decline ends the offer.
/// - Only the offerer may withdraw it (`not_offer_owner`). Accepting, declining or withdrawing with
///   no standing offer is refused (`no_offer`).
/// - Any roll by a receiver who has not accepted (a void third six or a roll with no legal move
///   included) declines the offer implicitly. A move does not; the rolls of the offerer and of
///   receivers who accepted never affect it.
/// - Anti-spam: after a player's offer, however it ended, that player may offer again only once
///   the turn has passed to it after the offer was made (`offer_too_soon`). With two players this
///   is `rules.md`'s "once a turn of the opponent has ended".
/// - When a player leaves play (resigns, forfeits, or finishes in `classic`) and the game goes on,
///   a standing offer lapses: it was made to the players as they were. When the game ends for any
///   reason, a standing offer is gone.
/// - A player out of play takes no part: it may not offer (`not_your_turn`, as for resigning) nor
///   answer (`not_offer_receiver`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TableDraw {
    /// Who made the standing offer, if one stands.
    pub(crate) offer: Option<Side>,
    /// While an offer stands: the sides that have agreed to it (the offerer included), one bit
    /// per side index; 0 when none stands.
    pub(crate) agreed: u8,
    /// Per side index: offered since the turn last passed to it, so it may not offer again yet.
    pub(crate) blocked: u8,
}

impl TableDraw {
    /// No offer, nobody barred from offering.
    pub(crate) const NONE: TableDraw = TableDraw {
        offer: None,
        agreed: 0,
        blocked: 0,
    };

    /// The side whose offer is standing, if any.
    pub const fn standing_offer(&self) -> Option<Side> {
        self.offer
    }

    /// Whether `side` has agreed to the standing offer (the offerer always has).
    pub const fn has_agreed(&self, side: Side) -> bool {
        self.offer.is_some() && self.agreed & bit(side) != 0
    }

    /// Whether `side` may make a draw offer now (ignoring a standing offer).
    pub const fn may_offer(&self, side: Side) -> bool {
        self.blocked & bit(side) == 0
    }

    /// Marks whether `side` may offer again (`false`: it offered and the turn has not come back).
    #[inline]
    pub(crate) const fn set_may_offer(&mut self, side: Side, may: bool) {
        if may {
            self.blocked &= !bit(side);
        } else {
            self.blocked |= bit(side);
        }
    }

    /// Removes the standing offer, if any, and returns its offerer.
    pub(crate) const fn clear(&mut self) -> Option<Side> {
        let offerer = self.offer;
        self.offer = None;
        self.agreed = 0;
        offerer
    }

    /// Whether a standing offer waits for an answer from `side`.
    #[inline]
    pub(crate) const fn awaits(&self, side: Side) -> bool {
        self.offer.is_some() && self.agreed & bit(side) == 0
    }
}

const fn bit(side: Side) -> u8 {
    1 << side.index()
}

impl Table {
    /// The draw-offer state.
    pub const fn draw(&self) -> TableDraw {
        self.draw
    }

    /// `side` offers a draw; only one offer stands at a time (the rules are in [`TableDraw`]).
    pub fn offer_draw(&mut self, side: Side) -> Result<TableEvents, RuleError> {
        let mut events = TableEvents::new();
        self.offer_draw_into(side, &mut events)?;
        Ok(events)
    }

    /// As [`Table::offer_draw`], writing the events to `events`.
    pub(crate) fn offer_draw_into(
        &mut self,
        side: Side,
        events: &mut impl Record,
    ) -> Result<(), RuleError> {
        self.ensure_live()?;
        if !self.in_play(side) {
            return Err(RuleError::NotYourTurn);
        }
        if self.draw.offer.is_some() {
            return Err(RuleError::OfferPending);
        }
        if !self.draw.may_offer(side) {
            return Err(RuleError::OfferTooSoon);
        }
        self.draw.offer = Some(side);
        self.draw.agreed = bit(side);
        self.draw.set_may_offer(side, false);
        events.record(TableEvent::DrawOffered { by: side });
        Ok(())
    }

    /// `side`, a receiver of the standing offer, accepts it; once every receiver has, the game is
    /// drawn.
    pub fn accept_draw(&mut self, side: Side) -> Result<TableEvents, RuleError> {
        let mut events = TableEvents::new();
        self.accept_draw_into(side, &mut events)?;
        Ok(events)
    }

    /// As [`Table::accept_draw`], writing the events to `events`.
    pub(crate) fn accept_draw_into(
        &mut self,
        side: Side,
        events: &mut impl Record,
    ) -> Result<(), RuleError> {
        self.ensure_receiver(side)?;
        self.draw.agreed |= bit(side);
        events.record(TableEvent::DrawAccepted { by: side });
        if self
            .sides()
            .all(|s| !self.in_play(s) || self.draw.has_agreed(s))
        {
            let winner = self.sides().find(|s| self.place(*s) == Some(1));
            let outcome = TableOutcome {
                winner,
                reason: EndReason::Agreed,
            };
            self.end(outcome, events);
        }
        Ok(())
    }

    /// `side`, a receiver of the standing offer, declines it: the offer is gone.
    pub fn decline_draw(&mut self, side: Side) -> Result<TableEvents, RuleError> {
        let mut events = TableEvents::new();
        self.decline_draw_into(side, &mut events)?;
        Ok(events)
    }

    /// As [`Table::decline_draw`], writing the events to `events`.
    pub(crate) fn decline_draw_into(
        &mut self,
        side: Side,
        events: &mut impl Record,
    ) -> Result<(), RuleError> {
        self.ensure_receiver(side)?;
        self.draw.clear();
        events.record(TableEvent::DrawDeclined {
            by: side,
            implicit: false,
        });
        Ok(())
    }

    /// `side`, who made the standing offer, withdraws it.
    pub fn withdraw_draw(&mut self, side: Side) -> Result<TableEvents, RuleError> {
        let mut events = TableEvents::new();
        self.withdraw_draw_into(side, &mut events)?;
        Ok(events)
    }

    /// As [`Table::withdraw_draw`], writing the events to `events`.
    pub(crate) fn withdraw_draw_into(
        &mut self,
        side: Side,
        events: &mut impl Record,
    ) -> Result<(), RuleError> {
        self.ensure_live()?;
        match self.draw.offer {
            None => Err(RuleError::NoOffer),
            Some(offerer) if offerer != side => Err(RuleError::NotOfferOwner),
            Some(_) => {
                self.draw.clear();
                events.record(TableEvent::DrawWithdrawn { by: side });
                Ok(())
            }
        }
    }

    /// A roll by `side`: if the standing offer waits for its answer, the roll declines it.
    #[inline]
    pub(crate) fn decline_by_rolling(&mut self, side: Side, events: &mut impl Record) {
        if self.draw.awaits(side) {
            self.draw.clear();
            events.record(TableEvent::DrawDeclined {
                by: side,
                implicit: true,
            });
        }
    }

    /// A player left play and the game goes on: the standing offer, if any, lapses.
    pub(crate) fn lapse_offer(&mut self, events: &mut impl Record) {
        if let Some(offerer) = self.draw.clear() {
            events.record(TableEvent::DrawLapsed { by: offerer });
        }
    }

    pub(crate) fn ensure_live(&self) -> Result<(), RuleError> {
        if self.is_over() {
            Err(RuleError::GameOver)
        } else {
            Ok(())
        }
    }

    fn ensure_receiver(&self, side: Side) -> Result<(), RuleError> {
        self.ensure_live()?;
        if self.draw.offer.is_none() {
            return Err(RuleError::NoOffer);
        }
        if !self.in_play(side) || !self.draw.awaits(side) {
            return Err(RuleError::NotOfferReceiver);
        }
        Ok(())
    }
}
