//! `run_with`: the step loop. Each step is one request carrying one flattened user
//! turn (the goal and every observation so far); local tools run here under the
//! policy and approver; provider-executed tools are recorded, and a failed one is
//! told to the model; `pause_turn` takes another step; budgets end the run saying
//! which; a refusal or a truncated answer ends the run as its own outcome; else the
//! verification decides success. A run starts with a checkpoint, each request is
//! counted as sent before it goes, and each step is recorded whole with its
//! checkpoint in one transaction, so a killed run resumes without losing or
//! double-charging a step (a re-sent step is marked as such).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::approve::Approver;
use crate::config::AgentDef;
use crate::core::completion::{Completion, StopReason, ToolCall, Usage};
use crate::core::contract::{Budget, TaskContract, Verification};
use crate::core::event::{BudgetKind, EventKind, RunId, RunOutcome};
use crate::core::policy::Act;
use crate::core::policy::Policy;
use crate::core::price::{PriceTable, Recorded, usd};
use crate::core::tools::offered_tools;
use crate::core::turn::Turn;
use crate::core::wire::Vendor;
use crate::core::wire::transcript::{Conversation, Exchange, ToolReturn, block_path};
use crate::error::{Error, Result};
use crate::mcp::McpServers;
use crate::provider::{Provider, Reply};
use crate::run::observe::{Emitter, NoObserver, Observer};
use crate::run::spawn::{Parent, spawn_agent};
use crate::run::tools::{ToolEnv, ToolResult, execute, gate, shorten};
use crate::store::{
    CHECKPOINT_FORMAT, Checkpoint, INTERRUPTED, NewRun, ProviderCall, StepRecord, Store,
};

/// How many `pause_turn` continuations in a row a run accepts before it stops.
pub const DEFAULT_MAX_CONTINUATIONS: u32 = 3;

/// How deep spawned agents may nest by default (a root's child is depth 1).
pub const DEFAULT_MAX_DEPTH: u32 = 2;

/// What a finished run reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// Its id in the store.
    pub run_id: RunId,
    /// How it ended.
    pub outcome: RunOutcome,
    /// Requests made (continuations included).
    pub steps: u32,
    /// Counts summed over every completion.
    pub usage: Usage,
    /// Dollars spent, in millionths, children included, over the requests that
    /// could be priced.
    #[serde(default)]
    pub spent_micro_usd: u64,
    /// The last answer text.
    pub answer: String,
}

/// Everything about a run besides the five things `run_with` takes.
#[derive(Clone)]
pub struct RunOptions {
    /// Who sees events.
    pub observer: Arc<dyn Observer>,
    /// Prices for the cost in `ProviderCalled` events.
    pub prices: PriceTable,
    /// Cancel to end the run as `Cancelled`.
    pub cancel: CancellationToken,
    /// Resume this run from its checkpoint instead of starting a new one.
    pub resume: Option<RunId>,
    /// Consecutive `pause_turn` continuations allowed.
    pub max_continuations: u32,
    /// The run that spawned this one.
    pub parent_run_id: Option<RunId>,
    /// The session this run is a turn of.
    pub session_id: Option<i64>,
    /// The roster `spawn_agent` offers (not offered when empty).
    pub agents: Vec<AgentDef>,
    /// How deep this run is (0 for a root).
    pub depth: u32,
    /// How deep agents may nest.
    pub max_depth: u32,
    /// Only these local tools are offered and run (`None`: all).
    pub tools: Option<Vec<String>>,
    /// Ask for this model instead of the provider's.
    pub model: Option<String>,
    /// Started stdio MCP servers whose tools are offered as `mcp__<server>__<tool>`.
    pub mcp: Option<Arc<McpServers>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            observer: Arc::new(NoObserver),
            prices: PriceTable::default(),
            cancel: CancellationToken::new(),
            resume: None,
            max_continuations: DEFAULT_MAX_CONTINUATIONS,
            parent_run_id: None,
            session_id: None,
            agents: Vec::new(),
            depth: 0,
            max_depth: DEFAULT_MAX_DEPTH,
            tools: None,
            model: None,
            mcp: None,
        }
    }
}

/// Run a contract to its end with default options.
pub async fn run_with<P, A>(
    contract: &TaskContract,
    provider: &P,
    store: &Store,
    policy: &Policy,
    approver: &A,
) -> Result<RunResult>
where
    P: Provider + ?Sized,
    A: Approver + ?Sized,
{
    run_with_options(
        contract,
        provider,
        store,
        policy,
        approver,
        RunOptions::default(),
    )
    .await
}

