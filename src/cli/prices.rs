//! `io-harness prices`: the built-in price table with io.toml's `[prices]`
//! applied, dated and sourced, as a table or JSON.

use std::fmt::Write as _;
use std::path::PathBuf;

use io_harness::{Config, Result};

use super::out;

/// The price table: built-in rows with `[prices]` applied, as a table or one JSON
/// object per row.
pub fn prices(config: Option<PathBuf>, json: bool) -> Result<()> {
    let loaded = Config::discover(config.as_deref())?;
    let table = loaded.config.price_table();
    if json {
        let mut text = String::new();
        for row in table.rows() {
            let _ = writeln!(text, "{}", serde_json::to_string(row).unwrap_or_default());
        }
        return out::print(&io_harness::core::text::json_visible(&text));
    }
    let rate = |v: Option<f64>| v.map_or_else(|| "—".to_string(), |v| format!("{v}"));
    // The model column is as wide as its longest name, so every row lines up.
    let m = table
        .rows()
        .map(|r| r.model.chars().count())
        .max()
        .unwrap_or(0)
        .max(18);
    let search = |r: &io_harness::PriceRow| {
        let p = &r.price;
        // A fee per grounded prompt is said as such (Gemini 2.5).
        p.per_grounded_prompt
            .map_or_else(|| rate(p.per_search_request), |v| format!("{v}/req"))
    };
    let s = table
        .rows()
        .map(|r| search(r).chars().count())
        .max()
        .unwrap_or(0)
        .max(7);
    let mut text = format!(
        "{:<10}  {:<m$}  {:>6}  {:>6}  {:>7}  {:>6}  {:>s$}  {:>6}  {:>7}  {:<10}  source",
        "vendor",
        "model",
        "input",
        "output",
        "c.write",
        "c.read",
        "search",
        "fetch",
        "request",
        "read on"
    );
    text.push('\n');
    for r in table.rows() {
        let p = &r.price;
        let mut source = r.source.clone();
        if !r.overridden.is_empty() {
            source.push_str(&format!(" (io.toml sets {})", r.overridden.join(", ")));
        }
        let _ = writeln!(
            text,
            "{:<10}  {:<m$}  {:>6}  {:>6}  {:>7}  {:>6}  {:>s$}  {:>6}  {:>7}  {:<10}  {source}",
            r.vendor.map_or("—", |v| v.as_str()),
            r.model,
            p.input_per_mtok,
            p.output_per_mtok,
            rate(p.cache_write_per_mtok),
            rate(p.cache_read_per_mtok),
            search(r),
            rate(p.per_fetch_request),
            rate(p.per_request),
            r.read_on.as_deref().unwrap_or("—"),
        );
    }
    let _ = writeln!(
        text,
        "US dollars: tokens per million, searches and fetches per request (`/req`: once per request that searched at all, however many searches), request: a fee every request pays, searched or not. A model not listed has no price: its cost shows — until [prices.\"MODEL\"] in io.toml states one. The vendor's invoice is the authority."
    );
    out::print(&text)
}
