//! Reading the store back: runs newest first with their aggregates, a run's steps,
//! accounting rows, citations and server-tool calls, and citations across runs.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Row, params};

use super::runner::{self, Runner};
use super::{Store, db_err};
use crate::core::completion::Usage;
use crate::core::id::{RunId, SessionId};
use crate::core::outcome::Outcome;
use crate::core::plan::RunPlan;
use crate::core::record::cited_urls;
use crate::error::{Error, Result};
use crate::store::types::{
    CitationQuery, CitationRow, ProviderCallRow, RunRow, ServerToolCallRow, StepRow,
};

const RUN_COLUMNS: &str =
    "r.run_id, r.started_at, r.finished_at, r.goal, r.provider, r.model, r.outcome,
    r.outcome_detail, r.parent_run_id, r.session_id,
    (SELECT COUNT(*) FROM citations c WHERE c.run_id = r.run_id),
    r.runner_pid, r.runner_host, r.runner_token, r.group_id";

/// A stored count: negative only when an older release wrapped a huge one, which
/// reads as saturated.
pub(crate) fn count(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(i64::MAX as u64)
}

fn run_row(r: &Row<'_>) -> rusqlite::Result<(RunRow, Option<Runner>)> {
    let runner = r
        .get::<_, Option<i64>>(11)?
        .map(|pid| -> rusqlite::Result<Runner> {
            Ok(Runner {
                pid,
                host: r.get(12)?,
                token: r.get(13)?,
            })
        });
    let row = RunRow {
        run_id: RunId(r.get(0)?),
        started_at: r.get(1)?,
        finished_at: r.get(2)?,
        goal: r.get(3)?,
        provider: r.get(4)?,
        model: r.get(5)?,
        outcome: r.get(6)?,
        outcome_detail: r.get(7)?,
        parent_run_id: r.get::<_, Option<i64>>(8)?.map(RunId),
        session_id: r.get(9)?,
        group_id: r.get(14)?,
        citation_count: count(r.get(10)?),
        ..RunRow::default()
    };
    Ok((row, runner.transpose()?))
}

/// Call a run whose process is gone `interrupted`. (Its figures are read by
/// `Store::figures`, the one place they are summed.)
fn complete((mut row, runner): (RunRow, Option<Runner>)) -> RunRow {
    if row.outcome.is_none() && runner.as_ref().is_some_and(runner::is_gone) {
        row.outcome = Some(Outcome::Interrupted);
        row.outcome_detail = Some(format!(
            "the process running it is gone; `io-harness run --resume {}` continues it",
            row.run_id
        ));
    }
    row
}

/// The columns `call_row` reads, in its order.
pub(super) const CALL_COLUMNS: &str = "run_id, step, provider, model, input_tokens, output_tokens,
    server_tool_requests, has_usage, stop_reason, latency_ms, request_id, cache_write_tokens,
    cache_read_tokens, web_fetch_requests, reported_cost_micro_usd, step_attempt, cache_write_1h_tokens,
    endpoint, response_id, finish_reason";

/// How many columns `CALL_COLUMNS` names (a query may select more after them).
pub(super) const CALL_COLUMN_COUNT: usize = 20;

pub(super) fn call_row(r: &Row<'_>) -> rusqlite::Result<ProviderCallRow> {
    let n = |i: usize| -> rusqlite::Result<u64> { Ok(count(r.get(i)?)) };
    let usage = if r.get::<_, bool>(7)? {
        Some(Usage {
            input_tokens: n(4)?,
            output_tokens: n(5)?,
            server_tool_requests: n(6)?,
            cache_write_tokens: n(11)?,
            cache_read_tokens: n(12)?,
            web_fetch_requests: n(13)?,
            reported_cost_micro_usd: r.get::<_, Option<i64>>(14)?.map(count),
            cache_write_1h_tokens: n(16)?,
        })
    } else {
        None
    };
    Ok(ProviderCallRow {
        run_id: RunId(r.get(0)?),
        step: r.get(1)?,
        provider: r.get(2)?,
        model: r.get(3)?,
        usage,
        stop_reason: r.get(8)?,
        latency_ms: n(9)?,
        request_id: r.get(10)?,
        step_attempt: u32::try_from(r.get::<_, i64>(15)?).unwrap_or(1),
        endpoint: r.get(17)?,
        response_id: r.get(18)?,
        finish_reason: r.get(19)?,
    })
}

fn citation_row(r: &Row<'_>) -> rusqlite::Result<CitationRow> {
    Ok(CitationRow {
        run_id: RunId(r.get(0)?),
        step: r.get(1)?,
        url: r.get(2)?,
        title: r.get(3)?,
        cited_text: r.get(4)?,
    })
}