/// Run a contract to its end. `Err` only for what stops a run before its first
/// request (a refusal, a store that cannot start a run, a missing checkpoint);
/// everything after that ends as a recorded `RunOutcome`.
pub async fn run_with_options<P, A>(
    contract: &TaskContract,
    provider: &P,
    store: &Store,
    policy: &Policy,
    approver: &A,
    options: RunOptions,
) -> Result<RunResult>
where
    P: Provider + ?Sized,
    A: Approver + ?Sized,
{
    let (run_id, mut state, transcript) = match options.resume {
        Some(run_id) => {
            refuse_resume(store, run_id)?;
            let checkpoint = store.load_checkpoint(run_id)?.ok_or_else(|| {
                Error::config(format!("run {run_id} has no checkpoint to resume from"))
            })?;
            provider.check(checkpoint.contract.web.as_ref())?;
            // A transcript that cannot be read back is refused before anything is sent.
            let transcript = match checkpoint.contract.conversation {
                Conversation::Transcript => store.exchanges(run_id, checkpoint.step)?,
                Conversation::Flattened => Vec::new(),
            };
            store.reopen_run(run_id)?;
            (run_id, checkpoint, transcript)
        }
        None => {
            // A declaration the provider cannot carry is refused before anything exists.
            provider.check(contract.web.as_ref())?;
            // OpenRouter reports each request's cost itself: its budget needs no price.
            if provider.name() != Vendor::OpenRouter.as_str() {
                check_dollar_budget(contract, &model_of(&options, provider), &options.prices)?;
            }
            let fresh = Checkpoint {
                format: CHECKPOINT_FORMAT,
                step: 0,
                observations: Vec::new(),
                tokens_used: 0,
                continuations: 0,
                contract: contract.clone(),
            };
            // The run and its first checkpoint together: a run killed during its
            // first request is resumable.
            let run_id = store.start_run(
                &NewRun {
                    goal: contract.goal.clone(),
                    provider: provider.name().to_string(),
                    model: model_of(&options, provider),
                    web_json: contract
                        .web
                        .as_ref()
                        .and_then(|w| serde_json::to_string(w).ok()),
                    mcp_declared_json: options.mcp.as_ref().map(|m| m.declared_net().to_string()),
                    parent_run_id: options.parent_run_id,
                    session_id: options.session_id,
                },
                &fresh,
            )?;
            (run_id, fresh, Vec::new())
        }
    };
    let emitter = Emitter::new(run_id, options.observer.clone());
    emitter.set_step(state.step);
    emitter.emit(EventKind::RunStarted {
        goal: state.contract.goal.clone(),
        provider: provider.name().to_string(),
        model: provider.model().to_string(),
        resumed: options.resume.is_some(),
    });
    let mut looper = Loop {
        provider,
        store,
        policy,
        approver,
        options: &options,
        emitter: &emitter,
        run_id,
        usage: Usage::default(),
        answer: String::new(),
        child_steps: 0,
        spent_micro_usd: 0,
        unpriced: None,
        transcript,
    };
    let outcome = looper.steps(&mut state).await;
    if let Err(e) = store.finish_run(run_id, &outcome) {
        tracing::warn!("run {run_id}: could not record its outcome: {e}");
    }
    emitter.emit(EventKind::Finished {
        outcome: outcome.clone(),
    });
    Ok(RunResult {
        run_id,
        outcome,
        steps: state.step,
        usage: looper.usage,
        answer: looper.answer,
        spent_micro_usd: looper.spent_micro_usd,
    })
}

/// A dollar budget needs every request priced: refuse it, before anything is
/// sent, when the model (or a fee the declaration will incur) has no price.
fn check_dollar_budget(contract: &TaskContract, model: &str, prices: &PriceTable) -> Result<()> {
    let Some(limit) = contract.budget.usd_micro else {
        return Ok(());
    };
    let web = contract.web.as_ref();
    let searches = web.is_some_and(|w| w.search);
    let fetches = web.is_some_and(|w| w.fetch);
    match prices.missing_for_budget(model, searches, fetches) {
        None => Ok(()),
        Some(missing) => Err(Error::config(format!(
            "a dollar budget of {} cannot be kept: {missing}. State it under [prices.\"{model}\"] in io.toml, or remove [budget] usd / --max-usd. No request was sent.",
            usd(limit)
        ))),
    }
}

/// What a spawned child spent, charged to its parent.
#[derive(Default)]
struct ChildSpend {
    usage: Usage,
    steps: u32,
    micro_usd: u64,
}

/// The model a run asks for: an agent's own, else the provider's.
fn model_of<P: Provider + ?Sized>(options: &RunOptions, provider: &P) -> String {
    options
        .model
        .clone()
        .unwrap_or_else(|| provider.model().to_string())
}

