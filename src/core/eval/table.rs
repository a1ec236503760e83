//! An eval's report as text for people (`render`: the matrix, a row a vendor,
//! then the per-question table), as Markdown (`markdown`: the same two tables,
//! what `e` on the console's Compare screen writes) and as CSV (`csv`: a row a
//! question and vendor, the data the matrix sums). Cited and verified shares
//! show `—` until the claims check fills them. `title`, `columns` and
//! `unrun_lines` are the pieces the console's eval view draws, so its rows are
//! these.

use std::fmt::Write as _;

use super::{EvalReport, Scored, VendorRow};
use crate::core::inert;
use crate::core::money::Part;
use crate::core::outcome::{or_not_run, or_running};
use crate::core::price::usd_or_dash;
use crate::core::text::share;

/// Milliseconds as seconds, `—` when unknown.
pub fn secs(ms: Option<u64>) -> String {
    ms.map_or_else(
        || "—".to_string(),
        |ms| format!("{:.1}s", ms as f64 / 1000.0),
    )
}

/// The matrix's columns every eval has.
pub const MATRIX_HEAD: [&str; 12] = [
    "vendor",
    "accuracy",
    "url recall",
    "same domain",
    "cited",
    "verified",
    "cit. recall",
    "cit. precision",
    "mean cost",
    "total cost",
    "p50 wall",
    "p95 wall",
];

/// The columns a judge adds (after the citation figures): SimpleQA's three.
const JUDGE_HEAD: [&str; 3] = ["judged correct", "given attempted", "judge F1"];

/// `n errors`, or nothing for none.
fn errors(n: u64) -> Option<String> {
    match n {
        0 => None,
        1 => Some("1 error".into()),
        n => Some(format!("{n} errors")),
    }
}

/// The matrix of `r`: its header (`MATRIX_HEAD`; the citation figures once a
/// check filled them, a set-items column when a question wants every item of
/// a set, the judge's three figures and the judging cost when a judge ran) and
/// a row a vendor.
pub fn matrix(r: &EvalReport) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let sets = r.vendors.iter().any(|v| v.set_f1.is_some());
    let judged = r.judge.is_some() || r.vendors.iter().any(|v| v.judge.is_some());
    let cited = checked(r);
    // Columns of `MATRIX_HEAD` kept, and where the optional ones go.
    let mut keep: Vec<usize> = (0..MATRIX_HEAD.len()).collect();
    if !cited {
        keep.retain(|&c| c != 6 && c != 7);
    }
    let rows = r
        .vendors
        .iter()
        .map(|v| {
            let all = matrix_row(v, r.lower_bound);
            let mut row: Vec<String> = keep.iter().map(|&c| all[c].clone()).collect();
            extra(&mut row, v, (sets, judged));
            row
        })
        .collect();
    let mut head: Vec<&'static str> = keep.iter().map(|&c| MATRIX_HEAD[c]).collect();
    if sets {
        head.insert(2, "set items");
    }
    if judged {
        let at = head.len() - 4;
        head.splice(at..at, JUDGE_HEAD);
        head.insert(at + 5, "judging cost");
    }
    (head, rows)
}

/// Some citation of the eval was checked: its recall and precision are known.
pub fn checked(r: &EvalReport) -> bool {
    r.vendors
        .iter()
        .any(|v| v.citation_recall.is_some() || v.citation_precision.is_some())
}

/// A vendor's optional cells put in `row` (`matrix`'s columns): its set items
/// after accuracy, the judge's figures before the costs and the judging cost
/// after them.
fn extra(row: &mut Vec<String>, v: &VendorRow, (sets, judged): (bool, bool)) {
    if sets {
        row.insert(2, set_items(v));
    }
    if judged {
        let f = v.judge.unwrap_or_default();
        let graded = f.correct + f.incorrect + f.not_attempted;
        let attempted = f.correct + f.incorrect;
        let judge = [
            format!("{} ({}/{graded})", share(f.accuracy), f.correct),
            format!(
                "{} ({}/{attempted})",
                share(f.accuracy_given_attempted),
                f.correct
            ),
            share(f.f1),
        ];
        let at = row.len() - 4;
        row.splice(at..at, judge);
        row.insert(at + 5, v.judging_cost().text(Part::Run));
    }
}

