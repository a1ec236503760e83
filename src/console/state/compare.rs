//! The Compare screen's data: one column per vendor asked — its refusal, or its
//! live run folded exactly as the Run panes fold one (`RunView::apply`) — and,
//! once the group has ended, the comparison the store reads back, with the run
//! the operator has chosen to open; and, before any, the comparisons the store
//! holds (`run --providers`, `run --replay`, earlier consoles), newest first.

use crate::console::state::run::RunView;
use crate::core::compare::Comparison;
use crate::core::event::{Event, RunId};
use crate::core::wire::Vendor;

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
    /// The one chosen in that list.
    pub stored_at: usize,
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
                self.selected = self.selected.min(c.runs.len().saturating_sub(1));
                self.result = Some(c);
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// The chosen run, once the comparison is in.
    pub fn chosen(&self) -> Option<(RunId, &str)> {
        let r = self.result.as_ref()?.runs.get(self.selected)?;
        Some((RunId(r.run_id), r.vendor.as_str()))
    }

    /// None is open or running: the stored comparisons are listed.
    pub fn listing(&self) -> bool {
        self.columns.is_empty() && self.result.is_none() && !self.running
    }

    /// The stored comparison chosen in the list.
    pub fn chosen_stored(&self) -> Option<i64> {
        self.stored.get(self.stored_at).map(|g| g.group_id)
    }

    /// Move the choice up or down the comparison's runs (or the stored list).
    pub fn choose(&mut self, up: bool) {
        if self.listing() {
            let n = self.stored.len();
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
