//! io.toml as written: one serde type per table, every table refusing unknown
//! keys. Nothing here is resolved — the scopes are merged, the policy read and
//! the declaration projected in `Config` — and nothing below `config` sees these
//! types: the run, MCP and telemetry are handed their own (`AgentDef`, `McpDef`,
//! `telemetry::settings::Stated`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use super::policy::{PolicyTable, WebTable};
use crate::core::endpoint::{ContextSize, Recency, SearchSettings};
use crate::core::price::PriceOverride;
use crate::core::transcript::{CacheTtl, Conversation, ResponsesState};
use crate::core::vendor::{Vendor, Wire};

/// One file that was read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// `user` or `project`.
    pub layer: String,
    /// The file.
    pub path: PathBuf,
    /// Its text, for `io-harness config` to point into.
    pub text: String,
}

/// One io.toml file, as written.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct File {
    /// The vendor `run` and the console use unless told otherwise.
    #[serde(default)]
    pub provider: Vendor,
    /// One table per vendor.
    #[serde(default)]
    pub providers: BTreeMap<Vendor, ProviderConfig>,
    /// Seeds `run` and the console.
    pub task: Option<TaskConfig>,
    /// Step, time and token limits.
    pub budget: Option<BudgetConfig>,
    /// `[web]` as written (`from_policy` included).
    pub web: Option<WebTable>,
    /// Prices by model, overriding the built-in table field by field.
    #[serde(default)]
    pub prices: BTreeMap<String, PriceOverride>,
    /// Where the store lives.
    pub store: Option<StoreConfig>,
    /// Console settings.
    #[serde(default)]
    pub console: ConsoleConfig,
    /// The agent roster.
    #[serde(default)]
    pub agent: Vec<AgentTable>,
    /// Stdio MCP servers.
    #[serde(default)]
    pub mcp: Vec<McpTable>,
    /// `[run]`: how steps reach the vendor (conversation mode, prompt caching).
    pub run: Option<RunConfig>,
    /// `[telemetry]`: OTLP trace export.
    pub telemetry: Option<TelemetryTable>,
    /// `[policy]` as written.
    pub policy: Option<PolicyTable>,
}

/// `[providers.NAME]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// The model.
    pub model: Option<String>,
    /// The base URL (a loopback stub in tests and demos).
    pub base_url: Option<String>,
    /// The variable holding the key; never the key.
    pub api_key_env: Option<String>,
    /// Output token cap per request.
    pub max_tokens: Option<u32>,
    /// The largest response body read, in bytes.
    pub max_response_bytes: Option<u64>,
    /// Seconds one request may take, connect to last byte.
    pub request_timeout_secs: Option<u64>,
    /// `[providers.openai]` `"chat"` (default) | `"responses"`;
    /// `[providers.openrouter]` `"plugin"` (default) | `"server-tools"`.
    pub api: Option<String>,
    /// `[providers.anthropic]` `"2025"` (default) | `"2026"`: the web tool versions.
    pub web_tools: Option<String>,
    /// Ask for server-sent events (default true); `false` waits for whole bodies.
    pub stream: Option<bool>,
    /// Seconds a stream may stay silent (pings count) before the attempt is a timeout.
    pub idle_timeout_secs: Option<u64>,
    /// `[providers.openai]` `"stateless"` (default) | `"server"`: where a Responses
    /// transcript is kept.
    pub responses_state: Option<ResponsesState>,
    /// `[providers.perplexity]`, Sonar only: let Perplexity's classifier decide
    /// whether a question needs a search (`enable_search_classifier`).
    pub search_classifier: Option<bool>,
    /// `[providers.perplexity]`: only pages from the last `hour` … `year`.
    pub search_recency_filter: Option<Recency>,
    /// `[providers.perplexity]`: `"low"`, `"medium"` or `"high"`.
    pub search_context_size: Option<ContextSize>,
}

