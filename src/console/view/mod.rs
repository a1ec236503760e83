//! Drawing: pure functions of `&State` and the frame's area. The frame is tabs,
//! the screen, and a status line; the help overlay and the approval dialog draw on
//! top. Areas too small to be useful get a note instead of a panic.

mod declare;
mod run;
mod sources;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Row, Table, Wrap};

use super::app::{Screen, State};
use super::keys::{Action, Scope};
use super::theme::Theme;

/// The smallest area the screens are drawn in.
pub const MIN: (u16, u16) = (40, 10);

/// Draw the whole console.
pub fn draw(frame: &mut Frame<'_>, state: &State) {
    let area = frame.area();
    let t = &state.theme.1;
    if area.width < MIN.0 || area.height < MIN.1 {
        let note = Paragraph::new(format!(
            "terminal too small ({}×{}); need {}×{}",
            area.width, area.height, MIN.0, MIN.1
        ))
        .style(Style::default().fg(t.warning))
        .wrap(Wrap { trim: true });
        frame.render_widget(note, area);
        return;
    }
    let [tabs, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_tabs(frame, tabs, state);
    match state.screen {
        Screen::Declare => declare::draw(frame, body, state),
        Screen::Run => run::draw(frame, body, state),
        Screen::Sources => sources::draw(frame, body, state),
    }
    draw_status(frame, status, state);
    if state.run.approval.is_some() {
        run::draw_approval(frame, area, state);
    }
    if state.help {
        draw_help(frame, area, state);
    }
}

fn draw_tabs(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let k = |a| state.keys.key_for(a).to_uppercase();
    let tab = |name: &str, key: String, on: bool| {
        let style = if on {
            Style::default()
                .fg(t.accent)
                .add_modifier(Modifier::BOLD | Modifier::REVERSED)
        } else {
            Style::default().fg(t.muted)
        };
        Span::styled(format!(" {key} {name} "), style)
    };
    let line = Line::from(vec![
        tab(
            "Declare",
            k(Action::ShowDeclare),
            state.screen == Screen::Declare,
        ),
        Span::raw(" "),
        tab("Run", k(Action::ShowRun), state.screen == Screen::Run),
        Span::raw(" "),
        tab(
            "Sources",
            k(Action::ShowSources),
            state.screen == Screen::Sources,
        ),
        Span::styled(
            format!(
                "  {} help · {} run · {} quit",
                k(Action::Help),
                k(Action::StartRun),
                k(Action::Quit)
            ),
            Style::default().fg(t.muted),
        ),
    ]);
    frame.render_widget(Paragraph::new(line), area);
}

const SPINNER: [&str; 4] = ["◐", "◓", "◑", "◒"];

fn draw_status(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let r = &state.run;
    let mut spans = Vec::new();
    if r.running {
        let spin = if r.in_flight {
            SPINNER[state.spinner % SPINNER.len()]
        } else {
            "·"
        };
        let b = state.form.budget;
        // Spend against the dollar limit, when there is one; what is spent otherwise.
        let spend = match (b.usd_micro, r.total_cost()) {
            (Some(limit), spent) => format!(
                " · {}/{}",
                crate::core::price::usd_or_dash(spent),
                crate::core::price::usd(limit)
            ),
            (None, Some(spent)) => format!(" · {}", crate::core::price::usd(spent)),
            (None, None) => String::new(),
        };
        spans.push(Span::styled(
            format!(
                "{spin} running {:.1}s · step {}/{} · tokens {}/{}{spend} ",
                r.elapsed_ms as f64 / 1000.0,
                r.step,
                b.steps,
                r.total_tokens(),
                b.tokens
            ),
            Style::default().fg(t.accent),
        ));
    }
    match &state.notice {
        Some((text, true)) => spans.push(Span::styled(text.clone(), Style::default().fg(t.error))),
        Some((text, false)) => spans.push(Span::styled(text.clone(), Style::default().fg(t.ok))),
        None => spans.push(Span::styled(
            state.mode.clone(),
            Style::default().fg(t.muted),
        )),
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_help(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let popup = centered(area, 72, area.height.saturating_sub(2));
    frame.render_widget(Clear, popup);
    let scope = |s: Scope| match s {
        Scope::Global => "everywhere",
        Scope::Declare => "Declare",
        Scope::Run => "Run",
        Scope::Sources => "Sources",
        Scope::Approval => "approval",
    };
    // Rows past the popup scroll (up/down); the title says how many there are.
    let visible = popup.height.saturating_sub(3) as usize;
    let total = state.keys.bindings.len();
    let first = (state.help_scroll as usize).min(total.saturating_sub(visible));
    let title = format!(
        "help · {}–{} of {total} · ↑↓ scroll · any other key closes",
        first + 1,
        (first + visible).min(total)
    );
    let rows = state.keys.bindings.iter().skip(first).map(|b| {
        Row::new(vec![
            b.key.clone(),
            b.desc.to_string(),
            scope(b.scope).to_string(),
            b.name.to_string(),
        ])
    });
    let table = Table::new(
        rows,
        [
            Constraint::Length(9),
            Constraint::Min(20),
            Constraint::Length(10),
            Constraint::Length(13),
        ],
    )
    .header(
        Row::new(vec!["key", "does", "where", "[console.keys]"])
            .style(Style::default().fg(t.accent).add_modifier(Modifier::BOLD)),
    )
    .style(Style::default().fg(t.text))
    .block(block(t, &title, true));
    frame.render_widget(table, popup);
}

/// A bordered block with a title, highlighted when focused.
pub(crate) fn block<'a>(t: &Theme, title: &'a str, focused: bool) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(Style::default().fg(if focused { t.accent } else { t.border }))
        .title(Span::styled(
            title,
            Style::default().fg(if focused { t.accent } else { t.text }),
        ))
}

/// A rectangle of at most `w`×`h` centred in `area`.
pub(crate) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}
