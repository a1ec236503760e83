//! Before the first frame: decide live or offline demo, start the built-in stub
//! vendor when it is the demo, and seed the state from io.toml (goal, provider,
//! models, the `[web]` declaration, theme, key overrides).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config::Loaded;
use crate::console::state::State;
use crate::console::state::form::Form;
use crate::console::state::theme::Theme;
use crate::console::update::keys::Keymap;
use crate::core::wire::{Endpoint, Vendor};
use crate::error::Result;
use crate::stub::StubHandle;
use crate::stub::demo::{demo_defaults, demo_stub};

/// Where the console's runs go.
pub struct Connection {
    /// Each vendor's endpoint.
    pub endpoints: BTreeMap<Vendor, Endpoint>,
    /// The built-in stub, when it is the demo.
    pub stub: Option<StubHandle>,
    /// The status line's description of it.
    pub mode: String,
}

/// Live when the chosen provider's key is set and `--demo` was not given; else the
/// built-in loopback stub vendor with its demo script.
pub async fn connect(loaded: &Loaded, demo: bool) -> Result<Connection> {
    let config = &loaded.config;
    let mut endpoints: BTreeMap<Vendor, Endpoint> = Vendor::ALL
        .iter()
        .map(|&v| (v, config.endpoint(v)))
        .collect();
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
            endpoints,
            stub: None,
            mode,
        });
    }
    let stub = demo_stub().await?;
    for (v, e) in endpoints.iter_mut() {
        e.base_url = stub.base_url(*v);
    }
    let why = if demo {
        "--demo".to_string()
    } else {
        format!("{} is not set", chosen.api_key_env)
    };
    let mode = format!(
        "offline demo: built-in stub vendor on {} ({why}); nothing leaves this machine",
        stub.addr()
    );
    Ok(Connection {
        endpoints,
        stub: Some(stub),
        mode,
    })
}

/// The first state: the form seeded from io.toml, the theme and keys it names.
pub fn initial_state(loaded: &Loaded, connection: &Connection, demo: bool) -> Result<State> {
    let config = &loaded.config;
    let mut contract = config.task_contract();
    if demo {
        demo_defaults(config, &mut contract);
    }
    let models = Vendor::ALL.iter().map(|&v| (v, config.model(v))).collect();
    let max_tokens = Vendor::ALL
        .iter()
        .map(|&v| (v, config.max_tokens(v)))
        .collect();
    let mut form = Form::new(
        &contract,
        config.provider,
        connection.endpoints.clone(),
        models,
        max_tokens,
    );
    form.agents = config
        .agents
        .iter()
        .map(|a| (a.name.clone(), a.description.clone()))
        .collect();
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
        config.price_table(),
        connection.mode.clone(),
    ))
}

/// `themes/` beside io.toml, else in the working directory.
pub fn themes_dir(config_file: Option<&Path>) -> PathBuf {
    config_file
        .and_then(Path::parent)
        .map_or_else(|| PathBuf::from("themes"), |d| d.join("themes"))
}

/// Where `Ctrl-S` writes: the io.toml that was read, else `./io.toml`.
pub fn config_target(loaded: &Loaded) -> PathBuf {
    loaded
        .path
        .clone()
        .unwrap_or_else(|| PathBuf::from("io.toml"))
}
