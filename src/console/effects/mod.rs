//! Performs the effects `update` returns, off the UI task: a run is a spawned task
//! over the library's `run_with_options` (a comparison, `group`, over
//! `run::group`); store reads are `spawn_blocking`; the Sources screen's effects
//! are in `sources`; each result comes back to the loop as a `Msg`. Nothing here
//! decides what to show.

mod group;
pub mod setup;
mod sources;
pub mod terminal;

pub use sources::{next_request, past_run, run_sources};

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use base64::Engine;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::approve::ChannelApprover;
use crate::config::AgentDef;
use crate::console::state::{Effect, Msg};
use crate::core::contract::TaskContract;
use crate::core::event::Event;
use crate::core::policy::Policy;
use crate::core::price::PriceTable;
use crate::core::wire::{Endpoint, Vendor};
use crate::launch::{self, Key, Limits};
use crate::provider::HttpProvider;
use crate::run::{Observer, RunOptions, run_with_options};
use crate::store::Store;

/// Where runs go and how they are reached.
pub struct Executor {
    /// The store every run records into.
    pub store: Store,
    /// Where `Ctrl-S` writes `[web]`.
    pub config_path: PathBuf,
    /// Each vendor's endpoint (the stub's in demo mode).
    pub endpoints: BTreeMap<Vendor, Endpoint>,
    /// Talking to the built-in stub: no key is read, and each run starts the
    /// stub's script from its first answer.
    pub demo: Option<crate::stub::Rewinder>,
    /// Output cap per vendor.
    pub max_tokens: BTreeMap<Vendor, u32>,
    /// Prices for live costs.
    pub prices: PriceTable,
    /// The policy local tools run under.
    pub policy: Policy,
    /// The roster `spawn_agent` offers.
    pub agents: Vec<AgentDef>,
    /// Started `[[mcp]]` servers.
    pub mcp: Option<Arc<crate::mcp::McpServers>>,
    /// Per vendor: the transport limits io.toml sets (the defaults where absent).
    pub limits: BTreeMap<Vendor, Limits>,
    /// Messages back to the loop.
    pub tx: mpsc::UnboundedSender<Msg>,
    /// The approver runs ask; its questions reach the loop.
    pub approver: ChannelApprover,
    /// The answer slot of the question on screen.
    pub pending: Option<oneshot::Sender<crate::approve::Answer>>,
    /// Where a comparison's workspace copies go (beside the store file).
    pub copies: Option<crate::run::group::Copies>,
    /// Where runs are traced when `[telemetry]` names a collector.
    pub telemetry: Option<crate::telemetry::Telemetry>,
    cancel: Option<CancellationToken>,
    task: Option<JoinHandle<()>>,
    started: Option<Instant>,
}

struct Forward(mpsc::UnboundedSender<Msg>);

impl Observer for Forward {
    fn event(&self, event: &Event) {
        let _ = self.0.send(Msg::Run(Box::new(event.clone())));
    }
}

