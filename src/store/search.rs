//! Full-text search across every run (`search_index`, an FTS5 table): the goal,
//! the model's text per step, server-side tools' queries and fetched URLs, and
//! citations. Rows are indexed in the transaction that writes them. Words are
//! searched as written (`core::query` reads the text: each word a phrase, a word
//! of a script written without spaces looked for inside the text); a query
//! that uses FTS5's syntax on purpose and cannot be parsed is a clear error
//! saying how to quote it, never SQL passed on.

use rusqlite::{Connection, params};
use serde::Serialize;

use super::{Store, db_err};
use crate::core::completion::{Citation, ServerToolCall};
use crate::core::error::{Error, Result};
use crate::core::id::RunId;

/// One match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hit {
    /// The run.
    pub run_id: RunId,
    /// The step (0 for the goal).
    pub step: u32,
    /// What matched: `goal`, `text`, `query` or `citation`.
    pub kind: String,
    /// The URL: a citation's, or the page a server-side fetch was asked for.
    pub url: Option<String>,
    /// The matching passage, the match in `[` `]`.
    pub snippet: String,
}

/// What to search.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    /// The words to find (as written), or an FTS5 query using its syntax on
    /// purpose (a "phrase", OR, NOT, NEAR, prefix*).
    pub text: String,
    /// At most this many hits.
    pub limit: u32,
    /// Only this run's.
    pub run: Option<RunId>,
    /// Best match first instead of newest first.
    pub rank: bool,
}

pub(super) fn index_goal(tx: &Connection, run: RunId, goal: &str) -> Result<()> {
    tx.execute(
        "INSERT INTO search_index (kind, run_id, step, url, body) VALUES ('goal', ?1, 0, NULL, ?2)",
        params![run.0, goal],
    )
    .map_err(db_err("indexing a goal"))?;
    Ok(())
}

pub(super) fn index_step(
    tx: &Connection,
    run: RunId,
    step: u32,
    resent: bool,
    text: &str,
    server_tools: &[ServerToolCall],
    citations: &[Citation],
) -> Result<()> {
    // A re-sent step replaces what its earlier recording indexed (a scan of the
    // index, so only then: a first recording has nothing to replace).
    if resent {
        tx.execute(
            "DELETE FROM search_index WHERE run_id = ?1 AND step = ?2 AND kind <> 'goal'",
            params![run.0, step],
        )
        .map_err(db_err("indexing a step"))?;
    }
    index_citations(tx, run, step, citations)?;
    index_text(tx, run, step, text)?;
    index_queries(tx, run, step, server_tools)
}

fn insert(
    tx: &Connection,
    kind: &str,
    run: RunId,
    step: u32,
    url: Option<&str>,
    body: &str,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO search_index (kind, run_id, step, url, body) VALUES (?1, ?2, ?3, ?4, ?5)",
    )
    .and_then(|mut stmt| stmt.execute(params![kind, run.0, step, url, body]))
    .map_err(db_err("indexing a step"))?;
    Ok(())
}

/// The model's text of a step, as a `text` row (none for an empty one).
pub(super) fn index_text(tx: &Connection, run: RunId, step: u32, text: &str) -> Result<()> {
    if text.trim().is_empty() {
        return Ok(());
    }
    insert(tx, "text", run, step, None, text)
}

/// What each server-side tool call was asked (a query, or a URL to fetch), as
/// `query` rows.
pub(super) fn index_queries(
    tx: &Connection,
    run: RunId,
    step: u32,
    server_tools: &[ServerToolCall],
) -> Result<()> {
    for input in server_tools.iter().filter_map(|s| s.input.as_deref()) {
        insert(tx, "query", run, step, None, input)?;
    }
    Ok(())
}

/// A step's citations, as `citation` rows: every quote the vendor gave is
/// searchable (the `citations` table keeps the first of a URL's quotes in a
/// step), a citation given twice word for word indexed once.
pub(super) fn index_citations(
    tx: &Connection,
    run: RunId,
    step: u32,
    citations: &[Citation],
) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for c in citations
        .iter()
        .filter(|c| seen.insert((c.url.as_str(), c.title.as_deref(), c.cited_text.as_deref())))
    {
        let body = format!(
            "{} {} {}",
            c.url,
            c.title.as_deref().unwrap_or_default(),
            c.cited_text.as_deref().unwrap_or_default()
        );
        insert(tx, "citation", run, step, Some(&c.url), &body)?;
    }
    Ok(())
}

/// The most terms a query may have: FTS5's time grows with them (a query of
/// 20,000 words took 9 s), and no one searches with more than a few.
pub const MAX_TERMS: usize = 64;

/// The terms FTS5 would read in `text`: each run of letters and digits (its
/// tokenizer splits on everything else, so `a.b.c` is three). Operators count.
fn terms(text: &str) -> usize {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .count()
}

/// FTS5's reason, in words: `a:b` reads as column `a`, and the index's only
/// searchable column is the text itself.
fn fts_reason(why: &str) -> String {
    match why.strip_prefix("no such column: ") {
        Some(col) => format!(
            "FTS5 reads \"{col}:\" as the name of a column, and the index has none called {col:?}"
        ),
        None => why.to_string(),
    }
}

