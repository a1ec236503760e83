//! The pieces every screen draws with: a titled block in the theme's colours, a
//! centred rectangle, a counted noun. Below every screen's view.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};

use crate::console::state::theme::Theme;

/// `1 source`, `3 sources`.
pub(crate) fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
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

/// `line` in rows of at most `width` columns, broken after a space (a word
/// wider than a row is split), each piece keeping its style: wrapped here
/// rather than by the paragraph, so a pane knows how many rows it takes.
pub(crate) fn wrap_line(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    use unicode_width::UnicodeWidthStr;
    let width = width.max(1);
    let mut rows: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut used = 0;
    for span in line.spans {
        for piece in span.content.split_inclusive(' ') {
            let w = piece.trim_end_matches(' ').width();
            if used > 0 && used + w > width {
                rows.push(Vec::new());
                used = 0;
            }
            let mut rest = piece;
            // A piece wider than a row: as much as fits, then the rest below.
            while used + rest.trim_end_matches(' ').width() > width && !rest.is_empty() {
                let mut cut = 0;
                let mut cols = 0;
                for (i, c) in rest.char_indices() {
                    let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
                    if used + cols + cw > width {
                        break;
                    }
                    cols += cw;
                    cut = i + c.len_utf8();
                }
                if cut == 0 && used == 0 {
                    // Not even one character fits: give it the row.
                    cut = rest.chars().next().map_or(rest.len(), char::len_utf8);
                }
                if cut > 0 {
                    if let Some(row) = rows.last_mut() {
                        row.push(Span::styled(rest[..cut].to_string(), span.style));
                    }
                }
                rest = &rest[cut..];
                rows.push(Vec::new());
                used = 0;
            }
            if !rest.is_empty() {
                used += rest.width();
                if let Some(row) = rows.last_mut() {
                    row.push(Span::styled(rest.to_string(), span.style));
                }
            }
        }
    }
    rows.into_iter()
        .map(|spans| Line::from(spans).style(line.style))
        .collect()
}
