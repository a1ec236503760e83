//! A group read back for comparing (`compare`, the console's Compare screen):
//! each run's figures (`Store::figures`) in a `core::compare::Column`, its sources for the
//! overlaps, and the vendors that did not run (refused, or could not start).

use std::collections::BTreeSet;

use super::Store;
use crate::core::compare::{Column, Comparison, NotRun, domains};
use crate::core::error::Result;
use crate::core::id::{GroupId, RunId};
use crate::core::price::PriceTable;
use crate::core::record::{final_answer, identity};

/// How many lines of each final answer a comparison shows.
pub const ANSWER_LINES: usize = 3;

impl Store {
    /// Group `group_id` compared; `None` when there is no such group.
    pub fn comparison(&self, group_id: GroupId, prices: &PriceTable) -> Result<Option<Comparison>> {
        let Some(group) = self.group(group_id)? else {
            return Ok(None);
        };
        let mut runs = Vec::new();
        for &id in &group.runs {
            let mut col = self.column(id, prices)?;
            // A replayed run made alone recorded its workspace as given (`.`);
            // the group holds it made absolute, as every copy's is.
            if col
                .workspace
                .as_deref()
                .is_some_and(|w| std::path::Path::new(w).is_relative())
            {
                col.workspace = Some(group.workspace.clone());
            }
            // A copy is removed when its run ends (unless kept): a folder that is
            // no longer there is not named.
            col.workspace = col.workspace.filter(|w| std::path::Path::new(w).is_dir());
            runs.push(col);
        }
        let not_run = group
            .refusals
            .into_iter()
            .map(|(vendor, message)| NotRun { vendor, message })
            .collect();
        let mut c = Comparison::new(group_id, group.goal, runs, not_run);
        c.max_usd_micro = group.max_usd_micro;
        Ok(Some(c))
    }

    /// One run for a comparison: its figures as every view reads them, its
    /// sources and its answer.
    fn column(&self, id: RunId, prices: &PriceTable) -> Result<Column> {
        let run = self.run(id)?.unwrap_or_default();
        let by = (run.user.is_some() || run.host.is_some()).then(|| super::figures::by(&run));
        let mut col = Column {
            run_id: id,
            figures: self.figures(id, prices)?,
            vendor: run.provider,
            model: run.model,
            wire: self.run_plan(id).ok().flatten().map(|p| p.wire()),
            outcome: run.outcome,
            outcome_detail: run.outcome_detail,
            by,
            ..Column::default()
        };
        let cited = self.cited_urls(id)?;
        col.citations = cited.len() as u64;
        let urls: BTreeSet<String> = cited.iter().map(|u| identity(u)).collect();
        col.domains = domains(&urls).len() as u64;
        col.urls = urls;
        col.answer = final_answer(&self.steps(id)?, |s| &s.text)
            .map(|s| {
                s.text
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .take(ANSWER_LINES)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        col.workspace = self
            .load_checkpoint(id)
            .ok()
            .flatten()
            .map(|c| c.contract.workspace.display().to_string());
        Ok(col)
    }
}
