//! The `provider_calls` and `server_tool_calls` tables: one row per completion
//! (a paused one included) and one per provider-executed tool call, written with
//! their step and read per run — as rows, with the time each was recorded (for
//! `export otlp`), and as a run's ledger: every request the run and its spawned
//! children made, in the order made, each priced by the one `PriceTable::cost`
//! and with the searches and fetches its answer reported. A run's figures
//! (`Store::figures`) are the ledger folded by `core::figures`, so the Run panes'
//! rows, their Σ and every other view of the run add up to the same numbers.

use super::db::{count, stored};
use super::engine::{DbError, Row, params};
use super::{Store, db_err, now};
use crate::core::completion::{Cut, ServerToolCall, Usage};
use crate::core::error::Result;
use crate::core::event::Cost;
use crate::core::figures::{RequestFigures, RunFigures, ServerCounts};
use crate::core::id::RunId;
use crate::core::price::PriceTable;
use crate::store::types::{ProviderCall, ProviderCallRow, ServerToolCallRow};

pub use crate::core::figures::{fees_sum, sum};

/// One request and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerLine {
    /// The accounting row (its `run_id` is a child's for a child's request).
    pub call: ProviderCallRow,
    /// Its cost.
    pub cost: Cost,
    /// The searches and fetches its answer reported, made and failed.
    pub server: ServerCounts,
}

/// A run's requests, children included, and their sum.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ledger {
    /// In the order made.
    pub lines: Vec<LedgerLine>,
}

impl Ledger {
    /// The sum of the rows' costs, or `None` when any row could not be priced
    /// (a partial sum would read as a total).
    pub fn total_micro_usd(&self) -> Option<u64> {
        sum(self.lines.iter().map(|l| &l.cost))
    }

    /// Why the total is unknown: the first unpriced row's reason.
    pub fn unpriced(&self) -> Option<&str> {
        self.lines.iter().find_map(|l| l.cost.unpriced.as_deref())
    }

    /// The run's figures: its rows folded (see `core::figures`).
    pub fn figures(&self, wall_ms: Option<u64>) -> RunFigures {
        RunFigures::of(
            self.lines.iter().map(|l| RequestFigures {
                usage: l.call.usage.as_ref(),
                cost: &l.cost,
                server: l.server,
            }),
            wall_ms,
        )
    }
}

