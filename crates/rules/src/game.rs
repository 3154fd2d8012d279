//! [`Game`]: a two-player `plyyard` game (`rules.md`), the type the server, the bots and the
//! clients play.
//!
//! `Game` decides nothing itself: it is a facade over a `plyyard` [`Table`] with Red and Yellow
//! seated, the crate's one engine, and only translates between the two vocabularies: [`Colour`]
//! and [`Side`], [`Phase`] and [`TablePhase`], [`Outcome`] and [`TableOutcome`], and a table's
//! step-by-step [`TableEvents`] and the [`Events`] of `plyyard`, where a move is one
//! [`Event::Moved`] that carries its capture, finish and extra roll. As with the table, a refused
//! action leaves the game exactly as it was and returns a [`RuleError`].

use std::fmt;

use crate::board::{Colour, Die, Plane, PlaneSet, Position};
use crate::edition::Side;
use crate::error::RuleError;
use crate::event::{Capture, Event, Events};
use crate::table::{Record, Table, TableDraw, TableEvent, TableOutcome, TablePhase};

/// The planes of one player, indexed by plane number.
pub type Planes = [Position; 4];

/// How a game ended: who won (if anyone) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Colour>,
    /// Why the game ended.
    pub reason: EndReason,
}

/// Why a game ended (`rules.md` §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum EndReason {
    /// All four planes of the winner finished.
    Finished,
    /// The loser resigned.
    Resigned,
    /// A draw offer was accepted.
    Agreed,
    /// The loser stayed disconnected past the grace period (server policy).
    Abandoned,
    /// The loser let the turn clock run out too often (server policy).
    Timeout,
}

impl EndReason {
    /// The stable lower-case name, e.g. `resigned`.
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::Finished => "finished",
            EndReason::Resigned => "resigned",
            EndReason::Agreed => "agreed",
            EndReason::Abandoned => "abandoned",
            EndReason::Timeout => "timeout",
        }
    }
}

/// What the game waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The player to act must roll.
    AwaitingRoll,
    /// The player to act must choose one of `legal` for the pending `roll`.
    AwaitingMove {
        /// The value rolled and not yet played.
        roll: Die,
        /// The planes that may move for it (never empty).
        legal: PlaneSet,
    },
    /// The game has ended.
    Over(Outcome),
}

/// The draw-offer state (`rules.md` §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DrawState {
    /// Who made the standing offer, if one stands.
    pub(crate) offer: Option<Colour>,
    /// Per colour: offered since the turn last passed to it, so it may not offer again yet.
    pub(crate) offer_blocked: [bool; 2],
}

impl DrawState {
    /// The colour whose offer is standing, if any.
    pub const fn standing_offer(&self) -> Option<Colour> {
        self.offer
    }

    /// Whether `colour` may make a draw offer now (ignoring a standing offer).
    pub const fn may_offer(&self, colour: Colour) -> bool {
        !self.offer_blocked[colour.index()]
    }

    /// The two-player view of a table's draw state.
    const fn of_table(draw: TableDraw) -> DrawState {
        DrawState {
            offer: match draw.standing_offer() {
                Some(side) => side.colour(),
                None => None,
            },
            offer_blocked: [!draw.may_offer(Side::Red), !draw.may_offer(Side::Yellow)],
        }
    }

    /// The table's draw state for this two-player one.
    #[cfg(feature = "serde")]
    pub(crate) const fn to_table(self) -> TableDraw {
        let mut draw = TableDraw::NONE;
        draw.set_may_offer(Side::Red, !self.offer_blocked[0]);
        draw.set_may_offer(Side::Yellow, !self.offer_blocked[1]);
        if let Some(offerer) = self.offer {
            draw.offer = Some(side(offerer));
            draw.agreed = 1 << side(offerer).index();
        }
        draw
    }
}

/// A complete game position: planes, whose turn, the phase, the six counter and the draw state.
///
/// It is small, `Copy` and hashable, so search and perft can copy it freely. Inside it is a
/// two-player `plyyard` [`Table`], which plays every rule.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Game(Table);

impl Default for Game {
    fn default() -> Self {
        Game::new()
    }
}

/// Written as the fields the game had before it wrapped a table, so logs and test failures read
/// the same.
impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Game")
            .field(
                "planes",
                &[self.planes(Colour::Red), self.planes(Colour::Yellow)],
            )
            .field("to_act", &self.to_act())
            .field("phase", &self.phase())
            .field("sixes", &self.sixes())
            .field("draw", &self.draw())
            .finish()
    }
}

/// The table side of a colour.
#[inline]
pub(crate) const fn side(colour: Colour) -> Side {
    match colour {
        Colour::Red => Side::Red,
        Colour::Yellow => Side::Yellow,
    }
}

/// The colour of a side of a `plyyard` table, where only Red and Yellow sit.
#[inline]
const fn colour(side: Side) -> Colour {
    match side {
        Side::Yellow => Colour::Yellow,
        Side::Red | Side::Green | Side::Blue => Colour::Red,
    }
}

