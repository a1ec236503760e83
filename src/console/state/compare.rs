//! The Compare screen's data: one column per vendor asked — its refusal, or its
//! live run folded exactly as the Run panes fold one (`RunView::apply`) — and,
//! once the group has ended, the comparison the store reads back, with the run
//! the operator has chosen to open; and, before any, the evals and the
//! comparisons the store holds (`eval`; `run --providers`, `run --replay`,
//! earlier consoles), each newest first, and an eval opened (`evals`).

use crate::console::state::evals::{EvalListed, EvalView};
use crate::console::state::run::RunView;
use crate::core::compare::Comparison;
use crate::core::event::Event;
use crate::core::id::{EvalId, GroupId, RunId};
use crate::core::vendor::Vendor;

/// One vendor's column.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompareColumn {
    /// The vendor.
    pub vendor: Vendor,
    /// The model asked for.
    pub model: String,
    /// Why it does not run: the refusal of a declaration it cannot carry.
    pub refused: Option<String>,
    /// Its run, live.
    pub run: RunView,
}

/// Everything the Compare screen shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompareView {
    /// The goal compared.
    pub goal: String,
    /// A column per vendor asked, in `Vendor::ALL` order.
    pub columns: Vec<CompareColumn>,
    /// The group is running.
    pub running: bool,
    /// The comparison, once the group has ended.
    pub result: Option<Comparison>,
    /// Why the group could not be run or read back.
    pub error: Option<String>,
    /// The run chosen (an index into the comparison's runs).
    pub selected: usize,
    /// Esc was pressed once while running: a second cancels every run.
    pub confirm_cancel: bool,
    /// Rows of the comparison scrolled past (PageUp / PageDown).
    pub scroll: u16,
    /// The comparisons the store holds, newest first (shown while none is open).
    pub stored: Vec<crate::store::GroupRow>,
    /// The evals the store holds, newest first, listed above the comparisons.
    pub evals: Vec<EvalListed>,
    /// The one chosen in the list: an index into the evals, then the comparisons.
    pub stored_at: usize,
    /// The eval opened from the list; a question's comparison opened from it
    /// shows over it, and Esc comes back to it.
    pub eval: Option<EvalView>,
    /// The run to choose once the comparison opened from an eval is read.
    pub select_run: Option<RunId>,
}

/// What the list has chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listed {
    /// An eval.
    Eval(EvalId),
    /// A comparison (run group).
    Group(GroupId),
}

impl CompareView {
    /// Fold one of `vendor`'s run events into its column.
    pub fn apply(&mut self, vendor: Vendor, event: &Event) {
        if let Some(c) = self.columns.iter_mut().find(|c| c.vendor == vendor) {
            c.run.apply(event);
        }
    }

    /// The group ended: its comparison, or why there is none; no column is
    /// left running.
    pub fn ended(&mut self, result: Result<Comparison, String>) {
        self.running = false;
        self.confirm_cancel = false;
        for c in &mut self.columns {
            c.run.running = false;
            c.run.in_flight = false;
        }
        match result {
            Ok(c) => {
                if let Some(id) = self.select_run.take() {
                    self.selected = c.runs.iter().position(|r| r.run_id == id).unwrap_or(0);
                }
                self.selected = self.selected.min(c.runs.len().saturating_sub(1));
                self.result = Some(c);
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// The chosen run, once the comparison is in.
    pub fn chosen(&self) -> Option<(RunId, &str)> {
        let r = self.result.as_ref()?.runs.get(self.selected)?;
        Some((r.run_id, r.vendor.as_str()))
    }

    /// None is open or running: the stored evals and comparisons are listed.
    pub fn listing(&self) -> bool {
        self.columns.is_empty() && self.result.is_none() && !self.running && self.eval.is_none()
    }

    /// The eval open, with no comparison over it.
    pub fn eval_shown(&self) -> Option<&EvalView> {
        self.eval
            .as_ref()
            .filter(|_| self.result.is_none() && self.columns.is_empty() && !self.running)
    }

    /// Rows of the list: the evals, then the comparisons.
    pub fn listed(&self) -> usize {
        self.evals.len() + self.stored.len()
    }

    /// The eval or comparison chosen in the list.
    pub fn chosen_stored(&self) -> Option<Listed> {
        match self.evals.get(self.stored_at) {
            Some(e) => Some(Listed::Eval(e.row.eval_id)),
            None => self
                .stored
                .get(self.stored_at.checked_sub(self.evals.len())?)
                .map(|g| Listed::Group(g.group_id)),
        }
    }

    /// Move the choice up or down the comparison's runs (or the stored list).
    pub fn choose(&mut self, up: bool) {
        if self.eval_shown().is_some() {
            if let Some(e) = &mut self.eval {
                e.choose(up);
            }
            return;
        }
        if self.listing() {
            let n = self.listed();
            self.stored_at = if up {
                self.stored_at.saturating_sub(1)
            } else {
                (self.stored_at + 1).min(n.saturating_sub(1))
            };
            return;
        }
        let n = self.result.as_ref().map_or(0, |c| c.runs.len());
        self.selected = if up {
            self.selected.saturating_sub(1)
        } else {
            (self.selected + 1).min(n.saturating_sub(1))
        };
    }
}
