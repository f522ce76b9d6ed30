//! What an id or a name may hold: printable text.
//!
//! Agent names, obstacle ids and the other ids a client chooses travel
//! into logs, run directories and `oceansim replay`'s table on a terminal.
//! A name that carried ESC, BEL, CR or LF could retitle the terminal,
//! clear it or forge a row; U+202E could turn a row's text around. So ids
//! are refused if they hold any [`is_unprintable`] character
//! (`invalid_message`, naming it), and whatever prints a name that came
//! from a file rather than a request shows such characters escaped
//! ([`escape_unprintable`]).
//!
//! ```
//! use oceansim_protocol::names::{escape_unprintable, is_unprintable};
//!
//! assert!(is_unprintable('\u{1b}') && is_unprintable('\u{202e}'));
//! assert!(!is_unprintable('é') && !is_unprintable('世'));
//! assert_eq!(escape_unprintable("auv\u{1b}]0;x\u{7}"), "auv\\u{1b}]0;x\\u{7}");
//! assert_eq!(escape_unprintable("auv/main"), "auv/main");
//! ```

use std::borrow::Cow;

/// Whether `c` must not appear in an id: a control character (C0, DEL,
/// C1), a line or paragraph separator, or a format character that is
/// invisible or reorders text (zero-width spaces and joiners, bidi marks,
/// embeddings, overrides and isolates, the byte-order mark).
pub fn is_unprintable(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
        )
}

/// `s` with every [`is_unprintable`] character written as `\u{..}`
/// (borrowed when there is none).
pub fn escape_unprintable(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unprintable) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unprintable(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_and_reordering_character_is_unprintable() {
        for c in [
            '\0', '\u{7}', '\u{8}', '\t', '\n', '\r', '\u{1b}', '\u{7f}', '\u{85}', '\u{9b}',
        ] {
            assert!(is_unprintable(c), "{c:?}");
        }
        for c in [
            '\u{200e}', '\u{202a}', '\u{202e}', '\u{2066}', '\u{2069}', '\u{2028}', '\u{feff}',
        ] {
            assert!(is_unprintable(c), "{c:?}");
        }
        for c in ['a', ' ', '/', '-', '_', '.', 'é', '世', 'Ω', '🐟'] {
            assert!(!is_unprintable(c), "{c:?}");
        }
    }
}
