//! The Run panes: steps and observations; provider-executed tool calls with their
//! vendor codes; the per-request accounting (drawn by `requests`) placed beside
//! them; and the approval dialog.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use crate::console::state::State;
use crate::console::state::run::Tone;
use crate::console::view::{block, centered, requests};

pub(super) fn draw(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let r = &state.run;
    if r.run_id.is_none() && !r.running {
        return draw_not_started(frame, area, state);
    }
    // Narrow terminals stack the panes and drop the chart rather than cut numbers.
    let (log, server, calls, chart) = if area.width >= 70 {
        let [top, bottom] =
            Layout::vertical([Constraint::Percentage(58), Constraint::Percentage(42)]).areas(area);
        let [log, server] =
            Layout::horizontal([Constraint::Percentage(62), Constraint::Percentage(38)]).areas(top);
        let [calls, chart] =
            Layout::horizontal([Constraint::Percentage(70), Constraint::Percentage(30)])
                .areas(bottom);
        (log, server, calls, Some(chart))
    } else {
        let [log, server, calls] = Layout::vertical([
            Constraint::Percentage(40),
            Constraint::Percentage(25),
            Constraint::Percentage(35),
        ])
        .areas(area);
        (log, server, calls, None)
    };

    draw_log(frame, log, state);
    draw_server(frame, server, state);
    requests::draw_requests(frame, calls, state);
    if let Some(chart) = chart {
        requests::draw_chart(frame, chart, state);
    }
}

/// No run yet, or one that could not start: its reason, where the operator looks.
fn draw_not_started(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let r = &state.run;
    // A run that never started: its reason, where the operator looks.
    if let Some((_, why, _)) = r.log.last() {
        frame.render_widget(
            Paragraph::new(why.clone())
                .style(Style::default().fg(t.error))
                .wrap(Wrap { trim: true })
                .block(block(t, "Run · could not start", true)),
            area,
        );
        return;
    }
    let hint = format!(
        "No run yet. {} runs the declaration; a past run opens from Sources ({}).",
        state
            .keys
            .key_for(crate::console::state::keys::Action::StartRun),
        state
            .keys
            .key_for(crate::console::state::keys::Action::ShowSources)
    );
    frame.render_widget(
        Paragraph::new(hint)
            .style(Style::default().fg(t.muted))
            .wrap(Wrap { trim: true })
            .block(block(t, "Run", true)),
        area,
    );
}

/// The log, wrapped by characters so the scroll offset counts screen rows exactly.
fn draw_log(frame: &mut Frame<'_>, log: Rect, state: &State) {
    let t = &state.theme.1;
    let r = &state.run;
    let tone = |x: Tone| {
        Style::default().fg(match x {
            Tone::Plain => t.text,
            Tone::Muted => t.muted,
            Tone::Good => t.ok,
            Tone::Bad => t.error,
        })
    };
    // Wrapped here, by characters, so the scroll offset counts screen rows exactly.
    let inner_h = log.height.saturating_sub(2) as usize;
    let width = log.width.saturating_sub(2).max(1) as usize;
    let rows: Vec<(String, Tone)> = r
        .log
        .iter()
        .flat_map(|(_, text, x)| wrap(text, width).into_iter().map(move |l| (l, *x)))
        .collect();
    // Opened from a search hit: from that step's first line; else the newest
    // lines, scrolled back by `run_scroll`.
    let focus = r.focus_step.and_then(|step| {
        let first = r.log.iter().position(|(s, _, _)| *s == step)?;
        Some(
            r.log[..first]
                .iter()
                .map(|(_, text, _)| wrap(text, width).len())
                .sum::<usize>(),
        )
    });
    let skip = focus.unwrap_or_else(|| {
        rows.len()
            .saturating_sub(inner_h + state.run_scroll as usize)
    });
    let lines: Vec<Line<'_>> = rows
        .into_iter()
        .skip(skip)
        .take(inner_h)
        .map(|(text, x)| Line::styled(text, tone(x)))
        .collect();
    let title = format!(
        "Run {} · {}{}",
        r.run_id.map(|i| i.to_string()).unwrap_or_default(),
        r.vendor
            .map(|v| format!("{v} · {}", r.model))
            .unwrap_or_default(),
        if r.past { " · from the store" } else { "" }
    );
    frame.render_widget(Paragraph::new(lines).block(block(t, &title, true)), log);
}

