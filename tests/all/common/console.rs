//! Console test helpers shared by the console test files: the io.toml most of them
//! start from, a state built from it with the public endpoints, keys, typing,
//! focusing a field, a screen drawn into a `TestBackend`, and a console driven for
//! real (`LiveConsole`: its executor performing every effect, runs against a stub
//! vendor on loopback, a temp SQLite store).

#![allow(dead_code, clippy::unwrap_used)]

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use io_harness::Vendor;
use io_harness::config::{Config, Loaded};
use io_harness::console::testing as view;
use io_harness::console::testing::initial_state;
use io_harness::console::testing::update;
use io_harness::console::testing::{Msg, State};
use io_harness::core::endpoint::Endpoint;
use io_harness::launch::{Launch, Plan};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;

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

/// What the status line says of a live console on Anthropic.
pub const LIVE: &str = "live: anthropic at https://api.anthropic.com · key from ANTHROPIC_API_KEY";

/// The plan of `loaded` with each vendor at the endpoint `endpoints` gives.
pub fn plan_with(
    loaded: &Loaded,
    endpoints: impl IntoIterator<Item = (Vendor, Endpoint)>,
) -> Arc<Plan> {
    let mut plan = Plan::of(&loaded.config, false);
    // As the console has them: io.toml's MCP servers started (here, offering no tools).
    plan.mcp_tools = Some(Vec::new());
    for (v, endpoint) in endpoints {
        if let Some(setup) = plan.vendors.get_mut(&v) {
            setup.endpoint = endpoint;
        }
    }
    Arc::new(plan)
}

/// Every vendor at its public endpoint, as a live console would start.
pub fn public_plan(loaded: &Loaded) -> Arc<Plan> {
    plan_with(
        loaded,
        Vendor::ALL.iter().map(|&v| (v, Endpoint::public(v))),
    )
}

/// As `public_plan`, for the demo: its defaults apply (its stub, as the console
/// would have started it, stands at the public endpoints).
pub fn demo_plan(loaded: &Loaded) -> Arc<Plan> {
    let mut plan = (*public_plan(loaded)).clone();
    plan.demo = true;
    plan.stub_started = true;
    Arc::new(plan)
}

/// The console on `loaded`, every vendor at its public endpoint, `mode` on the status line.
pub fn state_of(loaded: &Loaded, mode: &str) -> State {
    initial_state(loaded, &public_plan(loaded), mode).unwrap()
}

/// The console on `CONFIG`.
pub fn state() -> State {
    state_of(&loaded(CONFIG), LIVE)
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
    for _ in 0..io_harness::console::testing::FIELDS.len() {
        if state.form.focus.label() == label {
            return;
        }
        update(state, key(KeyCode::Tab));
    }
    panic!("no field {label}");
}

/// A console whose effects are performed for real: `update` → `Executor`, the
/// messages fed back until a condition holds, approvals answered through the
/// executor as the loop does.
pub struct LiveConsole {
    pub state: State,
    pub executor: io_harness::console::testing::Executor,
    pub rx: tokio::sync::mpsc::UnboundedReceiver<Msg>,
    pub approvals: tokio::sync::mpsc::Receiver<io_harness::approve::PendingApproval>,
    pub store_path: std::path::PathBuf,
    /// Where the stub listens.
    pub stub_addr: Option<std::net::SocketAddr>,
    pub dir: tempfile::TempDir,
}

impl LiveConsole {
    fn start(dir: tempfile::TempDir, loaded: &Loaded, launch: Launch, mode: &str) -> LiveConsole {
        let state = initial_state(loaded, launch.plan(), mode).unwrap();
        let store_path = dir.path().join("runs.db");
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let (approver, approvals) = io_harness::approve::ChannelApprover::new();
        let stub_addr = launch.stub_addr();
        let mut executor = io_harness::console::testing::Executor::new(
            io_harness::store::Store::open(&store_path).unwrap(),
            &store_path,
            Arc::new(launch),
            tx,
            approver,
        );
        executor.config_path = dir.path().join("io.toml");
        LiveConsole {
            state,
            executor,
            rx,
            approvals,
            store_path,
            stub_addr,
            dir,
        }
    }

    /// The shared io.toml (`CONFIG`) against a stub answering `script`, a workspace
    /// holding `notes.md`.
    pub async fn scripted(script: io_harness::stub::Script) -> LiveConsole {
        LiveConsole::scripted_with(script, "").await
    }

    /// As `scripted`, with `more` io.toml added (an `[[agent]]` roster, say).
    pub async fn scripted_with(script: io_harness::stub::Script, more: &str) -> LiveConsole {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        std::fs::write(ws.join("notes.md"), "release notes\n").unwrap();
        let stub = io_harness::stub::StubVendor::start("127.0.0.1:0".parse().unwrap(), script)
            .await
            .unwrap();
        let text = format!(
            "{CONFIG}\n[providers.anthropic]\nbase_url = \"{}\"\n{more}",
            stub.base_url(Vendor::Anthropic)
        )
        .replace(
            "[task]\n",
            &format!("[task]\nworkspace = {:?}\n", ws.display().to_string()),
        );
        let loaded = loaded(&text);
        let mut launch = Launch::resolve(&loaded, true);
        launch.serve_with(stub);
        LiveConsole::start(dir, &loaded, launch, "offline demo: built-in stub vendor")
    }

    /// The console's own `--demo`: the built-in stub and its demo script.
    pub async fn demo() -> LiveConsole {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().display().to_string();
        let loaded = loaded(&format!("[task]\nworkspace = {ws:?}\n"));
        let conn = io_harness::console::testing::connect(&loaded, true)
            .await
            .unwrap();
        LiveConsole::start(dir, &loaded, conn.launch, &conn.mode)
    }

    /// One message through `update`, its effects performed.
    pub fn send(&mut self, msg: Msg) {
        for effect in update(&mut self.state, msg) {
            assert!(self.executor.perform(effect));
        }
    }

    /// Feed messages back until `done` holds of the state.
    pub async fn until(&mut self, done: impl Fn(&State) -> bool) {
        let wait = async {
            while !done(&self.state) {
                let msg = tokio::select! {
                    Some(m) = self.rx.recv() => m,
                    Some(p) = self.approvals.recv() => {
                        self.executor.pending = Some(p.answer);
                        Msg::Approval(p.request)
                    }
                };
                self.send(msg);
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(20), wait)
            .await
            .unwrap();
    }
}
