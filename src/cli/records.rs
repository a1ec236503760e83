//! `io-harness runs` and `io-harness citations`: reading the store back, as a
//! table for people or JSON for scripts.

use std::fmt::Write as _;
use std::path::PathBuf;

use io_harness::price::usd_or_dash;
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
    // As `search` refuses it: no list would say "no runs" of a store that has some.
    if limit == 0 {
        return Err(io_harness::Error::refused(
            "--limit 0 would list no runs; give 1 or more (default 50)",
        ));
    }
    let (config, store) = open(config, store)?;
    let runs = store.priced_runs(Some(limit), &config.price_table())?;
    if json {
        return out::json(&serde_json::to_string_pretty(&runs).unwrap_or_default());
    }
    if runs.is_empty() {
        return out::line("no runs recorded yet; `io-harness run --goal TEXT` starts one");
    }
    let mut text = format!(
        "{:>5}  {:>5}  {:<20}  {:<10}  {:<16}  {:>7}  {:>9}  {:>10}  {:>10}  goal\n",
        "run", "group", "started", "provider", "outcome", "sources", "tokens", "fees", "cost"
    );
    for r in runs {
        // Every figure from the one summary `compare` and the console read.
        let f = r.figures.clone().unwrap_or_default();
        let _ = writeln!(
            text,
            "{:>5}  {:>5}  {:<20}  {:<10}  {:<16}  {:>7}  {:>9}  {:>10}  {:>10}  {}",
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
                usd_or_dash(f.cost_micro_usd),
                if f.vendor_reported() { "v" } else { "" }
            ),
            r.goal.lines().next().unwrap_or("")
        );
    }
    out::print(&text)
}

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
    let mut text = format!(
        "{:<10}  {:<18}  {:>6}  {:>6}  {:>7}  {:>6}  {:>7}  {:>6}  {:<10}  source",
        "vendor", "model", "input", "output", "c.write", "c.read", "search", "fetch", "read on"
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
            "{:<10}  {:<18}  {:>6}  {:>6}  {:>7}  {:>6}  {:>7}  {:>6}  {:<10}  {source}",
            if r.vendor.is_empty() {
                "—"
            } else {
                &r.vendor
            },
            r.model,
            p.input_per_mtok,
            p.output_per_mtok,
            rate(p.cache_write_per_mtok),
            rate(p.cache_read_per_mtok),
            // A fee per grounded prompt is said as such (Gemini 2.5).
            p.per_grounded_prompt
                .map_or_else(|| rate(p.per_search_request), |v| format!("{v}/req")),
            rate(p.per_fetch_request),
            r.read_on.as_deref().unwrap_or("—"),
        );
    }
    let _ = writeln!(
        text,
        "US dollars: tokens per million, searches and fetches per request (`/req`: once per request that searched at all, however many searches). A model not listed has no price: its cost shows — until [prices.\"MODEL\"] in io.toml states one. The vendor's invoice is the authority."
    );
    out::print(&text)
}

/// The sources one run drew on, and its failed server-tool calls.
pub fn citations(
    config: Option<PathBuf>,
    store: Option<PathBuf>,
    run_id: RunId,
    json: bool,
    format: Option<&str>,
) -> Result<()> {
    let format = format
        .map(str::parse::<io_harness::store::export::Format>)
        .transpose()?;
    let (_, store) = open(config, store)?;
    let id = run_id;
    if store.run(id)?.is_none() {
        return Err(io_harness::Error::refused(format!(
            "there is no run {run_id} in this store; `io-harness runs` lists them"
        )));
    }
    if let Some(format) = format {
        let rows = store.citations_recorded(id)?;
        let text = io_harness::store::export::export(id, &rows, format)?;
        if format == io_harness::store::export::Format::Json {
            return out::json(text.trim_end());
        }
        return out::line(text.trim_end());
    }
    let citations = store.citations(id)?;
    let calls = store.server_tool_calls(id)?;
    if json {
        let checks = store.checks(id)?;
        let doc = serde_json::json!({"run_id": run_id, "citations": citations, "server_tool_calls": calls, "checks": checks});
        return out::json(&serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    let mut text = String::new();
    if citations.is_empty() {
        let _ = writeln!(text, "run {run_id} recorded no citations");
    }
    for c in &citations {
        // A Google redirect is the link as sent, said to be one: its title is
        // often only the domain it leads to.
        let via = if io_harness::core::link::google_redirect(&c.url) {
            "  (via Google redirect)"
        } else {
            ""
        };
        let _ = writeln!(
            text,
            "step {:>3}  {}  {}{via}",
            c.step,
            c.url,
            c.title.as_deref().unwrap_or("(no title reported)")
        );
    }
    let suggestions = store.search_suggestions(id)?;
    if !suggestions.is_empty() {
        let _ = writeln!(
            text,
            "Google Search suggestions (Google's terms ask that they be shown):"
        );
        for sug in &suggestions {
            let _ = writeln!(text, "  {}  {}", sug.query, sug.url);
        }
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

/// `io-harness search`: hits newest first (or best first), each with its run,
/// step, what matched, the URL where there is one, and the passage.
pub fn search(
    config: Option<PathBuf>,
    store: Option<PathBuf>,
    q: &io_harness::store::search::SearchQuery,
    json: bool,
) -> Result<()> {
    let (_, store) = open(config, store)?;
    if let Some(run) = q.run {
        if store.run(run)?.is_none() {
            return Err(io_harness::Error::refused(format!(
                "there is no run {run} in this store; `io-harness runs` lists them"
            )));
        }
    }
    let hits = store.search(q)?;
    if json {
        return out::json(&serde_json::to_string_pretty(&hits).unwrap_or_default());
    }
    if hits.is_empty() {
        return out::line(&format!("nothing matches {:?}", q.text));
    }
    let mut text = String::new();
    for h in &hits {
        let url = h
            .url
            .as_deref()
            .map(|u| format!("  {u}"))
            .unwrap_or_default();
        let _ = writeln!(
            text,
            "run {} step {}  {}{url}\n    {}",
            h.run_id,
            h.step,
            h.kind,
            io_harness::core::text::one_line(&h.snippet)
        );
    }
    out::line(text.trim_end())
}

/// `io-harness check-sources`: every citation's verdict, recorded in the store.
pub async fn check_sources(
    config: Option<PathBuf>,
    store: Option<PathBuf>,
    run_id: RunId,
    json: bool,
) -> Result<()> {
    let (config, store) = open(config, store)?;
    let policy = config.policy();
    let rows = io_harness::check::check_run(
        &store,
        run_id,
        &policy,
        io_harness::check::Limits::default(),
    )
    .await?;
    if json {
        return out::json(&serde_json::to_string_pretty(&rows).unwrap_or_default());
    }
    let mut text = String::new();
    if rows.is_empty() {
        let _ = writeln!(text, "run {run_id} recorded no citations");
    }
    for r in &rows {
        let detail = r
            .detail
            .as_deref()
            .map(|d| format!(" — {d}"))
            .unwrap_or_default();
        let _ = writeln!(
            text,
            "step {:>3}  {:<11}  {}{detail}",
            r.step, r.verdict, r.url
        );
    }
    let _ = writeln!(
        text,
        "a verdict says what this machine fetched now, not what the vendor read then (docs/sources.md, \"Checking a source\")"
    );
    out::line(text.trim_end())
}
