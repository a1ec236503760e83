//! The Run panes: steps and observations; provider-executed tool calls with their
//! vendor codes; per-request tokens, cost and searches with a running total and a
//! chart; and the approval dialog.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Row, Table, Wrap};

use crate::console::state::State;
use crate::console::state::run::{Tone, saturating_sum};
use crate::console::view::{block, centered};
use crate::core::price::{usd, usd_or_dash};

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
    draw_requests(frame, calls, state);
    if let Some(chart) = chart {
        draw_chart(frame, chart, state);
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
            .key_for(crate::console::update::keys::Action::StartRun),
        state
            .keys
            .key_for(crate::console::update::keys::Action::ShowSources)
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
        r.provider,
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
    let failed = r
        .server
        .iter()
        .filter(|s| s.error.is_some() && !s.interrupted)
        .count();
    let counted = r.server.iter().filter(|s| !s.interrupted).count();
    let title = format!("server-tool calls · {counted} · {failed} failed");
    frame.render_widget(Paragraph::new(rows).block(block(t, &title, false)), server);
}

/// Per request: tokens, searches, the fees and the whole cost (tokens, cache and
/// fees, or the vendor's own figure, marked `v`); the Σ row is the sum of the
/// rows; the last line names where the prices come from.
fn draw_requests(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let r = &state.run;
    let cost = |c: &crate::core::event::Cost| match (c.total_micro_usd, c.vendor_micro_usd) {
        (Some(m), Some(_)) => format!("{}v", usd(m)),
        (m, _) => usd_or_dash(m),
    };
    let fees = |c: &crate::core::event::Cost| match (c.fees_micro_usd, c.vendor_micro_usd) {
        (_, Some(_)) => "incl.".to_string(),
        (m, None) => usd_or_dash(m),
    };
    // The request in flight, once it has streamed anything: its output so far.
    let live = (r.in_flight && r.live.active).then(|| {
        let (tokens, estimated) = r.live.output_tokens();
        Row::new(vec![
            r.step.to_string(),
            "…".to_string(),
            format!("{}{tokens}", if estimated { "~" } else { "" }),
            String::new(),
            String::new(),
            "—".to_string(),
            "streaming".to_string(),
        ])
        .style(Style::default().fg(t.accent))
    });
    // The latest requests that fit, so the Σ row stays on screen.
    let fit = (area.height.saturating_sub(4) as usize).saturating_sub(usize::from(live.is_some()));
    let rows = r
        .calls
        .iter()
        .skip(r.calls.len().saturating_sub(fit))
        .map(|c| {
            Row::new(vec![
                c.step.to_string(),
                c.input.to_string(),
                c.output.to_string(),
                format!(
                    "{}{}",
                    c.searches,
                    if c.cost.fees_counted_here { "c" } else { "" }
                ),
                fees(&c.cost),
                cost(&c.cost),
                c.stop.clone(),
            ])
            .style(Style::default().fg(t.text))
        });
    let total = r.total_cost();
    let sum = Row::new(vec![
        "Σ".to_string(),
        saturating_sum(r.calls.iter().map(|c| c.input)).to_string(),
        saturating_sum(r.calls.iter().map(|c| c.output)).to_string(),
        r.total_searches().to_string(),
        crate::core::price::fees_or_included(
            r.total_fees(),
            r.calls.iter().any(|c| c.cost.vendor_micro_usd.is_some()),
        ),
        usd_or_dash(total),
        r.outcome.clone().unwrap_or_else(|| {
            if r.running {
                "running".into()
            } else {
                String::new()
            }
        }),
    ])
    .style(Style::default().fg(t.accent).add_modifier(Modifier::BOLD));
    let mut caption = if r.model.is_empty() {
        String::new()
    } else {
        state.prices.provenance(&r.model)
    };
    if let Some(why) = r.calls.iter().find_map(|c| c.cost.unpriced.as_deref()) {
        caption = format!("— {why}; {caption}");
    }
    if r.calls.iter().any(|c| c.cost.vendor_micro_usd.is_some()) {
        caption.push_str(" · v: the vendor's own figure");
    }
    if r.calls.iter().any(|c| c.cost.fees_counted_here) {
        caption.push_str(" · c: searches counted here, no vendor counter");
    }
    let title = format!(
        "requests · total {} · {}",
        usd_or_dash(total),
        crate::console::view::count(r.citations, "source")
    );
    let table = Table::new(
        rows.chain(live).chain([sum]),
        [
            Constraint::Length(2),
            Constraint::Length(7),
            Constraint::Length(5),
            Constraint::Length(4),
            Constraint::Length(9),
            Constraint::Length(10),
            Constraint::Min(6),
        ],
    )
    .header(
        Row::new(vec!["st", "in", "out", "srch", "fees", "cost", "stop"])
            .style(Style::default().fg(t.muted)),
    )
    .block(
        block(t, &title, false).title_bottom(Line::styled(caption, Style::default().fg(t.muted))),
    );
    frame.render_widget(table, area);
}

