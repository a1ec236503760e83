//! The `steps` table with a run's checkpoints and transcript exchanges: a step
//! read back, its answer and observations, the search suggestions it showed.
//! A step recorded whole or not at all: its accounting row, server-tool rows,
//! citations, claims, step row and checkpoint (and, for the last step, the run's outcome)
//! in one transaction, so a process killed anywhere in a step leaves either the
//! whole step or none of it, and a resume never charges a step twice.
//!
//! Before each request the checkpoint's `sent` counter goes up by one; a resumed
//! run that re-sends a step's request therefore knows which attempt it makes, and
//! records it in `provider_calls.step_attempt` (2+ marks a re-sent step: the
//! earlier request was really sent and may have been billed, but its answer was
//! never recorded).

use super::db::stored;
use super::engine::params;
use super::runs::outcome_detail;
use super::{Store, db_err, now};
use crate::core::completion::{Citation, Claim, ServerToolCall};
use crate::core::error::{Error, Result};
use crate::core::id::RunId;
use crate::core::outcome::RunOutcome;
use crate::core::transcript::Exchange;
use crate::store::types::{CHECKPOINT_FORMAT, StepRow};
use crate::store::types::{Checkpoint, ProviderCall};

/// Everything one step writes.
#[derive(Debug, Clone, Copy)]
pub struct StepRecord<'a> {
    /// The step, from 1.
    pub step: u32,
    /// Which sending of this step's request answered (1 unless re-sent on resume).
    pub attempt: u32,
    /// The completion's accounting.
    pub call: &'a ProviderCall,
    /// Provider-executed tool calls, ok and failed.
    pub server_tools: &'a [ServerToolCall],
    /// Citations (a url already recorded for this run and step is skipped).
    pub citations: &'a [Citation],
    /// What each citation was cited for: spans of `text` and their URLs
    /// (replacing the step's earlier claims).
    pub claims: &'a [Claim],
    /// The completion's text.
    pub text: &'a str,
    /// The observations the step produced.
    pub observations: &'a [String],
    /// In a transcript, the step's exchange: the answer's own blocks and what goes
    /// back (`exchanges`, read back on resume).
    pub exchange: Option<&'a Exchange>,
    /// The search suggestions the vendor asked to be shown beside the answer
    /// (Gemini's `searchEntryPoint.renderedContent`, HTML as sent).
    pub search_suggestions: Option<&'a str>,
}

