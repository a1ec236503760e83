//! Full-text search across every run (`search_index`, an FTS5 table): the goal,
//! the model's text per step, server-side tools' queries and fetched URLs, and
//! citations. Rows are indexed in the transaction that writes them; a query that
//! FTS5 cannot parse is a clear error saying how to quote it, never SQL passed on.

use rusqlite::{Connection, params};
use serde::Serialize;

use super::{Store, db_err};
use crate::core::completion::{Citation, ServerToolCall};
use crate::core::event::RunId;
use crate::error::{Error, Result};

/// One match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hit {
    /// The run.
    pub run_id: RunId,
    /// The step (0 for the goal).
    pub step: u32,
    /// What matched: `goal`, `text`, `query` or `citation`.
    pub kind: String,
    /// The URL, for a citation.
    pub url: Option<String>,
    /// The matching passage, the match in `[` `]`.
    pub snippet: String,
}

/// What to search.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    /// FTS5 query text.
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
    let insert = |kind: &str, url: Option<&str>, body: &str| {
        tx.execute(
            "INSERT INTO search_index (kind, run_id, step, url, body) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![kind, run.0, step, url, body],
        )
        .map_err(db_err("indexing a step"))
    };
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
    if !text.trim().is_empty() {
        insert("text", None, text)?;
    }
    for s in server_tools {
        if let Some(input) = &s.input {
            insert("query", None, input)?;
        }
    }
    Ok(())
}

/// A step's citations, as `citation` rows.
pub(super) fn index_citations(
    tx: &Connection,
    run: RunId,
    step: u32,
    citations: &[Citation],
) -> Result<()> {
    for c in citations {
        let body = format!(
            "{} {} {}",
            c.url,
            c.title.as_deref().unwrap_or_default(),
            c.cited_text.as_deref().unwrap_or_default()
        );
        tx.execute(
            "INSERT INTO search_index (kind, run_id, step, url, body) VALUES ('citation', ?1, ?2, ?3, ?4)",
            params![run.0, step, c.url, body],
        )
        .map_err(db_err("indexing a citation"))?;
    }
    Ok(())
}

impl Store {
    /// Hits for `q`, newest run first (or best first with `rank`).
    pub fn search(&self, q: &SearchQuery) -> Result<Vec<Hit>> {
        if q.text.trim().is_empty() {
            return Err(Error::config(
                "nothing to search for: give a word or a phrase (`io-harness search QUERY`)",
            ));
        }
        // Rows are indexed in the order they are recorded, so the newest come
        // last: FTS5 walks its rowids backwards without sorting every match.
        let order = if q.rank { "rank" } else { "rowid DESC" };
        let sql = format!(
            "SELECT run_id, step, kind, url, snippet(search_index, 4, '[', ']', '…', 12)
             FROM search_index WHERE search_index MATCH ?1 AND (?2 IS NULL OR run_id = ?2)
             ORDER BY {order} LIMIT ?3"
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
                Error::config(format!(
                    "cannot search for {:?}: {why}. To search for the words as written, put them in double quotes: '\"{}\"'",
                    q.text,
                    q.text.replace('"', "\"\"")
                ))
            } else {
                Error::Store(format!("searching: {why}"))
            }
        };
        let mut stmt = conn.prepare(&sql).map_err(unparsable)?;
        let rows = stmt
            .query_map(params![q.text, q.run.map(|r| r.0), q.limit], |r| {
                Ok(Hit {
                    run_id: RunId(r.get(0)?),
                    step: r.get(1)?,
                    kind: r.get(2)?,
                    url: r.get(3)?,
                    snippet: r.get(4)?,
                })
            })
            .map_err(unparsable)?;
        rows.collect::<rusqlite::Result<_>>().map_err(unparsable)
    }
}
