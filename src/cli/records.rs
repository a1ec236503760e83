//! `io-harness runs` and `io-harness citations`: reading the store back, as a
//! table for people or JSON for scripts.

use std::fmt::Write as _;
use std::path::PathBuf;

use io_harness::{Config, Result, RunId, Store};

use super::out;

fn open(config: Option<PathBuf>, store: Option<PathBuf>) -> Result<(Config, Store)> {
    let loaded = Config::discover(config.as_deref())?;
    let path = store.unwrap_or_else(|| loaded.config.store_path(loaded.path.as_deref()));
    let store = Store::open(&path).map_err(|e| io_harness::Error::store_unusable(&path, &e))?;
    Ok((loaded.config, store))
}

/// Past runs, newest first.
pub fn runs(config: Option<PathBuf>, store: Option<PathBuf>, json: bool, limit: u32) -> Result<()> {
    let (config, store) = open(config, store)?;
    let runs = store.runs(Some(limit))?;
    if json {
        return out::line(&serde_json::to_string_pretty(&runs).unwrap_or_default());
    }
    if runs.is_empty() {
        return out::line("no runs recorded yet; `io-harness run --goal TEXT` starts one");
    }
    let prices = config.price_table();
    let mut text = format!(
        "{:>5}  {:<20}  {:<10}  {:<16}  {:>7}  {:>9}  {:>8}  goal\n",
        "run", "started", "provider", "outcome", "sources", "tokens", "cost"
    );
    for r in runs {
        let usage = io_harness::Usage {
            input_tokens: r.input_tokens,
            output_tokens: r.output_tokens,
            server_tool_requests: r.server_tool_requests,
        };
        let cost = prices
            .cost(&r.model, Some(&usage))
            .total_usd()
            .map(|c| format!("${c:.4}"))
            .unwrap_or_else(|| "-".into());
        let _ = writeln!(
            text,
            "{:>5}  {:<20}  {:<10}  {:<16}  {:>7}  {:>9}  {:>8}  {}",
            r.run_id,
            r.started_at.chars().take(19).collect::<String>(),
            r.provider,
            r.outcome.as_deref().unwrap_or("running"),
            r.citation_count,
            r.input_tokens.saturating_add(r.output_tokens),
            cost,
            r.goal.lines().next().unwrap_or("")
        );
    }
    out::print(&text)
}

/// The sources one run drew on, and its failed server-tool calls.
pub fn citations(
    config: Option<PathBuf>,
    store: Option<PathBuf>,
    run_id: i64,
    json: bool,
) -> Result<()> {
    let (_, store) = open(config, store)?;
    let id = RunId(run_id);
    if store.run(id)?.is_none() {
        return Err(io_harness::Error::config(format!(
            "there is no run {run_id} in this store; `io-harness runs` lists them"
        )));
    }
    let citations = store.citations(id)?;
    let calls = store.server_tool_calls(id)?;
    if json {
        let doc = serde_json::json!({"run_id": run_id, "citations": citations, "server_tool_calls": calls});
        return out::line(&serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    let mut text = String::new();
    if citations.is_empty() {
        let _ = writeln!(text, "run {run_id} recorded no citations");
    }
    for c in &citations {
        let _ = writeln!(
            text,
            "step {:>3}  {}  {}",
            c.step,
            c.url,
            c.title.as_deref().unwrap_or("(no title reported)")
        );
    }
    for call in calls.iter().filter(|c| c.error.is_some()) {
        let _ = writeln!(
            text,
            "step {:>3}  {} {} failed ({})",
            call.step,
            call.provider,
            call.tool,
            call.error.as_deref().unwrap_or_default()
        );
    }
    out::print(&text)
}
