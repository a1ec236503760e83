//! What a run is given besides its contract (`RunOptions`) and what it reports
//! when it ends (`RunResult`), with their defaults.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::core::completion::Usage;
use crate::core::id::{GroupId, RunId, SessionId};
use crate::core::outcome::RunOutcome;
use crate::core::price::PriceTable;
use crate::core::tools::offered_within;
use crate::core::turn::ToolSpec;
use crate::mcp::McpServers;
use crate::run::observe::{NoObserver, Observer};

/// How many `pause_turn` continuations in a row a run accepts before it stops.
pub const DEFAULT_MAX_CONTINUATIONS: u32 = 3;

/// How deep spawned agents may nest by default (a root's child is depth 1).
pub const DEFAULT_MAX_DEPTH: u32 = 2;

/// A sub-agent the model may spawn (`spawn_agent`), as io.toml's `[[agent]]`
/// resolves to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentDef {
    /// The name `spawn_agent` takes.
    pub name: String,
    /// What it is for, shown to the model.
    pub description: String,
    /// Put before its task.
    pub instructions: String,
    /// Local tools it may use (all when empty).
    pub tools: Vec<String>,
    /// Its model, when not the parent's.
    pub model: Option<String>,
    /// Its own web declaration (`[[agent]] web`), narrowing its parent's
    /// (`core::narrow`); `None`: its parent's, copied.
    pub web: Option<crate::core::web::WebAccess>,
}

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
    pub session_id: Option<SessionId>,
    /// The roster `spawn_agent` offers (not offered when empty).
    pub agents: Vec<AgentDef>,
    /// How deep this run is (0 for a root).
    pub depth: u32,
    /// How deep agents may nest.
    pub max_depth: u32,
    /// The roster agent this run is, when a parent spawned it.
    pub agent: Option<String>,
    /// Only these local tools are offered and run (`None`: all).
    pub tools: Option<Vec<String>>,
    /// Ask for this model instead of the provider's.
    pub model: Option<String>,
    /// Started stdio MCP servers whose tools are offered as `mcp__<server>__<tool>`.
    pub mcp: Option<Arc<McpServers>>,
    /// The comparison (run group) this run is one column of.
    pub group_id: Option<GroupId>,
    /// A dollar cap the runs of a comparison share: each adds what it spends,
    /// and each stops (`budget_exhausted: usd`) once their total is over it.
    pub group_budget: Option<Arc<GroupBudget>>,
    /// At most so many runs of a group at once (an eval's `--jobs`): each run
    /// of `run_group` takes a permit before it is recorded and holds it to its
    /// end. Taken by the group, never passed to a run (nor its spawned children).
    pub gate: Option<Arc<tokio::sync::Semaphore>>,
}

/// A dollar cap shared by concurrent runs, in millionths of a dollar.
#[derive(Debug, Default)]
pub struct GroupBudget {
    limit_micro_usd: u64,
    spent: AtomicU64,
}

impl GroupBudget {
    /// A cap of `limit_micro_usd`, nothing spent yet.
    pub fn new(limit_micro_usd: u64) -> GroupBudget {
        GroupBudget {
            limit_micro_usd,
            spent: AtomicU64::new(0),
        }
    }

    /// Add what one run spent.
    pub fn add(&self, micro_usd: u64) {
        let _ = self
            .spent
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| {
                Some(s.saturating_add(micro_usd))
            });
    }

    /// Spent so far by every run sharing it.
    pub fn spent(&self) -> u64 {
        self.spent.load(Ordering::Relaxed)
    }

    /// True once the total is over the cap.
    pub fn exhausted(&self) -> bool {
        self.spent() > self.limit_micro_usd
    }
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
            agent: None,
            tools: None,
            model: None,
            mcp: None,
            group_id: None,
            group_budget: None,
            gate: None,
        }
    }
}

impl RunOptions {
    /// The tools a run is offered: the built-ins, `spawn_agent` while a roster
    /// exists and nesting is allowed, and the MCP servers' tools, within the
    /// agent's subset. The loop offers these, and a run's plan records them.
    pub(crate) fn offered_tools(&self) -> Vec<ToolSpec> {
        let names: Vec<String> = self.agents.iter().map(|a| a.name.clone()).collect();
        let extra = self.mcp.as_ref().map(|m| m.specs()).unwrap_or_default();
        offered_within(
            &names,
            &extra,
            self.depth < self.max_depth,
            self.tools.as_deref(),
        )
    }

    /// The tools offered on `wire`: `offered_tools`, or none where the wire
    /// takes no function tools (the capability table's `local_tools`: Sonar).
    pub(crate) fn offered_on(&self, wire: crate::core::vendor::Wire) -> Vec<ToolSpec> {
        if wire.capabilities().local_tools.is_some() {
            return Vec::new();
        }
        self.offered_tools()
    }

    /// Whether `tool` is within the agent's subset (every tool without one).
    pub(crate) fn allows(&self, tool: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|t| t.iter().any(|n| n == tool))
    }
}
