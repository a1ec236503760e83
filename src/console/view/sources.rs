//! Sources: past runs newest first; the selected run's citations by step, or
//! citations across runs by domain, or its claims (`claims`); the run's
//! server-tool failures; a detail view.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Row, Table, TableState, Wrap};

use crate::console::state::{Grouping, State};
use crate::console::view::{block, centered};
use crate::core::outcome::Outcome;
use crate::core::price::usd;
use crate::store::CitationRow;
use crate::store::verdicts::VerdictRow;

pub(super) fn draw(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let s = &state.sources;
    // Runs across the top (the goal needs the width); citations and the run's
    // server-tool failures side by side below.
    let [runs, below] =
        Layout::vertical([Constraint::Percentage(38), Constraint::Percentage(62)]).areas(area);
    if s.loaded && s.runs.is_empty() {
        frame.render_widget(
            Paragraph::new(format!(
                "No runs recorded in this store yet. {} on Declare ({}) starts one.",
                state
                    .keys
                    .key_for(crate::console::state::keys::Action::StartRun),
                state
                    .keys
                    .key_for(crate::console::state::keys::Action::ShowDeclare)
            ))
            .style(Style::default().fg(t.muted))
            .wrap(Wrap { trim: true })
            .block(block(t, "runs", true)),
            area,
        );
        return;
    }
    draw_runs(frame, runs, state);
    let visible = state.visible_citations();
    if s.claims_view && s.hits.is_none() && !s.searching {
        // The sentences need the width: the claims take the whole of it.
        super::claims::draw(frame, below, state);
    } else {
        let [list, failures] =
            Layout::horizontal([Constraint::Percentage(64), Constraint::Percentage(36)])
                .areas(below);
        draw_citations(frame, list, state, &visible);
        draw_failures(frame, failures, state);
    }
    if s.detail {
        if let Some(c) = visible.get(s.cursor) {
            draw_detail(frame, area, state, c);
        }
    }
    if let Some((run, request)) = &s.next {
        draw_next(frame, area, state, *run, request);
    }
}

/// The request a past run's next step would send (`n`), over the screen.
fn draw_next(
    frame: &mut Frame<'_>,
    area: Rect,
    state: &State,
    run: crate::core::id::RunId,
    request: &Result<Vec<String>, String>,
) {
    let t = &state.theme.1;
    let popup = centered(
        area,
        area.width.saturating_sub(4),
        area.height.saturating_sub(2),
    );
    frame.render_widget(Clear, popup);
    let lines: Vec<Line<'_>> = match request {
        Ok(lines) => lines
            .iter()
            .map(|l| Line::styled(l.clone(), Style::default().fg(t.text)))
            .collect(),
        Err(why) => vec![Line::styled(why.clone(), Style::default().fg(t.error))],
    };
    let title = format!("run {run} · the next request, as run --resume sends it · esc closes");
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(t, &title, true)),
        popup,
    );
}

