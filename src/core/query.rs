//! How a search's text is read. Words are searched as written — `io-harness`,
//! `0.22.0`, `C++`, `goal:x` are words, never FTS5 syntax that fails or reads a
//! column — unless the text deliberately uses the query syntax: a phrase in
//! double quotes, `OR`, `AND`, `NOT`, `NEAR`, or a `prefix*`; then it goes to
//! FTS5 as given. A word in a script written without spaces between words
//! (Chinese, Japanese, Thai, …) is looked for inside the indexed text, so `版本`
//! finds `版本号`: the word index keeps such a run of characters as one token,
//! and a trigram index cannot match the two-character words most Chinese words are.

/// A search's text, read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    /// The FTS5 query, when there is one (each word a phrase, or the text as given).
    pub fts: Option<String>,
    /// Text looked for inside the indexed text, each one required.
    pub inside: Vec<String>,
    /// The text uses the query syntax deliberately (passed on as given).
    pub syntax: bool,
}

/// Read `text` as a query.
pub fn read(text: &str) -> Query {
    let words: Vec<&str> = text.split_whitespace().collect();
    if deliberate(text, &words) {
        return Query {
            fts: Some(text.to_string()),
            inside: Vec::new(),
            syntax: true,
        };
    }
    let mut phrases = Vec::new();
    let mut inside = Vec::new();
    for w in words {
        // A word without a letter or digit has no token to match: looked for as written.
        if w.chars().any(unspaced) || !w.chars().any(char::is_alphanumeric) {
            inside.push(w.to_string());
        } else {
            phrases.push(format!("\"{w}\""));
        }
    }
    Query {
        fts: (!phrases.is_empty()).then(|| phrases.join(" ")),
        inside,
        syntax: false,
    }
}

/// The query syntax, used on purpose: a double quote, an operator in capitals,
/// `NEAR(`, or a word ending in `*`.
fn deliberate(text: &str, words: &[&str]) -> bool {
    text.contains('"')
        || words.iter().any(|w| {
            matches!(*w, "OR" | "AND" | "NOT" | "NEAR")
                || w.starts_with("NEAR(")
                || (w.len() > 1 && w.ends_with('*'))
        })
}

/// A character of a script written without spaces between words.
fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF       // Thai, Lao
        | 0x1000..=0x109F     // Myanmar
        | 0x1780..=0x17FF     // Khmer
        | 0x3040..=0x30FF     // Hiragana, Katakana
        | 0x31F0..=0x31FF     // Katakana extensions
        | 0x3400..=0x4DBF     // CJK extension A
        | 0x4E00..=0x9FFF     // CJK unified ideographs
        | 0xF900..=0xFAFF     // CJK compatibility ideographs
        | 0xFF66..=0xFF9F     // halfwidth Katakana
        | 0x20000..=0x2FA1F // CJK extensions B–F, compatibility supplement
    )
}

/// A `LIKE` pattern finding `text` anywhere (`\` escapes `%`, `_` and itself).
pub fn like_pattern(text: &str) -> String {
    let mut out = String::from("%");
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// A passage of `body` around the first `needle` (marked `[`…`]`), about
/// `context` characters either side, `…` where it is cut.
pub fn passage(body: &str, needle: &str, context: usize) -> String {
    let Some(at) = body.find(needle) else {
        return body.chars().take(context * 2).collect();
    };
    let before: Vec<char> = body[..at].chars().collect();
    let after: Vec<char> = body[at + needle.len()..].chars().collect();
    let start = before.len().saturating_sub(context);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(&before[start..]);
    out.push('[');
    out.push_str(needle);
    out.push(']');
    out.extend(after.iter().take(context));
    if after.len() > context {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everyday_words_are_phrases_and_syntax_is_kept() {
        let q = read("io-harness 0.22.0 C++ goal:x");
        assert_eq!(
            q.fts.as_deref(),
            Some("\"io-harness\" \"0.22.0\" \"C++\" \"goal:x\"")
        );
        assert!(q.inside.is_empty() && !q.syntax);
        for deliberate in ["\"a b\"", "a OR b", "NOT a", "NEAR(a b)", "harn*"] {
            let q = read(deliberate);
            assert_eq!(q.fts.as_deref(), Some(deliberate));
            assert!(q.syntax);
        }
        // Lower-case words are words.
        assert_eq!(
            read("this or that").fts.as_deref(),
            Some("\"this\" \"or\" \"that\"")
        );
    }

    #[test]
    fn unspaced_scripts_and_bare_signs_are_looked_for_inside() {
        let q = read("版本 release ++ バージョン");
        assert_eq!(q.fts.as_deref(), Some("\"release\""));
        assert_eq!(q.inside, ["版本", "++", "バージョン"]);
        assert_eq!(read("版本").fts, None);
        assert_eq!(like_pattern("50%_a\\"), "%50\\%\\_a\\\\%");
    }

    #[test]
    fn a_passage_marks_the_match() {
        assert_eq!(passage("查找版本号的发布", "版本", 2), "查找[版本]号的…");
        assert_eq!(passage("abcdef", "cd", 1), "…b[cd]e…");
        assert_eq!(passage("abc", "zz", 5), "abc");
    }
}
