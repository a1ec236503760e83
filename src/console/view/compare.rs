//! The Compare screen: one column per vendor while the group runs (its status,
//! cost so far, server-side calls, citations and newest log lines, or its
//! refusal), then the comparison table the store reads back, with the chosen run
//! marked and the keys that open it; before any, the stored evals and
//! comparisons (`listing`), and an eval opened from them (`eval`).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::console::state::State;
use crate::console::state::compare::CompareColumn;
use crate::console::state::keys::Action;
use crate::console::state::run::Tone;
use crate::console::state::theme::Theme;
use crate::console::view::block;
use crate::core::compare::table::render;
use crate::core::outcome::Outcome;
use crate::core::price::usd_or_dash;

/// Draw the Compare screen.
pub fn draw(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let c = &state.compare;
    if c.listing() {
        return super::listing::draw(frame, area, state);
    }
    if let Some(view) = c.eval_shown() {
        return super::eval::draw(frame, area, state, view);
    }
    let Some(result) = &c.result else {
        return draw_columns(frame, area, state);
    };
    let table = if c.columns.is_empty() {
        // A stored comparison opened from the list: the table alone.
        area
    } else {
        // Done: the live columns shrink to their last lines above the table.
        let [cols, table] =
            Layout::vertical([Constraint::Length(6), Constraint::Min(3)]).areas(area);
        draw_columns(frame, cols, state);
        table
    };
    let mut lines: Vec<Line<'_>> = Vec::new();
    if let Some((id, vendor)) = c.chosen() {
        lines.push(Line::from(vec![
            Span::styled(
                format!("▶ #{id} {vendor}"),
                Style::default()
                    .fg(t.accent)
                    .add_modifier(Modifier::BOLD | Modifier::REVERSED),
            ),
            Span::styled(
                format!(
                    "  ↑↓ choose · {} its claims · {} its sources · {} the run",
                    state.keys.key_for(Action::OpenCompared),
                    state.keys.key_for(Action::SourcesOfCompared),
                    state.keys.key_for(Action::RunOfCompared)
                ),
                Style::default().fg(t.muted),
            ),
        ]));
    }
    lines.extend(
        render(result)
            .lines()
            .map(|l| Line::styled(l.to_string(), Style::default().fg(t.text))),
    );
    // PageUp / PageDown scroll the table; the chosen run's line stays on top.
    let room = table.height.saturating_sub(3) as usize;
    let last = lines.len().saturating_sub(1 + room);
    let skip = usize::from(c.scroll).min(last);
    let head = if lines.is_empty() {
        Line::default()
    } else {
        lines.remove(0)
    };
    let shown: Vec<Line<'_>> = std::iter::once(head)
        .chain(lines.into_iter().skip(skip))
        .collect();
    let more = if last > 0 {
        format!(
            " · from row {} of {} · {}/{} scroll",
            skip + 1,
            last + room,
            state.keys.key_for(Action::CompareUp),
            state.keys.key_for(Action::CompareDown)
        )
    } else {
        String::new()
    };
    let title = format!("Compare · group {}{more}", result.group_id);
    frame.render_widget(Paragraph::new(shown).block(block(t, &title, true)), table);
}

/// A column per vendor, side by side.
fn draw_columns(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let c = &state.compare;
    let n = c.columns.len().max(1) as u32;
    let areas = Layout::horizontal((0..n).map(|_| Constraint::Ratio(1, n))).split(area);
    for (col, rect) in c.columns.iter().zip(areas.iter()) {
        draw_column(frame, *rect, &state.theme.1, col, state.spinner);
    }
}

fn draw_column(frame: &mut Frame<'_>, area: Rect, t: &Theme, col: &CompareColumn, spinner: usize) {
    let title = format!("{} · {}", col.vendor, col.model);
    let width = area.width.saturating_sub(2).max(1) as usize;
    let muted = Style::default().fg(t.muted);
    let mut lines: Vec<Line<'_>> = Vec::new();
    if let Some(refusal) = &col.refused {
        lines.push(Line::styled(
            "refused — not run",
            Style::default().fg(t.warning),
        ));
        lines.push(Line::styled(refusal.clone(), muted));
        frame.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: true })
                .block(block(t, &title, false)),
            area,
        );
        return;
    }
    let r = &col.run;
    let passed = r.outcome == Some(Outcome::Passed);
    let status = match (&r.ending, r.running) {
        (Some(o), _) => Span::styled(
            o.clone(),
            Style::default().fg(if passed { t.ok } else { t.error }),
        ),
        (None, true) => Span::styled(
            format!(
                "{} step {} · {:.1} s",
                ["◐", "◓", "◑", "◒"][spinner % 4],
                r.step,
                r.elapsed_ms as f64 / 1000.0
            ),
            Style::default().fg(t.accent),
        ),
        (None, false) => Span::styled("not started", muted),
    };
    lines.push(Line::from(status));
    lines.push(Line::styled(
        format!(
            "{} · {} tokens",
            usd_or_dash(r.total_cost()),
            r.total_tokens()
        ),
        Style::default().fg(t.text),
    ));
    let (_, failed, _) = r.server_tally();
    lines.push(Line::styled(
        r.server_words(),
        Style::default().fg(if failed > 0 { t.warning } else { t.text }),
    ));
    lines.push(Line::styled(
        format!(
            "{} source{}",
            r.citations,
            if r.citations == 1 { "" } else { "s" }
        ),
        Style::default().fg(t.text),
    ));
    let room = area.height.saturating_sub(2 + lines.len() as u16) as usize;
    let tail = r.log.len().saturating_sub(room);
    for (_, text, tone) in &r.log[tail..] {
        let colour = match tone {
            Tone::Plain => t.text,
            Tone::Muted => t.muted,
            Tone::Good => t.ok,
            Tone::Bad => t.error,
        };
        let one: String = text.chars().take(width).collect();
        lines.push(Line::styled(one, Style::default().fg(colour)));
    }
    frame.render_widget(
        Paragraph::new(lines).block(block(t, &title, r.running)),
        area,
    );
}
