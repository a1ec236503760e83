//! A run's ledger: every request the run and its spawned children made, in the
//! order made, each priced by the one `PriceTable::cost`, and the total as the sum
//! of those rows. Every surface (the Run panes, Sources, `runs`, `run`) reads its
//! figures from here or from the same function, so they cannot disagree.

use super::read::{CALL_COLUMN_COUNT, CALL_COLUMNS, call_row};
use super::{Store, db_err};
use crate::core::event::{Cost, RunId};
use crate::core::price::{PriceTable, Recorded};
use crate::error::Result;
use crate::store::types::{ProviderCallRow, RunCost, RunRow};

/// One request and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerLine {
    /// The accounting row (its `run_id` is a child's for a child's request).
    pub call: ProviderCallRow,
    /// Its cost.
    pub cost: Cost,
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

    /// The fee part over every row, where every row's fees are known.
    pub fn fees_micro_usd(&self) -> Option<u64> {
        fees_sum(self.lines.iter().map(|l| &l.cost))
    }

    /// Why the total is unknown: the first unpriced row's reason.
    pub fn unpriced(&self) -> Option<&str> {
        self.lines.iter().find_map(|l| l.cost.unpriced.as_deref())
    }

    /// True when a row's figure is the vendor's own.
    pub fn vendor_reported(&self) -> bool {
        self.lines.iter().any(|l| l.cost.vendor_micro_usd.is_some())
    }

    /// True when a row's fees count calls this program recorded.
    pub fn fees_counted_here(&self) -> bool {
        self.lines.iter().any(|l| l.cost.fees_counted_here)
    }

    /// The run's cost, as `runs` and Sources show it.
    pub fn summary(&self) -> RunCost {
        RunCost {
            total_micro_usd: self.total_micro_usd(),
            fees_micro_usd: self.fees_micro_usd(),
            requests: self.lines.len() as u64,
            vendor_reported: self.vendor_reported(),
            fees_counted_here: self.fees_counted_here(),
            unpriced: self.unpriced().map(str::to_string),
        }
    }
}

/// The total of some requests' costs: `None` if any is unknown or there are none.
pub fn sum<'a>(costs: impl IntoIterator<Item = &'a Cost>) -> Option<u64> {
    let mut total = None;
    for c in costs {
        total = Some(u64::saturating_add(total.unwrap_or(0), c.total_micro_usd?));
    }
    total
}

/// The fee part of some requests' costs, saturating: a vendor's own figure counts
/// 0 (its fees are inside it, unitemised); `None` if another request's are unknown.
pub fn fees_sum<'a>(costs: impl IntoIterator<Item = &'a Cost>) -> Option<u64> {
    costs
        .into_iter()
        .map(|c| c.fees_micro_usd.or(c.vendor_micro_usd.map(|_| 0)))
        .try_fold(0u64, |total, f| f.map(|f| total.saturating_add(f)))
}

impl Store {
    /// Runs newest first, each with its cost (children included).
    pub fn priced_runs(&self, limit: Option<u32>, prices: &PriceTable) -> Result<Vec<RunRow>> {
        let mut runs = self.runs(limit)?;
        for r in &mut runs {
            r.cost = Some(self.ledger(r.run_id, prices)?.summary());
        }
        Ok(runs)
    }

    /// The ledger of a run: its requests and its descendants', priced.
    pub fn ledger(&self, run_id: RunId, prices: &PriceTable) -> Result<Ledger> {
        let conn = self.lock()?;
        let sql = format!(
            "WITH RECURSIVE tree(id) AS (
                 SELECT ?1 UNION SELECT r.run_id FROM runs r JOIN tree t ON r.parent_run_id = t.id)
             SELECT {CALL_COLUMNS},
               (SELECT COUNT(*) FROM server_tool_calls s WHERE s.run_id = p.run_id AND s.step = p.step
                  AND s.error IS NULL AND s.tool LIKE '%search%'),
               (SELECT COUNT(*) FROM server_tool_calls s WHERE s.run_id = p.run_id AND s.step = p.step
                  AND s.error IS NULL AND s.tool LIKE '%fetch%')
             FROM provider_calls p WHERE p.run_id IN tree ORDER BY p.id"
        );
        let mut stmt = conn.prepare(&sql).map_err(db_err("reading a ledger"))?;
        let rows = stmt
            .query_map([run_id.0], |r| {
                let call = call_row(r)?;
                // The two counts follow the call's own columns.
                let n = CALL_COLUMN_COUNT;
                let recorded = Recorded {
                    searches: r.get::<_, i64>(n)?.max(0) as u64,
                    fetches: r.get::<_, i64>(n + 1)?.max(0) as u64,
                };
                Ok((call, recorded))
            })
            .map_err(db_err("reading a ledger"))?;
        let mut lines = Vec::new();
        for row in rows {
            let (call, recorded) = row.map_err(db_err("reading a ledger"))?;
            let cost = prices.cost(&call.model, call.usage.as_ref(), recorded);
            lines.push(LedgerLine { call, cost });
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
