//! Full-text search across every run (`search_index`, an FTS5 table): the goal,
//! the model's text per step, server-side tools' queries and fetched URLs, and
//! citations. Rows are indexed in the transaction that writes them — except a
//! private run's (`runs.private`: a run of a private eval, or spawned by one),
//! which are never indexed. Words are
//! searched as written (`core::query` reads the text: each word a phrase, a word
//! of a script written without spaces looked for inside the text); a query
//! that uses FTS5's syntax on purpose and cannot be parsed is a clear error
//! saying how to quote it, never SQL passed on.

use serde::Serialize;

use super::engine::{Conn, DbError, Value, params};
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

/// Whether `run` is private: nothing of it is indexed.
fn private(tx: &Conn, run: RunId) -> Result<bool> {
    tx.query_opt("SELECT private FROM runs WHERE run_id = ?1", params![run])
        .and_then(|r| r.map_or(Ok(false), |r| r.get::<bool>(0)))
        .map_err(db_err("indexing a run"))
}

pub(super) fn index_goal(tx: &Conn, run: RunId, goal: &str) -> Result<()> {
    if private(tx, run)? {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO search_index (kind, run_id, step, url, body) VALUES ('goal', ?1, 0, NULL, ?2)",
        params![run, goal],
    )
    .map_err(db_err("indexing a goal"))?;
    Ok(())
}

pub(super) fn index_step(
    tx: &Conn,
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
            params![run, step],
        )
        .map_err(db_err("indexing a step"))?;
    }
    if private(tx, run)? {
        return Ok(());
    }
    citation_rows(tx, run, step, citations)?;
    text_row(tx, run, step, text)?;
    query_rows(tx, run, step, server_tools)
}

fn insert(
    tx: &Conn,
    kind: &str,
    run: RunId,
    step: u32,
    url: Option<&str>,
    body: &str,
) -> Result<()> {
    tx.execute(
        "INSERT INTO search_index (kind, run_id, step, url, body) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![kind, run, step, url, body],
    )
    .map_err(db_err("indexing a step"))?;
    Ok(())
}

/// The model's text of a step, as a `text` row (none for an empty one; none
/// of a private run's).
pub(super) fn index_text(tx: &Conn, run: RunId, step: u32, text: &str) -> Result<()> {
    if private(tx, run)? {
        return Ok(());
    }
    text_row(tx, run, step, text)
}

fn text_row(tx: &Conn, run: RunId, step: u32, text: &str) -> Result<()> {
    if text.trim().is_empty() {
        return Ok(());
    }
    insert(tx, "text", run, step, None, text)
}

/// What each server-side tool call was asked (a query, or a URL to fetch), as
/// `query` rows (none of a private run's).
pub(super) fn index_queries(
    tx: &Conn,
    run: RunId,
    step: u32,
    server_tools: &[ServerToolCall],
) -> Result<()> {
    if private(tx, run)? {
        return Ok(());
    }
    query_rows(tx, run, step, server_tools)
}

fn query_rows(tx: &Conn, run: RunId, step: u32, server_tools: &[ServerToolCall]) -> Result<()> {
    for input in server_tools.iter().filter_map(|s| s.input.as_deref()) {
        insert(tx, "query", run, step, None, input)?;
    }
    Ok(())
}

/// A step's citations, as `citation` rows: every quote the vendor gave is
/// searchable (the `citations` table keeps the first of a URL's quotes in a
/// step), a citation given twice word for word indexed once; none of a
/// private run's.
pub(super) fn index_citations(
    tx: &Conn,
    run: RunId,
    step: u32,
    citations: &[Citation],
) -> Result<()> {
    if private(tx, run)? {
        return Ok(());
    }
    citation_rows(tx, run, step, citations)
}

