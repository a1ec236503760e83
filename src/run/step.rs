//! One step of a run: the request (`request`, sent under the run's deadline and
//! cancellation), what the answer says (accounting, server tools, citations:
//! `absorb`, in absorb.rs), the local tools it asks for (`act`), the outcome it
//! reaches, and the step recorded whole.

use crate::approve::Approver;
use crate::core::completion::{Completion, StopReason};
use crate::core::contract::{TaskContract, Verification};
use crate::core::event::EventKind;
use crate::core::outcome::{BudgetKind, RunOutcome};
use crate::core::text::shorten;
use crate::core::transcript::{Conversation, Exchange};
use crate::core::turn::Turn;
use crate::core::wire::block_path;
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
        let (attempt, mut reply) = match self.request(state, deadline).await {
            Ok(sent) => sent,
            Err(outcome) => return Some(outcome),
        };
        self.settle_open_calls(state, &mut reply);
        let step = state.step;
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
        // Cancelled (or out of time) while its tools ran: the step still ends
        // recorded — its answer was given and paid for — with the run's outcome.
        let mut cut = None;
        if !refused {
            let results = exchange.as_mut().map(|e| &mut e.results);
            if let Err(outcome) = self
                .act(state, completion, deadline, &mut new_obs, results)
                .await
            {
                cut = Some(outcome);
            }
        }
        for text in &new_obs {
            self.emitter
                .emit(EventKind::Observation { text: text.clone() });
        }
        let ending = match cut {
            Some(outcome) => Some(outcome),
            None => self.ending(state, completion, paused, refused),
        };
        state.observations.extend(new_obs.iter().cloned());
        // The step whole — accounting, server tools, citations, its row, the
        // checkpoint and the outcome it reached — or not at all.
        let record = StepRecord {
            step,
            attempt,
            call: &provider_call(&reply),
            server_tools: &completion.server_tools,
            citations: &completion.citations,
            claims: &completion.claims,
            text: &completion.text,
            observations: &new_obs,
            exchange: exchange.as_ref(),
            search_suggestions: completion.search_suggestions.as_deref(),
        };
        if let Err(e) = self
            .store
            .record_step_whole(self.run_id, &record, state, ending.as_ref())
        {
            // A step the store cannot keep ends the run here: nothing more is
            // sent (and paid for) that could not be recorded.
            self.store_failed = Some(e);
            return Some(RunOutcome::Error {
                message: format!("step {step} could not be recorded"),
            });
        }
        self.transcript.extend(exchange);
        ending
    }

    /// Each provider-executed call started and never answered is recorded once,
    /// `unanswered`, at the end of the step that settles it: its own step, or in
    /// a transcript (which sends a paused turn's blocks back, and the vendor
    /// resumes the calls it left open) the continuation's, when that answer
    /// does not answer it either.
    fn settle_open_calls(&self, state: &Checkpoint, reply: &mut Reply) {
        let c = &mut reply.completion;
        if let Some(paused) = self.transcript.last().filter(|e| e.paused) {
            let answer: Vec<serde_json::Value> = c
                .blocks
                .iter()
                .filter_map(|b| serde_json::from_str(b).ok())
                .collect();
            let carried = paused.values().unwrap_or_default();
            let open = crate::core::wire::still_unanswered(paused.wire, &carried, &answer);
            c.server_tools.extend(open);
        }
        if state.contract.conversation == Conversation::Transcript
            && c.stop == StopReason::PauseTurn
        {
            c.server_tools.retain(|call| !call.is_unanswered());
        }
    }

    /// Count the step's request as sent, then send it under the run's deadline
    /// and cancellation: the attempt it is and the answer, or the outcome that
    /// ends the run before an answer.
    async fn request(
        &mut self,
        state: &mut Checkpoint,
        deadline: std::time::Instant,
    ) -> Result<(u32, Reply), RunOutcome> {
        // Counted before sending: a resume re-sending this step knows it does.
        let attempt = match self.store.mark_request_sent(self.run_id) {
            Ok(attempt) => attempt,
            Err(e) => {
                // Nothing is sent that the store could not count.
                self.store_failed = Some(e);
                return Err(RunOutcome::Error {
                    message: "the request could not be counted as sent".into(),
                });
            }
        };
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
            return Err(over);
        }
        let reply = tokio::select! {
            _ = self.options.cancel.cancelled() => return Err(RunOutcome::Cancelled),
            _ = tokio::time::sleep_until(deadline.into()) => {
                return Err(RunOutcome::BudgetExhausted { budget: BudgetKind::Time })
            }
            r = self.provider.complete(&turn, self.emitter) => r,
        };
        match reply {
            Ok(r) => Ok((attempt, r)),
            Err(e) => Err(RunOutcome::Error {
                message: with_block(e.to_string(), &turn),
            }),
        }
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
        provider: reply.provider,
        model: reply.model.clone(),
        usage: c.usage,
        stop_reason: c.stop.as_str().to_string(),
        latency_ms: reply.latency_ms,
        request_id: c.request_id.clone(),
        endpoint: reply.endpoint.clone(),
        response_id: c.response_id.clone(),
        finish_reason: c.finish_reason.clone(),
        cut: c.cut,
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
