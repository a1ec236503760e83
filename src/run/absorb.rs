//! What a step takes in from an answer before acting on it: the run's usage and
//! spend, the `ProviderCalled`, `ServerToolUsed` and `CitationRecorded` events,
//! and an observation for each provider-executed tool that failed.

use std::collections::HashSet;

use crate::approve::Approver;
use crate::core::completion::{Completion, Usage};
use crate::core::event::EventKind;
use crate::core::figures::ServerCounts;
use crate::core::price::Recorded;
use crate::provider::{Provider, Reply};
use crate::run::engine::Loop;

impl<P: Provider + ?Sized, A: Approver + ?Sized> Loop<'_, P, A> {
    /// Tell one reply's accounting, server-tool calls and citations to the
    /// observer (the step's commit records them); return the observations the
    /// model must read about failed server tools.
    pub(super) fn absorb(&mut self, step: u32, reply: &Reply) -> Vec<String> {
        let c: &Completion = &reply.completion;
        self.answer = c.text.clone();
        if let Some(u) = c.usage {
            self.usage.add(&u);
            if u.clamped() {
                tracing::warn!(
                    "run {} step {step}: {} reported a count larger than {} (input {}, output {}, server-tool requests {}); it was recorded as {} and counts against the token budget as such",
                    self.run_id,
                    reply.provider,
                    Usage::MAX_COUNT,
                    u.input_tokens,
                    u.output_tokens,
                    u.server_tool_requests,
                    Usage::MAX_COUNT
                );
            }
        }
        let mut recorded = Recorded::of(
            c.server_tools
                .iter()
                .map(|s| (s.tool.as_str(), s.succeeded())),
        );
        // Calls past the per-step cap are not recorded, but they ran as the
        // vendor says: their fees count.
        recorded.searches = recorded.searches.saturating_add(c.cut.searches);
        recorded.fetches = recorded.fetches.saturating_add(c.cut.fetches);
        let cost = self
            .options
            .prices
            .cost(&reply.model, c.usage.as_ref(), recorded);
        match cost.total_micro_usd {
            Some(m) => self.charge(m),
            None => self.unpriced = self.unpriced.take().or(cost.unpriced.clone()),
        }
        self.emitter.emit(EventKind::ProviderCalled {
            provider: reply.provider,
            model: reply.model.clone(),
            usage: c.usage,
            stop_reason: c.stop.as_str().to_string(),
            latency_ms: reply.latency_ms,
            cost,
            text: c.text.clone(),
            response_id: c.response_id.clone(),
            finish_reason: c.finish_reason.clone(),
            tool_calls: c.tool_calls.clone(),
            server: ServerCounts::of(&c.server_tools),
        });
        let mut observations = Vec::new();
        for call in &c.server_tools {
            self.emitter.emit(EventKind::ServerToolUsed {
                provider: call.provider,
                tool: call.tool.clone(),
                ok: call.succeeded(),
                error: call.error.clone(),
                input: call.input.clone(),
            });
            if let Some(code) = &call.error {
                observations.push(format!(
                    "[step {step}] provider web tool: {} failed ({code})",
                    call.tool
                ));
            }
        }
        let suggestions = c
            .search_suggestions
            .as_deref()
            .map(crate::core::suggestions::suggestions)
            .unwrap_or_default();
        if !suggestions.is_empty() {
            self.emitter
                .emit(EventKind::SearchSuggestions { suggestions });
        }
        if !c.cut.is_empty() {
            self.emitter.emit(not_recorded(&c.cut));
        }
        let mut seen = HashSet::new();
        for citation in c.citations.iter().filter(|x| seen.insert(x.url.clone())) {
            self.emitter.emit(EventKind::CitationRecorded {
                citation: citation.clone(),
            });
        }
        observations
    }
}

/// The event that says what an answer's step left out, with the caps it met.
fn not_recorded(cut: &crate::core::completion::Cut) -> EventKind {
    use crate::core::capability::{MAX_CITATIONS, MAX_CITED_BYTES, MAX_SERVER_TOOL_CALLS};
    EventKind::NotRecorded {
        server_tool_calls: cut.server_tool_calls,
        searches: cut.searches,
        fetches: cut.fetches,
        citations: cut.citations,
        claim_links: cut.claim_links,
        max_server_tool_calls: MAX_SERVER_TOOL_CALLS,
        max_citations: MAX_CITATIONS,
        max_cited_bytes: MAX_CITED_BYTES,
    }
}