/// A vendor's set-answer figures: `R 67% · P ≥50% · F1 ≥57%` (precision and
/// F1 lower bounds), `—` without set answers.
fn set_items(v: &VendorRow) -> String {
    match v.set_f1 {
        None => "—".into(),
        Some(_) => format!(
            "R {} · P ≥{} · F1 ≥{}",
            share(v.set_recall),
            share(v.set_precision),
            share(v.set_f1)
        ),
    }
}

/// A vendor's cells, in `MATRIX_HEAD`'s order. Accuracy is over the answered
/// runs, with the runs that ended without an answer beside it:
/// `80% (4/5), 1 error`, or `— (5 errors)` when none was answered; `≥` before
/// it when it is a `lower_bound` on the set's own grader.
pub fn matrix_row(v: &VendorRow, lower_bound: bool) -> Vec<String> {
    let mark = if lower_bound && v.accuracy.is_some() {
        "≥"
    } else {
        ""
    };
    let accuracy = match (v.accuracy, errors(v.errors)) {
        (Some(_), None) => format!("{mark}{} ({}/{})", share(v.accuracy), v.correct, v.graded),
        (Some(_), Some(e)) => {
            format!(
                "{mark}{} ({}/{}), {e}",
                share(v.accuracy),
                v.correct,
                v.graded
            )
        }
        (None, Some(e)) => format!("— ({e})"),
        (None, None) => "—".into(),
    };
    vec![
        v.vendor.to_string(),
        accuracy,
        share(v.url_recall),
        share(v.domain_recall),
        share(v.cited_share),
        share(v.verified_share),
        share(v.citation_recall),
        share(v.citation_precision),
        usd_or_dash(v.mean_cost_micro_usd),
        v.cost().text(Part::Run),
        secs(v.wall_ms_p50),
        secs(v.wall_ms_p95),
    ]
}

/// The per-question table's header.
pub const QUESTION_HEAD: [&str; 11] = [
    "question",
    "vendor",
    "run",
    "outcome",
    "correct",
    "url recall",
    "cited",
    "verified",
    "cost",
    "wall",
    "searches",
];

/// One question on one vendor, in `QUESTION_HEAD`'s order: its outcome
/// (`running` while it has none; `interrupted → #7` when a later run replaced
/// it), `correct` only when it was answered.
pub fn question_row(s: &Scored) -> Vec<String> {
    let Some(run) = s.run_id else {
        let mut row = vec![s.id.clone(), s.vendor.to_string(), "—".into()];
        row.push(format!("not run: {}", s.note.as_deref().unwrap_or("")));
        row.extend(std::iter::repeat_n(String::new(), 7));
        return row;
    };
    let outcome = s.outcome.map_or(or_running::RUNNING, |o| o.as_str());
    let outcome = match s.superseded_by {
        Some(next) => format!("{outcome} → #{next}"),
        None => outcome.to_string(),
    };
    let correct = match s.correct {
        Some(true) => "yes",
        Some(false) => "no",
        None => "—",
    };
    let searches = if s.failed_searches > 0 {
        format!("{} ({} failed)", s.searches, s.failed_searches)
    } else {
        s.searches.to_string()
    };
    vec![
        s.id.clone(),
        s.vendor.to_string(),
        format!("#{run}"),
        outcome,
        correct.into(),
        share(s.url_recall),
        share(s.cited_share),
        share(s.verified_share),
        usd_or_dash(s.cost_micro_usd),
        secs(s.wall_ms),
        searches,
    ]
}

