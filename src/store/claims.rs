//! What each source was cited for, stored and read back: a step's claims (the
//! spans of its answer the vendor tied citations to, and their URLs) written in
//! the step's transaction, and a run's final answer read sentence by sentence
//! with its sources, their verdicts and the three claim figures — the one read
//! `claims`, `compare`, the console and `Store::figures` share.

use rusqlite::{Transaction, params};
use serde::{Deserialize, Serialize};

use super::{Store, db_err};
use crate::core::claims::{ClaimFigures, ClaimSentence, by_sentence};
use crate::core::completion::Claim;
use crate::core::event::RunId;
use crate::error::Result;

/// One stored claim.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimRow {
    /// The step whose answer it is in.
    pub step: u32,
    /// Its span and URLs.
    pub claim: Claim,
    /// Its text.
    pub text: String,
}

/// A run's final answer sentence by sentence, and its claim figures: what
/// `claims --json` prints.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunClaims {
    /// The run.
    pub run_id: RunId,
    /// The final answer's sentences (the last step with text), each with its
    /// sources and their verdicts.
    pub claims: Vec<ClaimSentence>,
    /// The run's cited share, verified share and unsupported count.
    #[serde(flatten)]
    pub figures: ClaimFigures,
}

/// Replace step `step`'s claims with `claims` (spans into `text`).
pub(super) fn write(
    tx: &Transaction<'_>,
    run_id: RunId,
    step: u32,
    text: &str,
    claims: &[Claim],
) -> Result<()> {
    let what = db_err("recording a claim");
    tx.execute(
        "DELETE FROM claim_citations WHERE claim_id IN
           (SELECT claim_id FROM claims WHERE run_id = ?1 AND step = ?2)",
        params![run_id.0, step],
    )
    .map_err(&what)?;
    tx.execute(
        "DELETE FROM claims WHERE run_id = ?1 AND step = ?2",
        params![run_id.0, step],
    )
    .map_err(&what)?;
    if claims.is_empty() {
        return Ok(());
    }
    let mut claim = tx
        .prepare_cached(
            "INSERT INTO claims (run_id, step, start_byte, end_byte, text) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (run_id, step, start_byte, end_byte) DO UPDATE SET text = excluded.text
             RETURNING claim_id",
        )
        .map_err(&what)?;
    let mut cite = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO claim_citations (claim_id, position, url) VALUES (?1, ?2, ?3)",
        )
        .map_err(&what)?;
    for c in claims {
        let (start, end) = (c.start as i64, c.end as i64);
        let id: i64 = claim
            .query_row(params![run_id.0, step, start, end, c.text(text)], |r| {
                r.get(0)
            })
            .map_err(&what)?;
        for (i, url) in c.urls.iter().enumerate() {
            cite.execute(params![id, i as i64, url]).map_err(&what)?;
        }
    }
    Ok(())
}

impl Store {
    /// A run's claims, by step and position.
    pub fn claims(&self, run_id: RunId) -> Result<Vec<ClaimRow>> {
        let conn = self.lock()?;
        let mut stmt = conn
            .prepare(
                "SELECT k.claim_id, k.step, k.start_byte, k.end_byte, k.text, c.url
                 FROM claims k LEFT JOIN claim_citations c ON c.claim_id = k.claim_id
                 WHERE k.run_id = ?1 ORDER BY k.step, k.start_byte, k.end_byte, c.position",
            )
            .map_err(db_err("reading claims"))?;
        let rows = stmt
            .query_map([run_id.0], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, u32>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<String>>(5)?,
                ))
            })
            .map_err(db_err("reading claims"))?;
        let mut out: Vec<(i64, ClaimRow)> = Vec::new();
        for row in rows {
            let (id, step, start, end, text, url) = row.map_err(db_err("reading claims"))?;
            if out.last().is_none_or(|(last, _)| *last != id) {
                let claim = Claim {
                    start: usize::try_from(start).unwrap_or(0),
                    end: usize::try_from(end).unwrap_or(0),
                    urls: Vec::new(),
                };
                out.push((id, ClaimRow { step, claim, text }));
            }
            if let (Some(url), Some((_, c))) = (url, out.last_mut()) {
                c.claim.urls.push(url);
            }
        }
        Ok(out.into_iter().map(|(_, c)| c).collect())
    }

    /// Run `run_id`'s final answer (its last step with text) sentence by
    /// sentence, each with the sources its step's claims give it and their
    /// verdicts, and the run's claim figures. A run without an answer has no
    /// sentences.
    pub fn run_claims(&self, run_id: RunId) -> Result<RunClaims> {
        let checks = self.checks(run_id)?;
        let last = self
            .steps(run_id)?
            .into_iter()
            .rev()
            .find(|s| !s.text.trim().is_empty());
        let claims = match &last {
            Some(step) => {
                let claims: Vec<Claim> = self
                    .claims(run_id)?
                    .into_iter()
                    .filter(|c| c.step == step.step)
                    .map(|c| c.claim)
                    .collect();
                by_sentence(step.step, &step.text, &claims, |url| {
                    checks
                        .iter()
                        .find(|k| k.step == step.step && k.url == url)
                        .map_or((None, None), |k| (Some(k.verdict.clone()), k.overlap))
                })
            }
            None => Vec::new(),
        };
        let figures = ClaimFigures::of(&claims, checks.iter().map(|k| k.verdict.as_str()));
        Ok(RunClaims {
            run_id,
            claims,
            figures,
        })
    }
}
