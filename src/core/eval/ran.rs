//! The runs of an eval as the store read them: a question's answering runs
//! (`RunRecord`) and, when the eval has a judge, each answered run's judging
//! (`JudgingRecord`: the judge's runs in its own group, the grade its last
//! reply ends with). Pure.

use super::judge::{Grade, read_grade};
use crate::core::claims::ClaimSentence;
use crate::core::figures::RunFigures;
use crate::core::id::{GroupId, RunId};
use crate::core::outcome::Outcome;
use crate::core::vendor::Vendor;

/// One run of an eval as the store read it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunRecord {
    /// The run.
    pub run_id: RunId,
    /// Its vendor.
    pub vendor: Vendor,
    /// How it ended; `None` while it runs.
    pub outcome: Option<Outcome>,
    /// Its final answer (the last step's text).
    pub answer: String,
    /// The URLs it cited (its spawned children's included).
    pub cited: Vec<String>,
    /// Its figures, as every view reads them (`Store::figures`), the claim
    /// figures among them.
    pub figures: RunFigures,
    /// Its final answer's sentences with their sources and verdicts
    /// (`Store::run_claims`), for citation recall and precision.
    pub claims: Vec<ClaimSentence>,
}

/// The judging of one answered run: its own group's runs on the judge (the
/// last is the judging, earlier ones were interrupted and run again).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JudgingRecord {
    /// The run graded.
    pub graded: RunId,
    /// The judging's group.
    pub group_id: Option<GroupId>,
    /// The judge's runs, in order.
    pub runs: Vec<RunRecord>,
}

impl JudgingRecord {
    /// The judging has ended (its last run has an ending other than a kill or
    /// a cancel): it is not run again.
    pub fn ended(&self) -> bool {
        self.runs.last().is_some_and(|r| {
            r.outcome
                .is_some_and(|o| !matches!(o, Outcome::Interrupted | Outcome::Cancelled))
        })
    }

    /// The grade its last run's reply ends with; `None` while it runs, when
    /// the run ended without an answer, or when the reply has no grade.
    pub fn grade(&self) -> Option<Grade> {
        let last = self.runs.last()?;
        last.outcome
            .is_some_and(Outcome::answered)
            .then(|| read_grade(&last.answer))
            .flatten()
    }
}
