//! Scheme `v2` of `fairness.md`: the game key of every edition and of games of three or four.
//!
//! Only the key differs from `v1`: it names the ruleset and frames each seated colour with its
//! client seed, in the fixed order red, yellow, blue, green. The stream, the rejection rule and
//! "every roll counts" are `v1`'s, so [`DieStream`] serves both.

use aeroplane_rules::{Die, Ruleset, Side};
use sha2::{Digest, Sha256};

use crate::{ClientSeed, Commitment, DieStream, GameKey, ServerSeed, VerifyError};

/// The scheme name stored with games keyed by [`GameKey::derive_v2`].
pub const SCHEME_V2: &str = "v2";
/// The domain-separation tag of `v2` (17 ASCII bytes, no length prefix).
pub const KEY_TAG_V2: &[u8; 17] = b"aeroplane-dice-v2";
/// The order in which seats are framed into a `v2` key (not the order of play).
pub const KEY_ORDER: [Side; 4] = [Side::Red, Side::Yellow, Side::Blue, Side::Green];

/// Which dice scheme a game uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Two-player `plyyard` games, as every stored game so far.
    V1,
    /// Every other edition, and games of three or four.
    V2,
}

impl Scheme {
    /// The scheme of a game of `ruleset` with `players` players (`fairness.md`, "Scheme v2").
    pub const fn for_game(ruleset: Ruleset, players: usize) -> Scheme {
        match (ruleset, players) {
            (Ruleset::Plyyard, 2) => Scheme::V1,
            _ => Scheme::V2,
        }
    }

    /// The name stored with the game: `v1` or `v2`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Scheme::V1 => crate::SCHEME,
            Scheme::V2 => SCHEME_V2,
        }
    }
}

/// Seats that cannot be framed into a `v2` key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SeatsError {
    /// A colour appears twice.
    #[error("{0} is seated twice")]
    Duplicate(Side),
    /// Fewer than two seats.
    #[error("a game has at least two seats, not {0}")]
    TooFew(usize),
}

impl GameKey {
    /// `SHA-256("aeroplane-dice-v2" || lp(server) || lp(ruleset) || lp(colour) || lp(seed) …)`,
    /// the seated colours framed in the order red, yellow, blue, green whatever order `seats`
    /// lists them in.
    pub fn derive_v2(
        server: &ServerSeed,
        ruleset: Ruleset,
        seats: &[(Side, &ClientSeed)],
    ) -> Result<GameKey, SeatsError> {
        if seats.len() < 2 {
            return Err(SeatsError::TooFew(seats.len()));
        }
        for (index, (side, _)) in seats.iter().enumerate() {
            if seats[..index].iter().any(|(other, _)| other == side) {
                return Err(SeatsError::Duplicate(*side));
            }
        }
        let mut hasher = Sha256::new();
        hasher.update(KEY_TAG_V2);
        let mut frame = |part: &[u8]| {
            let length = u32::try_from(part.len()).expect("key parts are short");
            hasher.update(length.to_be_bytes());
            hasher.update(part);
        };
        frame(server.as_bytes());
        frame(ruleset.as_str().as_bytes());
        for side in KEY_ORDER {
            if let Some((_, seed)) = seats.iter().find(|(seated, _)| *seated == side) {
                frame(side.as_str().as_bytes());
                frame(seed.as_str().as_bytes());
            }
        }
        Ok(GameKey(hasher.finalize().into()))
    }
}

