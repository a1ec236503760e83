//! `io-harness config`: the configuration in effect — the user and the project
//! io.toml merged, the policy's rules by layer, the built-in fallback, and a
//! `from_policy` projection — one value or rule a line ending with the
//! `PATH:LINE` it came from; `--json` prints the same as one array; `--demo`
//! adds what the demo sets where io.toml is silent, its origin `--demo`.

use std::path::PathBuf;

use io_harness::{Config, Error, Result};

/// Print the listing; with `demo`, what the demo sets where io.toml is silent.
pub fn show(config_path: Option<PathBuf>, json: bool, demo: bool) -> Result<()> {
    let loaded = Config::discover(config_path.as_deref())?;
    let mut listing = loaded.config.listing();
    if demo {
        let plan = io_harness::launch::Plan::of(&loaded.config, true);
        listing.extend(plan.demo_settings().into_iter().map(|(key, value, why)| {
            io_harness::config::Setting {
                key,
                value,
                origin: "--demo".to_string(),
                note: Some(why.to_string()),
            }
        }));
    }
    let telemetry = io_harness::telemetry::resolved(loaded.config.telemetry.as_ref())?;
    listing.extend(io_harness::config::Setting::telemetry(&telemetry));
    if json {
        let text = serde_json::to_string_pretty(&listing)
            .map_err(|e| Error::export("the listing as JSON", e))?;
        return super::out::json(&text);
    }
    let mut text = String::new();
    for setting in &listing {
        text.push_str(&format!("{setting}\n"));
    }
    super::out::print(&text)
}