fn citation_rows(tx: &Conn, run: RunId, step: u32, citations: &[Citation]) -> Result<()> {
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
/// be found) is one hit, its first in the order read; at most `limit`.
fn once_a_place(rows: Vec<Hit>, limit: usize) -> Vec<Hit> {
    let mut seen = std::collections::HashSet::new();
    let mut hits = Vec::new();
    for hit in rows {
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
    hits
}

/// `limit` hits once a place from `fetch(n)`, which reads at most `n` rows in
/// order: first `limit` rows, then four times as many while places repeated
/// and more rows may be there — so a search reads about as many rows as it
/// shows, on either engine, and never stops short of `limit` hits that exist.
fn widening<E>(
    limit: u32,
    mut fetch: impl FnMut(u32) -> std::result::Result<Vec<Hit>, E>,
) -> std::result::Result<Vec<Hit>, E> {
    let mut rows = limit;
    loop {
        let read = fetch(rows)?;
        let exhausted = read.len() < rows as usize || rows == u32::MAX;
        let hits = once_a_place(read, limit as usize);
        if exhausted || hits.len() >= limit as usize {
            return Ok(hits);
        }
        rows = rows.saturating_mul(4);
    }
}

impl Store {
    /// Whether run `run` is private (a private eval's, or spawned by one):
    /// nothing of it is indexed, and `export` leaves it out.
    pub fn is_private(&self, run: RunId) -> Result<bool> {
        private(&*self.lock()?, run)
    }

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
        #[cfg(feature = "postgres")]
        if self.lock()?.engine() == super::engine::Engine::Postgres {
            return self.search_postgres(q, &read);
        }
        // Rows are indexed in the order they are recorded, so the newest come
        // last: FTS5 walks its rowids backwards without sorting every match.
        // Best first needs a full-text match to rank by.
        let order = if q.rank && read.fts.is_some() {
            "rank"
        } else {
            "rowid DESC"
        };
        // The row limit (?2) is set by `widening`: the limit counts hits once
        // a place.
        let mut values: Vec<Value> =
            vec![q.run.map_or(Value::Null, |r| Value::Int(r.0)), Value::Null];
        let mut wheres = vec!["(?1 IS NULL OR run_id = ?1)".to_string()];
        if let Some(fts) = &read.fts {
            values.push(Value::Text(fts.clone()));
            wheres.push(format!("search_index MATCH ?{}", values.len()));
        }
        for inside in &read.inside {
            values.push(Value::Text(crate::core::query::like_pattern(inside)));
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
        let unparsable = |e: DbError| {
            let why = e.to_string();
            if e.is_sqlite_generic() {
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
        let marked = |body: String| match (&read.fts, read.inside.first()) {
            (None, Some(needle)) => crate::core::query::passage(&body, needle, 24),
            _ => body,
        };
        widening(q.limit, |rows| {
            values[1] = Value::Int(i64::from(rows));
            conn.query_map(&sql, &values, |r| {
                Ok(Hit {
                    run_id: RunId(r.get(0)?),
                    step: r.get(1)?,
                    kind: r.get(2)?,
                    url: r.get(3)?,
                    snippet: marked(r.get(4)?),
                })
            })
        })
        .map_err(unparsable)
    }
}

impl Store {
    /// `search` on PostgreSQL (`search_pg`), its refusal worded as here.
    #[cfg(feature = "postgres")]
    fn search_postgres(
        &self,
        q: &SearchQuery,
        read: &crate::core::query::Query,
    ) -> Result<Vec<Hit>> {
        use super::search_pg::{Failed, search};
        let conn = self.lock()?;
        let found = widening(q.limit, |rows| {
            search(&conn, read, q.run, rows, q.rank).map(|rows| {
                rows.into_iter()
                    .map(|(run_id, step, kind, url, snippet)| Hit {
                        run_id,
                        step,
                        kind,
                        url,
                        snippet,
                    })
                    .collect()
            })
        });
        match found {
            Ok(hits) => Ok(hits),
            Err(Failed::Unparsable(why)) => Err(Error::refused(format!(
                "cannot search for {:?}: {why}. To search for the words as written, put them in double quotes: {}",
                q.text,
                quoted(&q.text)
            ))),
            Err(Failed::Store(e)) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows whose places repeat (a URL quoted twice in a step): the row limit
    /// widens until `limit` hits are found, and stops when the rows run out.
    #[test]
    fn a_repeated_place_widens_the_rows_read_until_the_limit_is_found() {
        let rows: Vec<Hit> = (0..40)
            .map(|i| Hit {
                run_id: RunId(1),
                step: i / 4,
                kind: "citation".into(),
                url: Some(format!("https://example.com/{}", i / 4)),
                snippet: String::new(),
            })
            .collect();
        let mut asked = Vec::new();
        let hits = widening(3, |n| {
            asked.push(n);
            Ok::<_, ()>(rows.iter().take(n as usize).cloned().collect())
        })
        .unwrap_or_default();
        assert_eq!(hits.len(), 3);
        assert_eq!(asked, vec![3, 12]);
        let all = widening(20, |n| {
            Ok::<_, ()>(rows.iter().take(n as usize).cloned().collect())
        })
        .unwrap_or_default();
        assert_eq!(all.len(), 10, "ten places in all");
    }

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
