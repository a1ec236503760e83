//! The `citations` table: the sources each step's answer drew on, written with
//! the step and read per run (its spawned children's included), across runs by
//! domain or text, and as the URLs a run cited (`core::record`).

use std::collections::HashMap;

use super::engine::{DbError, Row, params};
use super::{Store, db_err};
use crate::core::completion::Citation;
use crate::core::error::Result;
use crate::core::id::RunId;
use crate::core::record::cited_urls;
use crate::store::types::{CitationQuery, CitationRow};

impl Store {
    /// The URLs run `run_id` cited (its spawned children's included), in order,
    /// each as `core::record::cited_urls` defines them: a link `check-sources`
    /// followed (a Google redirect, under the policy) counts as the page it led to.
    pub fn cited_urls(&self, run_id: RunId) -> Result<Vec<String>> {
        let mut followed = HashMap::new();
        let mut runs = vec![run_id];
        runs.extend(self.children(run_id)?.into_iter().map(|c| c.run_id));
        for id in runs {
            followed.extend(
                self.verdicts(id)?
                    .into_iter()
                    .filter_map(|c| c.resolved_url.map(|r| (c.url, r))),
            );
        }
        let citations = self.citations_with_children(run_id)?;
        Ok(cited_urls(
            citations.iter().map(|c| c.url.as_str()),
            &followed,
        ))
    }

    /// A run's sources and its spawned children's (a child's sources belong to
    /// its parent's run too): the run's first, then each child's, oldest first.
    pub fn citations_with_children(&self, run_id: RunId) -> Result<Vec<CitationRow>> {
        let mut citations = self.citations(run_id)?;
        for child in self.children(run_id)? {
            citations.extend(self.citations(child.run_id)?);
        }
        Ok(citations)
    }

    /// The sources a run drew on, by step then as recorded.
    pub fn citations(&self, run_id: RunId) -> Result<Vec<CitationRow>> {
        self.lock()?
            .query_map(
                "SELECT run_id, step, url, title, cited_text FROM citations WHERE run_id = ?1 ORDER BY step, id",
                params![run_id],
                citation_row,
            )
            .map_err(db_err("reading citations"))
    }

    /// A run's citations with the time each step's answer was recorded (the
    /// step's first accounting row), for an export.
    pub fn citations_recorded(&self, run_id: RunId) -> Result<Vec<(CitationRow, Option<String>)>> {
        self.lock()?
            .query_map(
                "SELECT c.run_id, c.step, c.url, c.title, c.cited_text,
                   (SELECT p.created_at FROM provider_calls p
                     WHERE p.run_id = c.run_id AND p.step = c.step ORDER BY p.id LIMIT 1)
                 FROM citations c WHERE c.run_id = ?1 ORDER BY c.step, c.id",
                params![run_id],
                |r| Ok((citation_row(r)?, r.get::<Option<String>>(5)?)),
            )
            .map_err(db_err("reading citations"))
    }

    /// Citations across runs, newest runs first, by domain (`core::record`'s:
    /// the URL's domain or a subdomain of it, `www.` folded on both sides) and/or text (case-insensitive, in url, title or quote).
    pub fn search_citations(&self, query: &CitationQuery) -> Result<Vec<CitationRow>> {
        let conn = self.lock()?;
        let text = query.text.as_ref().map(|t| {
            format!(
                "%{}%",
                t.to_lowercase().replace('%', "\\%").replace('_', "\\_")
            )
        });
        let domain = query
            .domain
            .as_ref()
            .map(|d| d.trim().trim_start_matches("*.").to_ascii_lowercase())
            .map(|d| d.strip_prefix("www.").map_or(d.clone(), str::to_string));
        let like_domain = domain.as_ref().map(|d| format!("%{d}%"));
        // The host match is exact or a subdomain, checked below: with a domain
        // the SQL cannot stop at the limit.
        let sql_limit = match (&domain, query.limit) {
            (None, Some(l)) => i64::from(l),
            _ => i64::MAX,
        };
        let rows = conn
            .query_map(
                "SELECT run_id, step, url, title, cited_text FROM citations
                 WHERE (CAST(?1 AS TEXT) IS NULL OR lower(url) LIKE ?1 ESCAPE '\\'
                        OR lower(COALESCE(title, '')) LIKE ?1 ESCAPE '\\'
                        OR lower(COALESCE(cited_text, '')) LIKE ?1 ESCAPE '\\')
                   AND (CAST(?2 AS TEXT) IS NULL OR lower(url) LIKE ?2)
                 ORDER BY run_id DESC, step, id LIMIT ?3",
                params![text, like_domain, sql_limit],
                citation_row,
            )
            .map_err(db_err("searching citations"))?;
        let limit = query.limit.map_or(usize::MAX, |l| l as usize);
        let mut out = Vec::new();
        for row in rows {
            // The SQL prefilter is a substring; the host match is exact or a subdomain.
            if let Some(d) = &domain {
                if !crate::core::record::on_domain(&row.url, d) {
                    continue;
                }
            }
            out.push(row);
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }

    /// Record citations; a url already recorded for this run and step is skipped.
    /// Returns how many rows were new. Logged and swallowed on failure.
    pub fn record_citations(&self, run_id: RunId, step: u32, citations: &[Citation]) -> usize {
        let result = self.lock().and_then(|mut conn| {
            let tx = conn.transaction().map_err(db_err("starting a citation write"))?;
            // Only a URL new to this step is indexed (with each quote given for
            // it): one already recorded is already in the index.
            let mut added = std::collections::HashSet::new();
            for c in citations {
                if tx
                    .execute(
                        "INSERT INTO citations (run_id, step, url, title, cited_text) VALUES (?1, ?2, ?3, ?4, ?5)
                         ON CONFLICT DO NOTHING",
                        params![run_id, step, c.url, c.title, c.cited_text],
                    )
                    .map_err(db_err("recording a citation"))?
                    > 0
                {
                    added.insert(c.url.as_str());
                }
            }
            let new: Vec<Citation> = citations
                .iter()
                .filter(|c| added.contains(&c.url.as_str()))
                .cloned()
                .collect();
            super::search::index_citations(&tx, run_id, step, &new)?;
            tx.commit().map_err(db_err("committing citations"))?;
            Ok(added.len())
        });
        result.unwrap_or_else(|e| {
            tracing::warn!("run {run_id} step {step}: citations not written: {e}");
            0
        })
    }
}

fn citation_row(r: &Row) -> Result<CitationRow, DbError> {
    Ok(CitationRow {
        run_id: RunId(r.get(0)?),
        step: r.get(1)?,
        url: r.get(2)?,
        title: r.get(3)?,
        cited_text: r.get(4)?,
    })
}
