//! The local tools a step's answer asks for, run in order under the run's deadline
//! and cancellation: refused outside an agent's subset, `spawn_agent` as a child
//! run charged to this one, an MCP tool through the policy and the approver, else a
//! built-in; each result becomes an observation.

use crate::approve::Approver;
use crate::core::completion::{Completion, ToolCall, Usage};
use crate::core::contract::Budget;
use crate::core::event::EventKind;
use crate::core::outcome::{BudgetKind, RunOutcome};
use crate::core::policy::Act;
use crate::core::text::shorten;
use crate::core::transcript::ToolReturn;
use crate::provider::Provider;
use crate::run::engine::Loop;
use crate::run::spawn::{Parent, spawn_agent};
use crate::run::tools::{ToolEnv, ToolResult, execute, gate};
use crate::store::Checkpoint;

/// What a spawned child spent, charged to its parent.
#[derive(Default)]
struct ChildSpend {
    usage: Usage,
    steps: u32,
    micro_usd: u64,
}

impl<P: Provider + ?Sized, A: Approver + ?Sized> Loop<'_, P, A> {
    /// Run the tools the answer asks for, each result an observation; the outcome
    /// when cancellation or the deadline ends the run meanwhile.
    pub(super) async fn act(
        &mut self,
        state: &mut Checkpoint,
        completion: &Completion,
        deadline: std::time::Instant,
        new_obs: &mut Vec<String>,
        mut results: Option<&mut Vec<ToolReturn>>,
    ) -> Result<(), RunOutcome> {
        let step = state.step;
        for call in &completion.tool_calls {
            // A tool runs under the run's deadline and cancellation like a request:
            // a tool that blocks (an approver nobody answers, a hung server) ends
            // the run rather than holding it past its budget.
            let (result, child) = tokio::select! {
                _ = self.options.cancel.cancelled() => return Err(RunOutcome::Cancelled),
                _ = tokio::time::sleep_until(deadline.into()) => {
                    return Err(RunOutcome::BudgetExhausted { budget: BudgetKind::Time })
                }
                r = self.run_tool(state, call, deadline) => r,
            };
            // A child's requests and tokens count toward this run's budget and totals.
            self.child_steps = self.child_steps.saturating_add(child.steps);
            self.charge(child.micro_usd);
            state.tokens_used = state.tokens_used.saturating_add(child.usage.total_tokens());
            self.usage.add(&child.usage);
            let input = shorten(call.input.to_string(), 200);
            self.emitter.emit(EventKind::ToolCalled {
                name: call.name.clone(),
                input: input.clone(),
                ok: result.ok,
                output: shorten(result.output.clone(), 300),
            });
            if let Some(results) = results.as_deref_mut() {
                results.push(ToolReturn {
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
        Ok(())
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
        if !self.options.allows(&call.name) {
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

    /// The tools offered (`offered`), on the provider's wire.
    pub(super) fn offered_tools(&self) -> Vec<crate::core::turn::ToolSpec> {
        self.options.offered_on(self.provider.wire())
    }
}
