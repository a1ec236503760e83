//! The Declare form beside the Preview: one vendor's exact request (or refusal),
//! or all three side by side.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::block;
use crate::console::app::State;
use crate::console::form::{FIELDS, Field, VendorPreview};
use crate::console::theme::Theme;

pub(super) fn draw(frame: &mut Frame<'_>, area: Rect, state: &State) {
    // Side by side, the three previews take the whole width: portability at a glance.
    if state.side_by_side {
        draw_preview(frame, area, state);
        return;
    }
    let wide = area.width >= 70;
    let [form, preview] = if wide {
        Layout::horizontal([Constraint::Percentage(42), Constraint::Percentage(58)]).areas(area)
    } else {
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area)
    };
    draw_form(frame, form, state);
    draw_preview(frame, preview, state);
}

fn draw_form(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let f = &state.form;
    let outer = block(t, "Declare", true);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let goal_h = if inner.height < 12 {
        3
    } else {
        (inner.height / 3).clamp(3, 6)
    };
    let [goal, rest] =
        Layout::vertical([Constraint::Length(goal_h), Constraint::Min(0)]).areas(inner);
    let mut ta = f.goal.clone();
    ta.set_block(block(t, "goal", f.focus == Field::Goal));
    ta.set_style(Style::default().fg(t.text));
    frame.render_widget(&ta, goal);
    let mut lines = Vec::new();
    for field in FIELDS.iter().skip(1) {
        let focused = f.focus == *field;
        let value = match (&f.editing, focused) {
            (Some((buf, _)), true) => format!("{buf}▏"),
            _ => f.value(*field),
        };
        let marked = focused && f.editing.is_some() && f.error.is_some();
        let style = if marked {
            // An edit that cannot be committed stays here, marked.
            Style::default()
                .fg(t.error)
                .bg(t.selection)
                .add_modifier(Modifier::UNDERLINED)
        } else if focused {
            Style::default().fg(t.text).bg(t.selection)
        } else {
            Style::default().fg(t.text)
        };
        let shown = if value.is_empty() {
            "—".to_string()
        } else {
            value
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!("{:>15} ", field.label()),
                Style::default().fg(if focused { t.accent } else { t.muted }),
            ),
            Span::styled(shown, style),
        ]));
        // A projection that failed is shown where the lists would be.
        if *field == Field::Allowed {
            if let Some(e) = &f.web_error {
                lines.push(Line::styled(e.clone(), Style::default().fg(t.error)));
            }
        }
    }
    // The roster and the MCP servers, with the boundary each states.
    for (name, description) in &f.agents {
        lines.push(Line::from(vec![
            Span::styled(format!("{:>15} ", "agent"), Style::default().fg(t.muted)),
            Span::styled(
                format!("{name} — {description} (inherits this [web])"),
                Style::default().fg(t.text),
            ),
        ]));
    }
    for (name, net) in &f.mcp {
        let stated = if net.is_empty() {
            "no hosts".to_string()
        } else {
            net.join(", ")
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{:>15} ", "mcp"), Style::default().fg(t.muted)),
            Span::styled(
                format!("{name} — states net: {stated} (declared, not enforced here)"),
                Style::default().fg(t.text),
            ),
        ]));
    }
    rules_panel(&mut lines, state);
    if let Some(e) = &f.error {
        lines.push(Line::styled(e.clone(), Style::default().fg(t.error)));
    } else if f.editing.is_some() {
        lines.push(Line::styled(
            "enter: commit the edit · esc: undo it",
            Style::default().fg(t.muted),
        ));
    } else {
        lines.push(Line::styled(
            "tab: next field · enter: toggle/edit · ctrl-s: save [web]",
            Style::default().fg(t.muted),
        ));
    }
    // Keep the focused field in view when the pane is shorter than the form.
    let focused = FIELDS
        .iter()
        .skip(1)
        .position(|x| *x == f.focus)
        .unwrap_or(0);
    let skip = (focused + 1).saturating_sub(rest.height as usize) as u16;
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((skip, 0)),
        rest,
    );
}

