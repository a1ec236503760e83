//! Drawing: pure functions of `&State` and the frame's area. The frame is tabs,
//! the screen, and a status line; the help overlay and the approval dialog draw on
//! top. Areas too small to be useful get a note instead of a panic.

mod chrome;
mod claims;
mod compare;
mod declare;
mod eval;
mod listing;
mod requests;
mod run;
mod sources;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Cell, Clear, Paragraph, Row, Table, Wrap};

use crate::console::state::keys::{Action, Scope};
use crate::console::state::{Screen, State};
pub(crate) use chrome::{block, centered, count};

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
    // The theme's background under everything (the terminal's own unless the
    // theme names one), so a light theme's dark text has its light ground.
    frame.render_widget(
        Block::default().style(Style::default().bg(t.background)),
        area,
    );
    let max_rows = STATUS_ROWS.min(usize::from(area.height).saturating_sub(4));
    let status_rows = status_lines(state, usize::from(area.width), max_rows);
    let [tabs, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(status_rows.len() as u16),
    ])
    .areas(area);
    draw_tabs(frame, tabs, state);
    match state.screen {
        Screen::Declare => declare::draw(frame, body, state),
        Screen::Run => run::draw(frame, body, state),
        Screen::Sources => sources::draw(frame, body, state),
        Screen::Compare => compare::draw(frame, body, state),
    }
    frame.render_widget(Paragraph::new(status_rows), status);
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
    let screens = [
        ("Declare", Action::ShowDeclare, Screen::Declare),
        ("Run", Action::ShowRun, Screen::Run),
        ("Sources", Action::ShowSources, Screen::Sources),
        ("Compare", Action::ShowCompare, Screen::Compare),
    ];
    // The tabs three ways, widest first: spaced, tight, and only the screen
    // shown named (the others by their key; help names every one).
    let tabs = |how: usize| -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        for (i, (name, action, screen)) in screens.iter().enumerate() {
            let on = state.screen == *screen;
            let style = if on {
                Style::default()
                    .fg(t.accent)
                    .add_modifier(Modifier::BOLD | Modifier::REVERSED)
            } else {
                Style::default().fg(t.muted)
            };
            if i > 0 && how == 0 {
                spans.push(Span::raw(" "));
            }
            let text = if how == 2 && !on {
                format!(" {} ", k(*action))
            } else {
                format!(" {} {name} ", k(*action))
            };
            spans.push(Span::styled(text, style));
        }
        spans
    };
    // The longest hint that fits whole, the tabs made narrower before a hint is
    // dropped; a narrow terminal drops hints, never cuts one in half.
    let hints = [
        format!(
            "  {} help · {} run · {} quit",
            k(Action::Help),
            k(Action::StartRun),
            k(Action::Quit)
        ),
        format!("  {} help · {} quit", k(Action::Help), k(Action::Quit)),
        // How to quit before how to get help: help says how to quit, not the reverse.
        format!("  {} quit", k(Action::Quit)),
        format!("  {} help", k(Action::Help)),
    ];
    let width = area.width as usize;
    let fits = |spans: &[Span<'_>], hint: &str| {
        spans.iter().map(Span::width).sum::<usize>() + hint.chars().count() <= width
    };
    let chosen = hints.iter().find_map(|hint| {
        (0..3)
            .map(tabs)
            .find(|spans| fits(spans, hint))
            .map(|spans| (spans, hint.clone()))
    });
    let spans = match chosen {
        Some((mut spans, hint)) => {
            spans.push(Span::styled(hint, Style::default().fg(t.muted)));
            spans
        }
        None => tabs(0),
    };
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

const SPINNER: [&str; 4] = ["◐", "◓", "◑", "◒"];

/// The most rows the status line grows to for a long notice (fewer on a short
/// terminal: the body keeps at least three).
const STATUS_ROWS: usize = 5;

/// The most rows the mode (what the console is connected to) takes.
const MODE_ROWS: usize = 3;

