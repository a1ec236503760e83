//! `io.toml`: the configuration file. Parsing is pure (`Config::parse`); finding and
//! reading the file is I/O at the edge (`Config::discover`, `Config::load`), and so
//! is writing the `[web]` table back (`write_web`).
//!
//! Every table rejects unknown keys, every number is range-checked (`check`), and
//! every error names the file, the line, the table and the key and says what is
//! expected (`error`), so a misspelled `blocked_domain` is not a boundary that
//! quietly did not apply. `[web]` is carried whenever present, `search = false` included.

mod check;
mod error;
mod locate;
mod policy;
mod scope;
mod show;
mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::core::contract::{Budget, TaskContract, Verification};
use crate::core::policy::{Policy, Rule};
use crate::core::price::{PriceOverride, PriceTable};
use crate::core::web::WebAccess;
use crate::core::wire::transcript::{CacheTtl, Conversation, ResponsesState};
use crate::core::wire::{Endpoint, Vendor, Wire};
use crate::error::{Error, Result};
pub use policy::{PolicyTable, WebTable, parse_entry};
pub use scope::{Scope, USER_CONFIG_ENV, user_config_path};
pub use show::Setting;
pub use write::write_web;

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
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
    #[serde(rename = "web")]
    pub web_table: Option<WebTable>,
    /// The spec's web declaration, resolved: the stated lists, or the lists
    /// projected from the operator's `[policy]` net rules under `from_policy`.
    #[serde(skip)]
    pub web: Option<WebAccess>,
    /// Prices by model, overriding the built-in table field by field.
    #[serde(default)]
    pub prices: BTreeMap<String, PriceOverride>,
    /// Where the store lives.
    pub store: Option<StoreConfig>,
    /// Console settings.
    #[serde(default)]
    pub console: ConsoleConfig,
    /// The agent roster.
    #[serde(default, rename = "agent")]
    pub agents: Vec<AgentDef>,
    /// Stdio MCP servers.
    #[serde(default)]
    pub mcp: Vec<McpDef>,
    /// `[run]`: how steps reach the vendor (conversation mode, prompt caching).
    pub run: Option<RunConfig>,
    /// `[telemetry]`: OTLP trace export (off unless an endpoint is set here or in
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`).
    pub telemetry: Option<crate::telemetry::TelemetryTable>,
    /// `[policy]` as written (one file's; the layers are in `rules`).
    pub policy: Option<PolicyTable>,
    /// The operator's rules, every file's, layer by layer (`user`, `project`).
    #[serde(skip)]
    pub rules: Vec<Rule>,
    /// The files read, user scope first.
    #[serde(skip)]
    pub scopes: Vec<Scope>,
    /// Why `[web] from_policy` could not project the policy (then `web` carries
    /// no domain lists and nothing may be sent under it).
    #[serde(skip)]
    pub web_error: Option<String>,
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
}

impl ProviderConfig {
    /// The wire `api` / `web_tools` names for this vendor (the spec's when unset), or
    /// an error naming the key and its accepted values; the key of another vendor is
    /// an error naming the table it belongs in.
    pub fn wire(&self, vendor: Vendor) -> std::result::Result<Wire, String> {
        let key = Wire::key(vendor);
        let (mine, other, other_key) = match vendor {
            Vendor::Anthropic => (&self.web_tools, &self.api, "api"),
            Vendor::OpenAi | Vendor::OpenRouter => (&self.api, &self.web_tools, "web_tools"),
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
        match mine {
            Some(value) => Wire::parse(vendor, value),
            None => Ok(Wire::spec(vendor)),
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
    /// `"5m"` (default) or `"1h"`.
    #[serde(default)]
    pub cache_ttl: CacheTtl,
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

/// `[[agent]]`: a sub-agent the model may spawn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentDef {
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
}

/// `[[mcp]]`: a stdio MCP server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpDef {
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

/// A config and the file it came from (`None`: the embedded defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The configuration.
    pub config: Config,
    /// Its file.
    pub path: Option<PathBuf>,
}

impl Config {
    /// Parse `io.toml` text as the project scope; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Config> {
        Config::parse_scope(text, origin, "project")
    }

    /// Parse `io.toml` text whose `[policy]` rules form the layer `layer`.
    pub fn parse_scope(text: &str, origin: &str, layer: &str) -> Result<Config> {
        Config::parse_lenient(text, origin, layer)?.strict()
    }

    /// As `parse_scope`, but a `[web] from_policy` projection that fails is kept
    /// in `web_error` (for the console to show at the field) instead of failing.
    pub(crate) fn parse_lenient(text: &str, origin: &str, layer: &str) -> Result<Config> {
        let mut config: Config =
            toml::from_str(text).map_err(|e| error::describe(&e, text, origin))?;
        let mut problems = check::check(&config);
        if let Some(task) = &config.task {
            if task.verify_file.is_some() != task.verify_contains.is_some() {
                let (set, unset) = if task.verify_file.is_some() {
                    ("verify_file", "verify_contains")
                } else {
                    ("verify_contains", "verify_file")
                };
                problems.push(locate::Problem {
                    path: vec!["task".into(), set.into()],
                    message: format!(
                        "is set without {unset}; expected both verify_file and verify_contains, or neither"
                    ),
                });
            }
        }
        for (vendor, settings) in &config.providers {
            if let Err(e) = settings.wire(*vendor) {
                let key = if settings.api.is_some() {
                    "api"
                } else {
                    "web_tools"
                };
                let prefix = format!("[providers.{vendor}] ");
                problems.push(locate::Problem {
                    path: vec!["providers".into(), vendor.as_str().into(), key.into()],
                    message: e.strip_prefix(prefix.as_str()).unwrap_or(&e).to_string(),
                });
            }
        }
        if let Some(e) = error::first_problem(problems, text, origin) {
            return Err(e);
        }
        if let Err(e) = PriceTable::builtin().with_overrides(&config.prices) {
            return Err(Error::config(format!("{origin}: {e}")));
        }
        if let Some(usd) = config.budget.and_then(|b| b.usd) {
            if usd_micro(usd).is_none() {
                return Err(Error::config(format!(
                    "{origin}: [budget] usd = {usd} is not a positive number of US dollars"
                )));
            }
        }
        config.settle(text, origin, layer)?;
        Ok(config)
    }

    /// Read and parse one file (as the project scope).
    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::config(format!("cannot read config {}: {e}", path.display())))?;
        Config::parse(&text, &path.display().to_string())
    }

    /// Both scopes: the user file (`user_config_path`) and the project file —
    /// the explicit one (which must exist), else `./io.toml` — project over user.
    /// `Loaded::path` is the project file, else the user file.
    pub fn discover(explicit: Option<&Path>) -> Result<Loaded> {
        Config::discover_with(explicit, user_config_path().as_deref())
    }

    /// As `discover`, but a failed `from_policy` projection is left in
    /// `web_error` rather than returned: the console shows it at the field.
    pub fn discover_lenient(explicit: Option<&Path>) -> Result<Loaded> {
        Config::discover_scopes(explicit, user_config_path().as_deref(), false)
    }

    /// The operator's permission rules over the built-in fallback.
    pub fn policy(&self) -> Policy {
        policy::policy_of(&self.rules)
    }

    fn settings(&self, vendor: Vendor) -> ProviderConfig {
        self.providers.get(&vendor).cloned().unwrap_or_default()
    }

    /// Where and how to reach a vendor.
    pub fn endpoint(&self, vendor: Vendor) -> Endpoint {
        let s = self.settings(vendor);
        Endpoint {
            vendor,
            // `parse` has already refused an unknown wire name.
            wire: s.wire(vendor).unwrap_or(Wire::spec(vendor)),
            base_url: s
                .base_url
                .unwrap_or_else(|| vendor.default_base_url().to_string()),
            api_key_env: s
                .api_key_env
                .unwrap_or_else(|| vendor.default_api_key_env().to_string()),
            stream: s.stream.unwrap_or(true),
            responses_state: s.responses_state.unwrap_or_default(),
        }
    }

    /// How long a stream from this vendor may stay silent before the attempt is
    /// a timeout (`idle_timeout_secs`, else `DEFAULT_IDLE_TIMEOUT`).
    pub fn idle_timeout(&self, vendor: Vendor) -> std::time::Duration {
        self.settings(vendor).idle_timeout_secs.map_or(
            crate::provider::DEFAULT_IDLE_TIMEOUT,
            std::time::Duration::from_secs,
        )
    }

    /// The model for a vendor.
    pub fn model(&self, vendor: Vendor) -> String {
        self.settings(vendor)
            .model
            .unwrap_or_else(|| vendor.default_model().to_string())
    }

    /// The output token cap for a vendor.
    pub fn max_tokens(&self, vendor: Vendor) -> u32 {
        self.settings(vendor).max_tokens.unwrap_or(4096)
    }

    /// The response size cap for a vendor.
    pub fn max_response_bytes(&self, vendor: Vendor) -> u64 {
        self.settings(vendor)
            .max_response_bytes
            .unwrap_or(crate::provider::DEFAULT_MAX_RESPONSE_BYTES)
    }

    /// The per-request deadline for a vendor.
    pub fn request_timeout(&self, vendor: Vendor) -> std::time::Duration {
        self.settings(vendor).request_timeout_secs.map_or(
            crate::provider::DEFAULT_REQUEST_TIMEOUT,
            std::time::Duration::from_secs,
        )
    }

    /// The built-in table with `[prices]` applied (checked when parsed).
    pub fn price_table(&self) -> PriceTable {
        let builtin = PriceTable::builtin();
        builtin
            .clone()
            .with_overrides(&self.prices)
            .unwrap_or(builtin)
    }

    /// The store file: `[store] path` relative to the config file's directory;
    /// else the platform data directory.
    pub fn store_path(&self, config_file: Option<&Path>) -> PathBuf {
        if let Some(path) = self.store.as_ref().and_then(|s| s.path.clone()) {
            if path.is_absolute() {
                return path;
            }
            let base = config_file
                .and_then(Path::parent)
                .map(Path::to_path_buf)
                .unwrap_or_default();
            return base.join(path);
        }
        dirs::data_dir().map_or_else(
            || PathBuf::from("io-harness.db"),
            |d| d.join("io-harness").join("runs.db"),
        )
    }

    /// The contract `[task]` describes, with `[web]` and `[budget]` applied.
    pub fn task_contract(&self) -> TaskContract {
        let task = self.task.clone().unwrap_or_default();
        let verification = match (task.verify_file, task.verify_contains) {
            (Some(file), Some(needle)) => Verification::WorkspaceFileContains { file, needle },
            _ => Verification::None,
        };
        let mut contract = TaskContract::workspace(
            task.goal.unwrap_or_default(),
            task.workspace.unwrap_or_else(|| PathBuf::from(".")),
            verification,
        );
        self.apply_to(&mut contract);
        contract
    }

    /// Put `[web]` (whenever present), `[budget]` and `[run]` values on a contract.
    pub fn apply_to(&self, contract: &mut TaskContract) {
        if let Some(run) = self.run {
            contract.conversation = run.conversation;
            contract.cache = run.cache.then_some(run.cache_ttl);
        }
        if let Some(web) = &self.web {
            contract.web = Some(web.clone());
        }
        if let Some(b) = self.budget {
            let d = contract.budget;
            contract.budget = Budget {
                steps: b.steps.unwrap_or(d.steps),
                seconds: b.seconds.unwrap_or(d.seconds),
                tokens: b.tokens.unwrap_or(d.tokens),
                usd_micro: b.usd.and_then(usd_micro).or(d.usd_micro),
            };
        }
    }
}

/// Dollars as millionths, for a positive finite amount.
pub fn usd_micro(usd: f64) -> Option<u64> {
    (usd.is_finite() && usd > 0.0 && usd < 1e9).then(|| (usd * 1e6).round() as u64)
}
