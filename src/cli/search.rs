//! `io-harness search QUERY`: full-text search across every run's goal, text,
//! server-side queries and citations.

use std::fmt::Write as _;
use std::path::PathBuf;

use io_harness::Result;

use super::out;
use super::task::open;

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
