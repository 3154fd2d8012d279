//! Text from the server, made safe to print in a terminal.
//!
//! Player names, error messages and anything else the server relays come from other people. A
//! name holding `ESC [2J` would clear the screen, `ESC ]0;…BEL` set the window title, a
//! right-to-left override reverse the rest of the line. Servers refuse such names now
//! (`aeroplane_protocol::name`), but a record from an older server, a file, or a hostile server
//! may still hold them, so every command escapes what it did not write itself: [`escape`] turns
//! each control, bidirectional or invisible formatting character into a visible `\u{…}`.

use std::borrow::Cow;
use std::fmt::Write as _;

use aeroplane_protocol::name::forbidden_in_names;

/// `text` with every character a name may not hold (control characters, line separators,
/// bidirectional and invisible formatting characters) written as `\u{…}`, and every backslash
/// doubled, so the escaped form cannot be mistaken for a character that was really there.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c == '\\' || forbidden_in_names(c)) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\\' {
            escaped.push_str("\\\\");
        } else if forbidden_in_names(c) {
            let _ = write!(escaped, "\\u{{{:x}}}", u32::from(c));
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_untouched() {
        assert!(matches!(escape("Ann 飞行棋 👩‍🚀"), Cow::Borrowed(_)));
    }

    #[test]
    fn escapes_and_overrides_become_visible() {
        assert_eq!(escape("\u{1b}[2JAnn\u{7}"), "\\u{1b}[2JAnn\\u{7}");
        assert_eq!(escape("A\u{202e}nn\u{0}"), "A\\u{202e}nn\\u{0}");
        assert_eq!(escape("a\nb\r\u{9b}"), "a\\u{a}b\\u{d}\\u{9b}");
        assert_eq!(escape("\\u{1b}"), "\\\\u{1b}");
    }
}