struct Loop<'a, P: ?Sized, A: ?Sized> {
    provider: &'a P,
    store: &'a Store,
    policy: &'a Policy,
    approver: &'a A,
    options: &'a RunOptions,
    emitter: &'a Emitter,
    run_id: RunId,
    usage: Usage,
    answer: String,
    /// Requests spawned children made; they count toward this run's step budget.
    child_steps: u32,
    /// Dollars spent so far, in millionths, children included.
    spent_micro_usd: u64,
    /// Why a request could not be priced, when one could not.
    unpriced: Option<String>,
    /// In a transcript, every step's exchange so far.
    transcript: Vec<Exchange>,
}

impl<P: Provider + ?Sized, A: Approver + ?Sized> Loop<'_, P, A> {
    async fn steps(&mut self, state: &mut Checkpoint) -> RunOutcome {
        let budget = state.contract.budget;
        let deadline = deadline_after(self.emitter.started(), budget.seconds);
        loop {
            if self.options.cancel.is_cancelled() {
                return RunOutcome::Cancelled;
            }
            if state.step + self.child_steps >= budget.steps {
                return RunOutcome::BudgetExhausted {
                    budget: BudgetKind::Steps,
                };
            }
            if state.tokens_used >= budget.tokens {
                return RunOutcome::BudgetExhausted {
                    budget: BudgetKind::Tokens,
                };
            }
            if let Some(limit) = budget.usd_micro {
                if let Some(why) = &self.unpriced {
                    return RunOutcome::Error {
                        message: format!(
                            "the dollar budget cannot be kept: a request could not be priced ({why})"
                        ),
                    };
                }
                if self.spent_micro_usd > limit {
                    return RunOutcome::BudgetExhausted {
                        budget: BudgetKind::Usd,
                    };
                }
            }
            if tokio::time::Instant::now() >= deadline.into() {
                return RunOutcome::BudgetExhausted {
                    budget: BudgetKind::Time,
                };
            }
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
                return over;
            }
            let reply = tokio::select! {
                _ = self.options.cancel.cancelled() => return RunOutcome::Cancelled,
                _ = tokio::time::sleep_until(deadline.into()) => {
                    return RunOutcome::BudgetExhausted { budget: BudgetKind::Time }
                }
                r = self.provider.complete(&turn, self.emitter) => r,
            };
            let reply = match reply {
                Ok(r) => r,
                Err(e) => {
                    return RunOutcome::Error {
                        message: with_block(e.to_string(), &turn),
                    };
                }
            };
            let observations = self.absorb(step, &reply);
            let mut exchange =
                (state.contract.conversation == Conversation::Transcript).then(|| Exchange {
                    wire: reply.wire,
                    blocks: reply.completion.blocks.clone(),
                    response_id: reply.completion.response_id.clone(),
                    paused: reply.completion.stop == StopReason::PauseTurn,
                    results: Vec::new(),
                    notes: observations.clone(),
                    observations_before: state.observations.len(),
                });
            let completion = &reply.completion;
            state.tokens_used = state
                .tokens_used
                .saturating_add(completion.usage.map_or(0, |u| u.total_tokens()));
            let mut new_obs = observations;
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
            for call in completion.tool_calls.iter().filter(|_| !refused) {
                // A tool runs under the run's deadline and cancellation like a request:
                // a tool that blocks (an approver nobody answers, a hung server) ends
                // the run rather than holding it past its budget.
                let (result, child) = tokio::select! {
                    _ = self.options.cancel.cancelled() => return RunOutcome::Cancelled,
                    _ = tokio::time::sleep_until(deadline.into()) => {
                        return RunOutcome::BudgetExhausted { budget: BudgetKind::Time }
                    }
                    r = self.run_tool(state, call, deadline) => r,
                };
                // A child's requests and tokens count toward this run's budget and totals.
                self.child_steps = self.child_steps.saturating_add(child.steps);
                self.spent_micro_usd = self.spent_micro_usd.saturating_add(child.micro_usd);
                state.tokens_used = state.tokens_used.saturating_add(child.usage.total_tokens());
                self.usage.add(&child.usage);
                let input = shorten(call.input.to_string(), 200);
                self.emitter.emit(EventKind::ToolCalled {
                    name: call.name.clone(),
                    input: input.clone(),
                    ok: result.ok,
                    output: shorten(result.output.clone(), 300),
                });
                if let Some(e) = exchange.as_mut() {
                    e.results.push(ToolReturn {
                        call_id: call.id.clone(),
                        output: result.output.clone(),
                        is_error: !result.ok,
                    });
                }
                new_obs.push(format!(
                    "[step {step}] {} {input}: {}",
                    call.name, result.output
                ));
            }
            for text in &new_obs {
                self.emitter
                    .emit(EventKind::Observation { text: text.clone() });
            }
            let ending = if refused {
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
                text: &completion.text,
                observations: &new_obs,
                exchange: exchange.as_ref(),
            };
            if let Err(e) =
                self.store
                    .record_step_whole(self.run_id, &record, state, ending.as_ref())
            {
                tracing::warn!("run {}: step {step} not recorded: {e}", self.run_id);
            }
            self.transcript.extend(exchange);
            if let Some(outcome) = ending {
                return outcome;
            }
        }
    }

    /// Run one tool the model asked for: refused when outside the agent's subset;
    /// `spawn_agent` as a child run charged to this one; an MCP tool through the
    /// policy (as an `Exec` of its full name) and the approver; else a built-in.
    async fn run_tool(
        &self,
        state: &Checkpoint,
        call: &ToolCall,
        deadline: std::time::Instant,
    ) -> (ToolResult, ChildSpend) {
        let none = ChildSpend::default();
        if !self.allowed(&call.name) {
            let refusal = format!("{} is not among this agent's tools", call.name);
            return (ToolResult::err(refusal), none);
        }
        let emit = |k: EventKind| self.emitter.emit(k);
        let env = &ToolEnv {
            workspace: &state.contract.workspace,
            policy: self.policy,
            approver: &self.approver,
            emit: &emit,
        };
        if call.name == "spawn_agent" {
            let budget = state.contract.budget;
            let parent = Parent {
                provider: self.provider,
                store: self.store,
                policy: self.policy,
                approver: self.approver,
                options: self.options,
                run_id: self.run_id,
                contract: &state.contract,
                remaining: Budget {
                    steps: budget.steps.saturating_sub(state.step + self.child_steps),
                    seconds: deadline
                        .saturating_duration_since(std::time::Instant::now())
                        .as_secs(),
                    tokens: budget.tokens.saturating_sub(state.tokens_used),
                    usd_micro: budget
                        .usd_micro
                        .map(|l| l.saturating_sub(self.spent_micro_usd)),
                },
            };
            let (result, usage, steps, micro_usd) = spawn_agent(&parent, env, call).await;
            return (
                result,
                ChildSpend {
                    usage,
                    steps,
                    micro_usd,
                },
            );
        }
        if let Some(mcp) = self.options.mcp.as_ref().filter(|m| m.offers(&call.name)) {
            let result = match gate(env, Act::Exec, &call.name, &call.name).await {
                Err(why) => ToolResult::err(why),
                Ok(()) => match mcp.call(&call.name, &call.input).await {
                    Ok(out) => ToolResult::ok(out),
                    Err(e) => ToolResult::err(e),
                },
            };
            return (result, none);
        }
        (execute(env, call).await, none)
    }

    /// The tools offered: the built-ins, `spawn_agent` while a roster exists and
    /// nesting is allowed, and the MCP servers' tools, within the agent's subset.
    fn offered_tools(&self) -> Vec<crate::core::turn::ToolSpec> {
        let o = self.options;
        let names: Vec<String> = if o.depth < o.max_depth {
            o.agents.iter().map(|a| a.name.clone()).collect()
        } else {
            Vec::new()
        };
        let extra = o.mcp.as_ref().map(|m| m.specs()).unwrap_or_default();
        offered_tools(&names, &extra)
            .into_iter()
            .filter(|t| self.allowed(&t.name))
            .collect()
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

    fn allowed(&self, tool: &str) -> bool {
        self.options
            .tools
            .as_ref()
            .is_none_or(|t| t.iter().any(|n| n == tool))
    }

    /// Tell one reply's accounting, server-tool calls and citations to the
    /// observer (the step's commit records them); return the observations the
    /// model must read about failed server tools.
    fn absorb(&mut self, step: u32, reply: &Reply) -> Vec<String> {
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

/// The instant `seconds` after `start`, saturated: a budget longer than the clock
/// can represent (or than tokio's timer can hold) means "about a century", never
/// an overflow panic.
fn deadline_after(start: std::time::Instant, seconds: u64) -> std::time::Instant {
    const CENTURY: u64 = 100 * 365 * 24 * 3600;
    start
        .checked_add(Duration::from_secs(seconds.min(CENTURY)))
        .unwrap_or(start)
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

/// Refuse, before anything is sent, to resume a run that finished or that
/// another live process is still running.
fn refuse_resume(store: &Store, run_id: RunId) -> Result<()> {
    let row = store.run(run_id)?.ok_or_else(|| {
        Error::config(format!(
            "there is no run {run_id} in this store; `io-harness runs` lists them"
        ))
    })?;
    if let Some(outcome) = row.outcome.as_deref().filter(|o| *o != INTERRUPTED) {
        return Err(Error::config(format!(
            "run {run_id} already finished ({outcome}); a finished run is not resumed and nothing was sent — start a new run instead"
        )));
    }
    if let Some(pid) = store.running_elsewhere(run_id)? {
        return Err(Error::config(format!(
            "run {run_id} is still running in process {pid}; nothing was sent — resume it once that process has ended"
        )));
    }
    Ok(())
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