#[inline]
const fn outcome(outcome: TableOutcome) -> Outcome {
    Outcome {
        winner: match outcome.winner {
            Some(side) => Some(colour(side)),
            None => None,
        },
        reason: outcome.reason,
    }
}

impl Game {
    /// The initial position: every plane in its base, Red to roll.
    pub const fn new() -> Game {
        Game(Table::PLYYARD)
    }

    /// The game around a two-player `plyyard` table.
    pub(crate) const fn from_table(table: Table) -> Game {
        Game(table)
    }

    /// A game that has ended with `ended`, as the table would have left it (the JSON form reads
    /// these): the winner holds the first place and, unless it won by finishing, the loser the
    /// second.
    #[cfg(feature = "serde")]
    pub(crate) fn ended(planes: [Planes; 2], to_act: Colour, sixes: u8, ended: Outcome) -> Game {
        let mut table = Table::PLYYARD;
        table.planes[Side::Red.index()] = planes[Colour::Red.index()];
        table.planes[Side::Yellow.index()] = planes[Colour::Yellow.index()];
        table.to_act = side(to_act);
        table.sixes = sixes;
        if let Some(winner) = ended.winner {
            table.set_place(side(winner), 1);
            if ended.reason != EndReason::Finished {
                table.set_place(side(winner.opponent()), 2);
            }
        }
        table.phase = TablePhase::Over(TableOutcome {
            winner: ended.winner.map(side),
            reason: ended.reason,
        });
        Game(table)
    }

    /// This game with the draw state `draw`.
    #[cfg(feature = "serde")]
    pub(crate) const fn with_draw(mut self, draw: DrawState) -> Game {
        self.0.draw = draw.to_table();
        self
    }

    /// The `plyyard` table this game plays on.
    pub(crate) const fn table(&self) -> &Table {
        &self.0
    }

    /// The four planes of `colour`.
    pub const fn planes(&self, colour: Colour) -> Planes {
        self.0.planes(side(colour))
    }

    /// Where one plane is.
    pub const fn position(&self, colour: Colour, plane: Plane) -> Position {
        self.0.position(side(colour), plane)
    }

    /// The player who acts next (after game over: the one who would have).
    pub const fn to_act(&self) -> Colour {
        colour(self.0.to_act())
    }

    /// What the game waits for.
    pub const fn phase(&self) -> Phase {
        match self.0.phase() {
            TablePhase::AwaitingRoll => Phase::AwaitingRoll,
            TablePhase::AwaitingMove { roll, legal } => Phase::AwaitingMove { roll, legal },
            TablePhase::Over(over) => Phase::Over(outcome(over)),
        }
    }

    /// Consecutive sixes rolled in the current turn, `0..=2`.
    pub const fn sixes(&self) -> u8 {
        self.0.sixes()
    }

    /// The draw-offer state.
    pub const fn draw(&self) -> DrawState {
        DrawState::of_table(self.0.draw())
    }

    /// How the game ended, or `None` while it is live.
    pub const fn outcome(&self) -> Option<Outcome> {
        match self.0.outcome() {
            Some(over) => Some(outcome(over)),
            None => None,
        }
    }

    /// Whether the game has ended.
    pub const fn is_over(&self) -> bool {
        self.0.is_over()
    }

    /// The ring square of a plane, if it is on the ring.
    pub const fn ring_index(&self, colour: Colour, plane: Plane) -> Option<crate::RingIndex> {
        self.position(colour, plane).ring_index(colour)
    }

    /// The planes of `colour` that could move for `roll` (`rules.md` §4 step 4).
    #[inline]
    pub fn legal_planes(&self, colour: Colour, roll: Die) -> PlaneSet {
        self.0.legal_planes(side(colour), roll)
    }

    /// Whether `colour` may roll now: `Ok` exactly when [`Game::roll`] would accept a roll,
    /// whatever the die shows. The server asks this before drawing a die value, so a refused
    /// roll never consumes one.
    pub fn check_roll(&self, colour: Colour) -> Result<(), RuleError> {
        self.0.check_roll(side(colour))
    }

    /// Rolls `die` for `colour`, the player to act (`rules.md` §4 steps 1–5). A roll by the
    /// receiver of a standing draw offer declines it (`rules.md` §5).
    #[inline]
    pub fn roll(&mut self, colour: Colour, die: Die) -> Result<Events, RuleError> {
        let mut events = Events::new();
        self.0.roll_into(side(colour), die, &mut events)?;
        Ok(events)
    }

    /// Moves `plane` of `colour` for the pending roll (`rules.md` §4 steps 6–11).
    #[inline]
    pub fn move_plane(&mut self, colour: Colour, plane: Plane) -> Result<Events, RuleError> {
        let mut events = Events::new();
        self.0.move_plane_into(side(colour), plane, &mut events)?;
        Ok(events)
    }

    /// `colour` resigns; allowed at any time while the game is live, on either player's turn.
    pub fn resign(&mut self, colour: Colour) -> Result<Events, RuleError> {
        let mut events = Events::new();
        self.0.resign_into(side(colour), &mut events)?;
        Ok(events)
    }

