//! What a player's display name may contain, decided once: [`PlayerName`].
//!
//! A name is shown to the other player, to spectators, in the games API, in terminals
//! (`aeroplane games`, `watch`) and in a database, so it must be plain text that cannot change how
//! the text around it is displayed or stored. The wire keeps `name` a string (a client that
//! knows only protocol 1 sends the same JSON); the server parses it into a [`PlayerName`] where
//! it enters (`join`, `POST /api/quick-match`, `GET /api/games?player=`) and refuses the rest
//! with `bad_field`. The rules, in `docs/protocol.md` §2 as well:
//!
//! - leading and trailing white space is removed; what is left has 1 to [`MAX_NAME_CHARS`]
//!   characters (Unicode scalar values) and at least one that is not white space or a joiner;
//! - no control character (Unicode `Cc`: U+0000–U+001F, U+007F–U+009F), so no NUL (which
//!   PostgreSQL text cannot hold), no line break, tab or terminal escape sequence;
//! - no line or paragraph separator (U+2028, U+2029);
//! - no bidirectional formatting character (U+061C, U+200E, U+200F, U+202A–U+202E,
//!   U+2066–U+2069): an override reverses the text displayed after the name (spoofing);
//! - no invisible zero-width character that only makes names look alike (U+200B zero width
//!   space, U+2060 word joiner, U+FEFF byte order mark, U+00AD soft hyphen, U+180E). The zero
//!   width joiner and non-joiner (U+200D, U+200C) are allowed: emoji sequences and scripts such
//!   as Persian and the Indic ones need them.
//!
//! Everything else (any script, emoji, inner spaces) is allowed.

use std::fmt;

/// The longest display name, in characters (Unicode scalar values) after trimming.
pub const MAX_NAME_CHARS: usize = 32;

/// A display name that obeys the rules of the [module docs](self).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlayerName(String);

/// Why a text is not a [`PlayerName`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Nothing visible is left after trimming.
    #[error("a name has at least one visible character")]
    Empty,
    /// More than [`MAX_NAME_CHARS`] characters after trimming.
    #[error("a name has at most {MAX_NAME_CHARS} characters (this one has {0})")]
    TooLong(usize),
    /// A character names may not hold (see the module docs).
    #[error("a name may not contain the character U+{0:04X}")]
    Forbidden(u32),
}

impl PlayerName {
    /// Trims `text` and checks it against the rules.
    pub fn parse(text: &str) -> Result<PlayerName, NameError> {
        let name = text.trim();
        if let Some(bad) = name.chars().find(|c| forbidden(*c)) {
            return Err(NameError::Forbidden(u32::from(bad)));
        }
        let count = name.chars().count();
        if count > MAX_NAME_CHARS {
            return Err(NameError::TooLong(count));
        }
        if !name.chars().any(|c| !c.is_whitespace() && !joiner(c)) {
            return Err(NameError::Empty);
        }
        Ok(PlayerName(name.to_owned()))
    }

    /// The nearest name to `text` for data kept before these rules (a journal of an older
    /// server): forbidden characters become U+FFFD, the name is cut to [`MAX_NAME_CHARS`], and
    /// nothing visible left becomes `?`. Never for input: parse that with [`PlayerName::parse`].
    pub fn lossy(text: &str) -> PlayerName {
        let cleaned: String = text
            .trim()
            .chars()
            .map(|c| {
                if forbidden(c) {
                    char::REPLACEMENT_CHARACTER
                } else {
                    c
                }
            })
            .take(MAX_NAME_CHARS)
            .collect();
        PlayerName::parse(&cleaned).unwrap_or_else(|_| PlayerName("?".to_owned()))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name as an owned string.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for PlayerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for PlayerName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// The zero width joiner and non-joiner: allowed, but not a name on their own.
fn joiner(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}')
}

/// Whether names may not hold `c` (see the module docs). Terminal clients escape the same
/// characters in whatever they print.
pub fn forbidden_in_names(c: char) -> bool {
    forbidden(c)
}

/// Whether names may not hold `c`.
fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            // Line and paragraph separators.
            '\u{2028}' | '\u{2029}'
            // Bidirectional formatting: marks, embeddings, overrides, isolates.
            | '\u{061C}' | '\u{200E}' | '\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            // Invisible characters that make names look alike.
            | '\u{00AD}' | '\u{180E}' | '\u{200B}' | '\u{2060}' | '\u{FEFF}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_trimmed_and_keeps_any_script_and_emoji() {
        for (text, name) in [
            ("  Ann ", "Ann"),
            ("飞行棋 玩家", "飞行棋 玩家"),
            ("👩\u{200D}🚀", "👩\u{200D}🚀"),
            ("می\u{200C}خواهم", "می\u{200C}خواهم"),
        ] {
            assert_eq!(PlayerName::parse(text).unwrap().as_str(), name);
        }
        assert!(PlayerName::parse(&"é".repeat(MAX_NAME_CHARS)).is_ok());
    }

    #[test]
    fn control_bidi_and_invisible_characters_are_refused() {
        for text in [
            "A\u{0}nn",
            "Ann\u{1b}[2J",
            "A\tnn",
            "A\nnn",
            "Ann\u{7f}",
            "A\u{85}nn",
            "Ann\u{9b}",
            "Ann\u{202E}",
            "\u{2066}Ann",
            "A\u{200B}nn",
            "An\u{FEFF}n",
            "An\u{2028}n",
            "A\u{AD}nn",
        ] {
            assert!(
                matches!(PlayerName::parse(text), Err(NameError::Forbidden(_))),
                "{text:?}"
            );
        }
    }

    #[test]
    fn an_old_name_is_cleaned_not_refused() {
        assert_eq!(PlayerName::lossy("A\u{0}nn").as_str(), "A\u{FFFD}nn");
        assert_eq!(PlayerName::lossy("  ").as_str(), "?");
        assert_eq!(
            PlayerName::lossy(&"x".repeat(40)).as_str().len(),
            MAX_NAME_CHARS
        );
    }

    #[test]
    fn a_name_has_one_to_32_visible_characters() {
        assert_eq!(PlayerName::parse("   "), Err(NameError::Empty));
        assert_eq!(PlayerName::parse(""), Err(NameError::Empty));
        assert_eq!(PlayerName::parse("\u{200D}"), Err(NameError::Empty));
        assert_eq!(
            PlayerName::parse(&"x".repeat(MAX_NAME_CHARS + 1)),
            Err(NameError::TooLong(MAX_NAME_CHARS + 1))
        );
    }
}
