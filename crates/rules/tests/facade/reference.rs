//! The `plyyard` engine as it was before `Game` became a facade over `Table`, kept here as the
//! reference the facade is checked against event by event (like the naive perft walks of
//! `tests/editions/naive.rs`). It is the old `src/game.rs`, with its draw state written out.
// The old names are kept as they were, `to_act(&self)` included.
#![allow(dead_code, clippy::wrong_self_convention)]

use aeroplane_rules::board::{FINISH_PROGRESS, LAST_RING_PROGRESS};
use aeroplane_rules::{
    Capture, Colour, Die, EndReason, Event, Events, Forfeit, Game, Outcome, PassReason, Phase,
    Plane, PlaneSet, Position, RuleError,
};

type Planes = [Position; 4];

/// The old draw state: the standing offer and, per colour, whether it may not offer yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct DrawState {
    pub(crate) offer: Option<Colour>,
    pub(crate) offer_blocked: [bool; 2],
}

impl DrawState {
    pub(crate) const fn may_offer(&self, colour: Colour) -> bool {
        !self.offer_blocked[colour.index()]
    }
}

/// The old `Game`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Reference {
    pub(crate) planes: [Planes; 2],
    pub(crate) to_act: Colour,
    pub(crate) phase: Phase,
    pub(crate) sixes: u8,
    pub(crate) draw: DrawState,
}

impl Reference {
    /// The reference engine in the position of `game` (with no draw offer and no embargo).
    pub(crate) fn from_game(game: &Game) -> Reference {
        Reference {
            planes: [game.planes(Colour::Red), game.planes(Colour::Yellow)],
            to_act: game.to_act(),
            phase: game.phase(),
            sixes: game.sixes(),
            draw: DrawState {
                offer: game.draw().standing_offer(),
                offer_blocked: [
                    !game.draw().may_offer(Colour::Red),
                    !game.draw().may_offer(Colour::Yellow),
                ],
            },
        }
    }
}

impl Reference {
    /// The initial position: every plane in its base, Red to roll.
    pub(crate) const fn new() -> Reference {
        Reference {
            planes: [[Position::Base; 4]; 2],
            to_act: Colour::Red,
            phase: Phase::AwaitingRoll,
            sixes: 0,
            draw: DrawState {
                offer: None,
                offer_blocked: [false; 2],
            },
        }
    }

    /// The four planes of `colour`.
    pub(crate) const fn planes(&self, colour: Colour) -> Planes {
        self.planes[colour.index()]
    }

    /// Where one plane is.
    pub(crate) const fn position(&self, colour: Colour, plane: Plane) -> Position {
        self.planes[colour.index()][plane.index()]
    }

    /// The player who acts next (after game over: the one who would have).
    pub(crate) const fn to_act(&self) -> Colour {
        self.to_act
    }

    /// What the game waits for.
    pub(crate) const fn phase(&self) -> Phase {
        self.phase
    }

    /// Consecutive sixes rolled in the current turn, `0..=2`.
    pub(crate) const fn sixes(&self) -> u8 {
        self.sixes
    }

    /// The draw-offer state.
    pub(crate) const fn draw(&self) -> DrawState {
        self.draw
    }

    /// How the game ended, or `None` while it is live.
    pub(crate) const fn outcome(&self) -> Option<Outcome> {
        match self.phase {
            Phase::Over(outcome) => Some(outcome),
            _ => None,
        }
    }

    /// Whether the game has ended.
    pub(crate) const fn is_over(&self) -> bool {
        matches!(self.phase, Phase::Over(_))
    }

    /// The ring square of a plane, if it is on the ring.
    pub(crate) const fn ring_index(
        &self,
        colour: Colour,
        plane: Plane,
    ) -> Option<aeroplane_rules::RingIndex> {
        self.position(colour, plane).ring_index(colour)
    }

    /// The planes of `colour` that could move for `roll` (`rules.md` §4 step 4).
    pub(crate) fn legal_planes(&self, colour: Colour, roll: Die) -> PlaneSet {
        let mut legal = PlaneSet::EMPTY;
        for (plane, position) in Plane::ALL.into_iter().zip(self.planes(colour)) {
            let movable = match position {
                Position::Base => roll.is_six(),
                Position::Route(progress) => progress + roll.value() <= FINISH_PROGRESS,
                Position::Finished => false,
            };
            if movable {
                legal = legal.with(plane);
            }
        }
        legal
    }

