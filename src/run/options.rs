//! What a run is given besides its contract (`RunOptions`) and what it reports
//! when it ends (`RunResult`), with their defaults.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::config::AgentDef;
use crate::core::completion::Usage;
use crate::core::event::{RunId, RunOutcome};
use crate::core::price::PriceTable;
use crate::mcp::McpServers;
use crate::run::observe::{NoObserver, Observer};

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
