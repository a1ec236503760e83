//! The Sources screen's effects: search this run's citations or every run, fetch
//! a run's sources and check their quotes, write them as Markdown next to io.toml,
//! build the request a stored run's next step would send; and the store reads the
//! Sources and Run screens show.

use std::path::PathBuf;

use super::Executor;
use crate::console::state::Msg;
use crate::console::state::past::PastRun;
use crate::core::event::RunId;
use crate::core::price::PriceTable;
use crate::core::wire::{Endpoint, Vendor};
use crate::store::{CitationQuery, Store};

impl Executor {
    /// Citations across runs whose URL, title or quote holds `text`.
    pub(super) fn search(&self, text: String) {
        self.read(move |s| {
            let q = CitationQuery {
                domain: None,
                text: Some(text).filter(|t| !t.trim().is_empty()),
                limit: Some(1000),
            };
            s.search_citations(&q).map(Msg::Found)
        })
    }

    /// A full-text search over every run.
    pub(super) fn search_all(&self, text: String) {
        self.read(move |s| {
            let q = crate::store::search::SearchQuery {
                text,
                limit: 200,
                run: None,
                rank: false,
            };
            Ok(Msg::Hits(s.search(&q).map_err(|e| e.to_string())))
        })
    }

    /// Fetch a run's sources under the policy, record the verdicts, and say how
    /// they came out.
    pub(super) fn check_sources(&self, run_id: RunId) {
        let (store, policy, tx) = (self.store.clone(), self.policy.clone(), self.tx.clone());
        tokio::spawn(async move {
            let limits = crate::check::Limits::default();
            let msg = match crate::check::check_run(&store, run_id, &policy, limits).await {
                Ok(rows) => {
                    let count = |v: &str| rows.iter().filter(|r| r.verdict == v).count();
                    Msg::Notice(
                        format!(
                            "checked {} source(s) of run {run_id}: {} found, {} not found, {} with no quote, {} unreachable, {} not allowed — a verdict is what this machine fetched now",
                            rows.len(),
                            count("found"),
                            count("not_found"),
                            count("no_quote"),
                            count("unreachable"),
                            count("not_allowed")
                        ),
                        false,
                    )
                }
                Err(e) => Msg::Notice(format!("cannot check run {run_id}: {e}"), true),
            };
            let _ = tx.send(msg);
            // The verdicts beside the citations.
            if let Ok(msg) = run_sources(&store, run_id) {
                let _ = tx.send(msg);
            }
        });
    }

    /// Write a run's sources as Markdown next to io.toml.
    pub(super) fn export_sources(&self, run_id: RunId) {
        let dir = self
            .config_path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), PathBuf::from);
        self.read(move |s| {
            let path = dir.join(format!("sources-run-{run_id}.md"));
            let rows = s.citations_recorded(run_id)?;
            let text = crate::store::export::export(
                run_id,
                &rows,
                crate::store::export::Format::Markdown,
            )?;
            Ok(
                match crate::store::file::write_new(&path, text.as_bytes()) {
                    Ok(()) => Msg::Notice(
                        format!(
                            "wrote the {} source(s) of run {run_id} to {}",
                            rows.len(),
                            path.display()
                        ),
                        false,
                    ),
                    Err(e) => Msg::Notice(
                        format!("cannot write {}: {e}; nothing was written", path.display()),
                        true,
                    ),
                },
            )
        })
    }

    /// The request a stored run's next step would send to `vendor` and `model`.
    pub(super) fn preview_next(&self, run_id: RunId, vendor: Vendor, model: String) {
        let (endpoint, max_tokens) = self.target(vendor);
        let names: Vec<String> = self.agents.iter().map(|a| a.name.clone()).collect();
        let extra = self.mcp.as_ref().map(|m| m.specs()).unwrap_or_default();
        let tools = crate::core::tools::offered_tools(&names, &extra);
        self.read(move |s| {
            let lines = next_request(s, run_id, &endpoint, model, max_tokens, tools);
            Ok(Msg::Next(run_id, lines.map_err(|e| e.to_string())))
        })
    }
}

/// A run's sources for the Sources screen: its citations and its children's (a
/// spawned child's sources belong to its parent's run too), its server-tool calls
/// and what checking them found.
pub fn run_sources(store: &Store, id: RunId) -> crate::Result<Msg> {
    Ok(Msg::RunSources(
        store.citations_with_children(id)?,
        store.server_tool_calls(id)?,
        store.checks(id)?,
    ))
}

/// Everything the Run panes show about a past run.
pub fn past_run(store: &Store, id: RunId, prices: &PriceTable) -> crate::Result<Msg> {
    Ok(Msg::Past(Box::new(PastRun {
        run: store.run(id)?,
        steps: store.steps(id)?,
        ledger: store.ledger(id, prices)?,
        server: store.server_tool_calls(id)?,
        citations: store.citations(id)?.len(),
    })))
}

/// The request a stored run's next step would send to `endpoint`, as lines: the
/// method and URL, then the body pretty-printed (secrets are never in a body).
pub fn next_request(
    store: &Store,
    run_id: RunId,
    endpoint: &Endpoint,
    model: String,
    max_tokens: u32,
    tools: Vec<crate::core::turn::ToolSpec>,
) -> crate::Result<Vec<String>> {
    let next = crate::run::next_step(store, run_id)?;
    let turn = crate::core::turn::Turn::for_step(
        &next.contract,
        model,
        max_tokens,
        tools,
        next.observations,
        next.history,
    );
    let request = crate::core::wire::encode(endpoint, &turn)?;
    let body: serde_json::Value = serde_json::from_slice(&request.body)
        .map_err(|e| crate::Error::config(format!("the request body is not JSON: {e}")))?;
    let pretty = serde_json::to_string_pretty(&body)
        .map_err(|e| crate::Error::config(format!("cannot show the request body: {e}")))?;
    let mut lines = vec![
        format!(
            "step {} · {} conversation · {} {}",
            next.step + 1,
            turn.conversation.as_str(),
            request.method,
            crate::provider::scrub::display_url(&request.url)
        ),
        String::new(),
    ];
    lines.extend(pretty.lines().map(str::to_string));
    Ok(lines)
}