/// The wire's io.toml-style name (`anthropic-2025`), for a reader of the table.
fn wire_name(e: &Exchange) -> String {
    serde_json::to_value(e.wire)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

impl Store {
    /// Record one step whole, with the checkpoint that follows it and, when the
    /// step ended the run, its outcome.
    pub fn record_step_whole(
        &self,
        run_id: RunId,
        record: &StepRecord<'_>,
        checkpoint: &Checkpoint,
        outcome: Option<&RunOutcome>,
    ) -> Result<()> {
        let body = serde_json::to_string(checkpoint)
            .map_err(|e| Error::store("encoding the checkpoint", e))?;
        let obs = serde_json::to_string(record.observations)
            .map_err(|e| Error::store("encoding the observations", e))?;
        let mut conn = self.lock()?;
        let tx = conn
            .transaction()
            .map_err(db_err("starting a step's write"))?;
        let (run, step, c) = (run_id, record.step, record.call);
        let u = c.usage.unwrap_or_default();
        tx.execute(
            "INSERT INTO provider_calls (run_id, step, provider, model, input_tokens, output_tokens,
               server_tool_requests, has_usage, stop_reason, latency_ms, request_id, created_at, step_attempt,
               cache_write_tokens, cache_read_tokens, web_fetch_requests, reported_cost_micro_usd,
               cache_write_1h_tokens, endpoint, response_id, finish_reason, server_tool_calls_cut,
               searches_cut, fetches_cut, citations_cut, claim_links_cut)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
               ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)",
            params![run, step, c.provider, c.model, stored(u.input_tokens), stored(u.output_tokens),
                    stored(u.server_tool_requests), c.usage.is_some(), c.stop_reason,
                    stored(c.latency_ms), c.request_id, now(), record.attempt,
                    stored(u.cache_write_tokens), stored(u.cache_read_tokens), stored(u.web_fetch_requests),
                    u.reported_cost_micro_usd.map(stored), stored(u.cache_write_1h_tokens),
                    c.endpoint, c.response_id, c.finish_reason, stored(c.cut.server_tool_calls),
                    stored(c.cut.searches), stored(c.cut.fetches), stored(c.cut.citations),
                    stored(c.cut.claim_links)],
        )
        .map_err(db_err("recording a provider call"))?;
        for s in record.server_tools {
            tx.execute(
                "INSERT INTO server_tool_calls (run_id, step, provider, tool, error, input) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![run, step, s.provider, s.tool, s.error, s.input],
            )
            .map_err(db_err("recording a server-tool call"))?;
        }
        for x in record.citations {
            tx.execute(
                "INSERT INTO citations (run_id, step, url, title, cited_text) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT DO NOTHING",
                params![run, step, x.url, x.title, x.cited_text],
            )
            .map_err(db_err("recording a citation"))?;
        }
        tx.execute(
            "INSERT INTO steps (run_id, step, text, observations_json, search_suggestions)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (run_id, step) DO UPDATE SET text = excluded.text,
               observations_json = excluded.observations_json,
               search_suggestions = excluded.search_suggestions",
            params![run, step, record.text, obs, record.search_suggestions],
        )
        .map_err(db_err("recording a step"))?;
        super::claims::write(&tx, run_id, step, record.text, record.claims)?;
        super::search::index_step(
            &tx,
            run_id,
            step,
            record.attempt > 1,
            record.text,
            record.server_tools,
            record.citations,
        )?;
        if let Some(e) = record.exchange {
            let json =
                serde_json::to_string(e).map_err(|e| Error::store("encoding the exchange", e))?;
            tx.execute(
                "INSERT INTO exchanges (run_id, step, wire, exchange_json) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (run_id, step) DO UPDATE SET wire = excluded.wire, exchange_json = excluded.exchange_json",
                params![run, step, wire_name(e), json],
            )
            .map_err(db_err("recording a step's exchange"))?;
        }
        tx.execute(
            "INSERT INTO checkpoints (run_id, format, step, body_json, saved_at, sent) VALUES (?1, ?2, ?3, ?4, ?5, 0)
             ON CONFLICT (run_id) DO UPDATE SET format = excluded.format, step = excluded.step,
               body_json = excluded.body_json, saved_at = excluded.saved_at, sent = 0",
            params![run, checkpoint.format, checkpoint.step, body, now()],
        )
        .map_err(db_err("saving a checkpoint"))?;
        if let Some(outcome) = outcome {
            tx.execute(
                "UPDATE runs SET finished_at = ?2, outcome = ?3, outcome_detail = ?4 WHERE run_id = ?1",
                params![run, now(), outcome.label(), outcome_detail(outcome)],
            )
            .map_err(db_err("recording a run's outcome"))?;
        }
        tx.commit().map_err(db_err("committing a step"))?;
        drop(conn);
        if outcome.is_some() {
            self.release(run_id);
        }
        Ok(())
    }

    /// A transcript's exchanges through `upto` (the checkpoint's step), in order. A
    /// stored exchange that does not parse is an error naming the run and step.
    pub fn exchanges(&self, run_id: RunId, upto: u32) -> Result<Vec<Exchange>> {
        let rows = self
            .lock()?
            .query_map(
                "SELECT step, exchange_json FROM exchanges WHERE run_id = ?1 AND step <= ?2 ORDER BY step",
                params![run_id, upto],
                |r| Ok((r.get::<u32>(0)?, r.get::<String>(1)?)),
            )
            .map_err(db_err("reading a transcript"))?;
        let mut out = Vec::new();
        for (step, json) in rows {
            let exchange = serde_json::from_str(&json).map_err(|e| {
                Error::store_says(format!(
                    "run {run_id}: the stored transcript of step {step} does not parse ({e}); \
                     nothing was sent — the run cannot be resumed, start it again"
                ))
            })?;
            out.push(exchange);
        }
        Ok(out)
    }

    /// The step numbers a run has rows for in `steps` and in `exchanges`, each in
    /// ascending order: what a resume checks against its checkpoint.
    pub fn stored_steps(&self, run_id: RunId) -> Result<(Vec<u32>, Vec<u32>)> {
        let conn = self.lock()?;
        let numbers = |table: &str| -> Result<Vec<u32>> {
            conn.query_map(
                &format!("SELECT step FROM {table} WHERE run_id = ?1 ORDER BY step"),
                params![run_id],
                |r| r.get::<u32>(0),
            )
            .map_err(db_err("reading a run's steps"))
        };
        Ok((numbers("steps")?, numbers("exchanges")?))
    }

    /// Count one more request sent for the step after the checkpoint's; the attempt
    /// number this request is (1 for a first sending).
    pub fn mark_request_sent(&self, run_id: RunId) -> Result<u32> {
        let conn = self.lock()?;
        // A run without a checkpoint (one begun bare) sends its first attempt.
        conn.query_opt(
            "UPDATE checkpoints SET sent = sent + 1 WHERE run_id = ?1 RETURNING sent",
            params![run_id],
        )
        .and_then(|r| r.map_or(Ok(1), |r| r.get::<i64>(0)))
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
        .map_err(db_err("marking a request as sent"))
    }

    /// A run's steps, in order.
    pub fn steps(&self, run_id: RunId) -> Result<Vec<StepRow>> {
        self.lock()?
            .query_map(
                "SELECT step, text, observations_json FROM steps WHERE run_id = ?1 ORDER BY step",
                params![run_id],
                |r| {
                    let obs: String = r.get(2)?;
                    Ok(StepRow {
                        run_id,
                        step: r.get(0)?,
                        text: r.get(1)?,
                        observations: serde_json::from_str(&obs).unwrap_or_default(),
                    })
                },
            )
            .map_err(db_err("reading steps"))
    }

    /// Each step's search suggestions as the vendor sent them (Google's HTML),
    /// for the steps that had any, in step order.
    pub fn step_suggestions(&self, run_id: RunId) -> Result<Vec<(u32, String)>> {
        self.lock()?
            .query_map(
                "SELECT step, search_suggestions FROM steps
                 WHERE run_id = ?1 AND search_suggestions IS NOT NULL ORDER BY step",
                params![run_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(db_err("reading search suggestions"))
    }

    /// The search suggestions a run's steps were given to show (Google Search
    /// suggestions, read out of the HTML Google sent), in step order, each once.
    pub fn search_suggestions(
        &self,
        run_id: RunId,
    ) -> Result<Vec<crate::core::suggestions::Suggestion>> {
        let html = self
            .lock()?
            .query_map(
                "SELECT search_suggestions FROM steps
                 WHERE run_id = ?1 AND search_suggestions IS NOT NULL ORDER BY step",
                params![run_id],
                |r| r.get::<String>(0),
            )
            .map_err(db_err("reading search suggestions"))?;
        // Each link once across the steps, found in a set (not by a scan).
        let mut seen = std::collections::HashSet::new();
        let out = html
            .iter()
            .flat_map(|h| crate::core::suggestions::suggestions(h))
            .filter(|s| seen.insert(s.url.clone()))
            .collect();
        Ok(out)
    }

    /// Record (or replace) one step's answer text and the observations it produced.
    pub fn record_step(
        &self,
        run_id: RunId,
        step: u32,
        text: &str,
        observations: &[String],
    ) -> Result<()> {
        let obs = serde_json::to_string(observations)
            .map_err(|e| Error::store("encoding the observations", e))?;
        let mut conn = self.lock()?;
        let tx = conn
            .transaction()
            .map_err(db_err("starting a step's write"))?;
        let replaced = tx
            .execute(
                "UPDATE steps SET text = ?3, observations_json = ?4 WHERE run_id = ?1 AND step = ?2",
                params![run_id, step, text, obs],
            )
            .map_err(db_err("recording a step"))?;
        if replaced > 0 {
            // The step's earlier text leaves the index with it.
            tx.execute(
                "DELETE FROM search_index WHERE run_id = ?1 AND step = ?2 AND kind = 'text'",
                params![run_id, step],
            )
            .map_err(db_err("indexing a step"))?;
        } else {
            tx.execute(
                "INSERT INTO steps (run_id, step, text, observations_json) VALUES (?1, ?2, ?3, ?4)",
                params![run_id, step, text, obs],
            )
            .map_err(db_err("recording a step"))?;
        }
        super::search::index_text(&tx, run_id, step, text)?;
        tx.commit().map_err(db_err("committing a step"))
    }

    /// Save the state a killed run resumes from.
    pub fn save_checkpoint(&self, run_id: RunId, checkpoint: &Checkpoint) -> Result<()> {
        let body = serde_json::to_string(checkpoint)
            .map_err(|e| Error::store("encoding the checkpoint", e))?;
        self.lock()?
            .execute(
                "INSERT INTO checkpoints (run_id, format, step, body_json, saved_at) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (run_id) DO UPDATE SET format = excluded.format, step = excluded.step,
                   body_json = excluded.body_json, saved_at = excluded.saved_at, sent = 0",
                params![run_id, checkpoint.format, checkpoint.step, body, now()],
            )
            .map_err(db_err("saving a checkpoint"))?;
        Ok(())
    }

    /// The checkpoint of a run, if it has one; an error for another format.
    pub fn load_checkpoint(&self, run_id: RunId) -> Result<Option<Checkpoint>> {
        let row: Option<(u32, String)> = self
            .lock()?
            .query_opt(
                "SELECT format, body_json FROM checkpoints WHERE run_id = ?1",
                params![run_id],
            )
            .and_then(|r| r.map(|r| Ok((r.get(0)?, r.get(1)?))).transpose())
            .map_err(db_err("reading a checkpoint"))?;
        let Some((format, body)) = row else {
            return Ok(None);
        };
        // Format 7 (before transcripts) is format 8 with no exchanges.
        if format != CHECKPOINT_FORMAT && format != 7 {
            return Err(Error::store_says(format!(
                "run {run_id} has a checkpoint in format {format}; this release resumes formats 7 and {CHECKPOINT_FORMAT} only"
            )));
        }
        serde_json::from_str(&body)
            .map(Some)
            .map_err(|e| Error::store(format!("run {run_id}: the checkpoint does not parse"), e))
    }
}
