//! A secret found however a JSON string or a URL spells it. A vendor that echoes
//! a key may escape it: each character as itself, as a JSON `\uXXXX` escape (hex
//! in either case, a surrogate pair past the BMP), as JSON's short escape where
//! it has one (`\"`, `\\`, `\/`, `\n`, …) or as its UTF-8 bytes percent-encoded
//! (`%2D`, `%2d`), mixed freely within one secret, and one encoding inside
//! another (`%5Cu002d` is a percent-encoded JSON escape of `-`) up to `DEPTH`
//! levels. What the matcher is handed is scrubbed both before decoding (the
//! body's bytes) and after (every decoded string), so a key escaped once more
//! than `DEPTH` allows in the body is still met one level down.
//!
//! The search keeps a set of positions per character of the secret (not a
//! backtracking search), so one attempt costs at most the secret's spelled
//! length times a small constant, and attempts start only where a spelling can
//! (the secret's first byte, `%` or `\`).

/// How many encodings may nest around one character (a JSON escape of a
/// percent-encoding is two).
const DEPTH: u8 = 2;

/// What looking for a secret at one position found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Found {
    /// The secret, ending (exclusive) here.
    Whole(usize),
    /// The text ends inside what could still become the secret.
    Start,
    /// Not the secret.
    No,
}

/// One character of a template an encoding is written with: itself, or a hex
/// digit of either case.
#[derive(Debug, Clone, Copy)]
enum Mark {
    Char(char),
    Hex(u8),
}

/// The secret at `pos` of `hay`, spelled any way (see the module).
pub(super) fn found_at(hay: &[u8], pos: usize, secret: &str) -> Found {
    let mut now = vec![pos];
    let mut start = false;
    for c in secret.chars() {
        let mut next = Vec::new();
        for &p in &now {
            start |= spell(hay, p, c, DEPTH, &mut next);
        }
        next.sort_unstable();
        next.dedup();
        if next.is_empty() {
            return if start { Found::Start } else { Found::No };
        }
        now = next;
    }
    // The longest spelling is taken whole, so no escape is left half-removed.
    now.last().map_or(Found::No, |end| Found::Whole(*end))
}

/// Whether a spelling of some secret can start with `byte` (its first byte as
/// written, or an encoding's `%` or `\`).
pub(super) fn may_start(byte: u8, first: u8) -> bool {
    byte == first || byte == b'%' || byte == b'\\'
}

/// Push every end of a spelling of `c` at `pos` onto `ends`; true when `hay`
/// ends inside one that could still be completed.
fn spell(hay: &[u8], pos: usize, c: char, depth: u8, ends: &mut Vec<usize>) -> bool {
    let mut start = bytes(hay, pos, c, depth, ends);
    if depth == 0 {
        return start;
    }
    let mut units = [0u16; 2];
    let mut marks = Vec::with_capacity(12);
    for unit in c.encode_utf16(&mut units).iter() {
        marks.extend([Mark::Char('\\'), Mark::Char('u')]);
        marks.extend(
            (0..4)
                .rev()
                .map(|i| Mark::Hex(((unit >> (4 * i)) & 0xf) as u8)),
        );
    }
    start |= template(hay, pos, &marks, depth - 1, ends);
    if let Some(short) = short_escape(c) {
        let marks = [Mark::Char('\\'), Mark::Char(short)];
        start |= template(hay, pos, &marks, depth - 1, ends);
    }
    start
}

/// `c`'s UTF-8 bytes, each as itself or (with depth to spare) as `%XX`.
fn bytes(hay: &[u8], pos: usize, c: char, depth: u8, ends: &mut Vec<usize>) -> bool {
    let mut buf = [0u8; 4];
    let mut now = vec![pos];
    let mut start = false;
    for &b in c.encode_utf8(&mut buf).as_bytes() {
        let mut next = Vec::new();
        for &p in &now {
            match hay.get(p) {
                Some(&h) if h == b => next.push(p + 1),
                Some(_) => {}
                None => start = true,
            }
            if depth > 0 {
                let marks = [Mark::Char('%'), Mark::Hex(b >> 4), Mark::Hex(b & 0xf)];
                start |= template(hay, p, &marks, depth - 1, &mut next);
            }
        }
        next.sort_unstable();
        next.dedup();
        if next.is_empty() {
            return start;
        }
        now = next;
    }
    ends.extend(now);
    start
}

/// An encoding's template at `pos`, each of its characters spelled at `depth`.
fn template(hay: &[u8], pos: usize, marks: &[Mark], depth: u8, ends: &mut Vec<usize>) -> bool {
    let mut now = vec![pos];
    let mut start = false;
    for mark in marks {
        let mut next = Vec::new();
        for &p in &now {
            match *mark {
                Mark::Char(c) => start |= spell(hay, p, c, depth, &mut next),
                Mark::Hex(n) => {
                    let lower = char::from_digit(u32::from(n), 16).unwrap_or('0');
                    start |= spell(hay, p, lower, depth, &mut next);
                    let upper = lower.to_ascii_uppercase();
                    if upper != lower {
                        start |= spell(hay, p, upper, depth, &mut next);
                    }
                }
            }
        }
        next.sort_unstable();
        next.dedup();
        if next.is_empty() {
            return start;
        }
        now = next;
    }
    ends.extend(now);
    start
}

/// JSON's two-character escape of `c`, where it has one.
fn short_escape(c: char) -> Option<char> {
    Some(match c {
        '"' => '"',
        '\\' => '\\',
        '/' => '/',
        '\n' => 'n',
        '\r' => 'r',
        '\t' => 't',
        '\u{8}' => 'b',
        '\u{c}' => 'f',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(hay: &str, secret: &str) -> Option<usize> {
        match found_at(hay.as_bytes(), 0, secret) {
            Found::Whole(end) => Some(end),
            _ => None,
        }
    }

    #[test]
    fn every_spelling_a_json_string_or_a_url_can_carry() {
        let key = "sk-SENTINEL-1";
        for spelled in [
            "sk-SENTINEL-1",
            r"sk\u002dSENTINEL-1",
            r"sk\u002DSENTINEL\u002d1",
            r"\u0073\u006B-SENTINEL-1",
            "sk%2DSENTINEL%2d1",
            "%73%6B%2D%53%45%4E%54%49%4E%45%4C%2D%31",
            r"sk\u002d%53ENTINEL-1",
            // One encoding inside another: `\` percent-encoded, `%` JSON-escaped.
            "sk%5Cu002dSENTINEL-1",
            r"sk\u00252DSENTINEL-1",
        ] {
            assert_eq!(whole(spelled, key), Some(spelled.len()), "{spelled}");
        }
        assert_eq!(whole("sk-SENTINEL-2", key), None);
        assert_eq!(whole(r"sk\u002eSENTINEL-1", key), None);
        // JSON's short escapes, and a character past the BMP as a surrogate pair.
        assert_eq!(whole(r#"a\"b\/c"#, r#"a"b/c"#), Some(7));
        assert_eq!(whole(r"k\ud83d\ude00!", "k😀!"), Some(14));
        assert_eq!(whole("k%F0%9F%98%80!", "k😀!"), Some(14));
    }

    #[test]
    fn the_text_ending_inside_a_spelling_is_a_start() {
        let key = "sk-SENTINEL-1";
        for cut in ["sk", r"sk\u00", "sk%2", "sk%2DSENT", "%7"] {
            assert_eq!(found_at(cut.as_bytes(), 0, key), Found::Start, "{cut}");
        }
        assert_eq!(found_at(b"sk+", 0, key), Found::No);
    }
}
