//! Writing runs, steps, accounting, citations, server-tool calls and checkpoints.

use rusqlite::{OptionalExtension, params};

use super::runner;
use super::{Store, db_err, now};
use crate::core::completion::{Citation, ServerToolCall};
use crate::core::id::{RunId, SessionId};
use crate::core::outcome::RunOutcome;
use crate::error::{Error, Result};
use crate::store::types::{CHECKPOINT_FORMAT, Checkpoint, NewRun, ProviderCall};

impl Store {
    /// Record a new run, run by this process; its id.
    pub fn begin_run(&self, run: &NewRun) -> Result<RunId> {
        let conn = self.lock()?;
        let id = insert_run(&conn, run)?;
        super::search::index_goal(&conn, id, &run.goal)?;
        Ok(id)
    }

    /// Record a new run and its first checkpoint (before any request) in one
    /// transaction, so even a run killed during its first request can be resumed.
    pub fn start_run(&self, run: &NewRun, checkpoint: &Checkpoint) -> Result<RunId> {
        let body = serde_json::to_string(checkpoint)
            .map_err(|e| Error::store("encoding the checkpoint", e))?;
        let mut conn = self.lock()?;
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(db_err("starting a new run"))?;
        let run_id = insert_run(&tx, run)?;
        super::search::index_goal(&tx, run_id, &run.goal)?;
        tx.execute(
            "INSERT INTO checkpoints (run_id, format, step, body_json, saved_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![run_id.0, checkpoint.format, checkpoint.step, body, now()],
        )
        .map_err(db_err("saving the first checkpoint"))?;
        tx.commit().map_err(db_err("committing a new run"))?;
        Ok(run_id)
    }