impl Store {
    fn query_runs(&self, filter: &str, args: impl rusqlite::Params) -> Result<Vec<RunRow>> {
        let conn = self.lock()?;
        let sql = format!("SELECT {RUN_COLUMNS} FROM runs r {filter}");
        let mut stmt = conn.prepare(&sql).map_err(db_err("reading runs"))?;
        let rows = stmt
            .query_map(args, run_row)
            .map_err(db_err("reading runs"))?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(db_err("reading runs"))?;
        Ok(rows.into_iter().map(complete).collect())
    }

    /// Runs, newest first.
    pub fn runs(&self, limit: Option<u32>) -> Result<Vec<RunRow>> {
        self.query_runs(
            "ORDER BY r.started_at DESC, r.run_id DESC LIMIT ?1",
            [limit.map_or(-1, i64::from)],
        )
    }

    /// One run.
    pub fn run(&self, run_id: RunId) -> Result<Option<RunRow>> {
        Ok(self
            .query_runs("WHERE r.run_id = ?1", [run_id.0])?
            .into_iter()
            .next())
    }

    /// What the launch resolved for run `run_id` when it started (`core::plan`);
    /// `None` for a run recorded before plans were kept (or not at all). A
    /// plan that does not parse is an error naming the run.
    pub fn run_plan(&self, run_id: RunId) -> Result<Option<RunPlan>> {
        let conn = self.lock()?;
        let json: Option<Option<String>> = conn
            .query_row(
                "SELECT plan_json FROM runs WHERE run_id = ?1",
                [run_id.0],
                |r| r.get(0),
            )
            .optional()
            .map_err(db_err("reading a run's plan"))?;
        json.flatten()
            .map(|j| {
                serde_json::from_str(&j)
                    .map_err(|e| Error::store(format!("run {run_id}'s plan does not parse"), e))
            })
            .transpose()
    }

    /// Runs a run spawned, oldest first.
    pub fn children(&self, run_id: RunId) -> Result<Vec<RunRow>> {
        self.query_runs("WHERE r.parent_run_id = ?1 ORDER BY r.run_id", [run_id.0])
    }

