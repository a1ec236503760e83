//! The Declare form beside the Preview: one vendor's exact request (or refusal),
//! or every vendor's side by side.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::console::state::State;
use crate::console::state::form::{FIELDS, Field, VendorPreview};
use crate::console::state::keys::Action;
use crate::console::state::theme::Theme;
use crate::console::view::block;
use crate::console::view::chrome::wrap_line;
use crate::core::vendor::Wire;
use crate::core::web::WebAccess;

pub(super) fn draw(frame: &mut Frame<'_>, area: Rect, state: &State) {
    // Side by side, every vendor's preview takes the whole width: portability at a glance.
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
    // The form's lines wrapped to the pane, so their rows are known: the goal
    // box gives up rows (down to 3) before a field is pushed out of sight.
    let width = inner.width.max(1) as usize;
    let mut lines = field_lines(state);
    // Where each field's line starts among `lines` (the goal has its own box).
    let starts: Vec<usize> = lines_of_fields(&lines);
    roster_lines(&mut lines, state);
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
    let wrapped: Vec<Vec<Line<'static>>> = lines.into_iter().map(|l| wrap_line(l, width)).collect();
    let fields_rows: usize = wrapped
        .iter()
        .take(starts.last().map_or(0, |s| s + 1))
        .map(Vec::len)
        .sum();
    let all_rows: usize = wrapped.iter().map(Vec::len).sum();
    let preferred = if inner.height < 12 {
        3
    } else {
        (inner.height / 3).clamp(3, 6)
    };
    let room = |rows: usize| {
        inner
            .height
            .saturating_sub(u16::try_from(rows).unwrap_or(u16::MAX))
    };
    // Every row if it can, else every field, else the preferred goal box.
    let goal_h = if room(all_rows) >= 3 {
        preferred.min(room(all_rows))
    } else {
        preferred.min(room(fields_rows)).max(3)
    };
    let [goal, rest] =
        Layout::vertical([Constraint::Length(goal_h), Constraint::Min(0)]).areas(inner);
    let mut ta = f.goal.clone();
    ta.set_block(block(t, "goal", f.focus == Field::Goal));
    ta.set_style(Style::default().fg(t.text));
    frame.render_widget(&ta, goal);
    // Keep the focused field in view when the pane is shorter than the form.
    let focused = FIELDS
        .iter()
        .skip(1)
        .position(|x| *x == f.focus)
        .and_then(|i| starts.get(i))
        .copied()
        .unwrap_or(0);
    let focused_end: usize = wrapped.iter().take(focused + 1).map(Vec::len).sum();
    let skip = focused_end.saturating_sub(rest.height as usize);
    let rows: Vec<Line<'static>> = wrapped.into_iter().flatten().skip(skip).collect();
    frame.render_widget(Paragraph::new(rows), rest);
}

/// Where each field's line is among `lines` (a field's error line, after the
/// allowed domains, is not a field's).
fn lines_of_fields(lines: &[Line<'static>]) -> Vec<usize> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.spans.len() == 2)
        .map(|(i, _)| i)
        .collect()
}

/// One line per field of the form (the goal has its own box), the focused one
/// highlighted, an edit that cannot be committed marked.
fn field_lines(state: &State) -> Vec<Line<'static>> {
    let t = &state.theme.1;
    let f = &state.form;
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
    lines
}

