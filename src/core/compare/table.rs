//! A comparison as text for people: a column a run (model, the wire it spoke —
//! its io.toml value: `chat` or `responses` tell OpenAI's two apart —, outcome,
//! requests, tokens, cost (`v`: the vendor's own figure, said under the table),
//! wall time, searches, citations, domains, cited share, verified share,
//! unsupported), the vendors that did not run and
//! why, the overlap of each pair's sources, each final answer's first lines, and
//! where each run's workspace copy is.
//! `compare` prints it; the console's Compare screen shows it when a group ends.

use std::fmt::Write as _;

use super::Comparison;
use crate::core::id::RunId;
use crate::core::money::Part;
use crate::core::outcome::{Outcome, or_running};
use crate::core::price::usd;

/// The comparison as a table for people.
pub fn render(c: &Comparison) -> String {
    let mut text = format!(
        "group {} · {} run{} · goal: {}\n",
        c.group_id,
        c.runs.len(),
        if c.runs.len() == 1 { "" } else { "s" },
        c.goal.lines().next().unwrap_or("")
    );
    if let Some(cap) = c.max_usd_micro {
        let _ = writeln!(text, "the group's total was capped at {}", usd(cap));
    }
    if !c.runs.is_empty() {
        text.push('\n');
        table(c, &mut text);
    }
    for r in &c.not_run {
        let _ = writeln!(text, "{} did not run: {}", r.vendor, r.message);
    }
    if !c.overlaps.is_empty() {
        text.push_str(
            "\noverlap of cited sources (Jaccard: shared ÷ all; — when neither cited any)\n",
        );
        for o in &c.overlaps {
            let _ = writeln!(
                text,
                "  {} × {}  domains {}  urls {}",
                label(c, o.a),
                label(c, o.b),
                ratio(o.domains),
                ratio(o.urls)
            );
        }
    }
    if c.runs.iter().any(|r| !r.answer.is_empty()) {
        text.push_str("\nanswers (first lines)\n");
        for r in &c.runs {
            for (i, line) in r.answer.iter().enumerate() {
                let head = if i == 0 {
                    format!("#{} {}:", r.run_id, r.vendor)
                } else {
                    String::new()
                };
                let _ = writeln!(text, "  {head:<18} {line}");
            }
        }
    }
    if c.runs.iter().any(|r| r.workspace.is_some()) {
        text.push_str("\nworkspaces (each run's own copy)\n");
        for r in &c.runs {
            if let Some(ws) = &r.workspace {
                let head = format!("#{} {}:", r.run_id, r.vendor);
                let _ = writeln!(text, "  {head:<18} {ws}");
            }
        }
    }
    text
}

/// One row a measure, one column a run.
fn table(c: &Comparison, text: &mut String) {
    let heads: Vec<String> = c
        .runs
        .iter()
        .map(|r| format!("#{} {}", r.run_id, r.vendor))
        .collect();
    let rows = rows(c);
    let width = heads
        .iter()
        .chain(rows.iter().flat_map(|(_, v)| v.iter()))
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(12, 32);
    let cell = |s: &str| {
        let s: String = s.chars().take(width).collect();
        format!("  {s:<width$}")
    };
    // The last column is padded like the others; the line ends at its text.
    let head = format!(
        "{:<18}{}",
        "",
        heads.iter().map(|h| cell(h)).collect::<String>()
    );
    let _ = writeln!(text, "{}", head.trim_end());
    for (name, values) in rows {
        let row = format!(
            "{name:<18}{}",
            values.iter().map(|v| cell(v)).collect::<String>()
        );
        let _ = writeln!(text, "{}", row.trim_end());
    }
    if c.runs.iter().any(|r| r.figures.vendor_reported()) {
        let _ = writeln!(
            text,
            "v: the vendor's own figure for the cost (OpenRouter's usage.cost), fees included"
        );
    }
    for r in &c.runs {
        if let Some(d) = &r.outcome_detail {
            let _ = writeln!(text, "#{} {}: {}", r.run_id, outcome_word(r.outcome), d);
        }
    }
    for r in c.runs.iter().filter(|r| r.figures.verified_share.is_none()) {
        if let Some(why) = r.figures.claims().unread() {
            let _ = writeln!(
                text,
                "sources of #{} not read: {why} — a source that was not read says nothing about it",
                r.run_id
            );
        }
    }
    let unchecked: Vec<String> = c
        .runs
        .iter()
        .filter(|r| r.figures.verified_share.is_none() && r.figures.claims().unread().is_none())
        .map(|r| format!("#{}", r.run_id))
        .collect();
    if !unchecked.is_empty() {
        let _ = writeln!(
            text,
            "sources not checked for {}: `io-harness compare {} --check` checks them",
            unchecked.join(", "),
            c.group_id
        );
    }
}

