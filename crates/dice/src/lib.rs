//! Verifiable dice, schemes `v1` and `v2` of `shared/spec/fairness.md`, byte for byte.
//!
//! The server and every verifier (native client, tests) share this crate so they cannot disagree:
//! a 32-byte server seed committed to with SHA-256 before the first roll, client seeds mixed into
//! a game key with length-prefixed framing, and a ChaCha20 stream mapped to die values by
//! rejection sampling. Nothing here reads the clock; only [`ServerSeed::generate`] touches the OS.
//!
//! `v1` keys two-player `plyyard` games; `v2` ([`GameKey::derive_v2`], module `v2`) keys every
//! other edition and games of three or four. Both feed the same [`DieStream`].
#![forbid(unsafe_code)]

mod v2;

pub use v2::{KEY_ORDER, KEY_TAG_V2, SCHEME_V2, Scheme, SeatsError, verify_with_key};

use std::fmt;
use std::str::FromStr;

use aeroplane_rules::Die;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use sha2::{Digest, Sha256};

/// The scheme version stored with every two-player `plyyard` game.
pub const SCHEME: &str = "v1";
/// The domain-separation tag hashed first into the game key (17 ASCII bytes, no length prefix).
pub const KEY_TAG: &[u8; 17] = b"aeroplane-dice-v1";
/// The longest client seed accepted, in UTF-8 bytes.
pub const MAX_CLIENT_SEED_BYTES: usize = 64;
/// Stream words at or above this are discarded so that `w % 6` is unbiased.
const REJECT_FROM: u32 = 4_294_967_292;

/// Why a seed or commitment was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SeedError {
    /// A client seed longer than 64 bytes (it is refused, never truncated).
    #[error("a client seed is at most {MAX_CLIENT_SEED_BYTES} bytes of UTF-8, this one has {0}")]
    ClientSeedTooLong(usize),
    /// Hex text that is not 64 lower- or upper-case hex digits.
    #[error("expected 64 hex digits (32 bytes)")]
    BadHex,
}

/// The server's secret 32-byte seed for one game, revealed when the game ends.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ServerSeed([u8; 32]);

impl ServerSeed {
    /// Draws a fresh seed from the operating system's CSPRNG.
    pub fn generate() -> Result<ServerSeed, getrandom::Error> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)?;
        Ok(ServerSeed(bytes))
    }

    /// A seed with the given bytes (for verifiers and tests).
    pub const fn from_bytes(bytes: [u8; 32]) -> ServerSeed {
        ServerSeed(bytes)
    }

    /// The raw bytes.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The lower-case hex form in which the seed is revealed.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// `SHA-256(server_seed)`, published before the first roll.
    pub fn commitment(&self) -> Commitment {
        Commitment(Sha256::digest(self.0).into())
    }
}

impl fmt::Debug for ServerSeed {
    /// Never prints the secret, so it cannot leak through logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ServerSeed(<secret>)")
    }
}

impl FromStr for ServerSeed {
    type Err = SeedError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse_hex32(text).map(ServerSeed)
    }
}

/// `SHA-256(server_seed)`: binds the server to its seed before any roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Commitment([u8; 32]);

impl Commitment {
    /// The raw digest.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Display for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl FromStr for Commitment {
    type Err = SeedError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse_hex32(text).map(Commitment)
    }
}

fn parse_hex32(text: &str) -> Result<[u8; 32], SeedError> {
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(text, &mut bytes).map_err(|_| SeedError::BadHex)?;
    Ok(bytes)
}

/// A player's seed: a UTF-8 string of at most 64 bytes (empty when the player gave none).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ClientSeed(String);

impl ClientSeed {
    /// Checks the length; a longer seed is an error, never truncated.
    pub fn new(seed: impl Into<String>) -> Result<ClientSeed, SeedError> {
        let seed = seed.into();
        if seed.len() > MAX_CLIENT_SEED_BYTES {
            return Err(SeedError::ClientSeedTooLong(seed.len()));
        }
        Ok(ClientSeed(seed))
    }

    /// The seed's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The 32-byte key of one game's die stream.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameKey([u8; 32]);

impl GameKey {
    /// `SHA-256("aeroplane-dice-v1" || lp(server) || lp(red) || lp(yellow))`, where `lp(x)` is
    /// the 4-byte big-endian length of `x` followed by `x`.
    pub fn derive(server: &ServerSeed, red: &ClientSeed, yellow: &ClientSeed) -> GameKey {
        let mut hasher = Sha256::new();
        hasher.update(KEY_TAG);
        for part in [&server.0[..], red.0.as_bytes(), yellow.0.as_bytes()] {
            let length = u32::try_from(part.len()).expect("seeds are short");
            hasher.update(length.to_be_bytes());
            hasher.update(part);
        }
        GameKey(hasher.finalize().into())
    }

    /// The raw key.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The lower-case hex form (for verifiers; never sent before game over).
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

impl fmt::Debug for GameKey {
    /// Never prints the key, so it cannot leak through logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("GameKey(<secret>)")
    }
}

/// One game's die: ChaCha20 keyed by the game key, mapped to `1..=6` by rejection sampling.
#[derive(Clone)]
pub struct DieStream {
    rng: ChaCha20Rng,
    rolls: u64,
}

impl DieStream {
    /// The stream at its start (stream 0, counter 0).
    pub fn new(key: GameKey) -> DieStream {
        DieStream {
            rng: ChaCha20Rng::from_seed(key.0),
            rolls: 0,
        }
    }

    /// The stream after `rolls` values have been drawn, e.g. to resume a saved game.
    pub fn resume(key: GameKey, rolls: u64) -> DieStream {
        let mut stream = DieStream::new(key);
        for _ in 0..rolls {
            stream.next_die();
        }
        stream
    }