/// The roster and the MCP servers, with the boundary each states.
fn roster_lines(lines: &mut Vec<Line<'static>>, state: &State) {
    let t = &state.theme.1;
    let f = &state.form;
    let web = f.web();
    for a in &f.agents {
        let (said, colour) = agent_web(&web, a.web.as_ref());
        lines.push(Line::from(vec![
            Span::styled(format!("{:>15} ", "agent"), Style::default().fg(t.muted)),
            Span::styled(
                format!("{} — {} ", a.name, a.description),
                Style::default().fg(t.text),
            ),
            Span::styled(
                said,
                Style::default().fg(if colour { t.error } else { t.muted }),
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
}

/// What an agent's web access is under the form's declaration, in words: its
/// own table narrowing this `[web]` (`core::narrow`), or this `[web]` when it has
/// none; and whether it widens it (said in the error colour: refused at spawn).
fn agent_web(root: &WebAccess, own: Option<&WebAccess>) -> (String, bool) {
    let Some(own) = own else {
        return ("(inherits this [web])".to_string(), false);
    };
    match crate::core::narrow::narrowed(Some(root), own) {
        Err(w) => (
            format!("(widens this [web]: {} — refused at spawn)", w.key()),
            true,
        ),
        Ok(Some(web)) if web.enabled() => {
            let mut parts = Vec::new();
            if web.search {
                parts.push("search".to_string());
            }
            if web.fetch {
                parts.push("fetch".to_string());
            }
            if web.x_search {
                parts.push("X search".to_string());
            }
            if let Some(n) = web.max_uses {
                parts.push(format!("max {n}"));
            }
            if !web.allowed_domains.is_empty() {
                parts.push(web.allowed_domains.join(" "));
            }
            if !web.blocked_domains.is_empty() {
                parts.push(format!("not {}", web.blocked_domains.join(" ")));
            }
            (format!("(narrowed: {})", parts.join(", ")), false)
        }
        Ok(_) => ("(narrowed: no web access)".to_string(), false),
    }
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
    let fold = state.keys.key_for(Action::FoldTools);
    if state.side_by_side {
        // Every wire's verdict first: where the declaration is portable, and why
        // not — in a table where the panes keep room to be read (four lines of
        // body or refusal each), else in one line of counts (six vendors at 80
        // columns: the panes first).
        let rows = grid_rows(area.width, state.previews.len());
        let table_h = (state.wires.len() as u16 + 2).min(area.height / 3);
        let table_h = if area.height.saturating_sub(table_h) >= rows * 6 {
            table_h
        } else {
            1
        };
        let [table, panes] =
            Layout::vertical([Constraint::Length(table_h), Constraint::Min(0)]).areas(area);
        if table_h == 1 {
            draw_wire_counts(frame, table, state);
        } else {
            draw_wires(frame, table, state);
        }
        let cells = grid(panes, state.previews.len());
        for (p, col) in state.previews.iter().zip(cells.iter()) {
            let chosen = p.vendor == state.form.vendor;
            preview_pane(frame, *col, t, p, state.preview_scroll, chosen, &fold);
        }
    } else if let Some(p) = state
        .previews
        .iter()
        .find(|p| p.vendor == state.form.vendor)
    {
        preview_pane(frame, area, t, p, state.preview_scroll, true, &fold);
    }
}

/// How many rows of panes `grid` lays `n` out in at `width` columns.
fn grid_rows(width: u16, n: usize) -> u16 {
    let n = n.max(1);
    let per_row = (usize::from(width) / 40).clamp(1, n);
    n.div_ceil(per_row) as u16
}

/// Every wire's verdict in one line of counts, where the table would leave the
/// panes no room.
fn draw_wire_counts(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let refused = state.wires.iter().filter(|v| v.reason.is_some()).count();
    let carried = state.wires.len() - refused;
    let line = Line::from(vec![
        Span::styled(
            format!("every wire: {carried} carried"),
            Style::default().fg(t.ok),
        ),
        Span::styled(format!(", {refused} refused"), Style::default().fg(t.error)),
        Span::styled(
            " (a taller terminal lists each with its reason)",
            Style::default().fg(t.muted),
        ),
    ]);
    frame.render_widget(Paragraph::new(line), area);
}

/// `n` panes side by side where each can be 40 columns wide, else in rows of as
/// many as fit (four vendors at 120 columns: two rows of two; six at 80: three
/// rows of two).
fn grid(area: Rect, n: usize) -> Vec<Rect> {
    let n = n.max(1);
    let per_row = (usize::from(area.width) / 40).clamp(1, n);
    let rows = n.div_ceil(per_row);
    let row_areas = Layout::vertical(vec![Constraint::Ratio(1, rows as u32); rows]).split(area);
    row_areas
        .iter()
        .flat_map(|row| {
            Layout::horizontal(vec![Constraint::Ratio(1, per_row as u32); per_row])
                .split(*row)
                .to_vec()
        })
        .take(n)
        .collect()
}

/// One row per wire: carried or refused, with the reason; the configured wires marked.
fn draw_wires(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let configured: Vec<_> = state.previews.iter().map(|p| p.wire).collect();
    let lines: Vec<Line<'_>> = state
        .wires
        .iter()
        .map(|v| {
            let mark = if configured.contains(&v.wire) {
                "▸"
            } else {
                " "
            };
            let label = format!("{mark} {:<34}", v.wire.label());
            let (verdict, style) = match &v.reason {
                None => ("✓ carried".to_string(), Style::default().fg(t.ok)),
                Some(r) => (format!("✗ refused — {r}"), Style::default().fg(t.error)),
            };
            Line::from(vec![
                Span::styled(label, Style::default().fg(t.text)),
                Span::styled(verdict, style),
            ])
        })
        .collect();
    let para = Paragraph::new(lines).block(block(t, "every wire (▸ configured)", false));
    frame.render_widget(para, area);
}

fn preview_pane(
    frame: &mut Frame<'_>,
    area: Rect,
    t: &Theme,
    p: &VendorPreview,
    scroll: i16,
    chosen: bool,
    fold: &str,
) {
    let mut wire = if p.wire.is_spec() {
        String::new()
    } else {
        format!(" ({} = \"{}\")", Wire::key(p.vendor), p.wire.value())
    };
    if let Some(agent) = &p.agent {
        wire.push_str(&format!(" · agent {agent}'s first request"));
    }
    let Ok(lines) = &p.request else {
        let refusal = p.request.as_ref().err().cloned().unwrap_or_default();
        let para = Paragraph::new(Line::styled(
            refusal,
            Style::default().fg(t.error).add_modifier(Modifier::BOLD),
        ))
        .wrap(Wrap { trim: false });
        let title = format!("{}{wire} ✗ REFUSED", p.vendor);
        frame.render_widget(para.block(block(t, &title, chosen)), area);
        return;
    };
    // The request line and the cautions are pinned above the scrolling part, so
    // where the request goes and what to beware of stay seen; below them the
    // headers and body, with a gutter marking what the declaration added.
    let mut pinned: Vec<(String, Style, bool)> = Vec::new();
    let mut rows: Vec<(String, Style, bool)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i == 0 {
            let style = Style::default().fg(t.accent).add_modifier(Modifier::BOLD);
            pinned.push((l.text.clone(), style, false));
            for c in &p.cautions {
                pinned.push((c.clone(), Style::default().fg(t.warning), false));
            }
            continue;
        }
        let style = if l.added {
            Style::default().fg(t.ok).add_modifier(Modifier::BOLD)
        } else {
            Style::default().fg(t.text)
        };
        let gutter = if l.added { "+ " } else { "  " };
        rows.push((format!("{gutter}{}", l.text), style, l.added));
    }
    let title = format!("{}{wire} ✓ carried · + = [web] · {fold} folds", p.vendor);
    let outer = block(t, &title, chosen);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let width = inner.width as usize;
    // The request line split where it must (a URL has no spaces), a caution
    // broken between words, as prose is.
    let mut pinned: Vec<(String, Style, bool)> = pinned
        .into_iter()
        .enumerate()
        .flat_map(|(i, row)| {
            if i == 0 {
                return hard_wrap(&[row], width);
            }
            let (text, style, added) = row;
            wrap_line(Line::raw(text), width)
                .into_iter()
                .map(|l| (l.to_string(), style, added))
                .collect()
        })
        .collect();
    // Pinned rows take at most two thirds of the pane, and at least its first
    // row (a pane one row high says where the request goes, not a blank); a
    // caution cut short says so.
    let most = (inner.height * 2 / 3).max(1.min(inner.height)) as usize;
    if pinned.len() > most {
        pinned.truncate(most);
        if let Some(last) = pinned.last_mut().filter(|_| most > 1) {
            let keep = last.0.chars().count().min(width.saturating_sub(1));
            last.0 = format!("{}…", last.0.chars().take(keep).collect::<String>());
        }
    }
    let pinned_h = pinned.len() as u16;
    let [top, body] =
        Layout::vertical([Constraint::Length(pinned_h), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(to_lines(pinned)), top);
    let wrapped = hard_wrap(&rows, width);
    let height = body.height as usize;
    let max_start = wrapped.len().saturating_sub(height);
    let anchor = anchor(&wrapped, height);
    let start = (anchor as i64 + i64::from(scroll)).clamp(0, max_start as i64) as u16;
    frame.render_widget(Paragraph::new(to_lines(wrapped)).scroll((start, 0)), body);
}

/// The first body row shown after an edit, so that what the declaration adds is
/// in view: as much of the top as still lets the added block end on screen, and
/// never below one row of context above its first line. A block taller than the
/// pane (fetch's beta header at the top, a transcript's `cache_control` lines
/// between it and the tools) is shown from its first line in the body, so
/// `web_search` and `web_fetch` stay in view. The operator scrolls from there.
fn anchor(wrapped: &[(String, Style, bool)], height: usize) -> usize {
    let max_start = wrapped.len().saturating_sub(height);
    let (Some(first), Some(last)) = (
        wrapped.iter().position(|(_, _, added)| *added),
        wrapped.iter().rposition(|(_, _, added)| *added),
    ) else {
        return 0;
    };
    // The body starts after the blank row that ends the headers.
    let body = wrapped
        .iter()
        .position(|(text, _, _)| text.trim().is_empty())
        .unwrap_or(0);
    let web = wrapped
        .iter()
        .enumerate()
        .skip(body)
        .find_map(|(i, (_, _, added))| added.then_some(i))
        .unwrap_or(first);
    let top = if last + 2 - first > height {
        web
    } else {
        first
    };
    (last + 2)
        .saturating_sub(height)
        .min(top.saturating_sub(1))
        .min(max_start)
}

fn to_lines(rows: Vec<(String, Style, bool)>) -> Vec<Line<'static>> {
    rows.into_iter()
        .map(|(text, style, _)| Line::styled(text, style))
        .collect()
}

/// Split rows to `width` screen columns (a wide character counts two and never
/// straddles an edge), so the scroll offset counts screen rows exactly (the
/// anchor must land on the first added line).
fn hard_wrap(rows: &[(String, Style, bool)], width: usize) -> Vec<(String, Style, bool)> {
    use unicode_width::UnicodeWidthChar;
    let width = width.max(2);
    let mut out = Vec::new();
    for (text, style, added) in rows {
        let mut row = String::new();
        let mut used = 0;
        for c in text.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > width && !row.is_empty() {
                out.push((std::mem::take(&mut row), *style, *added));
                used = 0;
            }
            row.push(c);
            used += w;
        }
        out.push((row, *style, *added));
    }
    out
}
