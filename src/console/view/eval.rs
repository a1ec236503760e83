//! The Compare screen's eval view: an eval's matrix (a row a vendor: accuracy,
//! URL recall, same domain, cited, verified, mean and total cost, p50 and p95
//! wall), pinned, and under it the per-question table (a row a question and
//! vendor) scrolled to keep the chosen row in sight — the rows `eval` prints
//! (`core::eval::table`), the chosen one marked, with the keys that open it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use crate::console::state::State;
use crate::console::state::evals::EvalView;
use crate::console::state::keys::Action;
use crate::console::view::block;
use crate::core::eval::table::{
    QUESTION_HEAD, columns, context, matrix, notes, question_row, title, unrun_lines,
};

/// Draw eval `view`.
pub(super) fn draw(frame: &mut Frame<'_>, area: Rect, state: &State, view: &EvalView) {
    let t = &state.theme.1;
    let r = &view.report;
    let key = |a: Action| state.keys.key_for(a);
    let muted = Style::default().fg(t.muted);
    let text = Style::default().fg(t.text);
    let chosen = Style::default()
        .fg(t.accent)
        .add_modifier(Modifier::REVERSED);
    // A row marked when chosen; `n` is its index among the rows the cursor
    // moves over (vendors, then questions).
    let row = |n: usize, line: &str| {
        if n == view.at {
            Line::styled(format!("▶ {line}"), chosen)
        } else {
            Line::styled(format!("  {line}"), text)
        }
    };
    // The keys, packed into as few lines as the width allows.
    let hints = [
        "↑↓ choose".to_string(),
        format!(
            "{} on a question: its comparison, on a vendor: its first run's claims",
            key(Action::OpenCompared)
        ),
        format!("{} the run", key(Action::RunOfCompared)),
        format!("{} its sources", key(Action::SourcesOfCompared)),
        format!("{} writes eval-{}.md", key(Action::ExportEval), r.eval_id),
        format!("{} back", key(Action::Cancel)),
    ];
    let width = area.width.saturating_sub(2) as usize;
    let mut lines: Vec<Line<'_>> = packed(&hints, width)
        .into_iter()
        .map(|l| Line::styled(l, muted))
        .collect();
    let nv = r.vendors.len();
    let before = lines.len();
    matrix_lines(&mut lines, r, width, muted, &row);
    // The set and subset, and what the figures are, where they leave room for
    // a few question rows (a short pane keeps the chosen row in sight first).
    let what = notes(r, true);
    let said = 1 + what.lines().count();
    if (area.height as usize).saturating_sub(2 + lines.len() + said + 2) >= 3 {
        lines.insert(before, Line::styled(context(r), muted));
        lines.extend(what.lines().map(|l| Line::styled(l.to_string(), muted)));
    }
    lines.push(Line::default());
    let cells: Vec<Vec<String>> = r.questions.iter().map(question_row).collect();
    let table = columns(&QUESTION_HEAD, &cells);
    let mut q = table.lines();
    if let Some(h) = q.next() {
        lines.push(Line::styled(
            format!("  {h}"),
            muted.add_modifier(Modifier::BOLD),
        ));
    }
    // The question rows scroll under the pinned matrix, the chosen one in sight.
    let notes = unrun_lines(r);
    let room = (area.height.saturating_sub(2) as usize).saturating_sub(lines.len());
    let at = view.at.saturating_sub(nv);
    let skip = (at + 1).saturating_sub(room);
    let rows: Vec<&str> = q.collect();
    let shown = rows.len().saturating_sub(skip).min(room);
    lines.extend(
        rows.iter()
            .enumerate()
            .skip(skip)
            .take(room)
            .map(|(i, l)| row(nv + i, l)),
    );
    let left = room.saturating_sub(shown);
    if !notes.is_empty() && left > 1 {
        lines.push(Line::default());
        lines.extend(
            notes
                .lines()
                .take(left - 1)
                .map(|l| Line::styled(l.to_string(), muted)),
        );
    }
    let more = if rows.len() > room {
        format!(
            " · question rows {}–{} of {}",
            skip + 1,
            skip + shown,
            rows.len()
        )
    } else {
        String::new()
    };
    let head = format!("Compare · {}{more}", title(r));
    frame.render_widget(Paragraph::new(lines).block(block(t, &head, true)), area);
}

/// The matrix, a row a vendor (`row` marks the chosen one); too wide for the
/// pane (`width`), two tables, a vendor a row in each: the scores, then the
/// money and the time — cut, it would lose the total.
fn matrix_lines<'a>(
    lines: &mut Vec<Line<'a>>,
    r: &crate::core::eval::EvalReport,
    width: usize,
    muted: Style,
    row: &dyn Fn(usize, &str) -> Line<'a>,
) {
    let (heads, matrix) = matrix(r);
    let whole = columns(&heads, &matrix);
    let fits = whole.lines().all(|l| l.chars().count() + 2 <= width);
    // Too wide: the scores, then the money and the time (from `mean cost`).
    let money = heads
        .iter()
        .position(|h| *h == "mean cost")
        .unwrap_or(heads.len());
    let parts: Vec<Vec<usize>> = if fits {
        vec![(0..heads.len()).collect()]
    } else {
        vec![
            (0..money).collect(),
            std::iter::once(0).chain(money..heads.len()).collect(),
        ]
    };
    for part in parts {
        let head: Vec<&str> = part.iter().map(|&c| heads[c]).collect();
        let cells: Vec<Vec<String>> = matrix
            .iter()
            .map(|r| part.iter().map(|&c| r[c].clone()).collect())
            .collect();
        let table = columns(&head, &cells);
        let mut m = table.lines();
        if let Some(h) = m.next() {
            lines.push(Line::styled(
                format!("  {h}"),
                muted.add_modifier(Modifier::BOLD),
            ));
        }
        lines.extend(m.enumerate().map(|(i, l)| row(i, l)));
    }
}

/// `hints` joined with ` · ` into as few lines of at most `width` characters as
/// they fit in (a hint longer than the width has a line of its own).
fn packed(hints: &[String], width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for h in hints {
        if !line.is_empty() && line.chars().count() + 3 + h.chars().count() > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push_str(" · ");
        }
        line.push_str(h);
    }
    out.push(line);
    out
}