/// The table's rows: a name, then one cell per run.
fn rows(c: &Comparison) -> Vec<(&'static str, Vec<String>)> {
    let mut rows: Vec<_> = by_row(c).into_iter().collect();
    rows.extend([
        ("model", c.runs.iter().map(|r| r.model.clone()).collect()),
        (
            "wire",
            c.runs
                .iter()
                .map(|r| r.wire.map_or("—", |w| w.value()).to_string())
                .collect(),
        ),
        (
            "outcome",
            c.runs
                .iter()
                .map(|r| outcome_word(r.outcome).to_string())
                .collect(),
        ),
        (
            "requests",
            c.runs
                .iter()
                .map(|r| r.figures.requests.to_string())
                .collect(),
        ),
        (
            "tokens in / out",
            c.runs
                .iter()
                .map(|r| format!("{} / {}", r.figures.input_tokens, r.figures.output_tokens))
                .collect(),
        ),
        (
            "cache write / read",
            c.runs
                .iter()
                .map(|r| {
                    let f = &r.figures;
                    format!("{} / {}", f.cache_write_tokens, f.cache_read_tokens)
                })
                .collect(),
        ),
        (
            "cost",
            c.runs
                .iter()
                .map(|r| {
                    format!(
                        "{}{}",
                        r.figures.cost().text(Part::Request),
                        if r.figures.vendor_reported() { "v" } else { "" }
                    )
                })
                .collect(),
        ),
        (
            "wall time",
            c.runs
                .iter()
                .map(|r| {
                    r.figures
                        .wall_ms
                        .map_or("—".into(), |ms| format!("{:.1} s", ms as f64 / 1000.0))
                })
                .collect(),
        ),
        (
            "searches (failed)",
            c.runs
                .iter()
                .map(|r| format!("{} ({})", r.figures.searches, r.figures.failed_searches))
                .collect(),
        ),
        (
            "fetches (failed)",
            c.runs
                .iter()
                .map(|r| format!("{} ({})", r.figures.fetches, r.figures.failed_fetches))
                .collect(),
        ),
        (
            "citations",
            c.runs.iter().map(|r| r.citations.to_string()).collect(),
        ),
        (
            "cited domains",
            c.runs.iter().map(|r| r.domains.to_string()).collect(),
        ),
        ("cited share", claim_row(c, 0)),
        ("verified share", claim_row(c, 1)),
        ("unsupported", claim_row(c, 2)),
    ]);
    rows
}

/// Who ran each, when any says (a team's store holds several operators').
fn by_row(c: &Comparison) -> Option<(&'static str, Vec<String>)> {
    c.runs.iter().any(|r| r.by.is_some()).then(|| {
        (
            "by",
            c.runs
                .iter()
                .map(|r| r.by.clone().unwrap_or_else(|| "—".into()))
                .collect(),
        )
    })
}

/// One of the three claim figures of each run, as `ClaimFigures::words` says it.
fn claim_row(c: &Comparison, i: usize) -> Vec<String> {
    c.runs
        .iter()
        .map(|r| r.figures.claims().words()[i].clone())
        .collect()
}

fn label(c: &Comparison, run_id: RunId) -> String {
    let vendor = c
        .runs
        .iter()
        .find(|r| r.run_id == run_id)
        .map_or("", |r| r.vendor.as_str());
    format!("#{run_id} {vendor}")
}

fn ratio(r: Option<f64>) -> String {
    r.map_or("—".into(), |v| format!("{v:.2}"))
}

/// A run's outcome as the table says it: its word, or `running`.
fn outcome_word(o: Option<Outcome>) -> &'static str {
    o.map_or(or_running::RUNNING, Outcome::as_str)
}
