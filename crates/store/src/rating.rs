//! Glicko-2 ratings with lichess's conventions, computed by the `skillratings` crate.
//!
//! Every player starts at 1500 with a deviation of 350 and a volatility of 0.06. A rating is
//! provisional (shown with a `?`) while its deviation is above [`PROVISIONAL_DEVIATION`]. Each
//! rated game is one Glicko-2 rating period of one game for each player ([`rate_game`]); before
//! it, each player's deviation grows by the crate's `decay_deviation` once per whole
//! [`RATING_PERIOD`] (a day) since their last rated game, up to 350, which is also how a
//! profile shows an idle player's deviation ([`Rating::as_of`]).

use aeroplane_rules::Colour;
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, decay_deviation, glicko2};
use time::{Duration, OffsetDateTime};

/// A deviation above this makes a rating provisional (lichess's threshold).
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// How long an idle player waits for each step of deviation growth.
pub const RATING_PERIOD: Duration = Duration::days(1);

/// The most rating periods of growth counted; far more than it takes to reach 350.
const MAX_PERIODS: i64 = 10_000;

/// A player's Glicko-2 rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The rating, 1500 to start.
    pub rating: f64,
    /// The rating deviation, 350 to start and at most.
    pub deviation: f64,
    /// The volatility, 0.06 to start.
    pub volatility: f64,
}

impl Rating {
    /// Where every player starts: 1500, deviation 350, volatility 0.06.
    pub const START: Rating = Rating {
        rating: 1500.0,
        deviation: 350.0,
        volatility: 0.06,
    };

    /// Whether the rating is provisional: its deviation is above [`PROVISIONAL_DEVIATION`].
    pub fn is_provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION
    }

    /// The rating at `now` of a player whose last rated game ended at `since` (never: `None`):
    /// the deviation grown once per whole rating period between them.
    pub fn as_of(self, since: Option<OffsetDateTime>, now: OffsetDateTime) -> Rating {
        let Some(since) = since else {
            return self;
        };
        let periods =
            ((now - since).whole_seconds() / RATING_PERIOD.whole_seconds()).clamp(0, MAX_PERIODS);
        let mut rating = self.glicko();
        for _ in 0..periods {
            if rating.deviation >= Rating::START.deviation {
                break;
            }
            rating = decay_deviation(&rating);
        }
        Rating::from(rating)
    }

    fn glicko(self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }
}

impl Default for Rating {
    fn default() -> Rating {
        Rating::START
    }
}

impl From<Glicko2Rating> for Rating {
    fn from(rating: Glicko2Rating) -> Rating {
        Rating {
            rating: rating.rating,
            deviation: rating.deviation,
            volatility: rating.volatility,
        }
    }
}

/// A stored rating and when it was last updated (`None`: never rated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Standing {
    /// The rating after the last rated game.
    pub rating: Rating,
    /// When the last rated game ended.
    pub rated_at: Option<OffsetDateTime>,
}

/// Both players' ratings after a rated game that ended at `at` with `winner` (`None`: a draw),
/// each first grown for the player's idle time: `(red, yellow)`.
pub fn rate_game(
    red: Standing,
    yellow: Standing,
    winner: Option<Colour>,
    at: OffsetDateTime,
) -> (Rating, Rating) {
    let red = red.rating.as_of(red.rated_at, at).glicko();
    let yellow = yellow.rating.as_of(yellow.rated_at, at).glicko();
    let outcome = match winner {
        Some(Colour::Red) => Outcomes::WIN,
        Some(Colour::Yellow) => Outcomes::LOSS,
        None => Outcomes::DRAW,
    };
    let (red, yellow) = glicko2(&red, &yellow, &outcome, &Glicko2Config::new());
    (Rating::from(red), Rating::from(yellow))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_new_players_move_as_the_crate_documents() {
        let new = Standing {
            rating: Rating::START,
            rated_at: None,
        };
        let at = OffsetDateTime::UNIX_EPOCH;
        let (red, yellow) = rate_game(new, new, Some(Colour::Red), at);
        assert_eq!(red.rating.round(), 1662.0);
        assert_eq!(red.deviation.round(), 290.0);
        assert_eq!(yellow.rating.round(), 1338.0);
        assert!(red.is_provisional() && yellow.is_provisional());
    }

    #[test]
    fn an_idle_players_deviation_grows_once_a_day_up_to_350() {
        let start = OffsetDateTime::UNIX_EPOCH;
        let settled = Rating {
            rating: 2720.0,
            deviation: 41.3,
            volatility: 0.06,
        };
        assert_eq!(
            settled.as_of(Some(start), start + Duration::hours(23)),
            settled
        );
        let a_day = settled.as_of(Some(start), start + Duration::hours(25));
        assert_eq!(a_day.deviation.round(), 43.0, "the crate's own example");
        let years = settled.as_of(Some(start), start + Duration::days(3650));
        assert_eq!(years.deviation, 350.0);
        assert_eq!(years.rating, 2720.0);
    }
}
