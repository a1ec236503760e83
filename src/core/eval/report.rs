//! An eval's report: every question on every vendor scored (`Scored`), and a row
//! a vendor summing them (`VendorRow`): accuracy over the answered runs with
//! gold answers (the runs that ended without an answer counted beside it as
//! errors, never graded), mean URL recall over the answered runs with gold
//! URLs, cost, wall-time percentiles, searches. Pure: from the records the
//! store read.
//!
//! Every run made for an eval is in its report once: a question's group may
//! hold more than one run of a vendor (one interrupted by a kill, then the one
//! `eval --resume` made); the last is the question's run, the earlier ones are
//! rows marked `superseded_by` it, whose cost counts in every total and whose
//! scores do not.

use serde::{Deserialize, Serialize};

use super::QuestionStatus;
use super::question::Question;
use super::score::{correct, percentile, url_recall};
use crate::core::figures::RunFigures;
use crate::core::id::{EvalId, GroupId, RunId};
use crate::core::money::Total;
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
}

/// One question of an eval as the store read it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QuestionRecord {
    /// The question.
    pub question: Question,
    /// Its comparison, once it ran.
    pub group_id: Option<GroupId>,
    /// Where it stands.
    pub status: QuestionStatus,
    /// Its runs.
    pub runs: Vec<RunRecord>,
    /// Vendors that did not run it, and why.
    pub refusals: Vec<(Vendor, String)>,
}

impl QuestionRecord {
    /// Of `vendors`, those without an ending in the question's group: no run
    /// there, or only runs interrupted (killed) or cancelled — what a resume
    /// runs. A vendor whose run ended (an answer, an error, a budget) is kept.
    pub fn to_run(&self, vendors: &[Vendor]) -> Vec<Vendor> {
        vendors
            .iter()
            .copied()
            .filter(|v| {
                !self.runs.iter().any(|r| {
                    r.vendor == *v
                        && r.outcome.is_some_and(|o| {
                            !matches!(o, Outcome::Interrupted | Outcome::Cancelled)
                        })
                })
            })
            .collect()
    }
}

/// One question on one vendor, scored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    /// The question's id.
    pub id: String,
    /// The vendor.
    pub vendor: Vendor,
    /// Its run, when it ran.
    pub run_id: Option<RunId>,
    /// Its comparison, when the question ran.
    pub group_id: Option<GroupId>,
    /// How the run ended; `None` (`not run`) when it did not run or has not ended.
    #[serde(with = "crate::core::outcome::or_not_run")]
    pub outcome: Option<Outcome>,
    /// A gold answer is in the final answer (`None`: no gold answers, not run,
    /// or the run ended without an answer — an error is not a wrong answer).
    pub correct: Option<bool>,
    /// The share of gold URLs cited (`None` unless answered).
    pub url_recall: Option<f64>,
    /// The share of gold URLs whose domain was cited.
    pub domain_recall: Option<f64>,
    /// The share of the final answer's sentences citing a source (`RunFigures`).
    pub cited_share: Option<f64>,
    /// The share of checked citations found on their page (`None` until checked).
    pub verified_share: Option<f64>,
    /// Claims no source supports.
    pub unsupported: Option<u64>,
    /// Its cost, in millionths of a US dollar (`None`: a request unpriced).
    pub cost_micro_usd: Option<u64>,
    /// Its wall time, in milliseconds.
    pub wall_ms: Option<u64>,
    /// Searches made, ok or failed.
    pub searches: u64,
    /// Of them, failed.
    pub failed_searches: u64,
    /// The later run of this question and vendor that replaced this one (it
    /// was interrupted or cancelled, and the question resumed): its cost
    /// counts, its scores do not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<RunId>,
    /// Why it did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Score one run of `q`: graded only when it ended with an answer
/// (`Outcome::answered`).
pub fn score_run(q: &Question, group_id: Option<GroupId>, r: &RunRecord) -> Scored {
    let answered = r.outcome.is_some_and(Outcome::answered);
    let (url_recall, domain_recall) = if answered {
        url_recall(&q.urls, &r.cited)
    } else {
        (None, None)
    };
    Scored {
        id: q.id.clone(),
        vendor: r.vendor,
        run_id: Some(r.run_id),
        group_id,
        outcome: r.outcome,
        correct: correct(&r.answer, &q.answers).filter(|_| answered),
        url_recall,
        domain_recall,
        cited_share: r.figures.cited_share,
        verified_share: r.figures.verified_share,
        unsupported: r.figures.unsupported,
        cost_micro_usd: r.figures.cost_micro_usd,
        wall_ms: r.figures.wall_ms,
        searches: r.figures.searches,
        failed_searches: r.figures.failed_searches,
        superseded_by: None,
        note: None,
    }
}

