//! The Compare screen's evals: the ones the store holds, listed above the
//! comparisons with what they cost (`EvalListed`), and one opened (`EvalView`):
//! its report as `Store::eval_report` scored it, a row a vendor (the matrix)
//! then a row a question and vendor, the cursor moving over both.

use crate::core::eval::{EvalReport, Scored, VendorRow};
use crate::core::id::RunId;
use crate::core::money::Total;
use crate::store::EvalRow;

/// A stored eval as Compare lists it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalListed {
    /// The eval, its questions' progress.
    pub row: EvalRow,
    /// What its runs cost in all (`EvalReport::cost`): the priced runs' sum
    /// and how many were unpriced.
    pub cost: Total,
}

/// An eval opened on Compare.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalView {
    /// Its report.
    pub report: EvalReport,
    /// The row chosen: a vendor's (`0..vendors`), then a question's on a vendor.
    pub at: usize,
}

/// The row under the cursor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EvalPick<'a> {
    /// A vendor's row of the matrix.
    Vendor(&'a VendorRow),
    /// A question on a vendor.
    Cell(&'a Scored),
}

impl EvalView {
    /// The report opened, the first row chosen.
    pub fn new(report: EvalReport) -> EvalView {
        EvalView { report, at: 0 }
    }

    /// Rows the cursor moves over.
    pub fn rows(&self) -> usize {
        self.report.vendors.len() + self.report.questions.len()
    }

    /// The row chosen.
    pub fn chosen(&self) -> Option<EvalPick<'_>> {
        let n = self.report.vendors.len();
        match self.report.vendors.get(self.at) {
            Some(v) => Some(EvalPick::Vendor(v)),
            None => self
                .report
                .questions
                .get(self.at.checked_sub(n)?)
                .map(EvalPick::Cell),
        }
    }

    /// The run a row stands for. A question's row: its run on that vendor. A
    /// vendor's row has no one run: it stands for the vendor's first run in the
    /// eval, in the question file's order (the first question it ran; a run
    /// superseded by a later one skipped) — the run Enter on a vendor opens the
    /// claims of.
    pub fn run_of(&self, pick: EvalPick<'_>) -> Option<RunId> {
        match pick {
            EvalPick::Cell(s) => s.run_id,
            EvalPick::Vendor(v) => self
                .report
                .questions
                .iter()
                .filter(|s| s.vendor == v.vendor && s.superseded_by.is_none())
                .find_map(|s| s.run_id),
        }
    }

    /// Move the choice up or down.
    pub fn choose(&mut self, up: bool) {
        self.at = if up {
            self.at.saturating_sub(1)
        } else {
            (self.at + 1).min(self.rows().saturating_sub(1))
        };
    }
}
