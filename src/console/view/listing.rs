//! The Compare screen before anything is open: the evals the store holds, then
//! its comparisons, each newest first (as Sources lists runs), the chosen one
//! marked; or, when there are none, how to make one.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use crate::console::state::State;
use crate::console::state::evals::EvalListed;
use crate::console::state::keys::Action;
use crate::console::view::{block, count};
use crate::core::money::Part;

/// Draw the stored evals and comparisons.
pub(super) fn draw(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let c = &state.compare;
    let start = state.keys.key_for(Action::StartCompare);
    if c.stored.is_empty() && c.evals.is_empty() {
        let hint = format!(
            "No comparison yet. {start} on Declare runs its goal and declaration on every vendor that carries it, each in its own copy of the workspace, side by side; so does `io-harness run --providers a,b,c`."
        );
        frame.render_widget(
            Paragraph::new(hint)
                .style(Style::default().fg(t.muted))
                .wrap(Wrap { trim: true })
                .block(block(t, "Compare", true)),
            area,
        );
        return;
    }
    let width = area.width.saturating_sub(2) as usize;
    let muted = Style::default().fg(t.muted);
    let head = Line::styled(
        format!(
            "↑↓ choose · {} opens it · {start} on Declare starts a new one",
            state.keys.key_for(Action::OpenCompared)
        ),
        muted,
    );
    // Every row, the section heads among them (only when there are evals: a
    // store without any lists its comparisons as it always has).
    let mut rows: Vec<(Option<usize>, String)> = Vec::new();
    if !c.evals.is_empty() {
        rows.push((None, "evals".into()));
        for (i, e) in c.evals.iter().enumerate() {
            rows.push((Some(i), eval_row(e)));
        }
        rows.push((None, "comparisons (each question of an eval is one)".into()));
    }
    for (i, g) in c.stored.iter().enumerate() {
        let refused = if g.refusals.is_empty() {
            String::new()
        } else {
            format!(", {} not run", g.refusals.len())
        };
        let text = format!(
            "#{:<4} {}  {} run{}{refused}  {}",
            g.group_id,
            when(&g.created_at),
            g.runs.len(),
            if g.runs.len() == 1 { "" } else { "s" },
            crate::core::text::one_line(&g.goal)
        );
        rows.push((Some(c.evals.len() + i), text));
    }
    let room = area.height.saturating_sub(3) as usize;
    let at = rows
        .iter()
        .position(|(i, _)| *i == Some(c.stored_at))
        .unwrap_or(0);
    let skip = (at + 1).saturating_sub(room);
    let mut lines = vec![head];
    for (i, text) in rows.into_iter().skip(skip).take(room) {
        let one: String = text.chars().take(width).collect();
        let style = match i {
            None => muted.add_modifier(Modifier::BOLD),
            Some(i) if i == c.stored_at => Style::default()
                .fg(t.accent)
                .add_modifier(Modifier::REVERSED),
            Some(_) => Style::default().fg(t.text),
        };
        lines.push(Line::styled(one, style));
    }
    let title = if c.evals.is_empty() {
        format!("Compare · {} stored, newest first", c.stored.len())
    } else {
        format!(
            "Compare · {}, {}, newest first",
            count(c.evals.len(), "eval"),
            count(c.stored.len(), "comparison")
        )
    };
    frame.render_widget(Paragraph::new(lines).block(block(t, &title, true)), area);
}

/// `2025-06-01T10:00:00Z` as `2025-06-01 10:00`.
fn when(created_at: &str) -> String {
    created_at
        .chars()
        .take(16)
        .collect::<String>()
        .replace('T', " ")
}

/// An eval's line: its id, when, its file's name, questions × vendors, what it
/// cost, where it stands (as `evals` says it).
fn eval_row(e: &EvalListed) -> String {
    let r = &e.row;
    let file = std::path::Path::new(&r.file)
        .file_name()
        .map_or_else(|| r.file.clone(), |f| f.to_string_lossy().into_owned());
    format!(
        "#{:<4} {}  {file}  {} × {}  {}  {}",
        r.eval_id,
        when(&r.created_at),
        count(r.questions as usize, "question"),
        count(r.vendors.len(), "vendor"),
        e.cost.text(Part::Run),
        r.status()
    )
}
