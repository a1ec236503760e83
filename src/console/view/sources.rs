//! Sources: past runs newest first; the selected run's citations by step, or
//! citations across runs by domain; the run's server-tool failures; a detail view.

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Row, Table, Wrap};

use super::{block, centered};
use crate::console::app::{Grouping, State};
use crate::core::completion::Usage;
use crate::store::CitationRow;

pub(super) fn draw(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let s = &state.sources;
    let [runs, right] =
        Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(area);
    if s.loaded && s.runs.is_empty() {
        frame.render_widget(
            Paragraph::new("No runs recorded in this store yet. Ctrl-R on Declare starts one.")
                .style(Style::default().fg(t.muted))
                .wrap(Wrap { trim: true })
                .block(block(t, "runs", true)),
            area,
        );
        return;
    }
    let money = |r: &crate::store::RunRow| {
        let u = Usage {
            input_tokens: r.input_tokens,
            output_tokens: r.output_tokens,
            server_tool_requests: r.server_tool_requests,
        };
        state
            .prices
            .cost(&r.model, Some(&u))
            .total_usd()
            .map_or("—".to_string(), |c| format!("${c:.3}"))
    };
    let rows = s.runs.iter().enumerate().map(|(i, r)| {
        let style = if i == s.selected {
            Style::default().fg(t.text).bg(t.selection)
        } else {
            Style::default().fg(t.text)
        };
        let outcome_style = match r.outcome.as_deref() {
            Some("passed") => t.ok,
            None => t.warning,
            _ => t.error,
        };
        Row::new(vec![
            r.run_id.to_string(),
            r.goal.lines().next().unwrap_or("").to_string(),
            r.provider.clone(),
            r.outcome.clone().unwrap_or_else(|| "running".into()),
            r.citation_count.to_string(),
            money(r),
        ])
        .style(style.fg(if i == s.selected {
            t.text
        } else {
            outcome_style
        }))
    });
    let table = Table::new(
        rows,
        [
            Constraint::Length(4),
            Constraint::Min(8),
            Constraint::Length(10),
            Constraint::Length(9),
            Constraint::Length(3),
            Constraint::Length(7),
        ],
    )
    .header(
        Row::new(vec!["run", "goal", "provider", "outcome", "src", "cost"])
            .style(Style::default().fg(t.muted)),
    )
    .block(block(t, "runs · newest first", !s.in_citations));
    frame.render_widget(table, runs);

    let visible = state.visible_citations();
    let [list, failures] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(
            (s.failures.iter().filter(|f| f.error.is_some()).count() as u16 + 2).min(6),
        ),
    ])
    .areas(right);
    let mut lines = Vec::new();
    let mut last_group = None;
    let group_of = |c: &CitationRow| match s.grouping {
        Grouping::ByStep => format!("step {}", c.step),
        Grouping::ByDomain => url::Url::parse(&c.url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_else(|| "(no host)".into()),
    };
    let mut ordered: Vec<(usize, &CitationRow)> = visible.iter().copied().enumerate().collect();
    if s.grouping == Grouping::ByDomain {
        let mut by: BTreeMap<String, Vec<(usize, &CitationRow)>> = BTreeMap::new();
        for (i, c) in ordered {
            by.entry(group_of(c)).or_default().push((i, c));
        }
        ordered = by.into_values().flatten().collect();
    }
    for (i, c) in ordered {
        let g = group_of(c);
        if last_group.as_ref() != Some(&g) {
            lines.push(Line::styled(
                g.clone(),
                Style::default().fg(t.accent).add_modifier(Modifier::BOLD),
            ));
            last_group = Some(g);
        }
        let style = if s.in_citations && i == s.cursor {
            Style::default().fg(t.text).bg(t.selection)
        } else {
            Style::default().fg(t.text)
        };
        let run = if s.grouping == Grouping::ByDomain {
            format!("run {} · ", c.run_id)
        } else {
            String::new()
        };
        lines.push(Line::styled(format!("  {run}{}", c.url), style));
    }
    if lines.is_empty() {
        lines.push(Line::styled(
            if s.filter.is_empty() {
                "no citations recorded"
            } else {
                "no citation matches the filter"
            },
            Style::default().fg(t.muted),
        ));
    }
    let title = format!(
        "citations · {} · filter: {}{}",
        if s.grouping == Grouping::ByStep {
            "by step"
        } else {
            "by domain, all runs"
        },
        if s.filter.is_empty() && !s.filtering {
            "(/ to type)"
        } else {
            &s.filter
        },
        if s.filtering { "▏" } else { "" }
    );
    frame.render_widget(
        Paragraph::new(lines).block(block(t, &title, s.in_citations)),
        list,
    );

    let fails: Vec<Line<'_>> = s
        .failures
        .iter()
        .filter_map(|f| {
            f.error.as_ref().map(|e| {
                Line::styled(
                    format!("step {} {} {} failed ({e})", f.step, f.provider, f.tool),
                    Style::default().fg(t.error),
                )
            })
        })
        .collect();
    let fails = if fails.is_empty() {
        vec![Line::styled(
            "no server-tool failures",
            Style::default().fg(t.muted),
        )]
    } else {
        fails
    };
    frame.render_widget(
        Paragraph::new(fails).block(block(t, "server-tool failures", false)),
        failures,
    );

    if s.detail {
        if let Some(c) = visible.get(s.cursor) {
            let popup = centered(area, 70, 12);
            frame.render_widget(Clear, popup);
            let reported = |v: &Option<String>| match v.as_deref() {
                None => "not reported".to_string(),
                Some("") => "(blank)".to_string(),
                Some(x) => x.to_string(),
            };
            let lines = vec![
                Line::styled(
                    format!("title: {}", reported(&c.title)),
                    Style::default().fg(t.text),
                ),
                Line::styled(format!("url:   {}", c.url), Style::default().fg(t.accent)),
                Line::styled(
                    format!("run {} · step {}", c.run_id, c.step),
                    Style::default().fg(t.muted),
                ),
                Line::raw(""),
                Line::styled(
                    format!("quoted: {}", reported(&c.cited_text)),
                    Style::default().fg(t.text),
                ),
                Line::raw(""),
                Line::styled(
                    "c copy URL · o open in browser · esc close — a citation is what the provider returned, not a checked source",
                    Style::default().fg(t.muted),
                ),
            ];
            frame.render_widget(
                Paragraph::new(lines)
                    .wrap(Wrap { trim: true })
                    .block(block(t, "citation", true)),
                popup,
            );
        }
    }
}