/// The per-question table of `r`: `QUESTION_HEAD`, and the judge's grade of
/// each run when a judge ran (`—` for a run not graded).
pub fn question_table(r: &EvalReport) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let judged = r.judge.is_some();
    let mut head = QUESTION_HEAD.to_vec();
    if judged {
        head.push("grade");
    }
    let rows = r
        .questions
        .iter()
        .map(|s| {
            let mut row = question_row(s);
            if judged {
                let grade = s.grade.map_or("—", |g| g.as_str());
                row.push(if s.run_id.is_some() {
                    grade.to_string()
                } else {
                    String::new()
                });
            }
            row
        })
        .collect();
    (head, rows)
}

/// Columns padded to their widest cell, two spaces apart. A row's last cell
/// with text (a not-run row's reason) runs on over the empty cells after it
/// rather than widening its column for every row.
fn aligned(head: &[&str], rows: &[Vec<String>], text: &mut String) {
    let mut width: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        let last = row.iter().rposition(|c| !c.is_empty()).unwrap_or(0);
        let sized = if last + 1 < row.len() {
            last
        } else {
            row.len()
        };
        for (w, cell) in width.iter_mut().zip(&row[..sized]) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>, text: &mut String| {
        let mut l = String::new();
        for (cell, w) in cells.iter().zip(&width) {
            // Padded by hand: a width given to `format!` panics past 65,535.
            l.push_str(cell);
            let pad = w.saturating_sub(cell.chars().count()) + 2;
            l.extend(std::iter::repeat_n(' ', pad));
        }
        let _ = writeln!(text, "{}", l.trim_end());
    };
    line(head.to_vec(), text);
    for row in rows {
        line(row.iter().map(String::as_str).collect(), text);
    }
}

/// Columns padded to their widest cell, two spaces apart: the header's line
/// then a line a row (what `render` prints; the console's eval view draws it).
pub fn columns(head: &[&str], rows: &[Vec<String>]) -> String {
    let mut text = String::new();
    aligned(head, rows, &mut text);
    text
}

/// The first line: which eval, how many questions and vendors, what it cost.
pub fn title(r: &EvalReport) -> String {
    let questions = r.questions.len() / r.vendors.len().max(1);
    format!(
        "eval {} · {} · {questions} question{} × {} vendor{} · {} in all",
        r.eval_id,
        r.file,
        if questions == 1 { "" } else { "s" },
        r.vendors.len(),
        if r.vendors.len() == 1 { "" } else { "s" },
        r.cost().text(Part::Run)
    )
}

