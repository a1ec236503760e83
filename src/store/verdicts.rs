//! The verdicts `check-sources` reached, one per citation, written together in
//! one transaction (a check that fails before its verdicts changes nothing).

use serde::{Deserialize, Serialize};

use super::engine::params;
use super::{Store, db_err, now};
use crate::core::error::Result;
use crate::core::id::RunId;
use crate::core::verdict::Verdict;

/// One citation's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictRow {
    /// The run that cited it (set when recorded; a verdict belongs to its run,
    /// never to another run's citation of the same URL at the same step).
    #[serde(default)]
    pub run_id: RunId,
    /// The step that cited it.
    pub step: u32,
    /// The cited URL.
    pub url: String,
    /// What was found.
    pub verdict: Verdict,
    /// The status or error, the rule that refused, or what was looked for.
    pub detail: Option<String>,
    /// Where the vendor gave no quote: the share of the claim's content words
    /// found in the best-matching window of the page text, 0 to 1 — a lexical
    /// overlap, a hint and not proof. `None` where the vendor gave a quote, the
    /// page was not read, or no claim names the citation.
    #[serde(default)]
    pub overlap: Option<f64>,
    /// When it was checked (RFC 3339); set when recorded.
    #[serde(default)]
    pub checked_at: String,
    /// Where a redirecting link led, when it was followed (a Gemini citation's
    /// Google redirect resolved to its page); `None` for a link fetched as cited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_url: Option<String>,
}

impl Store {
    /// Record a run's verdicts, replacing earlier ones for the same citations;
    /// returns the time they were recorded with.
    pub fn record_verdicts(&self, run_id: RunId, checks: &[VerdictRow]) -> Result<String> {
        let mut conn = self.lock()?;
        let tx = conn
            .transaction()
            .map_err(db_err("starting a check's write"))?;
        let at = now();
        for c in checks {
            tx.execute(
                "INSERT INTO citation_checks (run_id, step, url, verdict, detail, checked_at,
                   resolved_url, overlap)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (run_id, step, url) DO UPDATE SET verdict = excluded.verdict,
                   detail = excluded.detail, checked_at = excluded.checked_at,
                   resolved_url = excluded.resolved_url, overlap = excluded.overlap",
                params![
                    run_id,
                    c.step,
                    c.url,
                    c.verdict,
                    c.detail,
                    at,
                    c.resolved_url,
                    c.overlap
                ],
            )
            .map_err(db_err("recording a check"))?;
        }
        tx.commit().map_err(db_err("committing checks"))?;
        Ok(at)
    }

    /// A run's recorded verdicts, by step and URL, each naming the run.
    pub fn verdicts(&self, run_id: RunId) -> Result<Vec<VerdictRow>> {
        self.lock()?
            .query_map(
                "SELECT step, url, verdict, detail, checked_at, resolved_url, overlap
                 FROM citation_checks
                 WHERE run_id = ?1 ORDER BY step, url",
                params![run_id],
                |r| {
                    Ok(VerdictRow {
                        run_id,
                        step: r.get(0)?,
                        url: r.get(1)?,
                        verdict: r.get(2)?,
                        detail: r.get(3)?,
                        checked_at: r.get(4)?,
                        resolved_url: r.get(5)?,
                        overlap: r.get(6)?,
                    })
                },
            )
            .map_err(db_err("reading checks"))
    }
}
