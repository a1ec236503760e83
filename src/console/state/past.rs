//! A past run's panes, rebuilt from what the store holds: its steps and
//! observations, its server-tool calls and its requests, priced by the ledger.
//! A step reads as it did live (fold.rs draws both): its request's line, every
//! paragraph of its answer, Google Search suggestions, then its observations.

use crate::console::state::run::{CallLine, RunView, ServerLine, Tone, one_line};
use crate::core::suggestions::suggestions;
use crate::store::{Ledger, ServerToolCallRow, StepRow};

/// What the store holds about a past run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PastRun {
    /// The run row.
    pub run: Option<crate::store::RunRow>,
    /// Its steps.
    pub steps: Vec<StepRow>,
    /// Its requests (children's included), priced.
    pub ledger: Ledger,
    /// Its server-tool calls.
    pub server: Vec<ServerToolCallRow>,
    /// Citations recorded.
    pub citations: usize,
    /// Each step's search suggestions as the vendor sent them (Google's HTML).
    pub suggestions: Vec<(u32, String)>,
}

impl PastRun {
    /// The same panes, from the store.
    pub fn view(&self) -> RunView {
        let mut v = RunView {
            past: true,
            citations: self.citations,
            ..RunView::default()
        };
        if let Some(r) = &self.run {
            v.run_id = Some(r.run_id);
            v.goal = r.goal.clone();
            v.vendor = Some(r.provider);
            v.model = r.model.clone();
            v.outcome = r.outcome;
            v.ending = Some(match (&r.outcome, &r.outcome_detail) {
                (Some(o), Some(d)) => format!("{o}: {d}"),
                (Some(o), None) => o.to_string(),
                (None, _) => "unfinished (killed?)".to_string(),
            });
        }
        let mut observed = 0;
        for s in &self.steps {
            v.step_started(s.step, observed);
            observed += s.observations.len();
            v.log_text(s.step, "model: ", &s.text);
            let html = self.suggestions.iter().filter(|(at, _)| *at == s.step);
            for list in html.map(|(_, h)| suggestions(h)).filter(|l| !l.is_empty()) {
                v.suggested(s.step, &list);
            }
            v.log.extend(
                s.observations
                    .iter()
                    .map(|o| (s.step, one_line(o), Tone::Plain)),
            );
        }
        v.server = self
            .server
            .iter()
            .map(|s| ServerLine {
                step: s.step,
                tool: s.tool.clone(),
                error: s.error.clone(),
                input: s.input.clone(),
                ..ServerLine::default()
            })
            .collect();
        let root = v.run_id;
        v.calls = self
            .ledger
            .lines
            .iter()
            .map(|l| {
                let c = &l.call;
                let stop = if Some(c.run_id) == root || root.is_none() {
                    c.stop_reason.clone()
                } else {
                    format!("child {} {}", c.run_id, c.stop_reason)
                };
                CallLine {
                    server: l.server,
                    ..CallLine::new(c.step, c.usage, &l.cost, stop)
                }
            })
            .collect();
        v.step = self
            .ledger
            .lines
            .iter()
            .rev()
            .find(|l| Some(l.call.run_id) == root)
            .map_or(0, |l| l.call.step);
        v
    }
}
