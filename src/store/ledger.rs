//! A run's ledger: every request the run and its spawned children made, in the
//! order made, each priced by the one `PriceTable::cost` and with the searches
//! and fetches its answer reported. A run's figures (`Store::figures`) are the
//! ledger folded by `core::figures`, so the Run panes' rows, their Σ and every
//! other view of the run add up to the same numbers.

use super::read::{CALL_COLUMN_COUNT, CALL_COLUMNS, call_row};
use super::{Store, db_err};
use crate::core::event::Cost;
use crate::core::figures::{RequestFigures, RunFigures, ServerCounts};
use crate::core::id::RunId;
use crate::core::price::PriceTable;
use crate::error::Result;
use crate::store::types::ProviderCallRow;

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
                 SELECT ?1 UNION SELECT r.run_id FROM runs r JOIN tree t ON r.parent_run_id = t.id)
             SELECT {CALL_COLUMNS},
               (SELECT COUNT(*) FROM server_tool_calls s WHERE s.run_id = p.run_id AND s.step = p.step
                  AND s.tool NOT LIKE '%fetch%' AND s.tool LIKE '%search%'),
               (SELECT COUNT(*) FROM server_tool_calls s WHERE s.run_id = p.run_id AND s.step = p.step
                  AND s.tool NOT LIKE '%fetch%' AND s.tool LIKE '%search%' AND s.error IS NOT NULL),
               (SELECT COUNT(*) FROM server_tool_calls s WHERE s.run_id = p.run_id AND s.step = p.step
                  AND s.tool LIKE '%fetch%'),
               (SELECT COUNT(*) FROM server_tool_calls s WHERE s.run_id = p.run_id AND s.step = p.step
                  AND s.tool LIKE '%fetch%' AND s.error IS NOT NULL)
             FROM provider_calls p WHERE p.run_id IN tree ORDER BY p.id"
        );
        let mut stmt = conn.prepare(&sql).map_err(db_err("reading a ledger"))?;
        let rows = stmt
            .query_map([run_id.0], |r| {
                let call = call_row(r)?;
                // The four counts follow the call's own columns.
                let n = |i: usize| -> rusqlite::Result<u64> {
                    Ok(r.get::<_, i64>(CALL_COLUMN_COUNT + i)?.max(0) as u64)
                };
                let server = ServerCounts {
                    searches: n(0)?,
                    failed_searches: n(1)?,
                    fetches: n(2)?,
                    failed_fetches: n(3)?,
                };
                Ok((call, server))
            })
            .map_err(db_err("reading a ledger"))?;
        let mut lines = Vec::new();
        for row in rows {
            let (call, server) = row.map_err(db_err("reading a ledger"))?;
            let cost = prices.cost(&call.model, call.usage.as_ref(), server.ran());
            lines.push(LedgerLine { call, cost, server });
        }
        Ok(Ledger { lines })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_column_count_matches_the_columns() {
        assert_eq!(CALL_COLUMNS.split(',').count(), CALL_COLUMN_COUNT);
    }
}
