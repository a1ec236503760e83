//! One step of a run: the request (sent under the run's deadline and
//! cancellation), what the answer says (accounting, server tools, citations:
//! `absorb`), the local tools it asks for (`act`), the outcome it reaches, and the
//! step recorded whole.

use std::collections::HashSet;

use crate::approve::Approver;
use crate::core::completion::{Completion, StopReason, Usage};
use crate::core::contract::{TaskContract, Verification};
use crate::core::event::{BudgetKind, EventKind, RunOutcome};
use crate::core::price::Recorded;
use crate::core::text::shorten;
use crate::core::turn::Turn;
use crate::core::wire::transcript::{Conversation, Exchange, block_path};
use crate::provider::{Provider, Reply};
use crate::run::engine::{Loop, model_of};
use crate::store::{Checkpoint, ProviderCall, StepRecord};

impl<P: Provider + ?Sized, A: Approver + ?Sized> Loop<'_, P, A> {
    /// Send one request and take in its answer; the outcome when the step ends
    /// the run.
    pub(super) async fn step(
        &mut self,
        state: &mut Checkpoint,
        deadline: std::time::Instant,
    ) -> Option<RunOutcome> {
        // Counted before sending: a resume re-sending this step knows it does.
        let attempt = self
            .store
            .mark_request_sent(self.run_id)
            .unwrap_or_else(|e| {
                tracing::warn!("run {}: request not marked as sent: {e}", self.run_id);
                1
            });
        state.step += 1;
        let step = state.step;
        self.emitter.set_step(step);
        self.emitter.emit(EventKind::StepStarted {
            observations: state.observations.len(),
        });
        let turn = Turn::for_step(
            &state.contract,
            model_of(self.options, self.provider),
            self.provider.max_tokens(),
            self.offered_tools(),
            state.observations.clone(),
            self.transcript.clone(),
        );
        if let Some(over) = self.over_token_budget(state, &turn) {
            return Some(over);
        }
        let reply = tokio::select! {
            _ = self.options.cancel.cancelled() => return Some(RunOutcome::Cancelled),
            _ = tokio::time::sleep_until(deadline.into()) => {
                return Some(RunOutcome::BudgetExhausted { budget: BudgetKind::Time })
            }
            r = self.provider.complete(&turn, self.emitter) => r,
        };
        let reply = match reply {
            Ok(r) => r,
            Err(e) => {
                return Some(RunOutcome::Error {
                    message: with_block(e.to_string(), &turn),
                });
            }
        };
        let mut new_obs = self.absorb(step, &reply);
        let completion = &reply.completion;
        // In a transcript, the answer's own blocks and what goes back to them.
        let mut exchange =
            (state.contract.conversation == Conversation::Transcript).then(|| Exchange {
                wire: reply.wire,
                blocks: completion.blocks.clone(),
                response_id: completion.response_id.clone(),
                paused: completion.stop == StopReason::PauseTurn,
                results: Vec::new(),
                notes: new_obs.clone(),
                observations_before: state.observations.len(),
            });
        state.tokens_used = state
            .tokens_used
            .saturating_add(completion.usage.map_or(0, |u| u.total_tokens()));
        let paused = completion.stop == StopReason::PauseTurn;
        // A refusal ends the run as it stands: nothing it asked for is run.
        let refused = completion.stop == StopReason::Refusal;
        if paused {
            state.continuations += 1;
            if !completion.text.trim().is_empty() {
                new_obs.push(format!(
                    "[step {step}] partial answer (the provider paused the turn): {}",
                    shorten(completion.text.clone(), 2_000)
                ));
            }
        } else {
            state.continuations = 0;
        }
        if !refused {
            let results = exchange.as_mut().map(|e| &mut e.results);
            if let Err(outcome) = self
                .act(state, completion, deadline, &mut new_obs, results)
                .await
            {
                return Some(outcome);
            }
        }
        for text in &new_obs {
            self.emitter
                .emit(EventKind::Observation { text: text.clone() });
        }
        let ending = self.ending(state, completion, paused, refused);
        state.observations.extend(new_obs.iter().cloned());
        // The step whole — accounting, server tools, citations, its row, the
        // checkpoint and the outcome it reached — or not at all.
        let record = StepRecord {
            step,
            attempt,
            call: &provider_call(&reply),
            server_tools: &completion.server_tools,
            citations: &completion.citations,
            text: &completion.text,
            observations: &new_obs,
            exchange: exchange.as_ref(),
        };
        if let Err(e) = self
            .store
            .record_step_whole(self.run_id, &record, state, ending.as_ref())
        {
            tracing::warn!("run {}: step {step} not recorded: {e}", self.run_id);
        }
        self.transcript.extend(exchange);
        ending
    }

    /// A transcript re-sends every step: before sending, the request's size (its
    /// JSON at 4 bytes a token) counts against the token budget, so a growing
    /// transcript stops the run rather than silently outgrowing it.
    fn over_token_budget(&self, state: &Checkpoint, turn: &Turn) -> Option<RunOutcome> {
        if turn.conversation != Conversation::Transcript {
            return None;
        }
        let estimate = serde_json::to_vec(turn).map_or(0, |b| b.len() as u64 / 4);
        (state.tokens_used.saturating_add(estimate) > state.contract.budget.tokens).then_some(
            RunOutcome::BudgetExhausted {
                budget: BudgetKind::Tokens,
            },
        )
    }

    /// The outcome a step's answer reaches, if it ends the run.
    fn ending(
        &self,
        state: &Checkpoint,
        completion: &Completion,
        paused: bool,
        refused: bool,
    ) -> Option<RunOutcome> {
        if refused {
            Some(RunOutcome::Refused {
                text: completion.text.trim().to_string(),
            })
        } else if paused {
            (state.continuations > self.options.max_continuations).then_some(
                RunOutcome::BudgetExhausted {
                    budget: BudgetKind::Continuations,
                },
            )
        } else if !completion.tool_calls.is_empty() {
            None
        } else if completion.stop == StopReason::MaxTokens {
            Some(RunOutcome::Truncated {
                max_tokens: self.provider.max_tokens(),
            })
        } else {
            Some(verify(&state.contract))
        }
    }

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
        let recorded = Recorded::of(
            c.server_tools
                .iter()
                .map(|s| (s.tool.as_str(), s.succeeded())),
        );
        let cost = self
            .options
            .prices
            .cost(&reply.model, c.usage.as_ref(), recorded);
        match cost.total_micro_usd {
            Some(m) => self.spent_micro_usd = self.spent_micro_usd.saturating_add(m),
            None => self.unpriced = self.unpriced.take().or(cost.unpriced.clone()),
        }
        self.emitter.emit(EventKind::ProviderCalled {
            provider: reply.provider.clone(),
            model: reply.model.clone(),
            usage: c.usage,
            stop_reason: c.stop.as_str().to_string(),
            latency_ms: reply.latency_ms,
            cost,
            text: c.text.clone(),
        });
        let mut observations = Vec::new();
        for call in &c.server_tools {
            self.emitter.emit(EventKind::ServerToolUsed {
                provider: call.provider.clone(),
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
        let mut seen = HashSet::new();
        for citation in c.citations.iter().filter(|x| seen.insert(x.url.clone())) {
            self.emitter.emit(EventKind::CitationRecorded {
                citation: citation.clone(),
            });
        }
        observations
    }
}

/// A vendor error about one block of a transcript, with where that block is.
fn with_block(message: String, turn: &Turn) -> String {
    match (turn.conversation, block_path(&message)) {
        (Conversation::Transcript, Some(place)) => {
            format!("{message} (the transcript's {place}; nothing was retried)")
        }
        _ => message,
    }
}

/// The accounting row of one reply.
fn provider_call(reply: &Reply) -> ProviderCall {
    let c = &reply.completion;
    ProviderCall {
        provider: reply.provider.clone(),
        model: reply.model.clone(),
        usage: c.usage,
        stop_reason: c.stop.as_str().to_string(),
        latency_ms: reply.latency_ms,
        request_id: c.request_id.clone(),
    }
}

/// Decide success once the model has stopped asking for tools.
fn verify(contract: &TaskContract) -> RunOutcome {
    match &contract.verification {
        Verification::None => RunOutcome::Passed,
        Verification::WorkspaceFileContains { file, needle } => {
            let path = contract.workspace.join(file);
            match std::fs::read_to_string(&path) {
                Ok(text) if text.contains(needle.as_str()) => RunOutcome::Passed,
                Ok(_) => RunOutcome::Failed {
                    reason: format!("{} does not contain {needle:?}", file.display()),
                },
                Err(e) => RunOutcome::Failed {
                    reason: format!("{} could not be read: {e}", file.display()),
                },
            }
        }
    }
}