/// The runs table, newest first, the selected one marked.
fn draw_runs(frame: &mut Frame<'_>, runs: Rect, state: &State) {
    let t = &state.theme.1;
    let s = &state.sources;
    // The run's ledger total (children included), the same figure as its Run panes.
    let money = |r: &crate::store::RunRow| {
        r.figures
            .as_ref()
            .and_then(|f| f.cost_micro_usd)
            .map_or("—".to_string(), usd)
    };
    let rows = s.runs.iter().enumerate().map(|(i, r)| {
        let style = if i == s.selected {
            Style::default().fg(t.text).bg(t.selection)
        } else {
            Style::default().fg(t.text)
        };
        let outcome_style = match r.outcome {
            Some(Outcome::Passed) => t.ok,
            None => t.warning,
            _ => t.error,
        };
        Row::new(vec![
            r.run_id.to_string(),
            r.goal.lines().next().unwrap_or("").to_string(),
            r.provider.to_string(),
            r.outcome.map_or("unfinished", Outcome::as_str).to_string(),
            r.citation_count.to_string(),
            money(r),
            r.user.clone().unwrap_or_else(|| "—".into()),
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
            // "interrupted" whole; a longer word (budget_exhausted) is cut.
            Constraint::Length(11),
            Constraint::Length(3),
            Constraint::Length(9),
            // Who started it (a team's store holds several operators' runs).
            Constraint::Length(8),
        ],
    )
    .header(
        Row::new(vec![
            "run", "goal", "provider", "outcome", "src", "cost", "by",
        ])
        .style(Style::default().fg(t.muted)),
    )
    .block(block(t, "runs · newest first", !s.in_citations));
    let mut table_state = TableState::default().with_selected(Some(s.selected));
    frame.render_stateful_widget(table, runs, &mut table_state);
}

/// The citations, grouped by step or by domain, filtered as typed.
fn draw_citations(frame: &mut Frame<'_>, list: Rect, state: &State, visible: &[&CitationRow]) {
    let t = &state.theme.1;
    let s = &state.sources;
    if s.searching || s.hits.is_some() {
        return draw_hits(frame, list, state);
    }
    let mut lines = Vec::new();
    let mut last_group = None;
    let selected_run = s.runs.get(s.selected).map(|r| r.run_id);
    let mut cursor_line = 0;
    for (i, c) in visible.iter().enumerate() {
        let g = match s.grouping {
            Grouping::ByStep if Some(c.run_id) != selected_run => {
                // Which agent searched, where the child ran as one.
                let agent = s
                    .runs
                    .iter()
                    .find(|r| r.run_id == c.run_id)
                    .and_then(|r| r.agent.as_deref())
                    .map(|a| format!(" ({a})"))
                    .unwrap_or_default();
                format!("child run {}{agent} · step {}", c.run_id, c.step)
            }
            Grouping::ByStep => format!("step {}", c.step),
            Grouping::ByDomain => state.domain_of(c),
        };
        if last_group.as_ref() != Some(&g) {
            lines.push(Line::styled(
                g.clone(),
                Style::default().fg(t.accent).add_modifier(Modifier::BOLD),
            ));
            last_group = Some(g);
        }
        let style = if s.in_citations && i == s.cursor {
            cursor_line = lines.len();
            Style::default().fg(t.text).bg(t.selection)
        } else {
            Style::default().fg(t.text)
        };
        let run = if s.grouping == Grouping::ByDomain {
            format!("run {} · ", c.run_id)
        } else {
            String::new()
        };
        let checked = verdict_of(&s.checks, c);
        let link = crate::core::link::shown(&c.url, c.title.as_deref());
        lines.push(Line::styled(format!("  {run}{link}{checked}"), style));
    }
    // Google's terms ask for its search suggestions beside a grounded answer:
    // listed after the citations, the cursor moving on to them (o opens one).
    let suggestions = state.visible_suggestions();
    if !suggestions.is_empty() {
        lines.push(Line::styled(
            "Google Search suggestions",
            Style::default().fg(t.accent).add_modifier(Modifier::BOLD),
        ));
        for (j, sug) in suggestions.iter().enumerate() {
            let style = if s.in_citations && visible.len() + j == s.cursor {
                cursor_line = lines.len();
                Style::default().fg(t.text).bg(t.selection)
            } else {
                Style::default().fg(t.text)
            };
            lines.push(Line::styled(
                format!("  {} · {}", sug.query, sug.url),
                style,
            ));
        }
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
            "(f to type; / searches every run)"
        } else {
            &s.filter
        },
        if s.filtering { "▏" } else { "" }
    );
    frame.render_widget(
        Paragraph::new(lines)
            .scroll((scroll_to(cursor_line, list.height), 0))
            .block(block(t, &title, s.in_citations)),
        list,
    );
}

/// What check-sources found, where it ran: the verdict after the URL of the run
/// it checked (by run, step and URL: another run citing the same URL at the same
/// step was not checked), and where a redirect led when it was followed.
fn verdict_of(checks: &[VerdictRow], c: &CitationRow) -> String {
    checks
        .iter()
        .find(|k| k.run_id == c.run_id && k.step == c.step && k.url == c.url)
        .map(|k| match &k.resolved_url {
            Some(to) => format!("  [{} → {to}]", k.verdict),
            None => format!("  [{}]", k.verdict),
        })
        .unwrap_or_default()
}

/// A search over every run: the query as typed, then its hits (run, step, what
/// matched, the URL, the passage with the match in brackets).
fn draw_hits(frame: &mut Frame<'_>, list: Rect, state: &State) {
    let t = &state.theme.1;
    let s = &state.sources;
    let mut lines = Vec::new();
    let mut cursor_line = 0;
    let title = if s.searching {
        format!("search every run: {}▏ · enter searches · esc", s.query)
    } else {
        format!(
            "search every run: {} · enter opens the run · esc back",
            s.query
        )
    };
    match &s.hits {
        _ if s.searching => lines.push(Line::styled(
            "words, \"a phrase\", AND / OR / NOT, prefix*",
            Style::default().fg(t.muted),
        )),
        None => {}
        Some(Err(why)) => {
            // Why nothing was found, read in full: wrapped, not cut at the edge.
            let para = Paragraph::new(Line::styled(why.clone(), Style::default().fg(t.error)))
                .wrap(Wrap { trim: false })
                .block(block(t, &title, true));
            frame.render_widget(para, list);
            return;
        }
        Some(Ok(hits)) if hits.is_empty() => {
            lines.push(Line::styled(
                "nothing matches",
                Style::default().fg(t.muted),
            ));
        }
        Some(Ok(hits)) => {
            for (i, h) in hits.iter().enumerate() {
                let style = if i == s.cursor {
                    cursor_line = lines.len();
                    Style::default().fg(t.text).bg(t.selection)
                } else {
                    Style::default().fg(t.text)
                };
                let url = h
                    .url
                    .as_deref()
                    .map(|u| format!("  {u}"))
                    .unwrap_or_default();
                lines.push(Line::styled(
                    format!("run {} · step {} · {}{url}", h.run_id, h.step, h.kind),
                    style,
                ));
                let passage = crate::core::text::one_line(&h.snippet);
                lines.push(Line::styled(
                    format!("    {passage}"),
                    Style::default().fg(t.muted),
                ));
            }
        }
    }
    frame.render_widget(
        Paragraph::new(lines)
            .scroll((scroll_to(cursor_line, list.height), 0))
            .block(block(t, &title, true)),
        list,
    );
}

/// The selected run's server-tool failures.
fn draw_failures(frame: &mut Frame<'_>, failures: Rect, state: &State) {
    let t = &state.theme.1;
    let s = &state.sources;
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
        Paragraph::new(fails)
            .wrap(Wrap { trim: false })
            .block(block(t, "server-tool failures", false)),
        failures,
    );
}

/// One citation in full, over the screen.
fn draw_detail(frame: &mut Frame<'_>, area: Rect, state: &State, c: &CitationRow) {
    let t = &state.theme.1;
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

/// The first line to show so `line` stays inside a bordered pane of `height` rows.
fn scroll_to(line: usize, height: u16) -> u16 {
    let inner = height.saturating_sub(2).max(1) as usize;
    line.saturating_sub(inner - 1) as u16
}
