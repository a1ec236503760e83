//! Before the first frame: decide live or offline demo, start the built-in stub
//! vendor when it is the demo, and seed the state from io.toml (goal, provider,
//! models, the `[web]` declaration, theme, key overrides).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::Loaded;
use crate::console::state::State;
use crate::console::state::form::Form;
use crate::console::state::keys::Keymap;
use crate::console::state::theme::Theme;
use crate::core::error::Result;
use crate::launch::{Launch, Plan};

/// Where the console's runs go: the launch every run and preview goes through,
/// and the status line's words for it.
pub struct Connection {
    /// io.toml resolved, the demo's stub started when it is the demo.
    pub launch: Launch,
    /// The status line's description of it.
    pub mode: String,
}

/// Live when the chosen provider's key is set and `--demo` was not given; else the
/// built-in loopback stub vendor with its demo script.
pub async fn connect(loaded: &Loaded, demo: bool) -> Result<Connection> {
    let config = &loaded.config;
    let chosen = config.endpoint(config.provider);
    let key_set = std::env::var(&chosen.api_key_env).is_ok_and(|k| !k.trim().is_empty());
    if !demo && key_set {
        let mode = format!(
            "live: {} at {} · key from {}",
            config.provider,
            crate::provider::scrub::display_url(&chosen.base_url),
            chosen.api_key_env
        );
        return Ok(Connection {
            launch: Launch::resolve(loaded, false),
            mode,
        });
    }
    let mut launch = Launch::resolve(loaded, true);
    launch.start_stub().await?;
    let why = if demo {
        "--demo".to_string()
    } else {
        format!("{} is not set", chosen.api_key_env)
    };
    let addr = launch
        .stub_addr()
        .map_or_else(|| "loopback".to_string(), |a| a.to_string());
    // What the demo turns on where io.toml is silent is said, not done silently.
    let note = launch
        .plan()
        .demo_mode_note()
        .map(|n| format!("; {n}"))
        .unwrap_or_default();
    let mode = format!(
        "offline demo: built-in stub vendor on {addr} ({why}); nothing leaves this machine{note}"
    );
    Ok(Connection { launch, mode })
}

/// The first state: the form seeded from the plan's task and io.toml, the theme
/// and keys io.toml names; `mode` is the status line's description of where
/// runs go.
pub fn initial_state(loaded: &Loaded, plan: &Arc<Plan>, mode: &str) -> Result<State> {
    let config = &loaded.config;
    let contract = plan.contract(|_| {});
    let mut form = Form::new(&contract, plan.default_vendor, plan.clone());
    form.agents = config.agents.clone();
    form.mcp = config
        .mcp
        .iter()
        .map(|m| (m.name.clone(), m.net.clone()))
        .collect();
    form.rules = config.rules.clone();
    form.from_policy = config.web_from_policy();
    form.provenance = config.web_provenance();
    form.web_error = config.web_error.clone();
    let keys = Keymap::new(&config.console.keys)?;
    let name = config
        .console
        .theme
        .clone()
        .unwrap_or_else(|| "dark".to_string());
    let theme = Theme::load(&name, &themes_dir(loaded.path.as_deref()))?;
    Ok(State::new(
        form,
        keys,
        (name, theme),
        plan.prices.clone(),
        mode.to_string(),
    ))
}

/// `themes/` beside io.toml, else in the working directory.
pub fn themes_dir(config_file: Option<&Path>) -> PathBuf {
    config_file
        .and_then(Path::parent)
        .map_or_else(|| PathBuf::from("themes"), |d| d.join("themes"))
}