/// `text` as one FTS5 phrase (a `"` doubled inside it), written for a POSIX shell:
/// in single quotes, each `'` closed, escaped and reopened.
fn quoted(text: &str) -> String {
    let phrase = format!("\"{}\"", text.replace('"', "\"\""));
    format!("'{}'", phrase.replace('\'', "'\\''"))
}

/// One hit a place: a URL cited twice in a step (two quotes, each indexed to
/// be found) is one hit, its first in the order read. Rows are read only until
/// `limit` hits are found.
fn once_a_place(
    rows: impl Iterator<Item = rusqlite::Result<Hit>>,
    limit: usize,
) -> rusqlite::Result<Vec<Hit>> {
    let mut seen = std::collections::HashSet::new();
    let mut hits = Vec::new();
    for row in rows {
        let hit = row?;
        let place = hit
            .url
            .clone()
            .map(|u| (hit.run_id, hit.step, hit.kind.clone(), u));
        if place.is_none_or(|p| seen.insert(p)) {
            hits.push(hit);
        }
        if hits.len() >= limit {
            break;
        }
    }
    Ok(hits)
}

impl Store {
    /// Hits for `q`, most recently recorded first (or best first with `rank`),
    /// one a place (run, step, kind, URL), at most `q.limit`.
    pub fn search(&self, q: &SearchQuery) -> Result<Vec<Hit>> {
        if q.text.trim().is_empty() {
            return Err(Error::refused(
                "nothing to search for: give a word or a phrase (`io-harness search QUERY`)",
            ));
        }
        let n = terms(&q.text);
        if n > MAX_TERMS {
            return Err(Error::refused(format!(
                "the query has {n} terms; search takes at most {MAX_TERMS}: search for fewer words"
            )));
        }
        if q.limit == 0 {
            return Err(Error::refused(
                "--limit 0 would show no hits; give 1 or more (default 20)",
            ));
        }
        let read = crate::core::query::read(&q.text);
        // Rows are indexed in the order they are recorded, so the newest come
        // last: FTS5 walks its rowids backwards without sorting every match.
        // Best first needs a full-text match to rank by.
        let order = if q.rank && read.fts.is_some() {
            "rank"
        } else {
            "rowid DESC"
        };
        // No row limit (-1): the limit counts hits once each, below.
        let mut values: Vec<rusqlite::types::Value> =
            vec![q.run.map(|r| r.0).into(), (-1i64).into()];
        let mut wheres = vec!["(?1 IS NULL OR run_id = ?1)".to_string()];
        if let Some(fts) = &read.fts {
            values.push(fts.clone().into());
            wheres.push(format!("search_index MATCH ?{}", values.len()));
        }
        for inside in &read.inside {
            values.push(crate::core::query::like_pattern(inside).into());
            wheres.push(format!("body LIKE ?{} ESCAPE '\\'", values.len()));
        }
        let passage = if read.fts.is_some() {
            "snippet(search_index, 4, '[', ']', '…', 12)"
        } else {
            "body"
        };
        let sql = format!(
            "SELECT run_id, step, kind,
                    CASE WHEN url IS NULL AND kind = 'query'
                          AND (body LIKE 'http://%' OR body LIKE 'https://%')
                         THEN body ELSE url END,
                    {passage}
             FROM search_index WHERE {}
             ORDER BY {order} LIMIT ?2",
            wheres.join(" AND ")
        );
        let conn = self.lock()?;
        // FTS5 answers a query it cannot parse with SQLITE_ERROR ("fts5: syntax
        // error near …", "unterminated string", "no such column"); a busy or broken
        // store has codes of its own.
        let unparsable = |e: rusqlite::Error| {
            let why = e.to_string();
            let generic = matches!(
                &e,
                rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::Unknown
            );
            if generic {
                Error::refused(format!(
                    "cannot search for {:?}: {}. To search for the words as written, put them in double quotes: {}",
                    q.text,
                    fts_reason(&why),
                    quoted(&q.text)
                ))
            } else {
                Error::store("searching", e)
            }
        };
        let mut stmt = conn.prepare(&sql).map_err(unparsable)?;
        let marked = |body: String| match (&read.fts, read.inside.first()) {
            (None, Some(needle)) => crate::core::query::passage(&body, needle, 24),
            _ => body,
        };
        let rows = stmt
            .query_map(rusqlite::params_from_iter(values.iter()), |r| {
                Ok(Hit {
                    run_id: RunId(r.get(0)?),
                    step: r.get(1)?,
                    kind: r.get(2)?,
                    url: r.get(3)?,
                    snippet: marked(r.get(4)?),
                })
            })
            .map_err(unparsable)?;
        once_a_place(rows, q.limit as usize).map_err(unparsable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_counted_as_fts5_splits_them() {
        assert_eq!(terms("io-harness \"a phrase\" OR docs.rs*"), 7);
        assert_eq!(terms("  "), 0);
        assert_eq!(terms("release 0.22"), 3);
    }

    #[test]
    fn the_advice_quotes_for_fts5_and_for_the_shell() {
        assert_eq!(quoted("docs.rs/b"), "'\"docs.rs/b\"'");
        assert_eq!(quoted("\"unclosed"), "'\"\"\"unclosed\"'");
        // A single quote: closed, escaped, reopened ('"it'\''s"').
        assert_eq!(quoted("it's"), "'\"it'\\''s\"'");
        assert_eq!(
            fts_reason("no such column: goal"),
            "FTS5 reads \"goal:\" as the name of a column, and the index has none called \"goal\""
        );
    }
}