/// The active `[policy]` by layer, the built-in fallback, and the hosts
/// `from_policy` projects — shown once the operator has stated a rule.
fn rules_panel(lines: &mut Vec<Line<'static>>, state: &State) {
    let t = &state.theme.1;
    let f = &state.form;
    if f.rules.is_empty() && !f.from_policy {
        return;
    }
    let label = |text: &str| Span::styled(format!("{text:>15} "), Style::default().fg(t.muted));
    let mut layers: Vec<&str> = Vec::new();
    for r in &f.rules {
        if !layers.contains(&r.layer.as_str()) {
            layers.push(r.layer.as_str());
        }
    }
    for layer in layers {
        let mut parts = Vec::new();
        for word in ["deny", "ask", "allow"] {
            let entries: Vec<String> = f
                .rules
                .iter()
                .filter(|r| r.layer == layer && r.effect_word() == word)
                .map(|r| r.entry())
                .collect();
            if !entries.is_empty() {
                parts.push(format!("{word} {}", entries.join(", ")));
            }
        }
        lines.push(Line::from(vec![
            label(&format!("{layer} rules")),
            Span::styled(parts.join(" · "), Style::default().fg(t.text)),
        ]));
    }
    lines.push(Line::from(vec![
        label("fallback"),
        Span::styled(
            "where no rule matches: read allowed, the rest asked",
            Style::default().fg(t.muted),
        ),
    ]));
    if f.from_policy && f.web_error.is_none() {
        let shown = if f.provenance.is_empty() {
            "no net rule: no domain filter".to_string()
        } else {
            f.provenance
                .iter()
                .map(|p| p.trim_start_matches("[web] from_policy: ").to_string())
                .collect::<Vec<_>>()
                .join("; ")
        };
        lines.push(Line::from(vec![
            label("from_policy"),
            Span::styled(shown, Style::default().fg(t.text)),
        ]));
    }
}

fn draw_preview(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    if state.side_by_side {
        let cols = Layout::horizontal([Constraint::Ratio(1, 3); 3]).split(area);
        for (p, col) in state.previews.iter().zip(cols.iter()) {
            preview_pane(
                frame,
                *col,
                t,
                p,
                state.preview_scroll,
                p.vendor == state.form.vendor,
            );
        }
    } else if let Some(p) = state
        .previews
        .iter()
        .find(|p| p.vendor == state.form.vendor)
    {
        preview_pane(frame, area, t, p, state.preview_scroll, true);
    }
}

fn preview_pane(
    frame: &mut Frame<'_>,
    area: Rect,
    t: &Theme,
    p: &VendorPreview,
    scroll: u16,
    chosen: bool,
) {
    let (title, lines): (String, Vec<Line<'_>>) = match &p.request {
        Ok(lines) => {
            let mut out: Vec<Line<'_>> = lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let style = if i == 0 {
                        Style::default().fg(t.accent).add_modifier(Modifier::BOLD)
                    } else {
                        Style::default().fg(t.text)
                    };
                    Line::styled(l.clone(), style)
                })
                .collect();
            // Cautions right under the request line, where they are seen without scrolling.
            let cautions = p
                .cautions
                .iter()
                .map(|c| Line::styled(c.clone(), Style::default().fg(t.warning)));
            out.splice(1..1, cautions);
            (format!("{} ✓ carried", p.vendor), out)
        }
        Err(refusal) => (
            format!("{} ✗ REFUSED", p.vendor),
            vec![Line::styled(
                refusal.clone(),
                Style::default().fg(t.error).add_modifier(Modifier::BOLD),
            )],
        ),
    };
    let para = Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0))
        .block(block(t, &title, chosen));
    frame.render_widget(para, area);
}
