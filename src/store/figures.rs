//! A run's figures read in one place: its ledger (its requests and its spawned
//! children's, priced, with the calls each answer reported) folded by
//! `core::figures`, its wall time, and its claim figures (`Store::run_claims`). `runs`, `compare`, the console's Run and
//! Sources panes and exports all read a run's numbers from here.

use super::Store;
use crate::core::error::Result;
use crate::core::figures::RunFigures;
use crate::core::id::RunId;
use crate::core::price::PriceTable;
use crate::store::types::RunRow;

impl Store {
    /// The figures of run `run_id` (zeros for a run the store does not hold).
    pub fn figures(&self, run_id: RunId, prices: &PriceTable) -> Result<RunFigures> {
        let run = self.run(run_id)?.unwrap_or_default();
        let claims = self.run_claims(run_id)?.figures;
        Ok(self
            .ledger(run_id, prices)?
            .figures(wall_ms(&run))
            .with_claims(claims))
    }

    /// Runs `user` started, newest first, each with its figures.
    pub fn priced_runs_of(
        &self,
        user: &str,
        limit: Option<u32>,
        prices: &PriceTable,
    ) -> Result<Vec<RunRow>> {
        let runs = self.runs_of(user, limit)?;
        self.priced(runs, prices)
    }

    /// Runs newest first, each with its figures.
    pub fn priced_runs(&self, limit: Option<u32>, prices: &PriceTable) -> Result<Vec<RunRow>> {
        let runs = self.runs(limit)?;
        self.priced(runs, prices)
    }

    fn priced(&self, mut runs: Vec<RunRow>, prices: &PriceTable) -> Result<Vec<RunRow>> {
        for r in &mut runs {
            let claims = self.run_claims(r.run_id)?.figures;
            let figures = self.ledger(r.run_id, prices)?.figures(wall_ms(r));
            r.figures = Some(figures.with_claims(claims));
        }
        Ok(runs)
    }
}

/// Who started a run, as the views show it: `user@host`, either part `?`
/// when not recorded (`—` for neither).
pub fn by(run: &RunRow) -> String {
    match (&run.user, &run.host) {
        (None, None) => "—".to_string(),
        (u, h) => format!(
            "{}@{}",
            u.as_deref().unwrap_or("?"),
            h.as_deref().unwrap_or("?")
        ),
    }
}

/// This operator, as `runs --mine` and the console name them (`RunRow::user`).
pub fn me() -> Option<String> {
    crate::machine::process::user()
}

/// A run's start to its end, in milliseconds; `None` while it runs (or when a
/// time is unreadable).
pub fn wall_ms(run: &RunRow) -> Option<u64> {
    let end = run.finished_at.as_deref()?;
    let s = chrono::DateTime::parse_from_rfc3339(&run.started_at).ok()?;
    let e = chrono::DateTime::parse_from_rfc3339(end).ok()?;
    u64::try_from((e - s).num_milliseconds()).ok()
}
