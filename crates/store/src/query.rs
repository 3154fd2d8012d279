//! List queries checked once, for every store alike, and the page cursor.

use std::fmt;
use std::str::FromStr;

use aeroplane_protocol::name::PlayerName;
use aeroplane_protocol::record::GameRecord;
use aeroplane_rules::{Ruleset, Side};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::{GameQuery, StoreError};

/// The page size when a query gives none.
pub const DEFAULT_LIMIT: u32 = 20;

/// The largest page size a query may ask for.
pub const MAX_LIMIT: u32 = 100;

/// Where a page of the game list ends: the `(ended_at, id)` of its last game.
///
/// Clients treat it as opaque. Its text is `<ended_at as Unix microseconds>_<id as 32 hex
/// digits>`, for example `1714000000123456_0f8e5c1e3f7a4f0e9d1c2b3a49586776`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cursor {
    pub(crate) ended_at_us: i64,
    pub(crate) id: Uuid,
}

impl Cursor {
    /// The cursor that continues a list after `record`, the last game of a page.
    pub fn after(record: &GameRecord) -> Cursor {
        Cursor {
            ended_at_us: unix_micros(record.ended_at),
            id: record.id,
        }
    }
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.ended_at_us, self.id.simple())
    }
}

impl FromStr for Cursor {
    type Err = StoreError;

    fn from_str(text: &str) -> Result<Cursor, StoreError> {
        let (micros, id) = text.split_once('_').ok_or(StoreError::BadCursor)?;
        let ended_at_us = micros.parse::<i64>().map_err(|_| StoreError::BadCursor)?;
        if id.len() != 32 {
            return Err(StoreError::BadCursor);
        }
        let id = Uuid::try_parse(id).map_err(|_| StoreError::BadCursor)?;
        from_unix_micros(ended_at_us).map_err(|_| StoreError::BadCursor)?;
        Ok(Cursor { ended_at_us, id })
    }
}

/// Which results a list keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ResultFilter {
    /// Games this colour won (any of the four).
    Winner(Side),
    /// Drawn games.
    Draw,
}

/// A [`GameQuery`] whose every field was checked.
#[derive(Clone, Debug)]
pub(crate) struct ValidQuery {
    /// The name to filter on, parsed as a player's name (so trimmed).
    pub(crate) player: Option<String>,
    /// The identified player to filter on.
    pub(crate) player_id: Option<Uuid>,
    pub(crate) result: Option<ResultFilter>,
    /// The edition to filter on.
    pub(crate) ruleset: Option<Ruleset>,
    /// The number of seats to filter on, 2 to 4.
    pub(crate) players: Option<u8>,
    pub(crate) limit: u32,
    pub(crate) before: Option<Cursor>,
}

impl GameQuery {
    /// Checks the query: the player's name (it must be one a player may have, see
    /// [`PlayerName`]), the limit, the result, the edition, the number of players and the
    /// cursor.
    pub(crate) fn validate(&self) -> Result<ValidQuery, StoreError> {
        let limit = match self.limit {
            0 => DEFAULT_LIMIT,
            limit if limit <= MAX_LIMIT => limit,
            limit => {
                return Err(StoreError::BadQuery(format!(
                    "limit {limit} is out of range: use 1 to {MAX_LIMIT}"
                )));
            }
        };
        let result = match self.result.as_deref() {
            None => None,
            Some("draw") => Some(ResultFilter::Draw),
            Some(text) => Some(ResultFilter::Winner(text.parse().map_err(|_| {
                StoreError::BadQuery(format!(
                    "result `{text}` is unknown: use `red`, `green`, `yellow`, `blue` or `draw`"
                ))
            })?)),
        };
        let ruleset = self
            .ruleset
            .as_deref()
            .map(|text| {
                Ruleset::ALL
                    .into_iter()
                    .find(|ruleset| ruleset.as_str() == text)
                    .ok_or_else(|| {
                        StoreError::BadQuery(format!(
                            "ruleset `{text}` is unknown: use `plyyard`, `flights` or `classic`"
                        ))
                    })
            })
            .transpose()?;
        let players = self
            .players
            .map(|players| match players {
                2..=4 => Ok(players as u8),
                _ => Err(StoreError::BadQuery(format!(
                    "players {players} is out of range: use 2 to 4"
                ))),
            })
            .transpose()?;
        let before = self.before.as_deref().map(str::parse).transpose()?;
        let player = self
            .player
            .as_deref()
            .map(|name| {
                PlayerName::parse(name)
                    .map(PlayerName::into_string)
                    .map_err(|error| StoreError::BadQuery(format!("player: {error}")))
            })
            .transpose()?;
        Ok(ValidQuery {
            player,
            player_id: self.player_id,
            result,
            ruleset,
            players,
            limit,
            before,
        })
    }
}

