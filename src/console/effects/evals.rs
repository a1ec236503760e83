//! The Compare screen's eval effects: the stored evals listed with what each
//! cost, one read back and scored (`Store::eval_report`, as `eval` reads it),
//! and one's Markdown (`core::eval::table::markdown`, what `eval --format
//! markdown` prints) written beside io.toml by `machine::file::write_new`, as
//! Sources' export is.

use crate::console::effects::executor::Executor;
use crate::console::state::Msg;
use crate::console::state::evals::EvalListed;
use crate::core::id::EvalId;

/// How many evals Compare lists.
const LISTED: u32 = 100;

impl Executor {
    /// The stored evals, newest first, each with its runs' total cost.
    pub(super) fn load_evals(&self) {
        let prices = self.launch.plan().prices.clone();
        self.read(move |s| {
            let mut listed = Vec::new();
            for row in s.evals(LISTED)? {
                let cost = s
                    .eval_report(row.eval_id, &prices)?
                    .map(|r| r.cost())
                    .unwrap_or_default();
                listed.push(EvalListed { row, cost });
            }
            Ok(Msg::Evals(listed))
        })
    }

    /// Eval `id` read back and scored.
    pub(super) fn open_eval(&self, id: EvalId) {
        let prices = self.launch.plan().prices.clone();
        self.read(move |s| {
            Ok(Msg::Eval(
                s.eval_report(id, &prices)?
                    .map(Box::new)
                    .ok_or_else(|| format!("there is no eval {id} in the store")),
            ))
        })
    }

    /// Write eval `id`'s matrix and per-question table as Markdown next to
    /// io.toml, as `eval-ID.md`.
    pub(super) fn export_eval(&self, id: EvalId) {
        let path = self.export_dir().join(format!("eval-{id}.md"));
        let prices = self.launch.plan().prices.clone();
        self.read(move |s| {
            let Some(report) = s.eval_report(id, &prices)? else {
                return Ok(Msg::error(format!("there is no eval {id} in the store")));
            };
            let text = crate::core::eval::table::markdown(&report);
            Ok(
                match crate::machine::file::write_new(&path, text.as_bytes()) {
                    Ok(()) => Msg::info(format!(
                        "wrote eval {id}'s matrix and {} to {}",
                        crate::console::view::count(report.questions.len(), "question row"),
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
}
