//! The operator console: state → update → view, one folder each. `state` holds
//! what every screen shows (the Declare form and its previews, the Run panes, the
//! Sources lists, the theme) and the messages and effects; `update` turns a message
//! (a key, a run's event, a store answer) into state and effects, with the key
//! bindings as data; `view` draws the state; `effects` performs what `update` asks
//! for off the UI task, sets up the connection and owns the terminal. This module
//! runs the loop that joins them. The loop
//! redraws only when a message changed something.

mod effects;
mod state;
mod update;
mod view;

/// What the console's tests drive: the state, its messages and effects,
/// `update`, `draw`, the set-up and the executor. The library's console surface
/// is `open`; nothing else of the console is public, and nothing here is a
/// stable interface.
#[doc(hidden)]
pub mod testing {
    pub use super::effects::Executor;
    pub use super::effects::setup::{Connection, connect, initial_state};
    pub use super::effects::{next_request, past_run};
    pub use super::state::evals::{EvalListed, EvalPick, EvalView};
    pub use super::state::form::{FIELDS, Field};
    pub use super::state::keys::{Action, Keymap};
    pub use super::state::run::CallLine;
    pub use super::state::{Effect, Grouping, Msg, Screen, State, Tone, Wheel};
    pub use super::update::update;
    pub use super::view::{MIN, draw};
}

use std::path::PathBuf;
use std::time::Duration;

use crossterm::event::{Event as TermEvent, EventStream, KeyEventKind, MouseEventKind};
use futures_util::StreamExt;
use tokio::sync::mpsc;

use crate::approve::ChannelApprover;
use crate::config::Config;
use crate::console::effects::{Executor, setup, terminal};
use crate::console::state::{Msg, State, Wheel};
use crate::console::update::update;
use crate::core::error::{Error, Result};
use crate::store::Store;

/// Open the console: `config` and `store` as on the command line; `demo` forces
/// the built-in stub vendor.
pub async fn open(config: Option<PathBuf>, store: Option<PathBuf>, demo: bool) -> Result<()> {
    let loaded = Config::discover_lenient(config.as_deref())?;
    let store_path = store.unwrap_or_else(|| loaded.config.store_path(loaded.path.as_deref()));
    let store = Store::open(&store_path).map_err(|e| Error::store_unusable(&store_path, &e))?;
    log_to_file(&store_path);
    let setup::Connection { mut launch, mode } = setup::connect(&loaded, demo).await?;
    // A malformed [telemetry] is named before the terminal is taken.
    launch.start_telemetry()?;
    if !loaded.config.mcp.is_empty() {
        // Started before the terminal is taken, so progress and a failure print
        // plainly; every preview then shows the tools the run will offer.
        let names: Vec<&str> = loaded.config.mcp.iter().map(|m| m.name.as_str()).collect();
        eprintln!("starting MCP servers: {} …", names.join(", "));
        launch.start_mcp().await?;
    }
    let state = setup::initial_state(&loaded, launch.plan(), &mode)?;
    let (tx, rx) = mpsc::unbounded_channel();
    let (approver, approvals) = ChannelApprover::new();
    let launch = std::sync::Arc::new(launch);
    let mut executor = Executor::new(store, &store_path, launch, tx, approver);
    let mut guard = terminal::enter().map_err(|e| Error::terminal("cannot take it over", e))?;
    let result = run_loop(&mut guard, state, &mut executor, rx, approvals).await;
    drop(guard);
    // Said once, on the restored terminal: what the collector did not take.
    if let Some(line) = executor.finish_launch().await {
        eprintln!("{line}");
    }
    result
}

async fn run_loop(
    guard: &mut terminal::Guard,
    mut state: State,
    executor: &mut Executor,
    mut rx: mpsc::UnboundedReceiver<Msg>,
    mut approvals: mpsc::Receiver<crate::approve::PendingApproval>,
) -> Result<()> {
    let mut input = EventStream::new();
    let mut tick = tokio::time::interval(Duration::from_millis(150));
    let mut queued = vec![Msg::Resize];
    loop {
        for msg in queued.drain(..) {
            for effect in update(&mut state, msg) {
                if !executor.perform(effect) {
                    executor.finish().await;
                    return Ok(());
                }
            }
        }
        if state.dirty {
            guard
                .terminal
                .draw(|frame| view::draw(frame, &state))
                .map_err(|e| Error::terminal("cannot draw", e))?;
            state.dirty = false;
        }
        let msg = tokio::select! {
            event = input.next() => match event {
                Some(Ok(TermEvent::Key(key))) if key.kind != KeyEventKind::Release => Msg::Key(key),
                Some(Ok(TermEvent::Mouse(m))) => match m.kind {
                    MouseEventKind::ScrollUp => Msg::Scroll(Wheel::Up),
                    MouseEventKind::ScrollDown => Msg::Scroll(Wheel::Down),
                    _ => continue,
                },
                Some(Ok(TermEvent::Resize(..))) => Msg::Resize,
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(Error::terminal("cannot read it", e)),
                None => return Ok(()),
            },
            Some(msg) = rx.recv() => msg,
            Some(pending) = approvals.recv() => {
                executor.pending = Some(pending.answer);
                Msg::Approval(pending.request)
            }
            _ = tick.tick() => Msg::Tick(executor.run_elapsed_ms()),
        };
        queued.push(msg);
    }
}

/// Diagnostics go to a file beside the store, never onto the screen.
fn log_to_file(store_path: &std::path::Path) {
    // A store on PostgreSQL logs to the platform data directory.
    let path = if crate::core::location::is_url(&store_path.to_string_lossy()) {
        match dirs::data_dir() {
            Some(d) => d.join("io-harness").join("console.log"),
            None => return,
        }
    } else {
        store_path.with_extension("log")
    };
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    else {
        return;
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .try_init();
}