/// Cost per request as stacked columns (tokens, cache, fees; the vendor's own
/// figure in one piece) when every request is priced; tokens otherwise. The title
/// states the scale: the value the tallest column stands for.
fn draw_chart(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let r = &state.run;
    let priced = !r.calls.is_empty() && r.total_cost().is_some();
    let colours = [t.accent, t.ok, t.warning, t.muted];
    let bars: Vec<[u64; 4]> = r
        .calls
        .iter()
        .map(|c| {
            let k = &c.cost;
            match (priced, k.vendor_micro_usd) {
                (true, Some(v)) => [0, 0, 0, v],
                (true, None) => [
                    k.tokens_micro_usd.unwrap_or(0),
                    k.cache_micro_usd.unwrap_or(0),
                    k.fees_micro_usd.unwrap_or(0),
                    0,
                ],
                (false, _) => [c.input.saturating_add(c.output), 0, 0, 0],
            }
        })
        .collect();
    let top = bars
        .iter()
        .map(|b| saturating_sum(b.iter().copied()))
        .max()
        .unwrap_or(0);
    let title = match (priced, top) {
        (_, 0) => "cost per request".to_string(),
        (true, top) => format!("cost · top {}", usd(top)),
        (false, top) => format!("tokens · top {top} (no price)"),
    };
    let legend = if priced {
        Line::from(vec![
            Span::styled("█tokens ", Style::default().fg(colours[0])),
            Span::styled("█cache ", Style::default().fg(colours[1])),
            Span::styled("█fees", Style::default().fg(colours[2])),
        ])
    } else {
        Line::default()
    };
    let outer = block(t, &title, false).title_bottom(legend);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    if inner.width == 0 || inner.height == 0 || top == 0 {
        return;
    }
    // The latest requests that fit, filled from the bottom: two cells wide with a
    // gap where there is room, one cell each where there is not.
    // In u128: a saturated count times the height must not overflow.
    let h = u128::from(inner.height);
    let top128 = u128::from(top);
    let slot = if bars.len() * 3 <= inner.width as usize {
        3
    } else {
        1
    };
    let fit = inner.width as usize / slot;
    let shown = bars.iter().skip(bars.len().saturating_sub(fit));
    let buf = frame.buffer_mut();
    for (i, bar) in shown.enumerate() {
        let total: u128 = bar.iter().map(|&p| u128::from(p)).sum();
        // Rounded up, so a request that cost anything shows at least one cell.
        let height = (total * h).div_ceil(top128).min(h);
        let mut below = 0u128;
        let mut filled = 0u128;
        for (part, colour) in bar.iter().zip(colours) {
            below += u128::from(*part);
            let upto = if below == total {
                height
            } else {
                (below * h / top128).min(height)
            };
            for row in filled..upto {
                let y = inner.y + inner.height - 1 - row as u16;
                for dx in 0..slot.saturating_sub(1).max(1) {
                    let x = inner.x + (i * slot + dx) as u16;
                    if let Some(cell) = buf.cell_mut((x, y)) {
                        cell.set_symbol("█").set_fg(colour);
                    }
                }
            }
            filled = filled.max(upto);
        }
    }
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
                        .key_for(crate::console::update::keys::Action::Approve)
                ),
                Style::default().fg(t.ok).add_modifier(Modifier::REVERSED),
            ),
            Span::raw("  "),
            Span::styled(
                format!(
                    " {} allow for this run ",
                    state
                        .keys
                        .key_for(crate::console::update::keys::Action::ApproveForRun)
                ),
                Style::default().fg(t.ok),
            ),
            Span::raw("  "),
            Span::styled(
                format!(
                    " {} deny ",
                    state
                        .keys
                        .key_for(crate::console::update::keys::Action::Deny)
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
