//! Reading io.toml: one file's text parsed into a `File` and checked (every
//! problem named with its `PATH:LINE`), its `[policy]` read as a layer, and the
//! declaration resolved; finding and reading the files is I/O at the edge
//! (`load`, `discover`).

use std::path::Path;

use super::file::File;
use super::resolved::{Config, Loaded, usd_micro};
use super::scope::user_config_path;
use super::{agents, error, locate, ranges};
use crate::core::error::{Error, Result};
use crate::core::price::PriceTable;

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
        let file: File = toml::from_str(text).map_err(|e| error::describe(&e, text, origin))?;
        let mut config = Config::from(file);
        let mut problems = ranges::check(&config);
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
        // With a `[web]` of its own, a file's agents are checked against it here,
        // where their lines are known; without, once the scopes are merged.
        if config.web_table.is_some() {
            if let Some(e) = error::first_problem(agents::widening(&config), text, origin) {
                return Err(e);
            }
        }
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
}