    /// Whether `colour` may roll now: `Ok` exactly when [`Reference::roll`] would accept a roll,
    /// whatever the die shows. The server asks this before drawing a die value, so a refused
    /// roll never consumes one.
    pub(crate) fn check_roll(&self, colour: Colour) -> Result<(), RuleError> {
        match self.phase {
            Phase::Over(_) => Err(RuleError::GameOver),
            _ if colour != self.to_act => Err(RuleError::NotYourTurn),
            Phase::AwaitingMove { .. } => Err(RuleError::MoveFirst),
            Phase::AwaitingRoll => Ok(()),
        }
    }

    /// Rolls `die` for `colour`, the player to act (`rules.md` §4 steps 1–5).
    pub(crate) fn roll(&mut self, colour: Colour, die: Die) -> Result<Events, RuleError> {
        self.check_roll(colour)?;
        let mut events = Events::new();
        self.sixes = if die.is_six() { self.sixes + 1 } else { 0 };
        let void = die.is_six() && self.sixes == 3;
        let legal = if void {
            PlaneSet::EMPTY
        } else {
            self.legal_planes(colour, die)
        };
        events.push(Event::Rolled {
            colour,
            value: die,
            legal,
        });
        // Any roll by the receiver declines a standing offer; the offerer's rolls never do.
        if self.draw.offer == Some(colour.opponent()) {
            self.draw.offer = None;
            events.push(Event::DrawDeclined {
                by: colour,
                implicit: true,
            });
        }
        if void {
            self.pass_turn(PassReason::VoidThirdSix, &mut events);
        } else if legal.is_empty() {
            self.pass_turn(PassReason::NoLegalMove, &mut events);
        } else {
            self.phase = Phase::AwaitingMove { roll: die, legal };
        }
        Ok(events)
    }

    /// Moves `plane` of `colour` for the pending roll (`rules.md` §4 steps 6–11).
    pub(crate) fn move_plane(&mut self, colour: Colour, plane: Plane) -> Result<Events, RuleError> {
        let (roll, legal) = match self.phase {
            Phase::Over(_) => return Err(RuleError::GameOver),
            _ if colour != self.to_act => return Err(RuleError::NotYourTurn),
            Phase::AwaitingRoll => return Err(RuleError::RollFirst),
            Phase::AwaitingMove { roll, legal } => (roll, legal),
        };
        if !legal.contains(plane) {
            return Err(RuleError::IllegalPlane);
        }
        let own = colour.index();
        let from = self.planes[own][plane.index()];
        let (to, capture) = match from {
            Position::Base => (Position::Route(0), None),
            Position::Route(progress) => {
                let progress = progress + roll.value();
                let to = Position::from_progress(progress).expect("legal moves end by the finish");
                let capture = if progress <= LAST_RING_PROGRESS {
                    self.capture_at(colour, to)
                } else {
                    None
                };
                (to, capture)
            }
            Position::Finished => unreachable!("a finished plane is never legal"),
        };
        self.planes[own][plane.index()] = to;
        let finished = to == Position::Finished;
        let won = finished && self.planes[own].iter().all(|p| *p == Position::Finished);
        let extra_roll = !won && (roll.is_six() || capture.is_some() || finished);
        let mut events = Events::new();
        events.push(Event::Moved {
            colour,
            plane,
            from,
            to,
            capture,
            finished,
            extra_roll,
        });
        if won {
            self.end(
                Outcome {
                    winner: Some(colour),
                    reason: EndReason::Finished,
                },
                &mut events,
            );
        } else if extra_roll {
            self.phase = Phase::AwaitingRoll;
        } else {
            self.pass_turn(PassReason::Normal, &mut events);
        }
        Ok(events)
    }

    /// `colour` resigns; allowed at any time while the game is live, on either player's turn.
    pub(crate) fn resign(&mut self, colour: Colour) -> Result<Events, RuleError> {
        self.ensure_live()?;
        let mut events = Events::new();
        events.push(Event::Resigned { colour });
        let outcome = Outcome {
            winner: Some(colour.opponent()),
            reason: EndReason::Resigned,
        };
        self.end(outcome, &mut events);
        Ok(events)
    }

    /// Ends the game against `colour` by a server policy: `Abandoned` or `Timeout`.
    ///
    /// The rules do not decide when these happen (the server's grace period and turn clock do);
    /// they only record the result: the opponent of `colour` wins.
    pub(crate) fn forfeit(&mut self, colour: Colour, reason: Forfeit) -> Result<Events, RuleError> {
        self.ensure_live()?;
        let mut events = Events::new();
        let reason = match reason {
            Forfeit::Abandoned => EndReason::Abandoned,
            Forfeit::Timeout => EndReason::Timeout,
        };
        self.end(
            Outcome {
                winner: Some(colour.opponent()),
                reason,
            },
            &mut events,
        );
        Ok(events)
    }

