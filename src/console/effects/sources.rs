//! The Sources screen's effects: search this run's citations or every run, fetch
//! a run's sources and check their quotes, write them as Markdown next to io.toml,
//! build the request a stored run's next step would send (through the launch's
//! plan, as `preview --resume` does).

use std::path::PathBuf;

use crate::console::effects::executor::Executor;
use crate::console::effects::reads::{next_request, run_sources};
use crate::console::state::Msg;
use crate::core::id::RunId;
use crate::core::verdict::Verdict;
use crate::store::CitationQuery;

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
        let (store, tx) = (self.store.clone(), self.tx.clone());
        let policy = self.launch.plan().policy.clone();
        tokio::spawn(async move {
            let limits = crate::check::Limits::default();
            let msg = match crate::check::check_run(&store, run_id, &policy, limits).await {
                Ok(rows) => {
                    let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
                    Msg::info(format!(
                        "checked {} of run {run_id}: {} found, {} not found, {} with no quote, {} unreachable, {} not allowed — a verdict is what this machine fetched now",
                        crate::console::view::count(rows.len(), "source"),
                        count(Verdict::Found),
                        count(Verdict::NotFound),
                        count(Verdict::NoQuote),
                        count(Verdict::Unreachable),
                        count(Verdict::NotAllowed)
                    ))
                }
                Err(e) => Msg::error(format!("cannot check run {run_id}: {e}")),
            };
            let _ = tx.send(msg);
            // The verdicts beside the citations, and in the claims.
            if let Ok(msg) = run_sources(&store, run_id) {
                let _ = tx.send(msg);
            }
            if let Ok(claims) = store.run_claims(run_id) {
                let _ = tx.send(Msg::Claims(Box::new(claims)));
            }
        });
    }

    /// Where an export is written: the folder of io.toml (the working
    /// directory when io.toml's path names none).
    pub(super) fn export_dir(&self) -> PathBuf {
        self.config_path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), PathBuf::from)
    }

    /// Write a run's sources as Markdown next to io.toml.
    pub(super) fn export_sources(&self, run_id: RunId) {
        let dir = self.export_dir();
        self.read(move |s| {
            let path = dir.join(format!("sources-run-{run_id}.md"));
            let rows = s.citations_recorded(run_id)?;
            let text = crate::store::export::export(
                run_id,
                &rows,
                crate::store::export::Format::Markdown,
            )?;
            Ok(
                match crate::machine::file::write_new(&path, text.as_bytes()) {
                    Ok(()) => Msg::info(format!(
                        "wrote {} of run {run_id} to {}",
                        crate::console::view::count(rows.len(), "source"),
                        path.display()
                    )),
                    Err(e) => Msg::error(format!(
                        "cannot write {}: {e}; nothing was written",
                        path.display()
                    )),
                },
            )
        })
    }

    /// The request a stored run's next step would send.
    pub(super) fn preview_next(&self, run_id: RunId) {
        let plan = self.launch.plan().clone();
        self.read(move |s| {
            let lines = next_request(s, &plan, run_id);
            Ok(Msg::Next {
                run_id,
                lines: lines.map_err(|e| e.to_string()),
            })
        })
    }
}
