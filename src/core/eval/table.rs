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

/// The matrix's header.
pub const MATRIX_HEAD: [&str; 10] = [
    "vendor",
    "accuracy",
    "url recall",
    "same domain",
    "cited",
    "verified",
    "mean cost",
    "total cost",
    "p50 wall",
    "p95 wall",
];

/// `n errors`, or nothing for none.
fn errors(n: u64) -> Option<String> {
    match n {
        0 => None,
        1 => Some("1 error".into()),
        n => Some(format!("{n} errors")),
    }
}

/// A vendor's cells, in `MATRIX_HEAD`'s order. Accuracy is over the answered
/// runs, with the runs that ended without an answer beside it:
/// `80% (4/5), 1 error`, or `— (5 errors)` when none was answered.
pub fn matrix_row(v: &VendorRow) -> Vec<String> {
    let accuracy = match (v.accuracy, errors(v.errors)) {
        (Some(_), None) => format!("{} ({}/{})", share(v.accuracy), v.correct, v.graded),
        (Some(_), Some(e)) => {
            format!("{} ({}/{}), {e}", share(v.accuracy), v.correct, v.graded)
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
    text.push_str("\n\n");
    let rows: Vec<Vec<String>> = r.vendors.iter().map(matrix_row).collect();
    aligned(&MATRIX_HEAD, &rows, &mut text);
    text.push('\n');
    let rows: Vec<Vec<String>> = r.questions.iter().map(question_row).collect();
    aligned(&QUESTION_HEAD, &rows, &mut text);
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
    let mut text = format!("# {}\n\n", title(r));
    let rows: Vec<Vec<String>> = r.vendors.iter().map(matrix_row).collect();
    md_table(&MATRIX_HEAD, &rows, &mut text);
    text.push('\n');
    let rows: Vec<Vec<String>> = r.questions.iter().map(question_row).collect();
    md_table(&QUESTION_HEAD, &rows, &mut text);
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
        "id",
        "vendor",
        "run_id",
        "outcome",
        "correct",
        "url_recall",
        "domain_recall",
        "cited_share",
        "verified_share",
        "unsupported",
        "cost_micro_usd",
        "wall_ms",
        "searches",
        "failed_searches",
        "note",
        "superseded_by",
    ];
    let _ = w.write_record(head);
    let opt = |v: Option<String>| v.unwrap_or_default();
    for s in &r.questions {
        let _ = w.write_record([
            r.eval_id.to_string(),
            s.id.clone(),
            s.vendor.to_string(),
            opt(s.run_id.map(|v| v.to_string())),
            or_not_run::word(s.outcome).to_string(),
            opt(s.correct.map(|v| v.to_string())),
            opt(s.url_recall.map(|v| v.to_string())),
            opt(s.domain_recall.map(|v| v.to_string())),
            opt(s.cited_share.map(|v| v.to_string())),
            opt(s.verified_share.map(|v| v.to_string())),
            opt(s.unsupported.map(|v| v.to_string())),
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