/// The provider-executed calls, the latest at the bottom.
fn draw_server(frame: &mut Frame<'_>, server: Rect, state: &State) {
    let t = &state.theme.1;
    let r = &state.run;
    // One entry per call: what ran and how it went (the vendor's own code when it
    // failed), then the query or URL, wrapped rather than cut.
    let mut entries: Vec<(String, Style)> = Vec::new();
    for s in &r.server {
        let (verdict, style) = match &s.error {
            _ if s.running => (
                format!(
                    "running {:.1}s",
                    r.elapsed_ms
                        .saturating_sub(s.started_ms.unwrap_or(r.elapsed_ms))
                        as f64
                        / 1000.0
                ),
                Style::default().fg(t.accent),
            ),
            _ if s.interrupted => ("interrupted".to_string(), Style::default().fg(t.muted)),
            Some(code) if code == crate::core::completion::ServerToolCall::UNANSWERED => {
                ("unanswered".to_string(), Style::default().fg(t.error))
            }
            Some(code) => (format!("FAILED ({code})"), Style::default().fg(t.error)),
            None => ("ok".to_string(), Style::default().fg(t.ok)),
        };
        entries.push((format!("{} {} {verdict}", s.step, s.tool), style));
        if let Some(input) = &s.input {
            entries.push((format!("  {input}"), Style::default().fg(t.muted)));
        }
    }
    if entries.is_empty() {
        entries.push(("none yet".to_string(), Style::default().fg(t.muted)));
    }
    // Wrapped here and anchored at the bottom, like the log: the latest call shows.
    let width = server.width.saturating_sub(2).max(1) as usize;
    let rows: Vec<Line<'_>> = entries
        .iter()
        .flat_map(|(text, style)| {
            wrap(text, width)
                .into_iter()
                .map(|l| Line::styled(l, *style))
        })
        .collect();
    let fit = server.height.saturating_sub(2) as usize;
    // Short of room, the verdicts matter more than the queries.
    let rows = if rows.len() > fit {
        entries
            .iter()
            .filter(|(text, _)| !text.starts_with("  "))
            .flat_map(|(text, style)| {
                wrap(text, width)
                    .into_iter()
                    .map(|l| Line::styled(l, *style))
            })
            .collect()
    } else {
        rows
    };
    let rows: Vec<Line<'_>> = rows.into_iter().rev().take(fit).rev().collect();
    let title = r.server_words();
    frame.render_widget(Paragraph::new(rows).block(block(t, &title, false)), server);
}

pub(super) fn draw_approval(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let Some(req) = &state.run.approval else {
        return;
    };
    let popup = centered(area, 60, 9);
    frame.render_widget(Clear, popup);
    let lines = vec![
        Line::from(vec![
            Span::styled(
                format!("{} wants to {} ", req.tool, req.act.as_str()),
                Style::default().fg(t.text),
            ),
            Span::styled(
                req.target.clone(),
                Style::default().fg(t.accent).add_modifier(Modifier::BOLD),
            ),
        ]),
        Line::styled(format!("why: {}", req.why), Style::default().fg(t.muted)),
        Line::raw(""),
        Line::from(vec![
            Span::styled(
                format!(
                    " {} approve ",
                    state
                        .keys
                        .key_for(crate::console::state::keys::Action::Approve)
                ),
                Style::default().fg(t.ok).add_modifier(Modifier::REVERSED),
            ),
            Span::raw("  "),
            Span::styled(
                format!(
                    " {} allow for this run ",
                    state
                        .keys
                        .key_for(crate::console::state::keys::Action::ApproveForRun)
                ),
                Style::default().fg(t.ok),
            ),
            Span::raw("  "),
            Span::styled(
                format!(
                    " {} deny ",
                    state
                        .keys
                        .key_for(crate::console::state::keys::Action::Deny)
                ),
                Style::default()
                    .fg(t.error)
                    .add_modifier(Modifier::REVERSED),
            ),
        ]),
    ];
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .block(block(t, "approval needed", true)),
        popup,
    );
}

/// Split `text` into rows of at most `width` characters, at spaces where it can
/// and inside a word only when the word alone is wider than a row. A leading
/// indent is kept on every row.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let body = text.trim_start_matches(' ');
    let indent = &text[..text.len() - body.len()];
    if indent.is_empty() || indent.len() >= width {
        return wrap_words(body, width);
    }
    wrap_words(body, width - indent.len())
        .into_iter()
        .map(|row| format!("{indent}{row}"))
        .collect()
}

fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut len = 0;
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let gap = usize::from(len > 0);
        if len + gap + word.len() > width && len > 0 {
            rows.push(std::mem::take(&mut row));
            len = 0;
        } else if len > 0 {
            row.push(' ');
            len += 1;
        }
        while word.len() > width {
            let rest = word.split_off(width);
            rows.push(word.iter().collect());
            word = rest;
        }
        len += word.len();
        row.extend(word);
    }
    rows.push(row);
    rows
}
