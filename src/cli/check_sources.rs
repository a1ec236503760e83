//! `io-harness check-sources RUN_ID`: fetch each cited page under the policy and
//! record one verdict a citation.

use std::fmt::Write as _;
use std::path::PathBuf;

use io_harness::{Result, RunId};

use super::out;
use super::task::open;

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