/// The second line: the set, its file's hash (its revision), the subset run,
/// and whether the eval is private: `set simpleqa · sha256 feee3f7e7db3 · 50
/// of 4,326 drawn with seed 7`.
pub fn context(r: &EvalReport) -> String {
    let questions = r
        .questions
        .iter()
        .filter(|s| s.superseded_by.is_none())
        .count()
        / r.vendors.len().max(1);
    let rows = r
        .rows
        .map_or(questions, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let mut line = format!("set {}", r.set);
    if let Some(rev) = &r.revision {
        let _ = write!(line, " · sha256 {}", rev.get(..12).unwrap_or(rev));
    }
    let _ = write!(line, " · {}", r.subset.words(rows));
    if r.private {
        line.push_str(
            " · private: its questions and answers are kept out of the search index and exports",
        );
    }
    line
}

/// What the figures are, a line each: the lower bound, the set figures, the
/// citation verifier, the judge; `short` (the console's pane) in a few words each.
pub fn notes(r: &EvalReport, short: bool) -> String {
    if short {
        let mut text = String::new();
        if r.lower_bound {
            text.push_str("≥ answer match: a lower bound on the set's own (model) grader\n");
        }
        if checked(r) {
            text.push_str(
                "cit. recall/precision: the quote found on the page fetched under [policy], not an entailment model\n",
            );
        }
        if let Some(j) = &r.judge {
            let _ = writeln!(
                text,
                "judge: {j} (io-harness's prompt: `eval --judge {j} --show-prompt`)"
            );
        }
        return text;
    }
    let mut text = String::new();
    if r.lower_bound {
        let _ = writeln!(
            text,
            "≥ accuracy is answer match after normalisation (whole words; a number within the gold's precision or stated range): a lower bound on the set's own grader, a model that also accepts paraphrases and minor misspellings"
        );
    }
    if r.vendors.iter().any(|v| v.set_f1.is_some()) {
        let _ = writeln!(
            text,
            "set items: recall = gold items found; precision and F1 are lower bounds (prose around a list makes items of its own)"
        );
    }
    let verifier = if r.citation_verifier.is_empty() {
        super::citation::VERIFIER
    } else {
        &r.citation_verifier
    };
    let _ = writeln!(
        text,
        "cit. recall = sentences supported ÷ sentences; cit. precision = supporting citations ÷ citations checked; verifier: {verifier} (— until `--check`)"
    );
    if let Some(j) = &r.judge {
        let ungraded: u64 = r
            .vendors
            .iter()
            .filter_map(|v| v.judge)
            .map(|f| f.ungraded)
            .sum();
        let _ = writeln!(
            text,
            "judge: {j}, grading each answered run with io-harness's prompt (`eval --judge {j} --show-prompt`); judged correct ÷ graded, given attempted = correct ÷ (correct + incorrect), F1 their harmonic mean{}",
            match ungraded {
                0 => String::new(),
                n => format!(
                    "; {n} judging{} without a grade",
                    if n == 1 { "" } else { "s" }
                ),
            }
        );
    }
    text
}

/// What did not run, a line each; empty when every question ran.
pub fn unrun_lines(r: &EvalReport) -> String {
    let mut text = String::new();
    unrun(r, &mut text);
    text
}

/// What did not run, a line each.
fn unrun(r: &EvalReport, text: &mut String) {
    if !r.not_run.is_empty() {
        let cap = usd_or_dash(r.max_usd_micro);
        let _ = writeln!(
            text,
            "did not run (the eval's --max-usd {cap} was crossed first): {}",
            r.not_run.join(", ")
        );
    }
    if !r.pending.is_empty() {
        let _ = writeln!(
            text,
            "not run yet (`io-harness eval --resume {}` runs them): {}",
            r.eval_id,
            r.pending.join(", ")
        );
    }
}

/// The report as text for people.
pub fn render(r: &EvalReport) -> String {
    let mut text = title(r);
    text.push('\n');
    text.push_str(&context(r));
    text.push_str("\n\n");
    let (head, rows) = matrix(r);
    aligned(&head, &rows, &mut text);
    text.push_str(&notes(r, false));
    text.push('\n');
    let (head, rows) = question_table(r);
    aligned(&head, &rows, &mut text);
    if !r.not_run.is_empty() || !r.pending.is_empty() {
        text.push('\n');
        unrun(r, &mut text);
    }
    text
}

/// A Markdown table.
fn md_table(head: &[&str], rows: &[Vec<String>], text: &mut String) {
    let _ = writeln!(text, "| {} |", head.join(" | "));
    let _ = writeln!(text, "|{}", " --- |".repeat(head.len()));
    for row in rows {
        // Outside text is already inert (its `|` escaped); the rest is ours.
        let _ = writeln!(text, "| {} |", row.join(" | "));
    }
}

/// `r` with what the question file and the vendors wrote — the file's name,
/// question ids, why a question did not run — passed through `made`, for a
/// document (`core::inert`); the figures are this crate's own text.
fn outside_text(r: &EvalReport, made: fn(&str) -> String) -> EvalReport {
    EvalReport {
        file: made(&r.file),
        questions: r
            .questions
            .iter()
            .map(|s| Scored {
                id: made(&s.id),
                note: s.note.as_deref().map(made),
                ..s.clone()
            })
            .collect(),
        not_run: r.not_run.iter().map(|id| made(id)).collect(),
        pending: r.pending.iter().map(|id| made(id)).collect(),
        ..r.clone()
    }
}

/// The report as Markdown: a heading, the matrix, the per-question table; what
/// the question file and the vendors wrote renders as written (no HTML, no
/// link), as in the sources' export.
pub fn markdown(r: &EvalReport) -> String {
    let r = &outside_text(r, inert::markdown);
    let mut text = format!("# {}\n\n{}\n\n", title(r), context(r));
    let (head, rows) = matrix(r);
    md_table(&head, &rows, &mut text);
    text.push('\n');
    for line in notes(r, false).lines() {
        let _ = writeln!(text, "- {line}");
    }
    text.push('\n');
    let (head, rows) = question_table(r);
    md_table(&head, &rows, &mut text);
    if !r.not_run.is_empty() || !r.pending.is_empty() {
        text.push('\n');
        unrun(r, &mut text);
    }
    text
}

/// The report as CSV: a row a question and vendor, figures as numbers (shares
/// 0 to 1, cost in millionths of a dollar, wall time in milliseconds), empty
/// where there is none; what the question file and the vendors wrote is a
/// cell a spreadsheet will not run, as in the sources' export.
pub fn csv(r: &EvalReport) -> String {
    let r = &outside_text(r, inert::csv_cell);
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let head = [
        "eval_id",
        "set",
        "revision",
        "subset",
        "id",
        "vendor",
        "run_id",
        "outcome",
        "correct",
        "lower_bound",
        "set_recall",
        "set_precision",
        "set_f1",
        "url_recall",
        "domain_recall",
        "cited_share",
        "verified_share",
        "unsupported",
        "citation_recall",
        "citation_precision",
        "grade",
        "judge_run_id",
        "judging_cost_micro_usd",
        "cost_micro_usd",
        "wall_ms",
        "searches",
        "failed_searches",
        "note",
        "superseded_by",
    ];
    let _ = w.write_record(head);
    let opt = |v: Option<String>| v.unwrap_or_default();
    let rows = r
        .rows
        .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let subset = r.subset.words(rows);
    let revision = r.revision.clone().unwrap_or_default();
    for s in &r.questions {
        let _ = w.write_record([
            r.eval_id.to_string(),
            r.set.to_string(),
            revision.clone(),
            subset.clone(),
            s.id.clone(),
            s.vendor.to_string(),
            opt(s.run_id.map(|v| v.to_string())),
            or_not_run::word(s.outcome).to_string(),
            opt(s.correct.map(|v| v.to_string())),
            r.lower_bound.to_string(),
            opt(s.set_recall.map(|v| v.to_string())),
            opt(s.set_precision.map(|v| v.to_string())),
            opt(s.set_f1.map(|v| v.to_string())),
            opt(s.url_recall.map(|v| v.to_string())),
            opt(s.domain_recall.map(|v| v.to_string())),
            opt(s.cited_share.map(|v| v.to_string())),
            opt(s.verified_share.map(|v| v.to_string())),
            opt(s.unsupported.map(|v| v.to_string())),
            opt(s.citation_recall.map(|v| v.to_string())),
            opt(s.citation_precision.map(|v| v.to_string())),
            opt(s.grade.map(|v| v.to_string())),
            opt(s.judge_run_id.map(|v| v.to_string())),
            opt(s.judging_cost_micro_usd.map(|v| v.to_string())),
            opt(s.cost_micro_usd.map(|v| v.to_string())),
            opt(s.wall_ms.map(|v| v.to_string())),
            s.searches.to_string(),
            s.failed_searches.to_string(),
            opt(s.note.clone()),
            opt(s.superseded_by.map(|v| v.to_string())),
        ]);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}
