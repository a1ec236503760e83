//! The plan: io.toml resolved once into what every run, preview and comparison
//! starts from — per vendor its setup (endpoint, model, output cap, limits), the
//! task io.toml describes (with the demo's defaults where io.toml gives none),
//! the tools a run offers (the agents' and, once started, the MCP servers'), the
//! policy, the prices, and where the declaration's domain lists came from.
//!
//! `preview` builds the first request of a contract (or the next of a stored
//! run) exactly as the run's step does — `Turn::for_step` over the same tools,
//! then the wire's `encode` — so the bytes an operator previews are the bytes
//! sent. Pure: no process, socket or store.

use std::collections::BTreeMap;

use crate::config::Config;
use crate::core::contract::TaskContract;
use crate::core::endpoint::Endpoint;
use crate::core::error::{Error, Result};
use crate::core::id::RunId;
use crate::core::policy::Policy;
use crate::core::price::PriceTable;
use crate::core::tools::offered_tools;
use crate::core::transcript::{CacheTtl, Conversation, same_family};
use crate::core::turn::{ToolSpec, Turn, WireRequest};
use crate::core::vendor::Vendor;
use crate::core::web::WebAccess;
use crate::core::wire;
use crate::launch::vendor::VendorSetup;
use crate::mcp::McpDef;
use crate::run::{AgentDef, NextStep};

/// The goal the offline demo starts with when io.toml gives none.
pub const DEMO_GOAL: &str =
    "Find the current io-harness release on crates.io and say which version it is.";

/// The port a preview names for the demo stub, which starts only with a run.
pub const STUB_PLACEHOLDER: &str = "127.0.0.1:<port>";

/// io.toml resolved for runs, previews and comparisons.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The vendor io.toml names (`provider`).
    pub default_vendor: Vendor,
    /// Every vendor's setup.
    pub vendors: BTreeMap<Vendor, VendorSetup>,
    /// Requests go to the built-in stub vendor (the offline demo).
    pub demo: bool,
    /// The stub is listening (its address is in the endpoints); a demo preview
    /// before a run names `STUB_PLACEHOLDER` instead.
    pub stub_started: bool,
    /// The `spawn_agent` roster.
    pub agents: Vec<AgentDef>,
    /// io.toml's `[[mcp]]` servers.
    pub mcp: Vec<McpDef>,
    /// The started MCP servers' tools; `None` until they are started.
    pub mcp_tools: Option<Vec<ToolSpec>>,
    /// The operator's rules over the built-in fallback.
    pub policy: Policy,
    /// The built-in prices with `[prices]` applied.
    pub prices: PriceTable,
    /// Where the declaration's domain lists came from (`from_policy`), a line each.
    pub provenance: Vec<String>,
    /// What io.toml states that has no effect (`[run] cache_ttl` without
    /// `cache = true`), a line each: said beside every preview and before a run.
    pub notes: Vec<String>,
    /// Why `[web] from_policy` could not project the policy: nothing is sent
    /// while it stands.
    pub web_error: Option<String>,
    /// The task io.toml describes (`[task]`, `[web]`, `[budget]`, `[run]`).
    pub task: TaskContract,
    /// io.toml states `[run]` (else the demo runs a cached transcript).
    run_stated: bool,
    /// io.toml states `[web]` (else the demo's goal comes with a search).
    web_stated: bool,
}

/// One vendor's request for a contract, or its refusal, and what to say beside it.
#[derive(Debug)]
pub struct Preview {
    /// The vendor.
    pub vendor: Vendor,
    /// Where the request goes.
    pub endpoint: Endpoint,
    /// The vendor-neutral input the request encodes.
    pub turn: Turn,
    /// The exact request, or the refusal (nothing would be sent).
    pub request: Result<WireRequest>,
    /// Cautions and notes, in the order they are printed.
    pub cautions: Vec<String>,
}

impl Plan {
    /// io.toml resolved; `demo` sends every request to the built-in stub vendor
    /// (at `STUB_PLACEHOLDER` until it is started).
    pub fn of(config: &Config, demo: bool) -> Plan {
        let mut vendors: BTreeMap<Vendor, VendorSetup> = Vendor::ALL
            .iter()
            .map(|&v| (v, VendorSetup::of(config, v)))
            .collect();
        if demo {
            for (v, setup) in vendors.iter_mut() {
                setup.endpoint.base_url = v.base_url_at(STUB_PLACEHOLDER);
            }
        }
        Plan {
            default_vendor: config.provider,
            vendors,
            demo,
            stub_started: false,
            agents: config.agents.clone(),
            mcp: config.mcp.clone(),
            mcp_tools: None,
            policy: config.policy(),
            prices: config.price_table(),
            provenance: config.web_provenance(),
            notes: config.idle_notes(),
            web_error: config.web_error.clone(),
            task: config.task_contract(),
            run_stated: config.run.is_some(),
            web_stated: config.web.is_some(),
        }
    }