    /// Ends the game against `colour` by a server policy: `Abandoned` or `Timeout`.
    ///
    /// The rules do not decide when these happen (the server's grace period and turn clock do);
    /// they only record the result: the opponent of `colour` wins.
    pub fn forfeit(&mut self, colour: Colour, reason: Forfeit) -> Result<Events, RuleError> {
        let mut events = Events::new();
        self.0.forfeit_into(side(colour), reason, &mut events)?;
        Ok(events)
    }

    /// `colour` offers a draw; only one offer stands at a time (`rules.md` §5).
    pub fn offer_draw(&mut self, colour: Colour) -> Result<Events, RuleError> {
        let mut events = Events::new();
        self.0.offer_draw_into(side(colour), &mut events)?;
        Ok(events)
    }

    /// `colour`, the receiver of the standing offer, accepts it: the game is drawn.
    pub fn accept_draw(&mut self, colour: Colour) -> Result<Events, RuleError> {
        let mut events = Events::new();
        self.0.accept_draw_into(side(colour), &mut events)?;
        Ok(events)
    }

    /// `colour`, the receiver of the standing offer, declines it.
    pub fn decline_draw(&mut self, colour: Colour) -> Result<Events, RuleError> {
        let mut events = Events::new();
        self.0.decline_draw_into(side(colour), &mut events)?;
        Ok(events)
    }

    /// `colour`, who made the standing offer, withdraws it.
    pub fn withdraw_draw(&mut self, colour: Colour) -> Result<Events, RuleError> {
        let mut events = Events::new();
        self.0.withdraw_draw_into(side(colour), &mut events)?;
        Ok(events)
    }
}

/// A `plyyard` table's events told as `plyyard` events, as they come: a launch or a walk is one
/// [`Event::Moved`], and the planes it sent home, its finish and its extra roll, which the table
/// records after it, are written into it. Places (`Out`) are not told: the `GameOver` that
/// follows says who won.
impl Record for Events {
    // Always inlined: each call site records one known kind of event, so the match folds away.
    #[inline(always)]
    fn record(&mut self, event: TableEvent) {
        let moved = |side, plane, from, to| Event::Moved {
            colour: colour(side),
            plane,
            from,
            to,
            capture: None,
            finished: false,
            extra_roll: false,
        };
        match event {
            TableEvent::Rolled { side, value, legal } => self.push(Event::Rolled {
                colour: colour(side),
                value,
                legal,
            }),
            TableEvent::Launched { side, plane } => {
                self.push(moved(side, plane, Position::Base, Position::Route(0)));
            }
            TableEvent::Moved {
                side,
                planes,
                from,
                to,
            } => {
                let plane = planes.first().expect("a walk moves a plane");
                self.push(moved(side, plane, from, to));
            }
            TableEvent::SentHome {
                side,
                planes,
                square: Some(square),
            } => {
                if let Some(Event::Moved { capture, .. }) = self.last_mut() {
                    *capture = Some(Capture {
                        colour: colour(side),
                        planes,
                        square,
                    });
                }
            }
            TableEvent::Finished { .. } => {
                if let Some(Event::Moved { finished, .. }) = self.last_mut() {
                    *finished = true;
                }
            }
            TableEvent::ExtraRoll { .. } => {
                if let Some(Event::Moved { extra_roll, .. }) = self.last_mut() {
                    *extra_roll = true;
                }
            }
            TableEvent::TurnPassed { from, to, reason } => self.push(Event::TurnPassed {
                from: colour(from),
                to: colour(to),
                reason,
            }),
            TableEvent::GameOver { outcome: over } => self.push(Event::GameOver {
                outcome: outcome(over),
            }),
            TableEvent::DrawOffered { by } => self.push(Event::DrawOffered { by: colour(by) }),
            TableEvent::DrawAccepted { by } => self.push(Event::DrawAccepted { by: colour(by) }),
            TableEvent::DrawDeclined { by, implicit } => self.push(Event::DrawDeclined {
                by: colour(by),
                implicit,
            }),
            TableEvent::DrawWithdrawn { by } => self.push(Event::DrawWithdrawn { by: colour(by) }),
            TableEvent::Resigned { side } => self.push(Event::Resigned {
                colour: colour(side),
            }),
            // Never at a two-player `plyyard` table but `Out`: no lane square is crossed, no jump
            // or flight follows a walk, a third six sends nothing back and nobody leaves while the
            // game goes on.
            TableEvent::SentHome { square: None, .. }
            | TableEvent::Jumped { .. }
            | TableEvent::Flew { .. }
            | TableEvent::ThirdSix { .. }
            | TableEvent::DrawLapsed { .. }
            | TableEvent::Out { .. } => {}
        }
    }
}

/// The server-policy endings that the rules record but do not decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Forfeit {
    /// Disconnected past the grace period.
    Abandoned,
    /// Too many turns timed out.
    Timeout,
}
