//! The Run screen's accounting, per provider request: the table of tokens,
//! searches, fees and cost with its Σ row and where the prices come from, and the
//! chart of cost (or tokens) per request.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Row, Table};

use crate::console::state::State;
use crate::console::state::run::saturating_sum;
use crate::console::view::block;
use crate::core::price::{usd, usd_or_dash};

/// Per request: tokens, searches, the fees and the whole cost (tokens, cache and
/// fees, or the vendor's own figure, marked `v`); the Σ row is the sum of the
/// rows; the last line names where the prices come from.
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
    let (sum, caption) = (sum_row(state), price_caption(state));
    let title = format!(
        "requests · total {} · {}",
        usd_or_dash(r.total_cost()),
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

/// The requests table's Σ row: the totals and the run's outcome (or that it runs).
fn sum_row(state: &State) -> Row<'static> {
    let t = &state.theme.1;
    let r = &state.run;
    let total = r.total_cost();
    Row::new(vec![
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
    .style(Style::default().fg(t.accent).add_modifier(Modifier::BOLD))
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

/// Cost per request as stacked columns (tokens, cache, fees; the vendor's own
/// figure in one piece) when every request is priced; tokens otherwise. The title
/// states the scale: the value the tallest column stands for.
pub(super) fn draw_chart(frame: &mut Frame<'_>, area: Rect, state: &State) {
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
