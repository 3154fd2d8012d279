//! Guest identities: a player id and a secret, with only the secret's SHA-256 hash stored.
//!
//! `POST /api/players` makes one ([`new_secret`]); a client presents it as `<id>.<secret>`, in
//! the HTTP header `Authorization: Bearer <id>.<secret>` or in `join`'s `player` field, parsed
//! once into [`Credentials`] and checked against the store with [`authenticate`] (the hashes are
//! compared in constant time).

use std::fmt;

use aeroplane_store::{GameStore, StoreError, StoredPlayer};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

/// The length of a secret: 32 bytes as unpadded base64url.
pub const SECRET_CHARS: usize = 43;

/// Why credentials were refused. The messages describe the client's own input only.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    /// No `Authorization` header where one is required.
    #[error("this request needs `Authorization: Bearer <player id>.<secret>`")]
    Missing,
    /// Not `<uuid>.<43 base64url characters>`.
    #[error("player credentials are `<player id>.<secret>`")]
    Malformed,
    /// No player has this id, or the secret is not theirs.
    #[error("no player has these credentials")]
    Unknown,
    /// The store could not answer.
    #[error("the player store is unavailable")]
    Store(#[source] StoreError),
}

/// A player's id and secret, as presented.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    /// The player id.
    pub id: Uuid,
    secret: String,
}

impl Credentials {
    /// Parses `<player id>.<secret>`.
    pub fn parse(text: &str) -> Result<Credentials, IdentityError> {
        let (id, secret) = text
            .trim()
            .split_once('.')
            .ok_or(IdentityError::Malformed)?;
        let id = Uuid::try_parse(id).map_err(|_| IdentityError::Malformed)?;
        let decodes = URL_SAFE_NO_PAD
            .decode(secret)
            .is_ok_and(|bytes| bytes.len() == 32);
        if secret.len() != SECRET_CHARS || !decodes {
            return Err(IdentityError::Malformed);
        }
        Ok(Credentials {
            id,
            secret: secret.to_owned(),
        })
    }

    /// Parses an `Authorization` header's value, `Bearer <player id>.<secret>`.
    pub fn from_authorization(value: &str) -> Result<Credentials, IdentityError> {
        let (scheme, rest) = value
            .trim()
            .split_once(' ')
            .ok_or(IdentityError::Malformed)?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(IdentityError::Malformed);
        }
        Credentials::parse(rest)
    }
}

impl fmt::Debug for Credentials {
    /// Never prints the secret, so it cannot leak through logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Credentials({}, <secret>)", self.id)
    }
}

/// A fresh secret of 32 bytes from the operating system's CSPRNG, as unpadded base64url, and
/// its hash (what the store keeps).
pub fn new_secret() -> Result<(String, [u8; 32]), getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    let secret = URL_SAFE_NO_PAD.encode(bytes);
    let hash = hash(&secret);
    Ok((secret, hash))
}

/// The SHA-256 hash of a secret's text.
pub fn hash(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// The player these credentials belong to.
pub async fn authenticate(
    store: &dyn GameStore,
    credentials: &Credentials,
) -> Result<StoredPlayer, IdentityError> {
    let player = store
        .player(credentials.id)
        .await
        .map_err(IdentityError::Store)?
        .ok_or(IdentityError::Unknown)?;
    let presented = hash(&credentials.secret);
    if bool::from(presented.ct_eq(&player.secret_hash)) {
        Ok(player)
    } else {
        Err(IdentityError::Unknown)
    }
}

/// A generated display name, `Guest 1234`.
pub fn guest_name() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 2];
    getrandom::fill(&mut bytes)?;
    Ok(format!("Guest {:04}", u16::from_le_bytes(bytes) % 10_000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_secret_parses_back_and_hashes_to_its_hash() {
        let (secret, stored) = new_secret().unwrap();
        assert_eq!(secret.len(), SECRET_CHARS);
        let id = Uuid::new_v4();
        let credentials = Credentials::parse(&format!("{id}.{secret}")).unwrap();
        assert_eq!(credentials.id, id);
        assert_eq!(hash(&credentials.secret), stored);
        let header = Credentials::from_authorization(&format!("Bearer {id}.{secret}")).unwrap();
        assert_eq!(header, credentials);
        assert!(!format!("{credentials:?}").contains(&secret));
    }

    #[test]
    fn malformed_credentials_are_refused() {
        let id = Uuid::new_v4();
        let secret = "A".repeat(SECRET_CHARS);
        for text in [
            String::new(),
            id.to_string(),
            format!("{id}."),
            format!("not-a-uuid.{secret}"),
            format!("{id}.{}", "A".repeat(42)),
            format!("{id}.{}", "!".repeat(SECRET_CHARS)),
        ] {
            assert!(Credentials::parse(&text).is_err(), "{text:?}");
        }
        assert!(Credentials::from_authorization(&format!("Basic {id}.{secret}")).is_err());
    }

    #[test]
    fn a_guest_name_is_a_player_name() {
        let name = guest_name().unwrap();
        assert!(
            aeroplane_protocol::name::PlayerName::parse(&name).is_ok(),
            "{name}"
        );
    }
}