    /// This plan with every vendor's requests sent to the built-in stub, at
    /// `base_url(vendor)` (it listens now): a new plan, complete as built.
    pub fn served_by(&self, base_url: impl Fn(Vendor) -> String) -> Plan {
        let mut plan = self.clone();
        for (v, setup) in plan.vendors.iter_mut() {
            setup.endpoint.base_url = base_url(*v);
        }
        plan.stub_started = true;
        plan
    }

    /// This plan with the started MCP servers' tools offered: a new plan.
    pub fn offering(&self, mcp_tools: Vec<ToolSpec>) -> Plan {
        Plan {
            mcp_tools: Some(mcp_tools),
            ..self.clone()
        }
    }

    /// The contract io.toml describes with `flags` applied (the command line's
    /// goal, workspace, verification), then, in the demo, its defaults where
    /// neither gives them.
    pub fn contract(&self, flags: impl FnOnce(&mut TaskContract)) -> TaskContract {
        let mut contract = self.task.clone();
        flags(&mut contract);
        if self.demo {
            demo_defaults(&mut contract, !self.run_stated, !self.web_stated);
        }
        contract
    }

    /// What the demo sets that io.toml does not, as `(key, value, why)` in
    /// io.toml's terms (`run.conversation = "transcript"`); nothing outside the demo.
    /// `config --demo` lists them and the console's status line says them.
    pub fn demo_settings(&self) -> Vec<(String, String, &'static str)> {
        if !self.demo {
            return Vec::new();
        }
        let mut task = self.task.clone();
        demo_defaults(&mut task, !self.run_stated, !self.web_stated);
        let mut out = Vec::new();
        if !self.run_stated {
            let why = "the demo's default: io.toml has no [run]";
            out.push((
                "run.conversation".to_string(),
                format!("{:?}", task.conversation.as_str()),
                why,
            ));
            if let Some(ttl) = task.cache {
                out.push(("run.cache".to_string(), "true".to_string(), why));
                out.push((
                    "run.cache_ttl".to_string(),
                    format!("{:?}", ttl.as_str()),
                    why,
                ));
            }
        }
        if self.task.goal.trim().is_empty() {
            let why = "the demo's default: io.toml gives no goal";
            out.push(("task.goal".to_string(), format!("{:?}", task.goal), why));
            if let Some(web) = task.web.as_ref().filter(|_| !self.web_stated) {
                let why = "the demo's default: io.toml has no [web]";
                out.push(("web.search".to_string(), web.search.to_string(), why));
                if let Some(n) = web.max_uses {
                    out.push(("web.max_uses".to_string(), n.to_string(), why));
                }
            }
        }
        out
    }

    /// The status line's word on what the demo turned on, or `None` (not the
    /// demo, or io.toml states `[run]`).
    pub fn demo_mode_note(&self) -> Option<String> {
        if !self.demo || self.run_stated {
            return None;
        }
        let mut task = self.task.clone();
        demo_defaults(&mut task, true, !self.web_stated);
        let cache = task
            .cache
            .map(|t| format!(" + {} cache", t.as_str()))
            .unwrap_or_default();
        Some(format!(
            "{}{cache} (--demo's default: no [run] in io.toml)",
            task.conversation.as_str()
        ))
    }

    /// The vendor a flag names, else io.toml's.
    pub fn vendor(&self, flag: Option<&str>) -> Result<Vendor> {
        match flag {
            Some(name) => Ok(name.parse()?),
            None => Ok(self.default_vendor),
        }
    }

    /// `vendor`'s setup.
    pub fn setup(&self, vendor: Vendor) -> &VendorSetup {
        // Every vendor is resolved in `of`.
        &self.vendors[&vendor]
    }

    /// The tools a run offers: the built-ins, `spawn_agent` when there is a
    /// roster, and the started MCP servers'.
    pub fn tools(&self) -> Vec<ToolSpec> {
        let names: Vec<String> = self.agents.iter().map(|a| a.name.clone()).collect();
        offered_tools(&names, self.mcp_tools.as_deref().unwrap_or_default())
    }

