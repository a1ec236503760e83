//! The first request a roster agent would send, previewed (`preview --agent
//! NAME`, and the console's): the child contract `spawn_agent` builds
//! (`run::spawn::child_contract` — the parent's declaration narrowed by the
//! agent's own), the agent's model and tools, encoded by the same wire, so the
//! previewed bytes are the bytes the child sends — or the refusal it would meet
//! at spawn. The task is what the model passes to `spawn_agent`; a preview
//! takes it from the goal it is given.

use crate::core::contract::TaskContract;
use crate::core::error::{Error, Result};
use crate::core::tools::offered_within;
use crate::core::vendor::Vendor;
use crate::launch::plan::{Plan, Preview};
use crate::launch::vendor::VendorSetup;
use crate::run::DEFAULT_MAX_DEPTH;
use crate::run::spawn::child_contract;

impl Plan {
    /// The first request agent `name` sends when a run of `contract` on
    /// `vendor` (asking `model`) spawns it with `task`; an unknown agent, or an
    /// agent table asking for more than the run's declaration, is refused
    /// naming the agent.
    pub fn preview_agent(
        &self,
        contract: &TaskContract,
        vendor: Vendor,
        model: Option<&str>,
        name: &str,
        task: &str,
    ) -> Result<Preview> {
        let Some(def) = self.agents.iter().find(|a| a.name == name) else {
            let names: Vec<&str> = self.agents.iter().map(|a| a.name.as_str()).collect();
            return Err(Error::config(format!(
                "there is no agent named \"{name}\" in io.toml's [[agent]] roster{}",
                match names.is_empty() {
                    true => String::new(),
                    false => format!(" ({})", names.join(", ")),
                }
            )));
        };
        let child = child_contract(contract, def, task, contract.budget).map_err(|w| {
            Error::config(format!(
                "agent \"{name}\" asks for {} (its web table's `{}`), but the run's declaration \
                 {}; an agent narrows its parent's web access, never widens it. Nothing was sent.",
                w.key(),
                w.key(),
                w.parent_allows()
            ))
        })?;
        let root = self.setup(vendor);
        let setup = VendorSetup {
            model: def
                .model
                .clone()
                .or(model.map(str::to_string))
                .unwrap_or_else(|| root.model.clone()),
            ..root.clone()
        };
        let names: Vec<String> = self.agents.iter().map(|a| a.name.clone()).collect();
        let mcp = self.mcp_tools.clone().unwrap_or_default();
        let subset = (!def.tools.is_empty()).then_some(def.tools.as_slice());
        let tools = offered_within(&names, &mcp, 1 < DEFAULT_MAX_DEPTH, subset);
        let note = format!(
            "note: agent \"{name}\"'s first request, as a spawn with this task sends it; its \
             declaration is the run's narrowed by the agent's own (`[[agent]] web`)"
        );
        Ok(self.build(&child, &setup, tools, Vec::new(), Vec::new(), vec![note]))
    }
}
