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
//!
//! Beside those: a set answer's recall, precision and F1 (`core::eval::items`),
//! citation recall and precision (`core::eval::citation`), and, when the eval
//! has a judge, the judge's grade of each answered run (its judging runs are
//! the eval's too: their cost is in every total, apart from answering) and
//! what the grades come to per vendor (`core::eval::judge::JudgeFigures`).

use serde::{Deserialize, Serialize};

use super::QuestionStatus;
use super::citation;
use super::items::{self, SetScore};
use super::judge::{Grade, JudgeFigures, JudgeSpec};
use super::question::{AnswerKind, Question};
pub use super::ran::{JudgingRecord, RunRecord};
use super::score::{correct, percentile, url_recall};
use super::set::SetName;
use super::subset::Subset;
use crate::core::id::{EvalId, GroupId, RunId};
use crate::core::money::Total;
use crate::core::outcome::Outcome;
use crate::core::vendor::Vendor;

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
    /// Its answered runs' judgings, when the eval has a judge.
    pub judgings: Vec<JudgingRecord>,
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
    /// A gold answer is in the final answer — every one, for a set answer
    /// (`None`: no gold answers, not run, or the run ended without an answer —
    /// an error is not a wrong answer).
    pub correct: Option<bool>,
    /// For a set answer: gold items found ÷ gold items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_recall: Option<f64>,
    /// For a set answer: the answer's items holding a gold item ÷ its items
    /// (a lower bound: prose makes items of its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_precision: Option<f64>,
    /// For a set answer: the harmonic mean of the two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_f1: Option<f64>,
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
    /// Sentences whose citations support them ÷ sentences whose support is
    /// known (`core::eval::citation`; `None` until checked).
    #[serde(default)]
    pub citation_recall: Option<f64>,
    /// Checked citations that support their sentence ÷ checked citations.
    #[serde(default)]
    pub citation_precision: Option<f64>,
    /// The judge's grade (`None`: no judge, not judged yet, or no grade read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grade: Option<Grade>,
    /// The run that graded it (the last of its judging).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_run_id: Option<RunId>,
    /// What judging it cost (every run of its judging), in millionths of a US
    /// dollar; `None` when not judged or a part unpriced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judging_cost_micro_usd: Option<u64>,
    /// Of it, the priced runs' sum and how many were not priced.
    #[serde(skip)]
    pub judging: Total,
    /// It was judged (a judging exists for it).
    #[serde(skip)]
    pub judged: bool,
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
    let set: Option<SetScore> = match q.kind {
        AnswerKind::All if answered => items::score(&r.answer, &q.answers),
        _ => None,
    };
    let correct = match (q.kind, set) {
        (AnswerKind::All, Some(s)) => Some(s.recall >= 1.0),
        (AnswerKind::All, None) => None,
        (AnswerKind::Any, _) => correct(&r.answer, &q.answers).filter(|_| answered),
    };
    let (citation_recall, citation_precision) = citation::quality(&r.claims);
    Scored {
        id: q.id.clone(),
        vendor: r.vendor,
        run_id: Some(r.run_id),
        group_id,
        outcome: r.outcome,
        correct,
        set_recall: set.map(|s| s.recall),
        set_precision: set.map(|s| s.precision),
        set_f1: set.map(|s| s.f1),
        url_recall,
        domain_recall,
        cited_share: r.figures.cited_share,
        verified_share: r.figures.verified_share,
        unsupported: r.figures.unsupported,
        citation_recall,
        citation_precision,
        grade: None,
        judge_run_id: None,
        judging_cost_micro_usd: None,
        judging: Total::default(),
        judged: false,
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
    /// Mean citation recall over its answered runs with checked citations.
    #[serde(default)]
    pub citation_recall: Option<f64>,
    /// Mean citation precision over the same runs.
    #[serde(default)]
    pub citation_precision: Option<f64>,
    /// Mean set recall over its answered runs of set questions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_recall: Option<f64>,
    /// Mean set precision over them (a lower bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_precision: Option<f64>,
    /// Mean set F1 over them (a lower bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_f1: Option<f64>,
    /// What the judge's grades of its answered runs come to, when the eval has a judge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeFigures>,
    /// What judging its answers cost, in millionths of a US dollar; `None`
    /// when a part could not be priced (0 without a judge).
    #[serde(default)]
    pub judging_cost_micro_usd: Option<u64>,
    /// Of it, the priced runs' sum…
    #[serde(default)]
    pub judging_priced_micro_usd: u64,
    /// …and how many judging runs were not priced.
    #[serde(default)]
    pub judging_unpriced_runs: u64,
    /// What all its answering runs cost (superseded ones included), in
    /// millionths of a US dollar; `None` when one could not be priced.
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
    /// What its answering runs cost, as a total over them.
    pub fn cost(&self) -> Total {
        Total {
            priced_micro_usd: self.priced_micro_usd,
            unpriced: self.unpriced_runs,
        }
    }

    /// What judging its answers cost, as a total over the judging runs.
    pub fn judging_cost(&self) -> Total {
        Total {
            priced_micro_usd: self.judging_priced_micro_usd,
            unpriced: self.judging_unpriced_runs,
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
    /// The set the file is.
    #[serde(default = "own")]
    pub set: SetName,
    /// The SHA-256 of the file as read (hex), its revision; `None` for an eval
    /// stored before it was recorded.
    #[serde(default)]
    pub revision: Option<String>,
    /// The questions the file holds (`None` for an eval stored before it was
    /// recorded).
    #[serde(default)]
    pub rows: Option<u64>,
    /// Which of them it runs.
    #[serde(default)]
    pub subset: Subset,
    /// The judge-free correct share is a lower bound on the set's own
    /// grader's accuracy (a published free-text set).
    #[serde(default)]
    pub lower_bound: bool,
    /// Its questions and answers are kept out of the search index and out of
    /// exports.
    #[serde(default)]
    pub private: bool,
    /// Its judge, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeSpec>,
    /// What decided citation recall and precision (`core::eval::citation::VERIFIER`).
    #[serde(default)]
    pub citation_verifier: String,
    /// What every run made for it cost (answering and judging), in millionths
    /// of a US dollar; `None` when one could not be priced.
    pub cost_micro_usd: Option<u64>,
    /// Of them, the priced runs' sum…
    pub priced_micro_usd: u64,
    /// …and how many runs were not priced.
    pub unpriced_runs: u64,
    /// Of the cost, answering's (`None` when a part is unpriced)…
    #[serde(default)]
    pub answering_cost_micro_usd: Option<u64>,
    /// …and judging's.
    #[serde(default)]
    pub judging_cost_micro_usd: Option<u64>,
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

fn own() -> SetName {
    SetName::Own
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
    let judged = questions.iter().any(|q| !q.judgings.is_empty());
    let vendors: Vec<VendorRow> = vendors
        .iter()
        .map(|v| vendor_row(*v, &rows, judged))
        .collect();
    let answering = vendors
        .iter()
        .fold(Total::default(), |t, v| t.plus(v.cost()));
    let judging = vendors
        .iter()
        .fold(Total::default(), |t, v| t.plus(v.judging_cost()));
    let cost = answering.plus(judging);
    EvalReport {
        eval_id,
        file: file.to_string(),
        citation_verifier: citation::VERIFIER.to_string(),
        cost_micro_usd: cost.whole(),
        priced_micro_usd: cost.priced_micro_usd,
        unpriced_runs: cost.unpriced,
        answering_cost_micro_usd: answering.whole(),
        judging_cost_micro_usd: judging.whole(),
        vendors,
        questions: rows,
        not_run,
        pending,
        ..EvalReport::default()
    }
}

/// `s` (the question's own run on its vendor) with the judge's grade of it
/// and what judging it cost, from `q`'s judgings.
fn judged(mut s: Scored, q: &QuestionRecord) -> Scored {
    let Some(j) = s
        .run_id
        .and_then(|id| q.judgings.iter().find(|j| j.graded == id))
    else {
        return s;
    };
    let cost = Total::of(j.runs.iter().map(|r| r.figures.cost_micro_usd));
    s.judged = true;
    s.grade = j.grade();
    s.judge_run_id = j.runs.last().map(|r| r.run_id);
    s.judging_cost_micro_usd = cost.whole();
    s.judging = cost;
    s
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
        let mut s = judged(score_run(&q.question, q.group_id, last), q);
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

/// One vendor's row from every scored cell; with the judge's figures when
/// the eval was `judged`.
fn vendor_row(vendor: Vendor, rows: &[Scored], judged: bool) -> VendorRow {
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
    let judging = made.iter().fold(Total::default(), |t, r| t.plus(r.judging));
    let judge = judged.then(|| {
        JudgeFigures::of(
            ran.iter()
                .filter(|r| r.judged && r.outcome.is_some_and(Outcome::answered))
                .map(|r| r.grade),
        )
    });
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
        citation_recall: mean(ran.iter().filter_map(|r| r.citation_recall)),
        citation_precision: mean(ran.iter().filter_map(|r| r.citation_precision)),
        set_recall: mean(ran.iter().filter_map(|r| r.set_recall)),
        set_precision: mean(ran.iter().filter_map(|r| r.set_precision)),
        set_f1: mean(ran.iter().filter_map(|r| r.set_f1)),
        judge,
        judging_cost_micro_usd: judging.whole(),
        judging_priced_micro_usd: judging.priced_micro_usd,
        judging_unpriced_runs: judging.unpriced,
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