/// The status line: the run's progress while one runs, then the notice (or the
/// mode). A notice that does not fit one row wraps, the progress on a row of its
/// own, to at most `max_rows` rows, the last cut with `…` if even those are too few.
fn status_lines(state: &State, cols: usize, max_rows: usize) -> Vec<Line<'static>> {
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
            // Nothing said before the first answer: $0 spent tells nothing.
            (None, Some(spent)) if !r.calls.is_empty() => {
                format!(" · {}", crate::core::price::usd(spent))
            }
            (None, _) => String::new(),
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
    let (text, style) = match &state.notice {
        Some((text, true)) => (text.clone(), Style::default().fg(t.error)),
        Some((text, false)) => (text.clone(), Style::default().fg(t.ok)),
        None => (state.mode.clone(), Style::default().fg(t.muted)),
    };
    let used: usize = spans.iter().map(Span::width).sum();
    if used + Span::raw(text.as_str()).width() <= cols {
        spans.push(Span::styled(text, style));
        return vec![Line::from(spans)];
    }
    // A notice is said once, in full. The mode is always there and the body's
    // rows matter more: it takes three rows at most.
    let max_rows = if state.notice.is_none() {
        max_rows.min(spans.len() + MODE_ROWS)
    } else {
        max_rows
    };
    let mut lines: Vec<Line<'static>> = spans.into_iter().map(Line::from).collect();
    let room = max_rows.saturating_sub(lines.len()).max(1);
    let mut rows = wrap_text(&text, cols);
    if rows.len() > room {
        rows.truncate(room);
        if let Some(last) = rows.last_mut() {
            while !last.is_empty() && Span::raw(last.as_str()).width() + 1 > cols {
                last.pop();
            }
            last.push('…');
        }
    }
    lines.extend(rows.into_iter().map(|r| Line::styled(r, style)));
    lines
}

fn draw_help(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let popup = centered(area, 88, area.height.saturating_sub(2));
    frame.render_widget(Clear, popup);
    let scope = |s: Scope| match s {
        Scope::Global => "everywhere",
        Scope::Declare => "Declare",
        Scope::Run => "Run",
        Scope::Sources => "Sources",
        Scope::Compare => "Compare",
        Scope::Approval => "approval",
    };
    // Fixed columns sized to their longest entry; the description takes the
    // rest and wraps onto a second row rather than being cut.
    // The key and name columns are as wide as their widest entry (a name is
    // what `[console.keys]` takes: cut, it could not be copied).
    let widest = |cells: &mut dyn Iterator<Item = usize>, least: usize| {
        u16::try_from(cells.max().unwrap_or(0).max(least)).unwrap_or(u16::MAX)
    };
    let keys = &state.keys.bindings;
    let key_w = widest(&mut keys.iter().map(|b| b.key.chars().count()), 9);
    const WHERE: u16 = 10;
    let name_w = widest(
        &mut keys.iter().map(|b| b.name.len()),
        "[console.keys]".len(),
    );
    let desc_w = popup
        .width
        .saturating_sub(2 + key_w + WHERE + name_w + 3)
        .max(8) as usize;
    let heights: Vec<usize> = state
        .keys
        .bindings
        .iter()
        .map(|b| wrap_text(b.desc, desc_w).len())
        .collect();
    // Rows past the popup scroll (up/down); the title says which are shown.
    let room = popup.height.saturating_sub(3) as usize;
    let total = state.keys.bindings.len();
    let fits_from = |first: usize| {
        let mut used = 0;
        heights[first..]
            .iter()
            .take_while(|h| {
                used += **h;
                used <= room
            })
            .count()
    };
    // The last first row that still fills the popup: scrolling stops there.
    let last_first = (0..total).find(|&f| f + fits_from(f) >= total).unwrap_or(0);
    let first = (state.help_scroll as usize).min(last_first);
    let shown = fits_from(first);
    let title = format!(
        "help · {}–{} of {total} · ↑↓ scroll · any other key closes",
        first + 1,
        first + shown
    );
    let rows = state.keys.bindings.iter().skip(first).take(shown).map(|b| {
        let desc = wrap_text(b.desc, desc_w);
        let height = desc.len() as u16;
        Row::new(vec![
            Cell::from(b.key.clone()),
            Cell::from(Text::from(
                desc.into_iter().map(Line::from).collect::<Vec<_>>(),
            )),
            Cell::from(scope(b.scope)),
            Cell::from(b.name),
        ])
        .height(height)
    });
    let table = Table::new(
        rows,
        [
            Constraint::Length(key_w),
            Constraint::Min(8),
            Constraint::Length(WHERE),
            Constraint::Length(name_w),
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

/// `text` in rows of at most `width` columns, broken at spaces; a word wider
/// than a row is split across rows.
fn wrap_text(text: &str, width: usize) -> Vec<String> {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    let width = width.max(1);
    let mut rows: Vec<String> = Vec::new();
    // The width of the last row.
    let mut used = 0;
    for word in text.split(' ') {
        let w = word.width();
        if let Some(row) = rows.last_mut().filter(|_| used + 1 + w <= width) {
            row.push(' ');
            row.push_str(word);
            used += 1 + w;
            continue;
        }
        // A new row; a word wider than a row is split across rows.
        let mut row = String::new();
        used = 0;
        for c in word.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > width && !row.is_empty() {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            row.push(c);
            used += cw;
        }
        rows.push(row);
    }
    rows
}