impl ProviderConfig {
    /// The wire `api` / `web_tools` names for this vendor (the spec's when unset), or
    /// an error naming the key and its accepted values; the key of another vendor is
    /// an error naming the table it belongs in.
    pub fn wire(&self, vendor: Vendor) -> std::result::Result<Wire, String> {
        let key = Wire::key(vendor);
        let (mine, other, other_key) = match vendor {
            Vendor::Anthropic => (&self.web_tools, &self.api, "api"),
            _ => (&self.api, &self.web_tools, "web_tools"),
        };
        if self.responses_state.is_some() && vendor != Vendor::OpenAi {
            return Err(format!(
                "[providers.{vendor}] has no key responses_state (it belongs in \
                 [providers.openai], for api = \"responses\")"
            ));
        }
        if other.is_some() {
            let owners = match other_key {
                "api" => "[providers.openai] and [providers.openrouter]",
                _ => "[providers.anthropic]",
            };
            return Err(format!(
                "[providers.{vendor}] has no key {other_key} (it belongs in {owners}); this \
                 table picks its wire with {key}"
            ));
        }
        let wire = match mine {
            Some(value) => Wire::parse(vendor, value)?,
            None => Wire::spec(vendor),
        };
        self.search_keys(vendor, wire)?;
        Ok(wire)
    }

    /// Perplexity's own search keys: in its table only, the classifier on Sonar
    /// only (the Agent API searches only through its web_search tool).
    fn search_keys(&self, vendor: Vendor, wire: Wire) -> std::result::Result<(), String> {
        let stated = [
            ("search_classifier", self.search_classifier.is_some()),
            (
                "search_recency_filter",
                self.search_recency_filter.is_some(),
            ),
            ("search_context_size", self.search_context_size.is_some()),
        ];
        if let Some((key, _)) = stated.iter().find(|(_, set)| *set) {
            if vendor != Vendor::Perplexity {
                return Err(format!(
                    "[providers.{vendor}] has no key {key} (it belongs in [providers.perplexity])"
                ));
            }
        }
        if self.search_classifier == Some(true) && wire != Wire::PerplexitySonar {
            return Err(format!(
                "[providers.perplexity] search_classifier = true applies to {}: {} searches \
                 only when the declaration offers its web_search tool; remove it, or set \
                 api = \"sonar\"",
                Wire::PerplexitySonar.choice(),
                wire.name()
            ));
        }
        Ok(())
    }

    /// The vendor's own search settings this table states.
    pub fn search_settings(&self) -> SearchSettings {
        SearchSettings {
            classifier: self.search_classifier.unwrap_or(false),
            recency: self.search_recency_filter,
            context_size: self.search_context_size,
        }
    }
}

/// `[run]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// `"flattened"` (the spec's, the default) or `"transcript"`.
    #[serde(default)]
    pub conversation: Conversation,
    /// Ask the vendor to cache the request's prefix (default false).
    #[serde(default)]
    pub cache: bool,
    /// `"5m"` (default) or `"1h"`; only with `cache = true` (`None`: not stated).
    #[serde(default)]
    pub cache_ttl: Option<CacheTtl>,
}

/// `[task]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskConfig {
    /// The goal.
    pub goal: Option<String>,
    /// The workspace directory.
    pub workspace: Option<PathBuf>,
    /// With `verify_contains`: the file that must contain it.
    pub verify_file: Option<PathBuf>,
    /// With `verify_file`: the text it must contain.
    pub verify_contains: Option<String>,
}

/// `[budget]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetConfig {
    /// Requests.
    pub steps: Option<u32>,
    /// Wall-clock seconds.
    pub seconds: Option<u64>,
    /// Input (cached or not) plus output tokens.
    pub tokens: Option<u64>,
    /// US dollars over every request, children included.
    pub usd: Option<f64>,
}

/// `[store]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreConfig {
    /// The SQLite file, relative to the config file's directory.
    pub path: Option<PathBuf>,
    /// Where the store is: a SQLite file's path (as `path`), or a PostgreSQL
    /// URL (`postgres://USER@HOST:PORT/DATABASE`, the password best left to
    /// `PGPASSWORD` or `~/.pgpass`) for a team's shared store.
    pub url: Option<String>,
}

/// `[console]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsoleConfig {
    /// Theme name (`dark`, `light`, `high-contrast`, or a file in `themes/`).
    pub theme: Option<String>,
    /// Key overrides: action name → key (`run = "ctrl-r"`).
    #[serde(default)]
    pub keys: BTreeMap<String, String>,
}

