//! Rows the store returns, mapped to domain types at the boundary. Column names in
//! the public tables match these field names.

use serde::{Deserialize, Serialize};

use crate::core::completion::Usage;
use crate::core::contract::TaskContract;
use crate::core::figures::RunFigures;
use crate::core::id::{GroupId, RunId, SessionId};
use crate::core::outcome::Outcome;
use crate::core::plan::RunPlan;
use crate::core::vendor::Vendor;

/// The version of the checkpoint JSON; a checkpoint of another format is not resumed.
/// 8: a transcript's exchanges are kept beside it, one row a step (`exchanges`).
pub const CHECKPOINT_FORMAT: u32 = 8;

/// What `begin_run` records about a new run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewRun {
    /// The goal.
    pub goal: String,
    /// The vendor.
    pub provider: Vendor,
    /// The model.
    pub model: String,
    /// The web declaration as JSON, when the contract had one.
    pub web_json: Option<String>,
    /// What each MCP server stated it may reach, as JSON (`{"server": ["host"]}`).
    pub mcp_declared_json: Option<String>,
    /// The run that spawned this one.
    pub parent_run_id: Option<RunId>,
    /// The session this run is a turn of.
    pub session_id: Option<SessionId>,
    /// The comparison (run group) this run is one column of.
    pub group_id: Option<GroupId>,
    /// What the launch resolved for it (`core::plan`), kept without secrets.
    pub plan: Option<RunPlan>,
    /// The roster agent a spawned child runs as.
    pub agent: Option<String>,
}

/// One row of `runs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    /// Id.
    pub run_id: RunId,
    /// RFC 3339.
    pub started_at: String,
    /// RFC 3339; `None` while running (or killed).
    pub finished_at: Option<String>,
    /// Goal.
    pub goal: String,
    /// Vendor.
    pub provider: Vendor,
    /// Model.
    pub model: String,
    /// How it ended; `None` while running.
    pub outcome: Option<Outcome>,
    /// Free text detail of the outcome (which budget, why it failed).
    pub outcome_detail: Option<String>,
    /// Parent run, for a spawned child.
    pub parent_run_id: Option<RunId>,
    /// Session, for a session turn.
    pub session_id: Option<SessionId>,
    /// The comparison (run group) it is one column of.
    #[serde(default)]
    pub group_id: Option<GroupId>,
    /// The roster agent a spawned child ran as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Citations recorded for this run and its spawned children, as `compare`
    /// counts them: `citations` in JSON, as `compare --json` names it
    /// (`runs --json` also keeps the old name, `citation_count`, for scripts).
    #[serde(rename = "citations", alias = "citation_count")]
    pub citation_count: u64,
    /// Who started it: the operator's user name (`None` before a release
    /// recorded it).
    #[serde(default)]
    pub user: Option<String>,
    /// The host it was started on.
    #[serde(default)]
    pub host: Option<String>,
    /// Its figures (tokens, searches, cost; its children's requests included),
    /// where the reader priced it (`Store::priced_runs`, `Store::figures`); given
    /// as JSON under the same names `compare --json` uses.
    #[serde(flatten, default)]
    pub figures: Option<RunFigures>,
}

/// What `record_provider_call` writes: one completion, a paused one included.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProviderCall {
    /// The vendor that answered.
    pub provider: Vendor,
    /// The model that answered.
    pub model: String,
    /// Counts, where reported.
    pub usage: Option<Usage>,
    /// `end_turn`, `pause_turn`, …
    pub stop_reason: String,
    /// Request to response, including retries.
    pub latency_ms: u64,
    /// The vendor's request id.
    pub request_id: Option<String>,
    /// Where the request went: scheme, host and port, no credentials.
    pub endpoint: Option<String>,
    /// The vendor's own id for the response (the body's `id`).
    pub response_id: Option<String>,
    /// The vendor's own stop reason, as it spelled it.
    pub finish_reason: Option<String>,
    /// What the answer said past the per-step caps, counted not recorded.
    pub cut: crate::core::completion::Cut,
}

/// One row of `provider_calls`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderCallRow {
    /// Run.
    pub run_id: RunId,
    /// Step.
    pub step: u32,
    /// Vendor.
    pub provider: Vendor,
    /// Model.
    pub model: String,
    /// Counts; `None` where the vendor sent none.
    pub usage: Option<Usage>,
    /// Stop reason.
    pub stop_reason: String,
    /// Latency.
    pub latency_ms: u64,
    /// Request id.
    pub request_id: Option<String>,
    /// How many times this step's request was sent: 1, or 2+ when a resumed run
    /// re-sent a request whose answer the killed process never recorded.
    pub step_attempt: u32,
    /// Where the request went (scheme, host, port); `None` when recorded by an
    /// older release.
    #[serde(default)]
    pub endpoint: Option<String>,
    /// The vendor's own id for the response; `None` when not given or not recorded.
    #[serde(default)]
    pub response_id: Option<String>,
    /// The vendor's own stop reason; `None` when not recorded.
    #[serde(default)]
    pub finish_reason: Option<String>,
    /// What the answer said past the per-step caps (all 0 before 0016).
    #[serde(
        default,
        skip_serializing_if = "crate::core::completion::Cut::is_empty"
    )]
    pub cut: crate::core::completion::Cut,
}

/// One row of `citations`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitationRow {
    /// Run.
    pub run_id: RunId,
    /// Step.
    pub step: u32,
    /// The source URL.
    pub url: String,
    /// NULL where the vendor said nothing.
    pub title: Option<String>,
    /// NULL where the vendor said nothing.
    pub cited_text: Option<String>,
}

/// One row of `server_tool_calls`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerToolCallRow {
    /// Run.
    pub run_id: RunId,
    /// Step.
    pub step: u32,
    /// Vendor.
    pub provider: Vendor,
    /// Tool.
    pub tool: String,
    /// NULL on success; the vendor's code on failure.
    pub error: Option<String>,
    /// Query or URL, where reported.
    pub input: Option<String>,
}

/// One row of `steps`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepRow {
    /// Run.
    pub run_id: RunId,
    /// Step, from 1.
    pub step: u32,
    /// The answer text of the step's completion.
    pub text: String,
    /// Observations this step produced for the next turn.
    pub observations: Vec<String>,
}

/// What a killed run needs to be resumed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// `CHECKPOINT_FORMAT`.
    pub format: u32,
    /// The last completed step.
    pub step: u32,
    /// Every observation so far.
    pub observations: Vec<String>,
    /// Tokens used so far.
    pub tokens_used: u64,
    /// Consecutive pause continuations at the checkpoint.
    pub continuations: u32,
    /// The contract being run.
    pub contract: TaskContract,
}

/// A search over citations across runs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CitationQuery {
    /// Host or host suffix (`docs.rs` matches `https://docs.rs/...` and subdomains).
    pub domain: Option<String>,
    /// Substring of URL, title or cited text, case-insensitive.
    pub text: Option<String>,
    /// At most this many rows, newest runs first.
    pub limit: Option<u32>,
}
