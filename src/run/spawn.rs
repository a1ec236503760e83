//! `spawn_agent { agent, task }`: a child run of a roster agent under the same
//! provider, policy, approver and store, linked to its parent. The child's web
//! declaration is the parent contract's, narrowed by the agent's own `[[agent]]
//! web` table where io.toml gives one (`core::narrow`: never widened); only
//! `agent` and `task` are read from the arguments, so nothing the model writes
//! there (hosts, a `web` object) can widen what the child may reach. Depth and budget are bounded: the child gets
//! what the parent has left, and its usage is charged to the parent.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::approve::Approver;
use crate::core::completion::{ToolCall, Usage};
use crate::core::contract::{Budget, TaskContract, Verification};
use crate::core::id::RunId;
use crate::core::narrow::{Widening, narrowed};
use crate::core::policy::{Act, Policy};
use crate::core::text::shorten;
use crate::provider::Provider;
use crate::run::engine::run_with_options;
use crate::run::options::{AgentDef, RunOptions};
use crate::run::tools::{ToolEnv, ToolResult, gate};
use crate::store::Store;

/// What the parent needs to run a child.
pub(crate) struct Parent<'a, P: ?Sized, A: ?Sized> {
    pub provider: &'a P,
    pub store: &'a Store,
    pub policy: &'a Policy,
    pub approver: &'a A,
    pub options: &'a RunOptions,
    pub run_id: RunId,
    pub contract: &'a TaskContract,
    pub remaining: Budget,
}

/// A boxed `Send` future: the loop awaits a child run that awaits the loop, and
/// naming the type here is what lets the compiler see that cycle is `Send`.
pub(crate) type Spawned<'a> =
    Pin<Box<dyn Future<Output = (ToolResult, Usage, u32, u64)> + Send + 'a>>;

/// Run the child the call names: its result (the parent's observation), and the
/// tokens and requests it spent, which the parent charges to its own budget.
pub(crate) fn spawn_agent<'a, P, A>(
    parent: &'a Parent<'a, P, A>,
    env: &'a ToolEnv<'a>,
    call: &'a ToolCall,
) -> Spawned<'a>
where
    P: Provider + ?Sized,
    A: Approver + ?Sized,
{
    Box::pin(spawn_inner(parent, env, call))
}

async fn spawn_inner<P, A>(
    parent: &Parent<'_, P, A>,
    env: &ToolEnv<'_>,
    call: &ToolCall,
) -> (ToolResult, Usage, u32, u64)
where
    P: Provider + ?Sized,
    A: Approver + ?Sized,
{
    let refuse = |text: String| (ToolResult::err(text), Usage::default(), 0, 0);
    let o = parent.options;
    // Only these two arguments are read.
    let arg = |k: &str| {
        call.input
            .get(k)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let (Some(name), Some(task)) = (arg("agent"), arg("task")) else {
        return refuse("spawn_agent needs string arguments \"agent\" and \"task\"".into());
    };
    let Some(def) = o.agents.iter().find(|a| a.name == name) else {
        let names: Vec<&str> = o.agents.iter().map(|a| a.name.as_str()).collect();
        return refuse(format!(
            "there is no agent named \"{name}\"; the roster is: {}",
            names.join(", ")
        ));
    };
    if o.depth >= o.max_depth {
        return refuse(format!(
            "spawn_agent refused: agents may nest {} deep and this run is at depth {}",
            o.max_depth, o.depth
        ));
    }
    let b = parent.remaining;
    if b.steps == 0 || b.tokens == 0 || b.seconds == 0 || b.usd_micro == Some(0) {
        return refuse("spawn_agent refused: the run has no budget left for a child".into());
    }
    if let Err(why) = gate(env, Act::Spawn, &name, "spawn_agent").await {
        return refuse(why);
    }
    let child = match child_contract(parent.contract, def, &task, b) {
        Ok(child) => child,
        Err(w) => {
            return refuse(format!(
                "spawn_agent refused: agent \"{name}\" asks for {} (its web table's `{}`), but its \
                 parent's declaration {}; an agent narrows its parent's web access, never widens it",
                w.key(),
                w.key(),
                w.parent_allows()
            ));
        }
    };
    let options = RunOptions {
        cancel: o.cancel.child_token(),
        resume: None,
        parent_run_id: Some(parent.run_id),
        depth: o.depth + 1,
        tools: (!def.tools.is_empty()).then(|| def.tools.clone()),
        model: def.model.clone(),
        agent: Some(name.clone()),
        // A child belongs to its parent's run; the parent charges the group
        // what the child spent.
        group_id: None,
        group_budget: None,
        ..o.clone()
    };
    let run = run_with_options(
        &child,
        parent.provider,
        parent.store,
        parent.policy,
        parent.approver,
        options,
    );
    match run.await {
        Ok(r) => (
            ToolResult {
                ok: r.outcome.passed(),
                output: shorten(
                    format!(
                        "child run {} ({name}) {}: {}",
                        r.run_id,
                        r.outcome.label(),
                        r.answer
                    ),
                    4_000,
                ),
            },
            r.usage,
            r.steps,
            r.spent_micro_usd,
        ),
        Err(e) => refuse(format!("child run ({name}) did not start: {e}")),
    }
}

/// The contract a child of `parent` runs as agent `def` on `task`, given what
/// the parent has left (`budget`): its instructions before the task, the
/// parent's workspace, conversation mode and caching, and the parent's web
/// declaration narrowed by the agent's own (`core::narrow`) — or what it asked
/// for that the parent does not have. `spawn_agent` and the preview of an
/// agent's first request (`preview --agent`) both build it here.
pub fn child_contract(
    parent: &TaskContract,
    def: &AgentDef,
    task: &str,
    budget: Budget,
) -> Result<TaskContract, Widening> {
    let goal = if def.instructions.trim().is_empty() {
        task.to_string()
    } else {
        format!("{}\n\nTask: {task}", def.instructions.trim())
    };
    let mut child = TaskContract::workspace(goal, parent.workspace.clone(), Verification::None)
        .with_budget(budget);
    // A table asking for more than the parent has is refused, never dropped;
    // without one the child has the parent's declaration (`None` stays `None`).
    child.web = match &def.web {
        None => parent.web.clone(),
        Some(own) => narrowed(parent.web.as_ref(), own)?,
    };
    // A child keeps a transcript of its own, in the parent's mode.
    child.conversation = parent.conversation;
    child.cache = parent.cache;
    Ok(child)
}