impl Executor {
    /// An executor with nothing running.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        store: Store,
        config_path: PathBuf,
        endpoints: BTreeMap<Vendor, Endpoint>,
        demo: Option<crate::stub::Rewinder>,
        max_tokens: BTreeMap<Vendor, u32>,
        prices: PriceTable,
        tx: mpsc::UnboundedSender<Msg>,
        approver: ChannelApprover,
    ) -> Executor {
        Executor {
            store,
            config_path,
            endpoints,
            demo,
            max_tokens,
            prices,
            policy: Policy::workspace_default(),
            agents: Vec::new(),
            mcp: None,
            limits: BTreeMap::new(),
            tx,
            approver,
            pending: None,
            copies: None,
            telemetry: None,
            cancel: None,
            task: None,
            started: None,
        }
    }

    /// Milliseconds since the current run started, while one runs.
    pub fn run_elapsed_ms(&self) -> Option<u64> {
        let running = self.task.as_ref().is_some_and(|t| !t.is_finished());
        self.started
            .filter(|_| running)
            .map(|s| s.elapsed().as_millis() as u64)
    }

    /// Perform one effect; `false` means quit.
    pub fn perform(&mut self, effect: Effect) -> bool {
        match effect {
            Effect::Quit => return false,
            Effect::StartRun {
                contract,
                vendor,
                model,
            } => self.start(*contract, vendor, model),
            Effect::StartCompare { contract, vendors } => self.start_compare(*contract, vendors),
            Effect::CancelRun => self.cancel_run(),
            Effect::Answer(answer) => {
                if let Some(p) = self.pending.take() {
                    let _ = p.send(answer);
                }
            }
            Effect::LoadRuns => {
                let prices = self.prices.clone();
                self.read(move |s| s.priced_runs(Some(500), &prices).map(Msg::Runs))
            }
            Effect::LoadRunSources(id) => self.read(move |s| run_sources(s, id)),
            Effect::Search(text) => self.search(text),
            Effect::SearchAll(text) => self.search_all(text),
            Effect::CheckSources(run_id) => self.check_sources(run_id),
            Effect::ExportSources(run_id) => self.export_sources(run_id),
            Effect::PreviewNext {
                run_id,
                vendor,
                model,
            } => self.preview_next(run_id, vendor, model),
            Effect::OpenRun(id) => {
                let prices = self.prices.clone();
                self.read(move |s| past_run(s, id, &prices))
            }
            Effect::SaveWeb(web) => {
                let msg = match crate::config::write_web(&self.config_path, &web) {
                    Ok(()) => Msg::Notice(saved(&self.config_path, &web), false),
                    Err(e) => Msg::Notice(e.to_string(), true),
                };
                let _ = self.tx.send(msg);
            }
            Effect::Copy(url) => {
                let code = base64::engine::general_purpose::STANDARD.encode(url.as_bytes());
                let mut out = std::io::stdout();
                let ok = write!(out, "\x1b]52;c;{code}\x07").and_then(|()| out.flush());
                let _ = self.tx.send(match ok {
                    Ok(()) => Msg::Notice(format!("copied {url} (OSC 52)"), false),
                    Err(e) => Msg::Notice(format!("cannot copy: {e}"), true),
                });
            }
            Effect::Open(url) => {
                let _ = self.tx.send(match open::that_detached(&url) {
                    Ok(()) => Msg::Notice(format!("opened {url}"), false),
                    Err(e) => Msg::Notice(format!("cannot open {url}: {e}"), true),
                });
            }
        }
        true
    }

    /// Where a request to `vendor` goes and its output cap: the configured
    /// endpoint (the stub's, offline) or the vendor's public one, and 4096 tokens
    /// unless the config says otherwise.
    fn target(&self, vendor: Vendor) -> (Endpoint, u32) {
        launch::target(&self.endpoints, &self.max_tokens, vendor)
    }

    fn start(&mut self, contract: TaskContract, vendor: Vendor, model: String) {
        let key = self.key();
        let provider = match self.provider(vendor, model, &key) {
            Ok(p) => p,
            Err(e) => {
                let _ = self.tx.send(Msg::RunFailed(e.to_string()));
                return;
            }
        };
        let forward = Arc::new(Forward(self.tx.clone()));
        let observer = self.traced(&provider.endpoint().base_url, forward);
        let options = self.begin(observer);
        let (store, policy, approver, tx) = (
            self.store.clone(),
            self.policy.clone(),
            self.approver.clone(),
            self.tx.clone(),
        );
        self.task = Some(tokio::spawn(async move {
            let result =
                run_with_options(&contract, &provider, &store, &policy, &approver, options).await;
            if let Err(e) = result {
                let _ = tx.send(Msg::RunFailed(e.to_string()));
            }
        }));
    }

    /// The key the next run (or comparison) sends: for the demo, the stub's script
    /// rewound to its start — a cancelled run left it part-way — under a key (not
    /// a secret) that tells the stub which requests are this run's; else the
    /// vendor's variable.
    fn key(&self) -> Key {
        match &self.demo {
            Some(rewinder) => Key::Stub(rewinder.rewind()),
            None => Key::FromEnv,
        }
    }

    /// The provider for `vendor` and `model`: its endpoint, output cap and
    /// transport limits, and `key`.
    fn provider(&self, vendor: Vendor, model: String, key: &Key) -> crate::Result<HttpProvider> {
        let (endpoint, max_tokens) = self.target(vendor);
        let limits = self.limits.get(&vendor).copied().unwrap_or_default();
        launch::provider(endpoint, model, max_tokens, key, &limits)
    }

    /// `inner`, traced when `[telemetry]` names a collector.
    fn traced(&self, base_url: &str, inner: Arc<dyn Observer>) -> Arc<dyn Observer> {
        match &self.telemetry {
            Some(t) => t.observer(base_url, inner),
            None => inner,
        }
    }

    /// What a run (or every run of a comparison) is given, with a new
    /// cancellation kept for Esc; "allow for this run" starts over.
    fn begin(&mut self, observer: Arc<dyn Observer>) -> RunOptions {
        self.approver.forget();
        let cancel = CancellationToken::new();
        self.cancel = Some(cancel.clone());
        self.started = Some(Instant::now());
        RunOptions {
            observer,
            prices: self.prices.clone(),
            cancel,
            agents: self.agents.clone(),
            mcp: self.mcp.clone(),
            ..RunOptions::default()
        }
    }

    fn read<F>(&self, f: F)
    where
        F: FnOnce(&Store) -> crate::Result<Msg> + Send + 'static,
    {
        let (store, tx) = (self.store.clone(), self.tx.clone());
        tokio::task::spawn_blocking(move || {
            let msg = f(&store).unwrap_or_else(|e| Msg::Notice(e.to_string(), true));
            let _ = tx.send(msg);
        });
    }

    fn cancel_run(&mut self) {
        if let Some(c) = &self.cancel {
            c.cancel();
        }
        // A question left unanswered is a "no".
        self.pending = None;
    }

    /// Cancel a run in progress and wait (briefly) for it to record its outcome.
    pub async fn finish(&mut self) {
        self.cancel_run();
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), task).await;
        }
    }

    /// Send the spans still held (briefly) and say what the collector did not
    /// take, in one line; `None` when nothing is traced or all went out.
    pub async fn finish_telemetry(&mut self) -> Option<String> {
        self.telemetry.take()?.finish_blocking().await
    }
}

/// What Ctrl-S wrote and where: only the declaration is saved, and it says so.
fn saved(path: &std::path::Path, web: &crate::core::web::WebAccess) -> String {
    let on = |b: bool| if b { "on" } else { "off" };
    format!(
        "wrote [web] to {} (search {}, fetch {}, max_uses {}, {} allowed, {} blocked); goal, provider and the other fields are not saved",
        path.display(),
        on(web.search),
        on(web.fetch),
        web.max_uses
            .map_or_else(|| "none".to_string(), |n| n.to_string()),
        web.allowed_domains.len(),
        web.blocked_domains.len()
    )
}