impl Store {
    /// The ledger of a run: its requests and its descendants', priced.
    pub fn ledger(&self, run_id: RunId, prices: &PriceTable) -> Result<Ledger> {
        let conn = self.lock()?;
        // Per request, the calls its step recorded: searches and fetches, and of
        // each those that failed (a tool is a fetch before it is a search, as
        // `ServerCounts::add` counts it).
        let sql = format!(
            "WITH RECURSIVE tree(id) AS (
                 SELECT CAST(?1 AS BIGINT) UNION SELECT r.run_id FROM runs r JOIN tree t ON r.parent_run_id = t.id)
             SELECT {CALL_COLUMNS},
               (SELECT COUNT(*) FROM server_tool_calls s WHERE s.run_id = p.run_id AND s.step = p.step
                  AND s.tool NOT LIKE '%fetch%' AND s.tool LIKE '%search%'),
               (SELECT COUNT(*) FROM server_tool_calls s WHERE s.run_id = p.run_id AND s.step = p.step
                  AND s.tool NOT LIKE '%fetch%' AND s.tool LIKE '%search%' AND s.error IS NOT NULL),
               (SELECT COUNT(*) FROM server_tool_calls s WHERE s.run_id = p.run_id AND s.step = p.step
                  AND s.tool LIKE '%fetch%'),
               (SELECT COUNT(*) FROM server_tool_calls s WHERE s.run_id = p.run_id AND s.step = p.step
                  AND s.tool LIKE '%fetch%' AND s.error IS NOT NULL)
             FROM provider_calls p WHERE p.run_id IN (SELECT id FROM tree) ORDER BY p.id"
        );
        let rows = conn
            .query_map(&sql, params![run_id], |r| {
                let call = call_row(r)?;
                // The four counts follow the call's own columns; the searches and
                // fetches past the per-step cap ran too (their fees count).
                let n = |i: usize| -> Result<u64, DbError> {
                    Ok(r.get::<i64>(CALL_COLUMN_COUNT + i)?.max(0) as u64)
                };
                let server = ServerCounts {
                    searches: n(0)?.saturating_add(call.cut.searches),
                    failed_searches: n(1)?,
                    fetches: n(2)?.saturating_add(call.cut.fetches),
                    failed_fetches: n(3)?,
                };
                Ok((call, server))
            })
            .map_err(db_err("reading a ledger"))?;
        let mut lines = Vec::new();
        for (call, server) in rows {
            let cost = prices.cost(&call.model, call.usage.as_ref(), server.ran());
            lines.push(LedgerLine { call, cost, server });
        }
        Ok(Ledger { lines })
    }

    /// A run's accounting rows, one per completion, in the order made.
    pub fn provider_calls(&self, run_id: RunId) -> Result<Vec<ProviderCallRow>> {
        self.lock()?
            .query_map(
                &format!("SELECT {CALL_COLUMNS} FROM provider_calls WHERE run_id = ?1 ORDER BY id"),
                params![run_id],
                call_row,
            )
            .map_err(db_err("reading provider calls"))
    }

    /// A run's provider-executed tool calls, ok and failed.
    pub fn server_tool_calls(&self, run_id: RunId) -> Result<Vec<ServerToolCallRow>> {
        self.lock()?
            .query_map(
                "SELECT step, provider, tool, error, input FROM server_tool_calls WHERE run_id = ?1 ORDER BY step, id",
                params![run_id],
                |r| {
                    Ok(ServerToolCallRow {
                        run_id,
                        step: r.get(0)?,
                        provider: r.get(1)?,
                        tool: r.get(2)?,
                        error: r.get(3)?,
                        input: r.get(4)?,
                    })
                },
            )
            .map_err(db_err("reading server-tool calls"))
    }

    /// Record one completion's accounting. Logged and swallowed on failure.
    pub fn record_provider_call(&self, run_id: RunId, step: u32, call: &ProviderCall) {
        let u = call.usage.unwrap_or_default();
        let result = self.lock().and_then(|conn| {
            conn.execute(
                "INSERT INTO provider_calls (run_id, step, provider, model, input_tokens, output_tokens,
                   server_tool_requests, has_usage, stop_reason, latency_ms, request_id, created_at,
                   cache_write_tokens, cache_read_tokens, web_fetch_requests, reported_cost_micro_usd,
                   cache_write_1h_tokens, endpoint, response_id, finish_reason, server_tool_calls_cut,
                   searches_cut, fetches_cut, citations_cut, claim_links_cut)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                   ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)",
                params![run_id, step, call.provider, call.model, stored(u.input_tokens), stored(u.output_tokens),
                        stored(u.server_tool_requests), call.usage.is_some(), call.stop_reason,
                        stored(call.latency_ms), call.request_id, now(),
                        stored(u.cache_write_tokens), stored(u.cache_read_tokens), stored(u.web_fetch_requests),
                        u.reported_cost_micro_usd.map(stored), stored(u.cache_write_1h_tokens),
                        call.endpoint, call.response_id, call.finish_reason,
                        stored(call.cut.server_tool_calls), stored(call.cut.searches),
                        stored(call.cut.fetches), stored(call.cut.citations), stored(call.cut.claim_links)],
            )
            .map_err(db_err("recording a provider call"))
        });
        if let Err(e) = result {
            tracing::warn!("run {run_id} step {step}: accounting row not written: {e}");
        }
    }

    /// Record provider-executed tool calls, ok and failed. Logged and swallowed.
    pub fn record_server_tool_calls(&self, run_id: RunId, step: u32, calls: &[ServerToolCall]) {
        let result = self.lock().and_then(|mut conn| {
            let tx = conn.transaction().map_err(db_err("starting a server-tool write"))?;
            for c in calls {
                tx.execute(
                    "INSERT INTO server_tool_calls (run_id, step, provider, tool, error, input) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![run_id, step, c.provider, c.tool, c.error, c.input],
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

    /// A run's accounting rows in the order made, each with its `created_at`.
    pub fn timed_calls(&self, run_id: RunId) -> Result<Vec<(ProviderCallRow, String)>> {
        self.lock()?
            .query_map(
                &format!(
                    "SELECT {CALL_COLUMNS}, created_at FROM provider_calls WHERE run_id = ?1 ORDER BY id"
                ),
                params![run_id],
                |r| Ok((call_row(r)?, r.get::<String>(CALL_COLUMN_COUNT)?)),
            )
            .map_err(db_err("reading a run's requests"))
    }
}

pub(super) fn call_row(r: &Row) -> Result<ProviderCallRow, DbError> {
    let n = |i: usize| -> Result<u64, DbError> { Ok(count(r.get(i)?)) };
    let usage = if r.get::<bool>(7)? {
        Some(Usage {
            input_tokens: n(4)?,
            output_tokens: n(5)?,
            server_tool_requests: n(6)?,
            cache_write_tokens: n(11)?,
            cache_read_tokens: n(12)?,
            web_fetch_requests: n(13)?,
            reported_cost_micro_usd: r.get::<Option<i64>>(14)?.map(count),
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
        step_attempt: u32::try_from(r.get::<i64>(15)?).unwrap_or(1),
        endpoint: r.get(17)?,
        response_id: r.get(18)?,
        finish_reason: r.get(19)?,
        cut: Cut {
            server_tool_calls: n(20)?,
            searches: n(21)?,
            fetches: n(22)?,
            citations: n(23)?,
            claim_links: n(24)?,
        },
    })
}

/// The columns `call_row` reads, in its order.
pub(super) const CALL_COLUMNS: &str = "run_id, step, provider, model, input_tokens, output_tokens,
    server_tool_requests, has_usage, stop_reason, latency_ms, request_id, cache_write_tokens,
    cache_read_tokens, web_fetch_requests, reported_cost_micro_usd, step_attempt, cache_write_1h_tokens,
    endpoint, response_id, finish_reason, server_tool_calls_cut, searches_cut, fetches_cut,
    citations_cut, claim_links_cut";

/// How many columns `CALL_COLUMNS` names (a query may select more after them).
pub(super) const CALL_COLUMN_COUNT: usize = 25;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_column_count_matches_the_columns() {
        assert_eq!(CALL_COLUMNS.split(',').count(), CALL_COLUMN_COUNT);
    }
}
