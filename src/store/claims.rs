//! What each source was cited for, stored and read back: a step's claims (the
//! spans of its answer the vendor tied citations to, and their URLs) written in
//! the step's transaction, and a run's final answer read sentence by sentence
//! with its sources, their verdicts and the three claim figures — the one read
//! `claims`, `compare`, the console and `Store::figures` share.

use serde::{Deserialize, Serialize};

use super::engine::{Conn, params};
use super::{Store, db_err};
use crate::core::claims::{ClaimFigures, ClaimSentence, by_sentence};
use crate::core::completion::Claim;
use crate::core::error::Result;
use crate::core::id::RunId;
use crate::core::record::final_answer;

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

/// One claim as `step_claims.claims_json` holds it.
#[derive(Serialize, Deserialize)]
struct Entry {
    start: usize,
    end: usize,
    text: String,
    urls: Vec<String>,
}

/// Replace step `step`'s claims with `claims` (spans into `text`): one row.
pub(super) fn write(
    tx: &Conn,
    run_id: RunId,
    step: u32,
    text: &str,
    claims: &[Claim],
) -> Result<()> {
    let what = db_err("recording a step's claims");
    if claims.is_empty() {
        // A step recorded again without claims keeps none of its earlier ones.
        return tx
            .execute(
                "DELETE FROM step_claims WHERE run_id = ?1 AND step = ?2",
                params![run_id, step],
            )
            .map(|_| ())
            .map_err(&what);
    }
    let entries: Vec<Entry> = claims
        .iter()
        .map(|c| Entry {
            start: c.start,
            end: c.end,
            text: c.text(text).to_string(),
            urls: c.urls.clone(),
        })
        .collect();
    let json = serde_json::to_string(&entries)
        .map_err(|e| crate::core::error::Error::store("encoding a step's claims", e))?;
    tx.execute(
        "INSERT INTO step_claims (run_id, step, claims_json) VALUES (?1, ?2, ?3)
         ON CONFLICT (run_id, step) DO UPDATE SET claims_json = excluded.claims_json",
        params![run_id, step, json],
    )
    .map(|_| ())
    .map_err(&what)
}

impl Store {
    /// A run's claims, by step and in the order given. A row that does not
    /// parse is an error naming the run and step.
    pub fn claims(&self, run_id: RunId) -> Result<Vec<ClaimRow>> {
        let rows = self
            .lock()?
            .query_map(
                "SELECT step, claims_json FROM step_claims WHERE run_id = ?1 ORDER BY step",
                params![run_id],
                |r| Ok((r.get::<u32>(0)?, r.get::<String>(1)?)),
            )
            .map_err(db_err("reading claims"))?;
        let mut out = Vec::new();
        for (step, json) in rows {
            let entries: Vec<Entry> = serde_json::from_str(&json).map_err(|e| {
                crate::core::error::Error::store_says(format!(
                    "run {run_id}: the stored claims of step {step} do not parse ({e})"
                ))
            })?;
            out.extend(entries.into_iter().map(|e| ClaimRow {
                step,
                claim: Claim {
                    start: e.start,
                    end: e.end,
                    urls: e.urls,
                },
                text: e.text,
            }));
        }
        Ok(out)
    }

    /// Run `run_id`'s final answer (its last step with text) sentence by
    /// sentence, each with the sources its step's claims give it and their
    /// verdicts, and the run's claim figures. A run without an answer has no
    /// sentences.
    pub fn run_claims(&self, run_id: RunId) -> Result<RunClaims> {
        let checks = self.verdicts(run_id)?;
        let steps = self.steps(run_id)?;
        let last = final_answer(&steps, |s| &s.text);
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
                        .map_or((None, None), |k| (Some(k.verdict), k.overlap))
                })
            }
            None => Vec::new(),
        };
        let figures = ClaimFigures::of(&claims, checks.iter().map(|k| k.verdict));
        Ok(RunClaims {
            run_id,
            claims,
            figures,
        })
    }
}
