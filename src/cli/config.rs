//! `io-harness config`: the configuration in effect — the user and the project
//! io.toml merged, the policy's rules by layer, the built-in fallback, and a
//! `from_policy` projection — one value or rule a line ending with the
//! `PATH:LINE` it came from; `--json` prints the same as one array; `--demo`
//! adds what the demo sets where io.toml is silent, its origin `--demo`. With
//! no io.toml found, it first says (on stderr) where it looked.

use std::path::PathBuf;

use io_harness::{Config, Error, Result};

/// Where io.toml was looked for when none was found: `./io.toml` in the
/// working folder and the user file (or why there is none).
fn nowhere() -> String {
    let here = std::env::current_dir()
        .map(|d| d.join("io.toml").display().to_string())
        .unwrap_or_else(|_| "./io.toml".to_string());
    let user = match io_harness::config::user_config_path() {
        Some(p) => p.display().to_string(),
        None => format!("no user file (`{}` is empty)", io_harness::USER_CONFIG_ENV),
    };
    format!(
        "no io.toml found: looked for {here} and {user}; every value below is built in (`--config F` names a file)"
    )
}

/// Print the listing; with `demo`, what the demo sets where io.toml is silent.
pub fn show(config_path: Option<PathBuf>, json: bool, demo: bool) -> Result<()> {
    let loaded = Config::discover(config_path.as_deref())?;
    if loaded.path.is_none() {
        super::out::note(&nowhere());
    }
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
