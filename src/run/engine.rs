//! `run_with`: a run from its start (or its checkpoint) to its outcome. Each step
//! is one request (`step`): by default one flattened user turn, the goal and every
//! observation so far; local tools run under the policy and approver (`act`);
//! provider-executed tools are recorded, and a failed one is told to the model;
//! `pause_turn` takes another step; budgets end the run saying which (checked here,
//! before each step); a refusal or a truncated answer ends the run as its own
//! outcome; else the verification decides success. A run starts with a checkpoint,
//! each request is counted as sent before it goes, and each step is recorded whole
//! with its checkpoint in one transaction, so a killed run resumes without losing or
//! double-charging a step (a re-sent step is marked as such).

use std::time::Duration;

use crate::approve::Approver;
use crate::core::completion::Usage;
use crate::core::contract::TaskContract;
use crate::core::error::{Error, Result};
use crate::core::event::EventKind;
use crate::core::id::RunId;
use crate::core::outcome::{BudgetKind, RunOutcome};
use crate::core::plan::RunPlan;
use crate::core::policy::Policy;
use crate::core::price::{PriceTable, usd};
use crate::core::transcript::{Conversation, Exchange};
use crate::provider::Provider;
use crate::run::observe::Emitter;
use crate::run::options::{RunOptions, RunResult};
use crate::run::resume::finished;
use crate::store::{CHECKPOINT_FORMAT, Checkpoint, NewRun, Store};

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

/// Run a contract to its end. `Err` for what stops a run before its first
/// request (a refusal, a store that cannot start a run, a missing checkpoint)
/// and for a store that stops recording it (the run left to resume);
/// everything else ends as a recorded `RunOutcome`.
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
        Some(run_id) => reopen(store, provider, run_id)?,
        None => start(contract, provider, store, &options)?,
    };
    let emitter = Emitter::new(run_id, options.observer.clone());
    emitter.set_step(state.step);
    emitter.emit(EventKind::RunStarted {
        goal: state.contract.goal.clone(),
        provider: provider.vendor(),
        model: provider.model().to_string(),
        resumed: options.resume.is_some(),
        agent: options.agent.clone(),
        web: state.contract.web.clone(),
        no_local_tools: provider
            .wire()
            .capabilities()
            .local_tools
            .map(str::to_string),
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
        store_failed: None,
    };
    let outcome = looper.steps(&mut state).await;
    if let Some(e) = looper.store_failed {
        // Nothing of the step was kept (it is one transaction); the run has
        // no outcome, so it reads interrupted and resumes from its checkpoint.
        return Err(Error::store_says(format!(
            "run {run_id} stopped at step {}: {e}; nothing of that step was recorded — \
             `io-harness run --resume {run_id}` continues it once the store is back",
            state.step
        )));
    }
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

/// A resumed run: its checkpoint and transcript, once it is known to be neither
/// finished nor held by another live process (claimed atomically) and its
/// declaration still fits the provider.
fn reopen<P: Provider + ?Sized>(
    store: &Store,
    provider: &P,
    run_id: RunId,
) -> Result<(RunId, Checkpoint, Vec<Exchange>)> {
    refuse_resume(store, run_id)?;
    let checkpoint = store
        .load_checkpoint(run_id)?
        .ok_or_else(|| Error::refused(format!("run {run_id} has no checkpoint to resume from")))?;
    provider.carries(checkpoint.contract.web.as_ref())?;
    crate::core::capability::carries_task(provider.wire(), &checkpoint.contract.verification)?;
    // Stored steps that disagree with the checkpoint, or a transcript that
    // cannot be read back, are refused before anything is sent.
    crate::run::resume::check_stored(
        store,
        run_id,
        checkpoint.step,
        checkpoint.contract.conversation == Conversation::Transcript,
    )?;
    let transcript = match checkpoint.contract.conversation {
        Conversation::Transcript => store.exchanges(run_id, checkpoint.step)?,
        Conversation::Flattened => Vec::new(),
    };
    // Atomic: of two resumes at once, exactly one gets past this.
    store.claim_run(run_id)?;
    Ok((run_id, checkpoint, transcript))
}

/// A new run: refused before anything exists when the provider cannot carry its
/// declaration or its dollar budget cannot be priced; else recorded with its
/// first checkpoint.
fn start<P: Provider + ?Sized>(
    contract: &TaskContract,
    provider: &P,
    store: &Store,
    options: &RunOptions,
) -> Result<(RunId, Checkpoint, Vec<Exchange>)> {
    // A declaration the provider cannot carry is refused before anything exists,
    // as is a task only a local tool can pass on a wire that offers none.
    provider.carries(contract.web.as_ref())?;
    crate::core::capability::carries_task(provider.wire(), &contract.verification)?;
    // A vendor that reports each request's cost itself needs no price for a
    // budget (the capability table's `own_cost`).
    if provider.wire().capabilities().own_cost.is_none() {
        check_dollar_budget(contract, &model_of(options, provider), &options.prices)?;
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
            provider: provider.vendor(),
            model: model_of(options, provider),
            web_json: contract
                .web
                .as_ref()
                .and_then(|w| serde_json::to_string(w).ok()),
            mcp_declared_json: options.mcp.as_ref().map(|m| m.declared_net().to_string()),
            parent_run_id: options.parent_run_id,
            session_id: options.session_id,
            group_id: options.group_id,
            agent: options.agent.clone(),
            plan: provider.plan().map(|p| RunPlan {
                model: model_of(options, provider),
                tools: options
                    .offered_on(provider.wire())
                    .into_iter()
                    .map(|t| t.name)
                    .collect(),
                ..p
            }),
        },
        &fresh,
    )?;
    Ok((run_id, fresh, Vec::new()))
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

/// The model a run asks for: an agent's own, else the provider's.
pub(super) fn model_of<P: Provider + ?Sized>(options: &RunOptions, provider: &P) -> String {
    options
        .model
        .clone()
        .unwrap_or_else(|| provider.model().to_string())
}

/// One run in progress: what it talks to and what it has spent so far.
pub(super) struct Loop<'a, P: ?Sized, A: ?Sized> {
    pub(super) provider: &'a P,
    pub(super) store: &'a Store,
    pub(super) policy: &'a Policy,
    pub(super) approver: &'a A,
    pub(super) options: &'a RunOptions,
    pub(super) emitter: &'a Emitter,
    pub(super) run_id: RunId,
    pub(super) usage: Usage,
    pub(super) answer: String,
    /// Requests spawned children made; they count toward this run's step budget.
    pub(super) child_steps: u32,
    /// Dollars spent so far, in millionths, children included.
    pub(super) spent_micro_usd: u64,
    /// Why a request could not be priced, when one could not.
    pub(super) unpriced: Option<String>,
    /// In a transcript, every step's exchange so far.
    pub(super) transcript: Vec<Exchange>,
    /// The store could not record a step (or count a request before sending
    /// it): the run stopped there, its outcome left unrecorded so that it
    /// resumes once the store is back.
    pub(super) store_failed: Option<Error>,
}

