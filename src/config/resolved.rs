//! `Config`: the configuration a command works from — built from the scopes'
//! `File`s (`parse`, `scope`), never deserialized itself — and what it says per
//! vendor (endpoint, model, output cap, limits), the task it describes, the
//! store's file and the prices. Below the parsing and listing files, which
//! extend it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::file::{
    BudgetConfig, ConsoleConfig, File, ProviderConfig, RunConfig, Scope, StoreConfig, TaskConfig,
    TelemetryTable,
};
use super::policy::{PolicyTable, WebTable};
use crate::core::contract::{Budget, TaskContract, Verification};
use crate::core::endpoint::Endpoint;
use crate::core::policy::{Policy, Rule};
use crate::core::price::{PriceOverride, PriceTable};
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;
use crate::mcp::McpDef;
use crate::run::AgentDef;
use crate::telemetry::settings::Stated;

/// The configuration a command works from: every scope's io.toml merged
/// (project over user), its `[policy]` read layer by layer, and the `[web]`
/// declaration resolved. Built from `File`s, never deserialized itself; the run,
/// MCP and telemetry get their parts as their own types.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// The vendor `run` and the console use unless told otherwise.
    pub provider: Vendor,
    /// One table per vendor.
    pub providers: BTreeMap<Vendor, ProviderConfig>,
    /// Seeds `run` and the console.
    pub task: Option<TaskConfig>,
    /// Step, time and token limits.
    pub budget: Option<BudgetConfig>,
    /// `[web]` as written (`from_policy` included).
    pub web_table: Option<WebTable>,
    /// The spec's web declaration, resolved: the stated lists, or the lists
    /// projected from the operator's `[policy]` net rules under `from_policy`.
    pub web: Option<WebAccess>,
    /// Prices by model, overriding the built-in table field by field.
    pub prices: BTreeMap<String, PriceOverride>,
    /// Where the store lives.
    pub store: Option<StoreConfig>,
    /// Console settings.
    pub console: ConsoleConfig,
    /// The agent roster.
    pub agents: Vec<AgentDef>,
    /// Stdio MCP servers.
    pub mcp: Vec<McpDef>,
    /// `[run]`: how steps reach the vendor (conversation mode, prompt caching).
    pub run: Option<RunConfig>,
    /// `[telemetry]` as stated (off unless an endpoint is set here or in
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`; the variables are read when it is resolved).
    pub telemetry: Option<Stated>,
    /// `[policy]` as written (one file's; the layers are in `rules`).
    pub policy: Option<PolicyTable>,
    /// The operator's rules, every file's, layer by layer (`user`, `project`).
    pub rules: Vec<Rule>,
    /// The files read, user scope first.
    pub scopes: Vec<Scope>,
    /// Why `[web] from_policy` could not project the policy (then `web` carries
    /// no domain lists and nothing may be sent under it).
    pub web_error: Option<String>,
}

/// A config and the file it came from (`None`: the embedded defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The configuration.
    pub config: Config,
    /// Its file.
    pub path: Option<PathBuf>,
}

impl From<File> for Config {
    fn from(f: File) -> Config {
        Config {
            provider: f.provider,
            providers: f.providers,
            task: f.task,
            budget: f.budget,
            web_table: f.web,
            web: None,
            prices: f.prices,
            store: f.store,
            console: f.console,
            agents: f.agent.iter().map(AgentDef::from).collect(),
            mcp: f.mcp.iter().map(McpDef::from).collect(),
            run: f.run,
            telemetry: f.telemetry.as_ref().map(TelemetryTable::stated),
            policy: f.policy,
            rules: Vec::new(),
            scopes: Vec::new(),
            web_error: None,
        }
    }
}

impl Config {
    /// The operator's permission rules over the built-in fallback.
    pub fn policy(&self) -> Policy {
        super::policy::policy_of(&self.rules)
    }

    fn settings(&self, vendor: Vendor) -> ProviderConfig {
        self.providers.get(&vendor).cloned().unwrap_or_default()
    }

    /// Where and how to reach a vendor.
    pub fn endpoint(&self, vendor: Vendor) -> Endpoint {
        let s = self.settings(vendor);
        // `parse` has already refused an unknown wire name.
        let wire = s.wire(vendor).unwrap_or(Wire::spec(vendor));
        let search = s.search_settings();
        Endpoint {
            vendor,
            wire,
            base_url: s
                .base_url
                .unwrap_or_else(|| vendor.default_base_url().to_string()),
            api_key_env: s
                .api_key_env
                .unwrap_or_else(|| vendor.default_api_key_env().to_string()),
            stream: s.stream.unwrap_or(true) && wire.capabilities().streams,
            responses_state: s.responses_state.unwrap_or_default(),
            search,
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

    /// The model for a vendor (its wire's default where io.toml names none).
    pub fn model(&self, vendor: Vendor) -> String {
        let s = self.settings(vendor);
        let wire = s.wire(vendor).unwrap_or(Wire::spec(vendor));
        s.model.unwrap_or_else(|| wire.default_model().to_string())
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

    /// The store: `[store] url` when it is a PostgreSQL URL (as given); else
    /// the file `[store] url` or `path` names, relative to the config file's
    /// directory; else the platform data directory's `runs.db`.
    pub fn store_path(&self, config_file: Option<&Path>) -> PathBuf {
        let url = self.store.as_ref().and_then(|s| s.url.clone());
        if let Some(url) = url.as_deref().filter(|u| crate::core::location::is_url(u)) {
            return PathBuf::from(url);
        }
        let path = url
            .map(PathBuf::from)
            .or_else(|| self.store.as_ref().and_then(|s| s.path.clone()));
        if let Some(path) = path {
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
            contract.cache = run.cache.then(|| run.cache_ttl.unwrap_or_default());
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

/// Dollars as millionths, for a positive finite amount under a billion that
/// does not round to nothing.
pub fn usd_micro(usd: f64) -> Option<u64> {
    (usd.is_finite() && usd > 0.0 && usd < 1e9)
        .then(|| (usd * 1e6).round() as u64)
        .filter(|micro| *micro > 0)
}