    /// `colour` offers a draw; only one offer stands at a time (`rules.md` §5).
    pub(crate) fn offer_draw(&mut self, colour: Colour) -> Result<Events, RuleError> {
        self.ensure_live()?;
        if self.draw.offer.is_some() {
            return Err(RuleError::OfferPending);
        }
        if !self.draw.may_offer(colour) {
            return Err(RuleError::OfferTooSoon);
        }
        self.draw.offer = Some(colour);
        self.draw.offer_blocked[colour.index()] = true;
        let mut events = Events::new();
        events.push(Event::DrawOffered { by: colour });
        Ok(events)
    }

    /// `colour`, the receiver of the standing offer, accepts it: the game is drawn.
    pub(crate) fn accept_draw(&mut self, colour: Colour) -> Result<Events, RuleError> {
        self.ensure_receiver(colour)?;
        let mut events = Events::new();
        events.push(Event::DrawAccepted { by: colour });
        self.end(
            Outcome {
                winner: None,
                reason: EndReason::Agreed,
            },
            &mut events,
        );
        Ok(events)
    }

    /// `colour`, the receiver of the standing offer, declines it.
    pub(crate) fn decline_draw(&mut self, colour: Colour) -> Result<Events, RuleError> {
        self.ensure_receiver(colour)?;
        self.draw.offer = None;
        let mut events = Events::new();
        events.push(Event::DrawDeclined {
            by: colour,
            implicit: false,
        });
        Ok(events)
    }

    /// `colour`, who made the standing offer, withdraws it.
    pub(crate) fn withdraw_draw(&mut self, colour: Colour) -> Result<Events, RuleError> {
        self.ensure_live()?;
        match self.draw.offer {
            None => Err(RuleError::NoOffer),
            Some(offerer) if offerer != colour => Err(RuleError::NotOfferOwner),
            Some(_) => {
                self.draw.offer = None;
                let mut events = Events::new();
                events.push(Event::DrawWithdrawn { by: colour });
                Ok(events)
            }
        }
    }

    fn ensure_live(&self) -> Result<(), RuleError> {
        if self.is_over() {
            Err(RuleError::GameOver)
        } else {
            Ok(())
        }
    }

    fn ensure_receiver(&self, colour: Colour) -> Result<(), RuleError> {
        self.ensure_live()?;
        match self.draw.offer {
            None => Err(RuleError::NoOffer),
            Some(offerer) if offerer == colour => Err(RuleError::NotOfferReceiver),
            Some(_) => Ok(()),
        }
    }

    /// Sends every opposing plane on the ring square of `landed` back to base, unless the square
    /// is safe. Returns what was captured, if anything.
    fn capture_at(&mut self, mover: Colour, landed: Position) -> Option<Capture> {
        let square = landed.ring_index(mover)?;
        if square.is_safe() {
            return None;
        }
        let victim = mover.opponent();
        // The victim's planes on `square` are exactly those at this progress; past its lane mouth
        // it is a square the victim never visits.
        let progress = square.steps_from(victim.start_square());
        if progress > LAST_RING_PROGRESS {
            return None;
        }
        let mut captured = PlaneSet::EMPTY;
        for (plane, position) in Plane::ALL.into_iter().zip(&mut self.planes[victim.index()]) {
            if *position == Position::Route(progress) {
                *position = Position::Base;
                captured = captured.with(plane);
            }
        }
        if captured.is_empty() {
            return None;
        }
        Some(Capture {
            colour: victim,
            planes: captured,
            square,
        })
    }

    fn pass_turn(&mut self, reason: PassReason, events: &mut Events) {
        let from = self.to_act;
        let to = from.opponent();
        self.to_act = to;
        self.sixes = 0;
        self.phase = Phase::AwaitingRoll;
        // The turn passed from the opponent to `to`: its anti-spam embargo on offers is over.
        self.draw.offer_blocked[to.index()] = false;
        events.push(Event::TurnPassed { from, to, reason });
    }

    fn end(&mut self, outcome: Outcome, events: &mut Events) {
        self.phase = Phase::Over(outcome);
        self.draw.offer = None;
        events.push(Event::GameOver { outcome });
    }
}