/// One vendor's row of the matrix.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VendorRow {
    /// The vendor.
    pub vendor: Vendor,
    /// Questions it ran (a superseded run not counted).
    pub runs: u64,
    /// Of them, those that ended with an answer (`Outcome::answered`)…
    pub answered: u64,
    /// …and those that ended without one (an error, a refusal, a cut-off, a
    /// budget, a cancel, a kill): not graded.
    pub errors: u64,
    /// Of the answered ones with gold answers, how many it got right…
    pub correct: u64,
    /// …of how many.
    pub graded: u64,
    /// `correct ÷ graded`; `None` when nothing was graded.
    pub accuracy: Option<f64>,
    /// Mean share of gold URLs cited, over answered runs of questions with gold URLs.
    pub url_recall: Option<f64>,
    /// Mean share of gold URLs whose domain was cited.
    pub domain_recall: Option<f64>,
    /// Mean share of the final answers' sentences citing a source.
    pub cited_share: Option<f64>,
    /// Mean share of checked citations found on their page (`None` until checked).
    pub verified_share: Option<f64>,
    /// Claims no source supports, in all.
    pub unsupported: Option<u64>,
    /// What all its runs cost (superseded ones included), in millionths of a
    /// US dollar; `None` when one could not be priced.
    pub cost_micro_usd: Option<u64>,
    /// Of them, the priced runs' sum…
    pub priced_micro_usd: u64,
    /// …and how many runs were not priced.
    pub unpriced_runs: u64,
    /// The mean cost of its priced runs.
    pub mean_cost_micro_usd: Option<u64>,
    /// Median wall time, milliseconds.
    pub wall_ms_p50: Option<u64>,
    /// 95th-percentile wall time, milliseconds.
    pub wall_ms_p95: Option<u64>,
    /// Searches made, ok or failed (superseded runs' included).
    pub searches: u64,
    /// Of them, failed.
    pub failed_searches: u64,
    /// Questions it did not run (refused, could not start, or the eval's cap).
    pub not_run: u64,
}

impl VendorRow {
    /// What its runs cost, as a total over them.
    pub fn cost(&self) -> Total {
        Total {
            priced_micro_usd: self.priced_micro_usd,
            unpriced: self.unpriced_runs,
        }
    }
}

/// An eval scored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    /// The eval.
    pub eval_id: EvalId,
    /// The question file it read (`demo` for the bundled set).
    pub file: String,
    /// What every run made for it cost, in millionths of a US dollar; `None`
    /// when one could not be priced.
    pub cost_micro_usd: Option<u64>,
    /// Of them, the priced runs' sum…
    pub priced_micro_usd: u64,
    /// …and how many runs were not priced.
    pub unpriced_runs: u64,
    /// A row a vendor, in the order asked.
    pub vendors: Vec<VendorRow>,
    /// A row a question and vendor (and one a superseded run), in the file's order.
    pub questions: Vec<Scored>,
    /// Questions that did not run because the eval's dollar cap was crossed.
    pub not_run: Vec<String>,
    /// Questions not run yet (the eval was stopped): `eval --resume` runs them.
    pub pending: Vec<String>,
    /// The eval's dollar cap, in millionths.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_usd_micro: Option<u64>,
}

impl EvalReport {
    /// What every run made for the eval cost, as a total over them.
    pub fn cost(&self) -> Total {
        Total {
            priced_micro_usd: self.priced_micro_usd,
            unpriced: self.unpriced_runs,
        }
    }
}

/// The report of eval `eval_id` over `vendors` (in order) from its questions.
pub fn report(
    eval_id: EvalId,
    file: &str,
    vendors: &[Vendor],
    questions: &[QuestionRecord],
) -> EvalReport {
    let mut rows = Vec::new();
    let mut not_run = Vec::new();
    let mut pending = Vec::new();
    for q in questions {
        match q.status {
            QuestionStatus::Skipped => not_run.push(q.question.id.clone()),
            QuestionStatus::Done => {}
            QuestionStatus::Pending => pending.push(q.question.id.clone()),
        }
        for v in vendors {
            rows.extend(cells(q, *v));
        }
    }
    let vendors: Vec<VendorRow> = vendors.iter().map(|v| vendor_row(*v, &rows)).collect();
    let cost = vendors
        .iter()
        .fold(Total::default(), |t, v| t.plus(v.cost()));
    EvalReport {
        eval_id,
        file: file.to_string(),
        cost_micro_usd: cost.whole(),
        priced_micro_usd: cost.priced_micro_usd,
        unpriced_runs: cost.unpriced,
        vendors,
        questions: rows,
        not_run,
        pending,
        max_usd_micro: None,
    }
}