/// Checks the commitment and every recorded roll against a game key derived by either scheme
/// (for `v2`: [`GameKey::derive_v2`] first, whose seat errors are its own).
pub fn verify_with_key(
    commitment: &Commitment,
    server: &ServerSeed,
    key: GameKey,
    rolls: impl IntoIterator<Item = Die>,
) -> Result<(), VerifyError> {
    if server.commitment() != *commitment {
        return Err(VerifyError::CommitmentMismatch);
    }
    let mut stream = DieStream::new(key);
    for (index, recorded) in rolls.into_iter().enumerate() {
        let expected = stream.next_die();
        if expected != recorded {
            return Err(VerifyError::RollMismatch {
                index,
                recorded,
                expected,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(text: &str) -> ClientSeed {
        ClientSeed::new(text).unwrap()
    }

    fn server() -> ServerSeed {
        ServerSeed::from_bytes(std::array::from_fn(|i| i as u8))
    }

    fn first_20(key: GameKey) -> Vec<u8> {
        let mut stream = DieStream::new(key);
        (0..20).map(|_| stream.next_die().value()).collect()
    }

    #[test]
    fn the_flights_known_answer_vector_of_fairness_md_holds() {
        let (red, yellow, blue) = (seed("red"), seed(""), seed("blue"));
        let seats = [
            (Side::Red, &red),
            (Side::Yellow, &yellow),
            (Side::Blue, &blue),
        ];
        let key = GameKey::derive_v2(&server(), Ruleset::Flights, &seats).unwrap();
        assert_eq!(
            key.to_hex(),
            "0c939b2ed82dd910ddcb192fc2c9fce2159cb59605b77a65f048f31ce16b7b00"
        );
        assert_eq!(
            first_20(key),
            [3, 5, 6, 5, 4, 3, 1, 6, 5, 1, 6, 5, 3, 1, 2, 1, 3, 4, 5, 2]
        );
    }

    #[test]
    fn the_classic_known_answer_vector_holds_whatever_order_the_seats_are_listed_in() {
        let (r, y, b, g) = (seed("r"), seed("y"), seed("b"), seed("g"));
        // Listed in the order of play (red, green, yellow, blue), framed red, yellow, blue, green.
        let seats = [
            (Side::Red, &r),
            (Side::Green, &g),
            (Side::Yellow, &y),
            (Side::Blue, &b),
        ];
        let key = GameKey::derive_v2(&server(), Ruleset::Classic, &seats).unwrap();
        assert_eq!(
            key.to_hex(),
            "16fcbd2ca87295fcf084aff1eb956a1335cec09378530565738da04ad6af8ceb"
        );
        assert_eq!(
            first_20(key),
            [6, 2, 4, 4, 2, 6, 5, 5, 6, 2, 1, 6, 2, 5, 4, 4, 6, 5, 3, 6]
        );
    }

    #[test]
    fn the_plyyard_framing_vector_holds_and_differs_from_v1() {
        let (red, yellow) = (seed("red"), seed("yellow"));
        let seats = [(Side::Red, &red), (Side::Yellow, &yellow)];
        let key = GameKey::derive_v2(&server(), Ruleset::Plyyard, &seats).unwrap();
        assert_eq!(
            key.to_hex(),
            "819fce3d0aadfaadd44db4c81c4ffe1625d249f6593cce59d5a51a33f7f88a3b"
        );
        assert_eq!(
            first_20(key),
            [3, 1, 5, 6, 2, 2, 3, 1, 1, 4, 5, 4, 2, 2, 5, 1, 6, 4, 2, 5]
        );
        assert_ne!(key, GameKey::derive(&server(), &red, &yellow));
    }

    #[test]
    fn only_two_player_plyyard_keeps_v1() {
        assert_eq!(Scheme::for_game(Ruleset::Plyyard, 2), Scheme::V1);
        assert_eq!(Scheme::for_game(Ruleset::Flights, 2), Scheme::V2);
        assert_eq!(Scheme::for_game(Ruleset::Classic, 4).as_str(), "v2");
    }

    #[test]
    fn duplicate_or_missing_seats_are_refused() {
        let a = seed("a");
        assert_eq!(
            GameKey::derive_v2(
                &server(),
                Ruleset::Flights,
                &[(Side::Red, &a), (Side::Red, &a)]
            ),
            Err(SeatsError::Duplicate(Side::Red))
        );
        assert_eq!(
            GameKey::derive_v2(&server(), Ruleset::Flights, &[(Side::Red, &a)]),
            Err(SeatsError::TooFew(1))
        );
    }

    #[test]
    fn verify_with_key_accepts_the_true_v2_rolls_and_names_the_first_wrong_one() {
        let (red, yellow, blue) = (seed("red"), seed(""), seed("blue"));
        let seats = [
            (Side::Red, &red),
            (Side::Yellow, &yellow),
            (Side::Blue, &blue),
        ];
        let key = GameKey::derive_v2(&server(), Ruleset::Flights, &seats).unwrap();
        let commitment = server().commitment();
        let mut rolls: Vec<Die> = [3, 5, 6, 5, 4].map(|v| Die::new(v).unwrap()).to_vec();
        assert_eq!(
            verify_with_key(&commitment, &server(), key, rolls.clone()),
            Ok(())
        );
        rolls[2] = Die::new(1).unwrap();
        assert!(matches!(
            verify_with_key(&commitment, &server(), key, rolls),
            Err(VerifyError::RollMismatch { index: 2, .. })
        ));
    }
}