    /// The next roll of the game.
    pub fn next_die(&mut self) -> Die {
        loop {
            let word = self.rng.next_u32();
            if word < REJECT_FROM {
                self.rolls += 1;
                let value = u8::try_from(word % 6 + 1).expect("1..=6 fits a byte");
                return Die::new(value).expect("w % 6 + 1 is a die value");
            }
        }
    }

    /// How many rolls have been drawn so far.
    pub const fn rolls_drawn(&self) -> u64 {
        self.rolls
    }
}

impl fmt::Debug for DieStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DieStream")
            .field("rolls", &self.rolls)
            .finish_non_exhaustive()
    }
}

/// What a verifier found wrong with a game's dice.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The revealed seed does not hash to the published commitment.
    #[error("the revealed server seed does not match the commitment")]
    CommitmentMismatch,
    /// A recorded roll differs from the stream.
    #[error("roll {index} was {recorded}, but the seeds give {expected}")]
    RollMismatch {
        /// Position of the roll in the game, from 0.
        index: usize,
        /// The value in the record.
        recorded: Die,
        /// The value the stream gives.
        expected: Die,
    },
}

/// Checks the commitment and every recorded roll against the seeds.
pub fn verify(
    commitment: &Commitment,
    server: &ServerSeed,
    red: &ClientSeed,
    yellow: &ClientSeed,
    rolls: impl IntoIterator<Item = Die>,
) -> Result<(), VerifyError> {
    if server.commitment() != *commitment {
        return Err(VerifyError::CommitmentMismatch);
    }
    let mut stream = DieStream::new(GameKey::derive(server, red, yellow));
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

    fn vector_seeds() -> (ServerSeed, ClientSeed, ClientSeed) {
        let bytes: [u8; 32] = std::array::from_fn(|i| i as u8);
        (
            ServerSeed::from_bytes(bytes),
            ClientSeed::new("red").unwrap(),
            ClientSeed::new("yellow").unwrap(),
        )
    }

    #[test]
    fn the_known_answer_vector_of_fairness_md_holds() {
        let (server, red, yellow) = vector_seeds();
        assert_eq!(
            server.commitment().to_string(),
            "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
        );
        let key = GameKey::derive(&server, &red, &yellow);
        assert_eq!(
            key.to_hex(),
            "ea363b74e59c2aba706742168dc0efffd83d062266a94429a7e0a361b0b4aa7c"
        );
        let mut stream = DieStream::new(key);
        let rolls: Vec<u8> = (0..20).map(|_| stream.next_die().value()).collect();
        assert_eq!(
            rolls,
            [1, 4, 4, 5, 1, 3, 6, 4, 1, 6, 4, 2, 4, 6, 4, 2, 5, 6, 1, 5]
        );
    }

    #[test]
    fn a_resumed_stream_continues_where_the_first_stopped() {
        let (server, red, yellow) = vector_seeds();
        let key = GameKey::derive(&server, &red, &yellow);
        let mut whole = DieStream::new(key);
        let first: Vec<Die> = (0..7).map(|_| whole.next_die()).collect();
        let mut resumed = DieStream::resume(key, 7);
        assert_eq!(resumed.rolls_drawn(), 7);
        assert_eq!(resumed.next_die(), whole.next_die());
        assert_eq!(first.len(), 7);
    }

    #[test]
    fn verify_accepts_the_true_rolls_and_names_the_first_wrong_one() {
        let (server, red, yellow) = vector_seeds();
        let commitment = server.commitment();
        let mut rolls: Vec<Die> = {
            let mut stream = DieStream::new(GameKey::derive(&server, &red, &yellow));
            (0..20).map(|_| stream.next_die()).collect()
        };
        assert_eq!(
            verify(&commitment, &server, &red, &yellow, rolls.clone()),
            Ok(())
        );
        rolls[5] = Die::new(if rolls[5].value() == 1 { 2 } else { 1 }).unwrap();
        assert!(matches!(
            verify(&commitment, &server, &red, &yellow, rolls),
            Err(VerifyError::RollMismatch { index: 5, .. })
        ));
        let other = ServerSeed::from_bytes([9; 32]);
        assert_eq!(
            verify(&commitment, &other, &red, &yellow, []),
            Err(VerifyError::CommitmentMismatch)
        );
    }

    #[test]
    fn client_seeds_over_64_bytes_are_refused_not_truncated() {
        assert!(ClientSeed::new("x".repeat(64)).is_ok());
        assert_eq!(
            ClientSeed::new("é".repeat(33)),
            Err(SeedError::ClientSeedTooLong(66))
        );
    }

    #[test]
    fn empty_client_seeds_are_framed_as_a_zero_length() {
        let server = ServerSeed::from_bytes([0; 32]);
        let empty = ClientSeed::default();
        let mut hasher = Sha256::new();
        hasher.update(KEY_TAG);
        hasher.update(32u32.to_be_bytes());
        hasher.update([0u8; 32]);
        hasher.update([0, 0, 0, 0]);
        hasher.update([0, 0, 0, 0]);
        let expected: [u8; 32] = hasher.finalize().into();
        assert_eq!(
            GameKey::derive(&server, &empty, &empty).as_bytes(),
            &expected
        );
    }

    #[test]
    fn server_seeds_round_trip_through_hex() {
        let seed = ServerSeed::generate().unwrap();
        assert_eq!(seed.to_hex().parse::<ServerSeed>().unwrap(), seed);
        assert_eq!("zz".parse::<ServerSeed>(), Err(SeedError::BadHex));
    }
}
