//! `io-harness runs`: past runs, newest first, with their figures, as a table
//! for people or JSON for scripts.

use std::fmt::Write as _;
use std::path::PathBuf;

use io_harness::Result;
use io_harness::core::money::Part;

use super::out;
use super::task::open;

/// Past runs, newest first.
pub fn runs(
    config: Option<PathBuf>,
    store: Option<PathBuf>,
    json: bool,
    limit: u32,
    mine: bool,
) -> Result<()> {
    // As `search` refuses it: no list would say "no runs" of a store that has some.
    if limit == 0 {
        return Err(io_harness::Error::refused(
            "--limit 0 would list no runs; give 1 or more (default 50)",
        ));
    }
    let (config, store) = open(config, store)?;
    let prices = config.price_table();
    let runs = if mine {
        let me = io_harness::store::me().ok_or_else(|| {
            io_harness::Error::refused(
                "--mine needs to know who you are: set IO_HARNESS_USER (or USER) and try again",
            )
        })?;
        store.priced_runs_of(&me, Some(limit), &prices)?
    } else {
        store.priced_runs(Some(limit), &prices)?
    };
    if json {
        // `citations` is the name (as compare --json gives it); `citation_count`,
        // the name runs --json had, is kept beside it for the scripts that read it.
        let mut rows = serde_json::to_value(&runs).unwrap_or_default();
        for row in rows.as_array_mut().into_iter().flatten() {
            if let Some(n) = row.get("citations").cloned() {
                row["citation_count"] = n;
            }
        }
        return out::json(&serde_json::to_string_pretty(&rows).unwrap_or_default());
    }
    if runs.is_empty() {
        return out::line("no runs recorded yet; `io-harness run --goal TEXT` starts one");
    }
    let mut text = format!(
        "{:>5}  {:>5}  {:<20}  {:<10}  {:<16}  {:>7}  {:>9}  {:>10}  {:>10}  {:<20}  goal\n",
        "run", "group", "started", "provider", "outcome", "sources", "tokens", "fees", "cost", "by"
    );
    for r in runs {
        // Every figure from the one summary `compare` and the console read.
        let f = r.figures.clone().unwrap_or_default();
        let _ = writeln!(
            text,
            "{:>5}  {:>5}  {:<20}  {:<10}  {:<16}  {:>7}  {:>9}  {:>10}  {:>10}  {:<20}  {}",
            r.run_id,
            r.group_id.map_or("—".to_string(), |g| g.to_string()),
            r.started_at.chars().take(19).collect::<String>(),
            r.provider,
            r.outcome.map_or("running", |o| o.as_str()),
            r.citation_count,
            f.tokens(),
            io_harness::core::price::fees_or_included(f.fees_micro_usd, f.vendor_reported()),
            format!(
                "{}{}",
                f.cost().text(Part::Request),
                if f.vendor_reported() { "v" } else { "" }
            ),
            io_harness::store::by(&r),
            r.goal.lines().next().unwrap_or("")
        );
    }
    out::print(&text)
}
