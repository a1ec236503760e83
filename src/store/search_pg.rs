//! Search on PostgreSQL, with the meaning it has on SQLite: the query FTS5
//! would read (`core::query`: words as written, "phrases", `OR`, `AND`, `NOT`,
//! `prefix*`) translated to a `tsquery` over the index's `words` (PostgreSQL's
//! own full-text search, a GIN index), and text looked for inside words
//! matched with `ILIKE` under the trigram index (`pg_trgm`). Words split as
//! FTS5's tokenizer splits them: every run of letters and digits is a word.
//! The passage shown is cut here, around the first word that matched, marked
//! `[`…`]` as FTS5's `snippet` marks it.

use super::engine::{Conn, Value};
use crate::core::error::Error;
use crate::core::id::RunId;
use crate::core::query::Query;

/// One hit as read: run, step, kind, URL, passage.
pub(crate) type RawHit = (RunId, u32, String, Option<String>, String);

/// Why a search found nothing to show.
pub(crate) enum Failed {
    /// The text is not a query: why.
    Unparsable(String),
    /// The store failed.
    Store(Error),
}

/// One piece of a query, read.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    /// Words in a row (`a <-> b`), the last perhaps a prefix.
    Words(Vec<String>, bool),
    Op(&'static str, &'static str),
    Open,
    Close,
}

/// The words of `text`: its runs of letters and digits, lowercased.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// FTS5's query syntax as a `tsquery`, with the words to mark in a passage;
/// `Err` says why the text is not a query.
pub(crate) fn tsquery(fts: &str) -> std::result::Result<(String, Vec<(String, bool)>), String> {
    let mut pieces = Vec::new();
    let mut chars = fts.chars().peekable();
    // Inside `NEAR(…)`, the distance after a comma is no word.
    let (mut near, mut after_comma) = (false, false);
    while let Some(&c) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '"' => {
                chars.next();
                let mut phrase = String::new();
                loop {
                    match chars.next() {
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            phrase.push('"');
                        }
                        Some('"') => break,
                        Some(c) => phrase.push(c),
                        None => return Err("unterminated string".into()),
                    }
                }
                let prefix = chars.peek() == Some(&'*');
                if prefix {
                    chars.next();
                }
                let w = words(&phrase);
                if w.is_empty() {
                    return Err(format!("the phrase \"{phrase}\" has no word to search for"));
                }
                pieces.push(Piece::Words(w, prefix));
            }
            '(' => {
                chars.next();
                pieces.push(Piece::Open);
            }
            ')' => {
                chars.next();
                pieces.push(Piece::Close);
                near = false;
            }
            _ => {
                let mut bare = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || matches!(c, '"' | '(' | ')') {
                        break;
                    }
                    bare.push(c);
                    chars.next();
                }
                let distance = near && after_comma && bare.chars().all(|c| c.is_ascii_digit());
                after_comma = bare.ends_with(',');
                match bare.as_str() {
                    _ if distance => {}
                    "OR" => pieces.push(Piece::Op("|", "OR")),
                    "AND" => pieces.push(Piece::Op("&", "AND")),
                    "NOT" => pieces.push(Piece::Op("& !", "NOT")),
                    // NEAR(a b, 10): its words, all of them (a group follows).
                    "NEAR" => near = true,
                    _ => {
                        let prefix = bare.ends_with('*');
                        let w = words(&bare);
                        if !w.is_empty() {
                            pieces.push(Piece::Words(w, prefix));
                        } else if bare != "," {
                            return Err(format!("syntax error near \"{bare}\""));
                        }
                    }
                }
            }
        }
    }
    assemble(&pieces)
}

/// The pieces as one `tsquery` (`&` between neighbours), checked.
fn assemble(pieces: &[Piece]) -> std::result::Result<(String, Vec<(String, bool)>), String> {
    let mut out = String::new();
    let mut marks = Vec::new();
    let mut depth = 0usize;
    // Whether the last piece ends an operand (so another operand needs `&`).
    let mut after_operand = false;
    for p in pieces {
        match p {
            Piece::Words(w, prefix) => {
                if after_operand {
                    out.push_str(" & ");
                }
                let last = w.len() - 1;
                let terms: Vec<String> = w
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let star = *prefix && i == last;
                        marks.push((t.clone(), star));
                        format!("'{t}'{}", if star { ":*" } else { "" })
                    })
                    .collect();
                out.push_str(&format!("({})", terms.join(" <-> ")));
                after_operand = true;
            }
            Piece::Op(op, word) => {
                if !after_operand {
                    return Err(format!("syntax error near \"{word}\""));
                }
                out.push_str(&format!(" {op} "));
                after_operand = false;
            }
            Piece::Open => {
                if after_operand {
                    out.push_str(" & ");
                }
                out.push('(');
                depth += 1;
                after_operand = false;
            }
            Piece::Close => {
                if depth == 0 || !after_operand {
                    return Err("syntax error near \")\"".into());
                }
                out.push(')');
                depth -= 1;
            }
        }
    }
    if depth > 0 || !after_operand {
        return Err("the query ends before it is complete".into());
    }
    Ok((out, marks))
}