/// Question `q` on `vendor`: its runs scored (the last is the question's, the
/// earlier ones superseded by it), or why there is none.
fn cells(q: &QuestionRecord, vendor: Vendor) -> Vec<Scored> {
    let mine: Vec<&RunRecord> = q.runs.iter().filter(|r| r.vendor == vendor).collect();
    if let Some((last, earlier)) = mine.split_last() {
        let mut out: Vec<Scored> = earlier
            .iter()
            .map(|r| Scored {
                superseded_by: Some(last.run_id),
                note: Some(format!("run again as #{}", last.run_id)),
                ..score_run(&q.question, q.group_id, r)
            })
            .collect();
        let mut s = score_run(&q.question, q.group_id, last);
        if q.status == QuestionStatus::Pending && !last.outcome.is_some_and(Outcome::answered) {
            s.note = Some("not ended: `eval --resume` runs it again".into());
        }
        out.push(s);
        return out;
    }
    let note = q
        .refusals
        .iter()
        .find(|(v, _)| *v == vendor)
        .map(|(_, why)| why.clone())
        .or_else(|| match q.status {
            QuestionStatus::Skipped => {
                Some("the eval's --max-usd was crossed before it started".into())
            }
            QuestionStatus::Done => Some("no run recorded".into()),
            QuestionStatus::Pending => Some("not run yet: `eval --resume` runs it".into()),
        });
    vec![Scored {
        id: q.question.id.clone(),
        vendor,
        group_id: q.group_id,
        outcome: None,
        note,
        ..Scored::default()
    }]
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (n, sum) = values.fold((0u32, 0.0), |(n, s), v| (n + 1, s + v));
    (n > 0).then(|| sum / f64::from(n))
}

/// One vendor's row from every scored cell.
fn vendor_row(vendor: Vendor, rows: &[Scored]) -> VendorRow {
    let mine: Vec<&Scored> = rows.iter().filter(|r| r.vendor == vendor).collect();
    // Every run made (what it cost), and the questions' own runs (what is scored).
    let made: Vec<&Scored> = mine
        .iter()
        .copied()
        .filter(|r| r.run_id.is_some())
        .collect();
    let ran: Vec<&Scored> = made
        .iter()
        .copied()
        .filter(|r| r.superseded_by.is_none())
        .collect();
    let answered = ran
        .iter()
        .filter(|r| r.outcome.is_some_and(Outcome::answered))
        .count() as u64;
    let errors = ran
        .iter()
        .filter(|r| r.outcome.is_some_and(|o| !o.answered()))
        .count() as u64;
    let graded: Vec<bool> = ran.iter().filter_map(|r| r.correct).collect();
    let correct = graded.iter().filter(|c| **c).count() as u64;
    let cost = Total::of(made.iter().map(|r| r.cost_micro_usd));
    let priced = made.iter().filter(|r| r.cost_micro_usd.is_some()).count() as u64;
    let walls: Vec<u64> = ran.iter().filter_map(|r| r.wall_ms).collect();
    let unsupported: Vec<u64> = ran.iter().filter_map(|r| r.unsupported).collect();
    VendorRow {
        vendor,
        runs: ran.len() as u64,
        answered,
        errors,
        correct,
        graded: graded.len() as u64,
        accuracy: (!graded.is_empty()).then(|| correct as f64 / graded.len() as f64),
        url_recall: mean(ran.iter().filter_map(|r| r.url_recall)),
        domain_recall: mean(ran.iter().filter_map(|r| r.domain_recall)),
        cited_share: mean(ran.iter().filter_map(|r| r.cited_share)),
        verified_share: mean(ran.iter().filter_map(|r| r.verified_share)),
        unsupported: (!unsupported.is_empty()).then(|| unsupported.iter().sum()),
        cost_micro_usd: cost.whole(),
        priced_micro_usd: cost.priced_micro_usd,
        unpriced_runs: cost.unpriced,
        // Rounded to the nearest millionth, as every figure is shown.
        mean_cost_micro_usd: (priced > 0)
            .then(|| cost.priced_micro_usd.saturating_add(priced / 2) / priced),
        wall_ms_p50: percentile(&walls, 50),
        wall_ms_p95: percentile(&walls, 95),
        searches: made.iter().map(|r| r.searches).sum(),
        failed_searches: made.iter().map(|r| r.failed_searches).sum(),
        not_run: (mine.len() - made.len()) as u64,
    }
}