/// `[[agent]]` as written: a sub-agent the model may spawn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentTable {
    /// The name `spawn_agent` takes.
    pub name: String,
    /// What it is for, shown to the model.
    #[serde(default)]
    pub description: String,
    /// Put before its task.
    #[serde(default)]
    pub instructions: String,
    /// Local tools it may use (all when empty).
    #[serde(default)]
    pub tools: Vec<String>,
    /// Its model, when not the parent's.
    pub model: Option<String>,
    /// Its own web declaration (`web = { search = false }`): the same keys as
    /// `[web]`, narrowing its parent's, never widening it.
    pub web: Option<AgentWebTable>,
}

/// `[[agent]] web` as written: the keys of `[web]` but `from_policy`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentWebTable {
    /// Let the provider run web searches for this agent.
    #[serde(default)]
    pub search: bool,
    /// Let the provider fetch a URL for this agent.
    #[serde(default)]
    pub fetch: bool,
    /// Its cap on provider-executed requests.
    pub max_uses: Option<u32>,
    /// Hosts it may reach (inside its parent's).
    #[serde(default)]
    pub allowed_domains: Vec<String>,
    /// Hosts it may not reach (added to its parent's).
    #[serde(default)]
    pub blocked_domains: Vec<String>,
    /// Where its searches are localised, when not its parent's location.
    pub location: Option<crate::core::web::Location>,
    /// Let it search X's posts (only where its parent does).
    #[serde(default)]
    pub x_search: bool,
    /// The X accounts it searches or leaves out (inside its parent's).
    pub x_handles: Option<crate::core::web::XHandles>,
    /// The days it searches X posts between (inside its parent's).
    pub x_dates: Option<crate::core::web::DateRange>,
}

impl AgentWebTable {
    /// The agent's own declaration, as stated.
    pub fn stated(&self) -> crate::core::web::WebAccess {
        crate::core::web::WebAccess {
            search: self.search,
            fetch: self.fetch,
            max_uses: self.max_uses,
            allowed_domains: self.allowed_domains.clone(),
            blocked_domains: self.blocked_domains.clone(),
            location: self.location.clone(),
            x_search: self.x_search,
            x_handles: self.x_handles.clone().unwrap_or_default(),
            x_dates: self.x_dates.clone(),
        }
    }
}

/// `[[mcp]]` as written: a stdio MCP server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpTable {
    /// Its name (tools appear as `mcp__<name>__<tool>`).
    pub name: String,
    /// The program to start.
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Hosts it states it may reach: recorded, not enforced here.
    #[serde(default)]
    pub net: Vec<String>,
}

/// `[telemetry]` as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetryTable {
    /// The collector's OTLP/HTTP base URL (`http://localhost:4318`), or with
    /// `protocol = "grpc"` its gRPC URL (`http://localhost:4317`); unset: nothing
    /// is exported unless `OTEL_EXPORTER_OTLP_ENDPOINT` says where.
    pub otlp_endpoint: Option<String>,
    /// `"http/protobuf"` (the default) or `"grpc"`.
    pub protocol: Option<String>,
    /// Headers sent with every export (an API key for a hosted backend).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Put message text, search queries and cited text on spans (default false).
    pub capture_content: Option<bool>,
    /// `service.name` (default `io-harness`).
    pub service_name: Option<String>,
}

impl TelemetryTable {
    /// What the table states, for telemetry to resolve.
    pub fn stated(&self) -> crate::telemetry::settings::Stated {
        crate::telemetry::settings::Stated {
            otlp_endpoint: self.otlp_endpoint.clone(),
            protocol: self.protocol.clone(),
            headers: self.headers.clone(),
            capture_content: self.capture_content,
            service_name: self.service_name.clone(),
        }
    }
}

impl From<&AgentTable> for crate::run::AgentDef {
    fn from(t: &AgentTable) -> Self {
        crate::run::AgentDef {
            name: t.name.clone(),
            description: t.description.clone(),
            instructions: t.instructions.clone(),
            tools: t.tools.clone(),
            model: t.model.clone(),
            web: t.web.as_ref().map(AgentWebTable::stated),
        }
    }
}

impl From<&McpTable> for crate::mcp::McpDef {
    fn from(t: &McpTable) -> Self {
        crate::mcp::McpDef {
            name: t.name.clone(),
            command: t.command.clone(),
            args: t.args.clone(),
            env: t.env.clone(),
            net: t.net.clone(),
        }
    }
}