    /// The first request of `contract` to `vendor` (asking `model`, else the
    /// vendor's), or its refusal, with its cautions.
    pub fn preview(&self, contract: &TaskContract, vendor: Vendor, model: Option<&str>) -> Preview {
        let setup = match model {
            Some(m) => VendorSetup {
                model: m.to_string(),
                ..self.setup(vendor).clone()
            },
            None => self.setup(vendor).clone(),
        };
        self.build(
            contract,
            &setup,
            self.tools(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
        )
    }

    /// The request the next step of a stored run would send with `setup` (the
    /// one `resumed` gives it), in its conversation mode, with a note naming the
    /// step and the command that sends it.
    pub fn preview_next(&self, next: NextStep, run_id: RunId, setup: &VendorSetup) -> Preview {
        let demo = if self.demo { " --demo" } else { "" };
        let note = |conversation: Conversation| {
            format!(
                "note: the next step (step {}) of run {run_id}, in its {} conversation; \
                 `io-harness run --resume {run_id}{demo}` sends it",
                next.step + 1,
                conversation.as_str()
            )
        };
        let notes = vec![note(next.contract.conversation)];
        self.build(
            &next.contract,
            setup,
            self.tools(),
            next.observations,
            next.history,
            notes,
        )
    }

    pub(super) fn build(
        &self,
        contract: &TaskContract,
        setup: &VendorSetup,
        tools: Vec<ToolSpec>,
        observations: Vec<String>,
        history: Vec<crate::core::transcript::Exchange>,
        mut notes: Vec<String>,
    ) -> Preview {
        let vendor = setup.endpoint.vendor;
        // A wire that takes no function tools is offered none, as the run does.
        let no_tools = setup.endpoint.wire.capabilities().local_tools;
        if let Some(why) = no_tools.filter(|_| !tools.is_empty()) {
            notes.push(format!(
                "note: a run on {} offers the model no local tools — {why}",
                setup.endpoint.wire.label()
            ));
        }
        let tools = if no_tools.is_some() {
            Vec::new()
        } else {
            tools
        };
        let turn = Turn::for_step(
            contract,
            setup.model.clone(),
            setup.max_tokens,
            tools,
            observations,
            history,
        );
        let endpoint = setup.endpoint.clone();
        let request = match &self.web_error {
            Some(e) => Err(Error::config(format!("{e}. No request was sent."))),
            None => crate::core::capability::carries_task(endpoint.wire, &contract.verification)
                .and_then(|()| wire::encode(&endpoint, &turn)),
        };
        notes.extend(foreign_steps(&turn, &endpoint));
        let mut cautions = wire::cautions_wire(endpoint.wire, contract.web.as_ref());
        cautions.extend(notes);
        cautions.extend(contract.budget.note_for(endpoint.wire));
        if self.demo && !self.stub_started {
            cautions.push(
                "note: `run --demo` starts the stub vendor on a free loopback port, chosen when \
                 the run starts"
                    .to_string(),
            );
        }
        cautions.extend(self.provenance.iter().cloned());
        cautions.extend(self.notes.iter().cloned());
        cautions.extend(self.mcp_note());
        Preview {
            vendor,
            endpoint,
            turn,
            request,
            cautions,
        }
    }

    /// Said while io.toml's MCP servers are not started: their tools are not in
    /// the body.
    fn mcp_note(&self) -> Option<String> {
        if self.mcp.is_empty() || self.mcp_tools.is_some() {
            return None;
        }
        let names: Vec<String> = self.mcp.iter().map(|m| format!("`{}`", m.name)).collect();
        let (servers, start) = if names.len() == 1 {
            ("server", "it starts")
        } else {
            ("servers", "they start")
        };
        Some(format!(
            "note: a run also offers the tools of the MCP {servers} {} once {start}; preview \
             starts no process, so they are not in this body",
            names.join(", ")
        ))
    }
}

/// Where a transcript's earlier steps were answered by another vendor (a
/// fallback): their blocks are not sent — encrypted content is readable only by
/// the vendor that produced it — and this vendor starts from the goal and the
/// observations made before them.
fn foreign_steps(turn: &Turn, endpoint: &Endpoint) -> Option<String> {
    let wire = endpoint.wire;
    let foreign = turn
        .history
        .iter()
        .filter(|e| !same_family(e.wire, wire))
        .count();
    (turn.conversation == Conversation::Transcript && foreign > 0).then(|| {
        format!(
            "note: {} answered by another vendor; their blocks are not sent to {} (encrypted content is readable only by the vendor that produced it), which starts from the goal and the observations made so far",
            if foreign == 1 {
                "1 earlier step was".to_string()
            } else {
                format!("{foreign} earlier steps were")
            },
            wire.label()
        )
    })
}

/// The demo's goal and declaration where io.toml gives none; and, where io.toml
/// has no `[run]`, a transcript with prompt caching — what an operator pays for
/// every step, shown with the stub's emulation of the vendors' cache accounting.
fn demo_defaults(contract: &mut TaskContract, no_run_table: bool, no_web: bool) {
    if no_run_table {
        contract.conversation = Conversation::Transcript;
        contract.cache = Some(CacheTtl::FiveMinutes);
    }
    if contract.goal.trim().is_empty() {
        contract.goal = DEMO_GOAL.to_string();
        if no_web {
            // What every vendor carries: no domain filter (OpenRouter and Gemini
            // take none), no fetch (Anthropic, Gemini and Perplexity's Agent API
            // only), no cap (Gemini, xAI and Sonar take none), so switching
            // provider never refuses.
            contract.web = Some(WebAccess::search());
        }
    }
}
