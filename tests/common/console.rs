//! Console test helpers shared by the console test files: the io.toml most of them
//! start from, a state built from it with the public endpoints, keys, typing,
//! focusing a field, and a screen drawn into a `TestBackend`.

#![allow(dead_code, clippy::unwrap_used)]

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use io_harness::Vendor;
use io_harness::config::{Config, Loaded};
use io_harness::console::effects::setup::{Connection, initial_state};
use io_harness::console::state::{Msg, State};
use io_harness::console::update::update;
use io_harness::console::view;
use io_harness::core::wire::Endpoint;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// A search declaration with a cap and an allow-list, on Anthropic.
pub const CONFIG: &str = r#"
provider = "anthropic"

[task]
goal = "Find the current io-harness release and say which version it is."

[web]
search = true
max_uses = 3
allowed_domains = ["docs.rs", "crates.io"]
"#;

pub fn loaded(text: &str) -> Loaded {
    Loaded {
        config: Config::parse(text, "io.toml").unwrap(),
        path: None,
    }
}

/// Every vendor at its public endpoint, as a live console would start.
pub fn connection() -> Connection {
    Connection {
        endpoints: Vendor::ALL
            .iter()
            .map(|&v| (v, Endpoint::public(v)))
            .collect(),
        stub: None,
        mode: "live: anthropic at https://api.anthropic.com · key from ANTHROPIC_API_KEY".into(),
    }
}

/// The console on `CONFIG`.
pub fn state() -> State {
    initial_state(&loaded(CONFIG), &connection(), false).unwrap()
}

pub fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

pub fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// Type `text` into the focused field; typing asks for no effect.
pub fn typed(state: &mut State, text: &str) {
    for c in text.chars() {
        assert_eq!(update(state, key(KeyCode::Char(c))), vec![]);
    }
}

/// The whole console drawn at `w`×`h`.
pub fn screen(state: &State, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| view::draw(f, state)).unwrap();
    t.backend().to_string()
}

/// Focus a field by tabbing to it from where the focus is.
pub fn focus(state: &mut State, label: &str) {
    for _ in 0..12 {
        if state.form.focus.label() == label {
            return;
        }
        update(state, key(KeyCode::Tab));
    }
    panic!("no field {label}");
}