/// Checks a leaderboard's limit: `1..=`[`MAX_LEADERBOARD`](crate::MAX_LEADERBOARD).
pub(crate) fn leaderboard_limit(limit: u32) -> Result<u32, StoreError> {
    if (1..=crate::MAX_LEADERBOARD).contains(&limit) {
        Ok(limit)
    } else {
        Err(StoreError::BadQuery(format!(
            "limit {limit} is out of range: use 1 to {}",
            crate::MAX_LEADERBOARD
        )))
    }
}

impl ValidQuery {
    /// Whether `record` passes the filters (not the limit); the in-memory form of the SQL.
    pub(crate) fn matches(&self, record: &GameRecord) -> bool {
        let seats = || {
            Side::ALL
                .into_iter()
                .filter_map(|side| record.players.seat(side))
        };
        let player = self
            .player
            .as_deref()
            .is_none_or(|name| seats().any(|seat| seat.name == name));
        let player_id = self
            .player_id
            .is_none_or(|id| seats().any(|seat| seat.player_id == Some(id)));
        let result = match self.result {
            None => true,
            Some(ResultFilter::Draw) => record.result.winner.is_none(),
            Some(ResultFilter::Winner(side)) => record.result.winner == Some(side),
        };
        let ruleset = self
            .ruleset
            .is_none_or(|ruleset| record.ruleset == ruleset.as_str());
        let players = self
            .players
            .is_none_or(|players| record.players.count() == usize::from(players));
        let before = self
            .before
            .is_none_or(|cursor| Cursor::after(record) < cursor);
        player && player_id && result && ruleset && players && before
    }
}

/// `time` as whole microseconds since the Unix epoch (rounded down), the precision stored.
pub(crate) fn unix_micros(time: OffsetDateTime) -> i64 {
    // Every representable `OffsetDateTime` fits: ±9999 years is about ±3.2e17 µs.
    time.unix_timestamp_nanos().div_euclid(1_000) as i64
}

/// The UTC time `micros` microseconds after the Unix epoch.
pub(crate) fn from_unix_micros(micros: i64) -> Result<OffsetDateTime, time::error::ComponentRange> {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1_000)
}

/// `time` as the store keeps it: UTC, to the microsecond.
pub(crate) fn stored_time(time: OffsetDateTime) -> OffsetDateTime {
    from_unix_micros(unix_micros(time)).expect("a truncated valid time is valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_from_its_text() {
        let cursor = Cursor {
            ended_at_us: 1_714_000_000_123_456,
            id: Uuid::from_u128(7),
        };
        assert_eq!(
            cursor.to_string(),
            "1714000000123456_00000000000000000000000000000007"
        );
        assert_eq!(cursor.to_string().parse::<Cursor>().unwrap(), cursor);
    }

    #[test]
    fn garbage_is_a_bad_cursor() {
        for text in [
            "",
            "x",
            "1_2",
            "abc_00000000000000000000000000000007",
            "1_not-a-uuid",
        ] {
            assert!(
                matches!(text.parse::<Cursor>(), Err(StoreError::BadCursor)),
                "{text}"
            );
        }
    }

    #[test]
    fn a_zero_limit_means_the_default_and_a_large_one_is_refused() {
        let query = GameQuery::default();
        assert_eq!(query.validate().unwrap().limit, DEFAULT_LIMIT);
        let query = GameQuery {
            limit: MAX_LIMIT + 1,
            ..GameQuery::default()
        };
        assert!(matches!(query.validate(), Err(StoreError::BadQuery(_))));
    }

    #[test]
    fn an_unknown_result_is_refused_and_every_colour_is_known() {
        let query = GameQuery {
            result: Some("purple".into()),
            ..GameQuery::default()
        };
        assert!(matches!(query.validate(), Err(StoreError::BadQuery(_))));
        for colour in ["red", "green", "yellow", "blue", "draw"] {
            let query = GameQuery {
                result: Some(colour.into()),
                ..GameQuery::default()
            };
            assert!(query.validate().is_ok(), "{colour}");
        }
    }

    #[test]
    fn an_unknown_ruleset_or_player_count_is_refused() {
        for ruleset in ["", "Plyyard", "chess", "classic+jump-after-shortcut"] {
            let query = GameQuery {
                ruleset: Some(ruleset.into()),
                ..GameQuery::default()
            };
            assert!(
                matches!(query.validate(), Err(StoreError::BadQuery(_))),
                "{ruleset:?}"
            );
        }
        for players in [0, 1, 5, u32::MAX] {
            let query = GameQuery {
                players: Some(players),
                ..GameQuery::default()
            };
            assert!(
                matches!(query.validate(), Err(StoreError::BadQuery(_))),
                "{players}"
            );
        }
    }
}
