//! The Run screen's accounting, per provider request: the table of tokens
//! (plain input, cache writes, cache reads, output), searches, fees and cost with
//! its Σ row and where the prices come from, and the chart of cost (or tokens)
//! per request, cache writes and reads each in its own colour.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Row, Table};

use crate::console::state::State;
use crate::console::state::run::saturating_sum;
use crate::console::view::block;
use crate::core::price::{usd, usd_or_dash};

/// The table's columns, in order. Each is as wide as its widest cell; `fees` is
/// left out when the pane is too narrow for every column (the cost includes
/// them, and the chart shows them).
const COLUMNS: [&str; 9] = [
    "st", "in", "c.wr", "c.rd", "out", "srch", "fees", "cost", "stop",
];
const FEES: usize = 6;
/// The least the last column (`stop`) is given.
const STOP_MIN: usize = 6;

/// Per request: plain input, cache writes, cache reads and output tokens, the
/// searches and fetches its answer made, the fees and the whole cost (tokens,
/// cache and fees, or the vendor's own figure, marked `v`); the Σ row is the sum
/// of the rows, so a stored run's Σ is its figures; the last line names where
/// the prices come from.
pub(super) fn draw_requests(frame: &mut Frame<'_>, area: Rect, state: &State) {
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
        let mut cells = vec![r.step.to_string(), "…".to_string()];
        cells.extend([String::new(), String::new()]);
        cells.push(format!("{}{tokens}", if estimated { "~" } else { "" }));
        cells.extend([String::new(), String::new(), "—".to_string()]);
        cells.push("streaming".to_string());
        cells
    });
    // The latest requests that fit, so the Σ row stays on screen.
    let fit = (area.height.saturating_sub(4) as usize).saturating_sub(usize::from(live.is_some()));
    let mut rows: Vec<(Vec<String>, Style)> = r
        .calls
        .iter()
        .skip(r.calls.len().saturating_sub(fit))
        .map(|c| {
            let cells = vec![
                c.step.to_string(),
                c.input.to_string(),
                c.cache_write.to_string(),
                c.cache_read.to_string(),
                c.output.to_string(),
                format!(
                    "{}{}",
                    c.server.cell(),
                    if c.cost.fees_counted_here { "c" } else { "" }
                ),
                fees(&c.cost),
                cost(&c.cost),
                c.stop.clone(),
            ];
            (cells, Style::default().fg(t.text))
        })
        .collect();
    rows.extend(live.map(|cells| (cells, Style::default().fg(t.accent))));
    let bold = Style::default().fg(t.accent).add_modifier(Modifier::BOLD);
    rows.push((sum_cells(state), bold));
    let header: Vec<String> = COLUMNS.iter().map(|h| h.to_string()).collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for (cells, _) in &rows {
        for (w, cell) in widths.iter_mut().zip(cells) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let last = COLUMNS.len() - 1;
    let needed: usize = widths[..last].iter().map(|w| w + 1).sum::<usize>() + STOP_MIN;
    let with_fees = needed <= usize::from(area.width.saturating_sub(2));
    let keep = |cells: Vec<String>| -> Vec<String> {
        cells
            .into_iter()
            .enumerate()
            .filter(|(i, _)| with_fees || *i != FEES)
            .map(|(_, c)| c)
            .collect()
    };
    let constraints: Vec<Constraint> = widths
        .iter()
        .enumerate()
        .filter(|(i, _)| with_fees || *i != FEES)
        .map(|(i, w)| {
            let w = u16::try_from(*w).unwrap_or(u16::MAX);
            if i == last {
                Constraint::Min(w.min(STOP_MIN as u16))
            } else {
                Constraint::Length(w)
            }
        })
        .collect();
    let caption = price_caption(state);
    let title = format!(
        "requests · total {} · {}",
        usd_or_dash(r.total_cost()),
        crate::console::view::count(r.citations, "source")
    );
    let body = rows
        .into_iter()
        .map(|(cells, style)| Row::new(keep(cells)).style(style));
    let table = Table::new(body, constraints)
        .header(Row::new(keep(header)).style(Style::default().fg(t.muted)))
        .block(
            block(t, &title, false)
                .title_bottom(Line::styled(caption, Style::default().fg(t.muted))),
        );
    frame.render_widget(table, area);
}

/// The requests table's Σ row: the totals and the run's outcome (or that it runs).
fn sum_cells(state: &State) -> Vec<String> {
    let r = &state.run;
    let total = |f: fn(&crate::console::state::run::CallLine) -> u64| {
        saturating_sum(r.calls.iter().map(f)).to_string()
    };
    vec![
        "Σ".to_string(),
        total(|c| c.input),
        total(|c| c.cache_write),
        total(|c| c.cache_read),
        total(|c| c.output),
        r.total_server().cell(),
        crate::core::price::fees_or_included(
            r.total_fees(),
            r.calls.iter().any(|c| c.cost.vendor_micro_usd.is_some()),
        ),
        usd_or_dash(r.total_cost()),
        r.ending.clone().unwrap_or_else(|| {
            if r.running {
                "running".into()
            } else {
                String::new()
            }
        }),
    ]
}

/// Under the requests table: where the prices come from, and what the `v` and
/// `c` marks mean when a row carries them.
fn price_caption(state: &State) -> String {
    let r = &state.run;
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
    caption
}

/// Cost per request as stacked columns (tokens, cache writes, cache reads,
/// fees; the vendor's own figure in one piece) when every request is priced;
/// tokens otherwise (plain input and output, cache writes, cache reads). Each
/// part has its own colour, named in the legend, so a step that writes the cache
/// and one that reads it look different. The title states the scale: the value
/// the tallest column stands for.
pub(super) fn draw_chart(frame: &mut Frame<'_>, area: Rect, state: &State) {
    let t = &state.theme.1;
    let r = &state.run;
    let priced = !r.calls.is_empty() && r.total_cost().is_some();
    let colours = [t.accent, t.cache_write, t.cache_read, t.warning, t.muted];
    let bars: Vec<[u64; 5]> = r
        .calls
        .iter()
        .map(|c| {
            let k = &c.cost;
            match (priced, k.vendor_micro_usd) {
                (true, Some(v)) => [0, 0, 0, 0, v],
                (true, None) => [
                    k.tokens_micro_usd.unwrap_or(0),
                    k.cache_write_micro_usd.unwrap_or(0),
                    k.cache_read_micro_usd.unwrap_or(0),
                    k.fees_micro_usd.unwrap_or(0),
                    0,
                ],
                (false, _) => [
                    c.input.saturating_add(c.output),
                    c.cache_write,
                    c.cache_read,
                    0,
                    0,
                ],
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
    let mut legend = vec![
        Span::styled("█tok ", Style::default().fg(colours[0])),
        Span::styled("█c.wr ", Style::default().fg(colours[1])),
        Span::styled("█c.rd", Style::default().fg(colours[2])),
    ];
    if priced {
        legend.push(Span::styled(" █fees", Style::default().fg(colours[3])));
    }
    let legend = Line::from(legend);
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
