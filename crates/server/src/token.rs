//! Seat tokens: 256 random bits that authorise one seat, compared in constant time.

use std::fmt;

use subtle::ConstantTimeEq;

/// The secret that authorises every action of one seat and lets its player reconnect.
#[derive(Clone, PartialEq, Eq)]
pub struct SeatToken(String);

impl SeatToken {
    /// A fresh token of 32 bytes from the operating system's CSPRNG, as 64 hex digits.
    pub fn generate() -> Result<SeatToken, getrandom::Error> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)?;
        Ok(SeatToken(hex::encode(bytes)))
    }

    /// A token handed out before, as saved in a live game's journal.
    pub fn from_saved(token: String) -> SeatToken {
        SeatToken(token)
    }

    /// Whether `presented` is this token, in time independent of where they differ.
    pub fn matches(&self, presented: &str) -> bool {
        self.0.len() == presented.len() && bool::from(self.0.as_bytes().ct_eq(presented.as_bytes()))
    }

    /// The token's text, to hand to its player.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SeatToken {
    /// Never prints the token, so it cannot leak through logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SeatToken(<secret>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_matches_itself_and_nothing_else() {
        let token = SeatToken::generate().unwrap();
        let other = SeatToken::generate().unwrap();
        assert_eq!(token.as_str().len(), 64);
        assert!(token.matches(token.as_str()));
        assert!(!token.matches(other.as_str()));
        assert!(!token.matches(""));
        assert!(!format!("{token:?}").contains(token.as_str()));
    }
}
