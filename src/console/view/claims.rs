//! The Sources screen's claims view: the selected run's final answer sentence by
//! sentence, each with the sources cited for it and what `check-sources` found
//! (a sentence with none is marked so), under the run's cited share, verified
//! share and unsupported count — the figures `claims` and `compare` print.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use crate::console::state::State;
use crate::console::state::keys::Action;
use crate::console::state::theme::Theme;
use crate::console::view::block;
use crate::core::claims::Source;
use crate::core::verdict::Verdict;

/// Draw the claims of the selected run in `area`.
pub(super) fn draw(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let s = &state.sources;
    let width = area.width.saturating_sub(2).max(8) as usize;
    let key = |a: Action| state.keys.key_for(a);
    let selected = state.selected_run();
    let claims = s.claims.as_ref().filter(|c| Some(c.run_id) == selected);
    let mut lines: Vec<Line<'_>> = Vec::new();
    let mut cursor_line = 0;
    let Some(c) = claims else {
        let title = format!("claims · {} closes", key(Action::Claims));
        frame.render_widget(
            Paragraph::new(Line::styled("reading …", Style::default().fg(t.muted))).block(block(
                t,
                &title,
                s.in_citations,
            )),
            area,
        );
        return;
    };
    let [cited, verified, unsupported] = c.figures.words();
    lines.push(Line::styled(
        format!("cited share {cited} · verified share {verified} · unsupported {unsupported}"),
        Style::default().fg(t.accent),
    ));
    if c.figures.verified_share.is_none() {
        lines.push(Line::styled(
            format!(
                "not checked: {} checks this run's sources (io-harness check-sources {})",
                key(Action::CheckSources),
                c.run_id
            ),
            Style::default().fg(t.muted),
        ));
    }
    if c.claims.is_empty() {
        lines.push(Line::styled(
            "no final answer recorded",
            Style::default().fg(t.muted),
        ));
    }
    for (i, sentence) in c.claims.iter().enumerate() {
        let style = if s.in_citations && i == s.cursor {
            cursor_line = lines.len();
            Style::default().fg(t.text).bg(t.selection)
        } else {
            Style::default().fg(t.text).add_modifier(Modifier::BOLD)
        };
        let text = crate::core::text::one_line(&sentence.text);
        for (n, piece) in wrap(&text, width.saturating_sub(5)).into_iter().enumerate() {
            let head = if n == 0 {
                format!("{:>3}. ", i + 1)
            } else {
                "     ".to_string()
            };
            lines.push(Line::styled(format!("{head}{piece}"), style));
        }
        if sentence.citations.is_empty() {
            lines.push(Line::styled(
                "     no source",
                Style::default().fg(t.warning),
            ));
        }
        lines.extend(sentence.citations.iter().map(|src| source_line(t, src)));
    }
    let inner = area.height.saturating_sub(2).max(1) as usize;
    let scroll = cursor_line.saturating_sub(inner.saturating_sub(4)) as u16;
    let title = format!(
        "claims · run {} · {} sentence{} · {} closes",
        c.run_id,
        c.claims.len(),
        if c.claims.len() == 1 { "" } else { "s" },
        key(Action::Claims)
    );
    frame.render_widget(
        Paragraph::new(lines)
            .scroll((scroll, 0))
            .block(block(t, &title, s.in_citations)),
        area,
    );
}

/// One source under its sentence: its verdict (coloured), the lexical overlap
/// where the vendor gave no quote, and the URL.
fn source_line(t: &Theme, src: &Source) -> Line<'static> {
    let colour = match src.verdict {
        Some(Verdict::Found) => t.ok,
        Some(Verdict::NotFound) => t.error,
        Some(_) => t.warning,
        None => t.muted,
    };
    let overlap = src
        .overlap
        .map(|o| format!(" · lexical overlap {o:.2}, a hint"))
        .unwrap_or_default();
    Line::styled(
        format!(
            "     [{}{overlap}] {}",
            src.verdict.map_or("not checked", Verdict::as_str),
            src.url
        ),
        Style::default().fg(colour),
    )
}

/// `text` in lines of at most `width` characters, broken at spaces where it can.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(8);
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let room = width.saturating_sub(line.chars().count());
        if !line.is_empty() && word.chars().count() + 1 > room {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > width {
            let cut: String = line.chars().take(width).collect();
            line = line.chars().skip(width).collect();
            out.push(cut);
        }
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}