    /// Start a session; its id.
    pub fn begin_session(&self, label: &str) -> Result<SessionId> {
        let conn = self.lock()?;
        conn.execute(
            "INSERT INTO sessions (started_at, label) VALUES (?1, ?2)",
            params![now(), label],
        )
        .map_err(db_err("recording a new session"))?;
        Ok(SessionId(conn.last_insert_rowid()))
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
                params![run_id.0, step, text, obs],
            )
            .map_err(db_err("recording a step"))?;
        if replaced > 0 {
            // The step's earlier text leaves the index with it.
            tx.execute(
                "DELETE FROM search_index WHERE run_id = ?1 AND step = ?2 AND kind = 'text'",
                params![run_id.0, step],
            )
            .map_err(db_err("indexing a step"))?;
        } else {
            tx.execute(
                "INSERT INTO steps (run_id, step, text, observations_json) VALUES (?1, ?2, ?3, ?4)",
                params![run_id.0, step, text, obs],
            )
            .map_err(db_err("recording a step"))?;
        }
        super::search::index_text(&tx, run_id, step, text)?;
        tx.commit().map_err(db_err("committing a step"))
    }

    /// Record one completion's accounting. Logged and swallowed on failure.
    pub fn record_provider_call(&self, run_id: RunId, step: u32, call: &ProviderCall) {
        let u = call.usage.unwrap_or_default();
        let result = self.lock().and_then(|conn| {
            conn.execute(
                "INSERT INTO provider_calls (run_id, step, provider, model, input_tokens, output_tokens,
                   server_tool_requests, has_usage, stop_reason, latency_ms, request_id, created_at,
                   cache_write_tokens, cache_read_tokens, web_fetch_requests, reported_cost_micro_usd,
                   cache_write_1h_tokens, endpoint, response_id, finish_reason)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                   ?18, ?19, ?20)",
                params![run_id.0, step, call.provider, call.model, count(u.input_tokens), count(u.output_tokens),
                        count(u.server_tool_requests), call.usage.is_some(), call.stop_reason,
                        count(call.latency_ms), call.request_id, now(),
                        count(u.cache_write_tokens), count(u.cache_read_tokens), count(u.web_fetch_requests),
                        u.reported_cost_micro_usd.map(count), count(u.cache_write_1h_tokens),
                        call.endpoint, call.response_id, call.finish_reason],
            )
            .map_err(db_err("recording a provider call"))
        });
        if let Err(e) = result {
            tracing::warn!("run {run_id} step {step}: accounting row not written: {e}");
        }
    }

    /// Record citations; a url already recorded for this run and step is skipped.
    /// Returns how many rows were new. Logged and swallowed on failure.
    pub fn record_citations(&self, run_id: RunId, step: u32, citations: &[Citation]) -> usize {
        let result = self.lock().and_then(|mut conn| {
            let tx = conn.transaction().map_err(db_err("starting a citation write"))?;
            // Only a URL new to this step is indexed (with each quote given for
            // it): one already recorded is already in the index.
            let mut added = std::collections::HashSet::new();
            {
                let mut stmt = tx
                    .prepare_cached("INSERT OR IGNORE INTO citations (run_id, step, url, title, cited_text) VALUES (?1, ?2, ?3, ?4, ?5)")
                    .map_err(db_err("preparing a citation write"))?;
                for c in citations {
                    if stmt
                        .execute(params![run_id.0, step, c.url, c.title, c.cited_text])
                        .map_err(db_err("recording a citation"))?
                        > 0
                    {
                        added.insert(c.url.as_str());
                    }
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

    /// Record provider-executed tool calls, ok and failed. Logged and swallowed.
    pub fn record_server_tool_calls(&self, run_id: RunId, step: u32, calls: &[ServerToolCall]) {
        let result = self.lock().and_then(|mut conn| {
            let tx = conn.transaction().map_err(db_err("starting a server-tool write"))?;
            for c in calls {
                tx.execute(
                    "INSERT INTO server_tool_calls (run_id, step, provider, tool, error, input) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![run_id.0, step, c.provider, c.tool, c.error, c.input],
                )
                .map_err(db_err("recording a server-tool call"))?;
            }
            super::search::index_queries(&tx, run_id, step, calls)?;
            tx.commit().map_err(db_err("committing server-tool calls"))
        });
        if let Err(e) = result {
            tracing::warn!("run {run_id} step {step}: server-tool rows not written: {e}");
        }
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
                params![run_id.0, checkpoint.format, checkpoint.step, body, now()],
            )
            .map_err(db_err("saving a checkpoint"))?;
        Ok(())
    }

    /// The checkpoint of a run, if it has one; an error for another format.
    pub fn load_checkpoint(&self, run_id: RunId) -> Result<Option<Checkpoint>> {
        let row: Option<(u32, String)> = self
            .lock()?
            .query_row(
                "SELECT format, body_json FROM checkpoints WHERE run_id = ?1",
                [run_id.0],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
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

    /// Record how a run ended.
    pub fn finish_run(&self, run_id: RunId, outcome: &RunOutcome) -> Result<()> {
        self.lock()?
            .execute(
                "UPDATE runs SET finished_at = ?2, outcome = ?3, outcome_detail = ?4 WHERE run_id = ?1",
                params![run_id.0, now(), outcome.label(), outcome_detail(outcome)],
            )
            .map_err(db_err("recording a run's outcome"))?;
        Ok(())
    }

    /// Mark a run as running again, in this process, for a resume: `claim_run`,
    /// which refuses a run another live process holds.
    pub fn reopen_run(&self, run_id: RunId) -> Result<()> {
        self.claim_run(run_id)
    }
}

fn insert_run(conn: &rusqlite::Connection, run: &NewRun) -> Result<RunId> {
    let me = runner::current();
    let plan_json = match &run.plan {
        Some(p) => Some(
            serde_json::to_string(&p.clone().kept())
                .map_err(|e| Error::store("encoding a run's plan", e))?,
        ),
        None => None,
    };
    conn.execute(
        "INSERT INTO runs (started_at, goal, provider, model, web_json, parent_run_id, session_id, mcp_declared_json,
           runner_pid, runner_host, runner_token, group_id, plan_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![now(), run.goal, run.provider, run.model, run.web_json,
                run.parent_run_id.map(|r| r.0), run.session_id, run.mcp_declared_json,
                me.pid, me.host, me.token, run.group_id, plan_json],
    )
    .map_err(db_err("recording a new run"))?;
    Ok(RunId(conn.last_insert_rowid()))
}

/// A count as SQLite holds it: saturated at `i64::MAX`, never wrapped negative.
pub(crate) fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The `outcome_detail` recorded beside an outcome.
pub(crate) fn outcome_detail(outcome: &RunOutcome) -> Option<String> {
    match outcome {
        RunOutcome::Failed { reason } => Some(reason.clone()),
        RunOutcome::BudgetExhausted { budget } => serde_json::to_value(budget)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string)),
        RunOutcome::Error { message } => Some(message.clone()),
        RunOutcome::Refused { text } => Some(text.clone()),
        RunOutcome::Truncated { max_tokens } => Some(format!(
            "the answer was cut off at max_tokens ({max_tokens}) and not verified; raise max_tokens for this provider in io.toml"
        )),
        RunOutcome::Passed | RunOutcome::Cancelled => None,
    }
}