/// A passage of `body` around the first word that matched (each matching word
/// marked `[`…`]`), about twelve words long, `…` where it is cut.
pub(crate) fn passage(body: &str, marks: &[(String, bool)]) -> String {
    let spans: Vec<(usize, usize)> = {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in body.char_indices() {
            match (c.is_alphanumeric(), start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    out.push((s, i));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            out.push((s, body.len()));
        }
        out
    };
    let hit = |(s, e): (usize, usize)| {
        let w = body[s..e].to_lowercase();
        marks.iter().any(|(m, prefix)| {
            if *prefix {
                w.starts_with(m.as_str())
            } else {
                w == *m
            }
        })
    };
    let Some(first) = spans.iter().position(|s| hit(*s)) else {
        return body.chars().take(48).collect();
    };
    let from = first.saturating_sub(4);
    let to = (from + 12).min(spans.len());
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    let mut at = spans[from].0;
    for &(s, e) in &spans[from..to] {
        out.push_str(&body[at..s]);
        if hit((s, e)) {
            out.push('[');
            out.push_str(&body[s..e]);
            out.push(']');
        } else {
            out.push_str(&body[s..e]);
        }
        at = e;
    }
    if to < spans.len() {
        out.push('…');
    } else {
        out.push_str(&body[at..]);
    }
    out
}

/// The hits for a search (its text read as `read`), only run `run`'s when
/// given, at most `limit`, newest first or best first (`rank`).
pub(crate) fn search(
    conn: &Conn,
    read: &Query,
    run: Option<RunId>,
    limit: u32,
    rank: bool,
) -> Result<Vec<RawHit>, Failed> {
    let mut values = vec![
        run.map_or(Value::Null, |r| Value::Int(r.0)),
        Value::Int(i64::from(limit)),
    ];
    let mut wheres = vec!["(CAST(?1 AS BIGINT) IS NULL OR run_id = ?1)".to_string()];
    let mut marks = Vec::new();
    let mut order = "id DESC".to_string();
    if let Some(fts) = &read.fts {
        let (query, m) = tsquery(fts).map_err(Failed::Unparsable)?;
        marks = m;
        values.push(Value::Text(query));
        let n = values.len();
        let tsq = format!("to_tsquery('simple', unaccent('unaccent'::regdictionary, ?{n}))");
        wheres.push(format!("words @@ {tsq}"));
        if rank {
            order = format!("ts_rank(words, {tsq}) DESC, id DESC");
        }
    }
    for inside in &read.inside {
        values.push(Value::Text(crate::core::query::like_pattern(inside)));
        wheres.push(format!("body ILIKE ?{} ESCAPE '\\'", values.len()));
    }
    let sql = format!(
        "SELECT run_id, step, kind,
                CASE WHEN url IS NULL AND kind = 'query'
                      AND (body LIKE 'http://%' OR body LIKE 'https://%')
                     THEN body ELSE url END,
                body
         FROM search_index WHERE {}
         ORDER BY {order} LIMIT ?2",
        wheres.join(" AND ")
    );
    let marked = |body: String| match (&read.fts, read.inside.first()) {
        (None, Some(needle)) => crate::core::query::passage(&body, needle, 24),
        _ => passage(&body, &marks),
    };
    conn.query_map(&sql, &values, |r| {
        Ok((
            RunId(r.get(0)?),
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            marked(r.get(4)?),
        ))
    })
    .map_err(|e| Failed::Store(Error::store("searching", e)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn tq(s: &str) -> String {
        tsquery(s)
            .map(|(q, _)| q)
            .unwrap_or_else(|e| format!("ERR {e}"))
    }

    #[test]
    fn fts5_syntax_reads_as_the_same_tsquery() {
        assert_eq!(
            tq("\"io-harness\" \"0.22.0\""),
            "('io' <-> 'harness') & ('0' <-> '22' <-> '0')"
        );
        assert_eq!(tq("rust OR go"), "('rust') | ('go')");
        assert_eq!(tq("rust NOT go"), "('rust') & ! ('go')");
        assert_eq!(tq("harn*"), "('harn':*)");
        assert_eq!(tq("\"a b\"*"), "('a' <-> 'b':*)");
        assert_eq!(tq("(a OR b) c"), "(('a') | ('b')) & ('c')");
        assert_eq!(tq("NEAR(a b, 5)"), "(('a') & ('b'))");
        assert_eq!(tq("Café"), "('café')");
    }

    #[test]
    fn a_query_that_does_not_parse_says_why() {
        assert_eq!(tq("\"unclosed"), "ERR unterminated string");
        assert_eq!(tq("a OR"), "ERR the query ends before it is complete");
        assert_eq!(tq("OR a"), "ERR syntax error near \"OR\"");
        assert_eq!(tq("(a"), "ERR the query ends before it is complete");
        assert_eq!(
            tq("\"++\""),
            "ERR the phrase \"++\" has no word to search for"
        );
    }

    #[test]
    fn the_passage_marks_the_words_that_matched() {
        let body =
            "one two three four five six seven eight nine ten eleven twelve thirteen fourteen";
        assert_eq!(
            passage(body, &[("seven".into(), false)]),
            "…three four five six [seven] eight nine ten eleven twelve thirteen fourteen"
        );
        assert_eq!(
            passage("See docs.rs for more", &[("docs".into(), false)]),
            "See [docs].rs for more"
        );
        assert_eq!(
            passage("Harness here", &[("harn".into(), true)]),
            "[Harness] here"
        );
    }
}