    /// The URLs run `run_id` cited (its spawned children's included), in order,
    /// each as `core::record::cited_urls` defines them: a link `check-sources`
    /// followed (a Google redirect, under the policy) counts as the page it led to.
    pub fn cited_urls(&self, run_id: RunId) -> Result<Vec<String>> {
        let mut followed = HashMap::new();
        let mut runs = vec![run_id];
        runs.extend(self.children(run_id)?.into_iter().map(|c| c.run_id));
        for id in runs {
            followed.extend(
                self.checks(id)?
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

    /// The runs of one session, in order.
    pub fn session_runs(&self, session_id: SessionId) -> Result<Vec<RunRow>> {
        self.query_runs("WHERE r.session_id = ?1 ORDER BY r.run_id", [session_id])
    }

    /// A run's steps, in order.
    pub fn steps(&self, run_id: RunId) -> Result<Vec<StepRow>> {
        let conn = self.lock()?;
        let mut stmt = conn
            .prepare(
                "SELECT step, text, observations_json FROM steps WHERE run_id = ?1 ORDER BY step",
            )
            .map_err(db_err("reading steps"))?;
        let rows = stmt
            .query_map([run_id.0], |r| {
                let obs: String = r.get(2)?;
                Ok(StepRow {
                    run_id,
                    step: r.get(0)?,
                    text: r.get(1)?,
                    observations: serde_json::from_str(&obs).unwrap_or_default(),
                })
            })
            .map_err(db_err("reading steps"))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(db_err("reading steps"))
    }

    /// The search suggestions a run's steps were given to show (Google Search
    /// suggestions, read out of the HTML Google sent), in step order, each once.
    pub fn search_suggestions(
        &self,
        run_id: RunId,
    ) -> Result<Vec<crate::core::suggestions::Suggestion>> {
        let conn = self.lock()?;
        let mut stmt = conn
            .prepare(
                "SELECT search_suggestions FROM steps
                 WHERE run_id = ?1 AND search_suggestions IS NOT NULL ORDER BY step",
            )
            .map_err(db_err("reading search suggestions"))?;
        let html = stmt
            .query_map([run_id.0], |r| r.get::<_, String>(0))
            .map_err(db_err("reading search suggestions"))?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(db_err("reading search suggestions"))?;
        let mut out: Vec<crate::core::suggestions::Suggestion> = Vec::new();
        for s in html
            .iter()
            .flat_map(|h| crate::core::suggestions::suggestions(h))
        {
            if !out.iter().any(|o| o.url == s.url) {
                out.push(s);
            }
        }
        Ok(out)
    }

    /// A run's accounting rows, one per completion, in the order made.
    pub fn provider_calls(&self, run_id: RunId) -> Result<Vec<ProviderCallRow>> {
        let conn = self.lock()?;
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {CALL_COLUMNS} FROM provider_calls WHERE run_id = ?1 ORDER BY id"
            ))
            .map_err(db_err("reading provider calls"))?;
        let rows = stmt
            .query_map([run_id.0], call_row)
            .map_err(db_err("reading provider calls"))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(db_err("reading provider calls"))
    }

    /// The sources a run drew on, by step then as recorded.
    pub fn citations(&self, run_id: RunId) -> Result<Vec<CitationRow>> {
        let conn = self.lock()?;
        let mut stmt = conn
            .prepare("SELECT run_id, step, url, title, cited_text FROM citations WHERE run_id = ?1 ORDER BY step, id")
            .map_err(db_err("reading citations"))?;
        let rows = stmt
            .query_map([run_id.0], citation_row)
            .map_err(db_err("reading citations"))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(db_err("reading citations"))
    }

    /// A run's citations with the time each step's answer was recorded (the
    /// step's first accounting row), for an export.
    pub fn citations_recorded(&self, run_id: RunId) -> Result<Vec<(CitationRow, Option<String>)>> {
        let conn = self.lock()?;
        let mut stmt = conn
            .prepare(
                "SELECT c.run_id, c.step, c.url, c.title, c.cited_text,
                   (SELECT p.created_at FROM provider_calls p
                     WHERE p.run_id = c.run_id AND p.step = c.step ORDER BY p.id LIMIT 1)
                 FROM citations c WHERE c.run_id = ?1 ORDER BY c.step, c.id",
            )
            .map_err(db_err("reading citations"))?;
        let rows = stmt
            .query_map([run_id.0], |r| {
                Ok((citation_row(r)?, r.get::<_, Option<String>>(5)?))
            })
            .map_err(db_err("reading citations"))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(db_err("reading citations"))
    }

    /// A run's provider-executed tool calls, ok and failed.
    pub fn server_tool_calls(&self, run_id: RunId) -> Result<Vec<ServerToolCallRow>> {
        let conn = self.lock()?;
        let mut stmt = conn
            .prepare("SELECT step, provider, tool, error, input FROM server_tool_calls WHERE run_id = ?1 ORDER BY step, id")
            .map_err(db_err("reading server-tool calls"))?;
        let rows = stmt
            .query_map([run_id.0], |r| {
                Ok(ServerToolCallRow {
                    run_id,
                    step: r.get(0)?,
                    provider: r.get(1)?,
                    tool: r.get(2)?,
                    error: r.get(3)?,
                    input: r.get(4)?,
                })
            })
            .map_err(db_err("reading server-tool calls"))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(db_err("reading server-tool calls"))
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
        let mut stmt = conn
            .prepare(
                "SELECT run_id, step, url, title, cited_text FROM citations
                 WHERE (?1 IS NULL OR lower(url) LIKE ?1 ESCAPE '\\' OR lower(COALESCE(title, '')) LIKE ?1 ESCAPE '\\'
                        OR lower(COALESCE(cited_text, '')) LIKE ?1 ESCAPE '\\')
                   AND (?2 IS NULL OR lower(url) LIKE ?2)
                 ORDER BY run_id DESC, step, id",
            )
            .map_err(db_err("searching citations"))?;
        let rows = stmt
            .query_map(params![text, like_domain], citation_row)
            .map_err(db_err("searching citations"))?;
        let limit = query.limit.map_or(usize::MAX, |l| l as usize);
        let mut out = Vec::new();
        for row in rows {
            let row = row.map_err(db_err("searching citations"))?;
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

    /// The pid of another live process on this host still running this run, if any.
    pub fn running_elsewhere(&self, run_id: RunId) -> Result<Option<i64>> {
        let runner: Option<Runner> = self
            .lock()?
            .query_row(
                "SELECT runner_pid, runner_host, runner_token FROM runs
                 WHERE run_id = ?1 AND outcome IS NULL AND runner_pid IS NOT NULL",
                [run_id.0],
                |r| {
                    Ok(Runner {
                        pid: r.get(0)?,
                        host: r.get(1)?,
                        token: r.get(2)?,
                    })
                },
            )
            .optional()
            .map_err(db_err("looking up a run's process"))?;
        Ok(runner.filter(runner::is_other_live).map(|r| r.pid))
    }

    /// Whether a run exists.
    pub fn has_run(&self, run_id: RunId) -> Result<bool> {
        self.lock()?
            .query_row("SELECT 1 FROM runs WHERE run_id = ?1", [run_id.0], |_| {
                Ok(())
            })
            .optional()
            .map(|r| r.is_some())
            .map_err(db_err("looking up a run"))
    }
}