impl<P: Provider + ?Sized, A: Approver + ?Sized> Loop<'_, P, A> {
    /// Count dollars spent (a request's, or a child's total): this run's, and its
    /// comparison's when it shares a cap.
    pub(super) fn charge(&mut self, micro_usd: u64) {
        self.spent_micro_usd = self.spent_micro_usd.saturating_add(micro_usd);
        if let Some(g) = &self.options.group_budget {
            g.add(micro_usd);
        }
    }

    /// Steps until one ends the run; before each, the budgets and cancellation.
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
            // A comparison's cap: the total of every run in it.
            if self
                .options
                .group_budget
                .as_ref()
                .is_some_and(|g| g.exhausted())
            {
                return RunOutcome::BudgetExhausted {
                    budget: BudgetKind::Usd,
                };
            }
            if tokio::time::Instant::now() >= deadline.into() {
                return RunOutcome::BudgetExhausted {
                    budget: BudgetKind::Time,
                };
            }
            if let Some(outcome) = self.step(state, deadline).await {
                return outcome;
            }
        }
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

/// Refuse, before anything is sent, to resume a run that finished. (One another
/// process holds is refused by `claim_run`, atomically, once the run's stored
/// state has been read.)
fn refuse_resume(store: &Store, run_id: RunId) -> Result<()> {
    if let Some(outcome) = finished(store, run_id)? {
        return Err(Error::refused(format!(
            "run {run_id} already finished ({outcome}); a finished run is not resumed and nothing was sent — start a new run instead"
        )));
    }
    Ok(())
}
