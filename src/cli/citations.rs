//! `io-harness citations RUN_ID`: the sources one run drew on and its failed
//! server-tool calls, as a table, JSON, or an export (Markdown, CSV, JSON).

use std::fmt::Write as _;
use std::path::PathBuf;

use io_harness::{Result, RunId};

use super::out;
use super::task::open;

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
        let checks = store.verdicts(id)?;
        let doc = serde_json::json!({"run_id": run_id, "citations": citations, "server_tool_calls": calls, "checks": checks});
        return out::json(&serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    let mut text = String::new();
    if citations.is_empty() {
        let _ = writeln!(text, "run {run_id} recorded no citations");
    }
    for c in &citations {
        // A Google redirect is the link as sent, said to be one, as every view
        // says it (`link::shown`): its title is often only the domain it leads to.
        let title = if io_harness::core::link::google_redirect(&c.url) {
            io_harness::core::link::shown(&c.url, c.title.as_deref())
        } else {
            c.title
                .clone()
                .unwrap_or_else(|| "(no title reported)".to_string())
        };
        let _ = writeln!(text, "step {:>3}  {}  {title}", c.step, c.url);
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
