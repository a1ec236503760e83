//! Performs the effects `update` returns, off the UI task: a run is a spawned task
//! over the library's `run_with_options`; store reads are `spawn_blocking`; each
//! result comes back to the loop as a `Msg`. Nothing here decides what to show.

mod group;
pub mod setup;
pub mod terminal;

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
use crate::console::state::past::PastRun;
use crate::console::state::{Effect, Msg};
use crate::core::contract::TaskContract;
use crate::core::event::{Event, RunId};
use crate::core::policy::Policy;
use crate::core::price::PriceTable;
use crate::core::wire::{Endpoint, Vendor};
use crate::launch::{self, Key, Limits};
use crate::run::{Observer, RunOptions, run_with_options};
use crate::store::{CitationQuery, Store};

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
            Effect::Search(text) => self.read(move |s| {
                let q = CitationQuery {
                    domain: None,
                    text: Some(text).filter(|t| !t.trim().is_empty()),
                    limit: Some(1000),
                };
                s.search_citations(&q).map(Msg::Found)
            }),
            Effect::OpenRun(id) => {
                let prices = self.prices.clone();
                self.read(move |s| past_run(s, id, &prices))
            }
            Effect::SearchAll(text) => self.read(move |s| {
                let q = crate::store::search::SearchQuery {
                    text,
                    limit: 200,
                    run: None,
                    rank: false,
                };
                Ok(Msg::Hits(s.search(&q).map_err(|e| e.to_string())))
            }),
            Effect::CheckSources(run_id) => {
                let (store, policy, tx) =
                    (self.store.clone(), self.policy.clone(), self.tx.clone());
                tokio::spawn(async move {
                    let limits = crate::check::Limits::default();
                    let msg = match crate::check::check_run(&store, run_id, &policy, limits).await {
                        Ok(rows) => {
                            let count = |v: &str| rows.iter().filter(|r| r.verdict == v).count();
                            Msg::Notice(
                                format!(
                                    "checked {} source(s) of run {run_id}: {} found, {} not found, {} with no quote, {} unreachable, {} not allowed — a verdict is what this machine fetched now",
                                    rows.len(),
                                    count("found"),
                                    count("not_found"),
                                    count("no_quote"),
                                    count("unreachable"),
                                    count("not_allowed")
                                ),
                                false,
                            )
                        }
                        Err(e) => Msg::Notice(format!("cannot check run {run_id}: {e}"), true),
                    };
                    let _ = tx.send(msg);
                    // The verdicts beside the citations.
                    if let Ok(msg) = run_sources(&store, run_id) {
                        let _ = tx.send(msg);
                    }
                });
            }
            Effect::ExportSources(run_id) => {
                let dir = self
                    .config_path
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .map_or_else(|| PathBuf::from("."), PathBuf::from);
                self.read(move |s| {
                    let path = dir.join(format!("sources-run-{run_id}.md"));
                    let rows = s.citations_recorded(run_id)?;
                    let text = crate::store::export::export(
                        run_id,
                        &rows,
                        crate::store::export::Format::Markdown,
                    )?;
                    Ok(match std::fs::write(&path, text) {
                        Ok(()) => Msg::Notice(
                            format!(
                                "wrote the {} source(s) of run {run_id} to {}",
                                rows.len(),
                                path.display()
                            ),
                            false,
                        ),
                        Err(e) => Msg::Notice(
                            format!("cannot write {}: {e}; nothing was written", path.display()),
                            true,
                        ),
                    })
                })
            }
            Effect::PreviewNext {
                run_id,
                vendor,
                model,
            } => {
                let (endpoint, max_tokens) = self.target(vendor);
                let names: Vec<String> = self.agents.iter().map(|a| a.name.clone()).collect();
                let extra = self.mcp.as_ref().map(|m| m.specs()).unwrap_or_default();
                let tools = crate::core::tools::offered_tools(&names, &extra);
                self.read(move |s| {
                    let lines = next_request(s, run_id, &endpoint, model, max_tokens, tools);
                    Ok(Msg::Next(run_id, lines.map_err(|e| e.to_string())))
                })
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
        let (endpoint, max_tokens) = self.target(vendor);
        let forward: Arc<dyn Observer> = Arc::new(Forward(self.tx.clone()));
        let observer: Arc<dyn Observer> = match &self.telemetry {
            Some(t) => t.observer(&endpoint.base_url, forward),
            None => forward,
        };
        let key = match &self.demo {
            // A cancelled demo run left the script part-way; this one sees it all,
            // and its key (not a secret) tells the stub which requests are this run's.
            Some(rewinder) => Key::Stub(rewinder.rewind()),
            None => Key::FromEnv,
        };
        let limits = self.limits.get(&vendor).copied().unwrap_or_default();
        let provider = match launch::provider(endpoint, model, max_tokens, &key, &limits) {
            Ok(p) => p,
            Err(e) => {
                let _ = self.tx.send(Msg::RunFailed(e.to_string()));
                return;
            }
        };
        // "Allow for this run" lasts one run.
        self.approver.forget();
        let cancel = CancellationToken::new();
        let options = RunOptions {
            observer,
            prices: self.prices.clone(),
            cancel: cancel.clone(),
            agents: self.agents.clone(),
            mcp: self.mcp.clone(),
            ..RunOptions::default()
        };
        let (store, policy, approver, tx) = (
            self.store.clone(),
            self.policy.clone(),
            self.approver.clone(),
            self.tx.clone(),
        );
        self.cancel = Some(cancel);
        self.started = Some(Instant::now());
        self.task = Some(tokio::spawn(async move {
            let result =
                run_with_options(&contract, &provider, &store, &policy, &approver, options).await;
            if let Err(e) = result {
                let _ = tx.send(Msg::RunFailed(e.to_string()));
            }
        }));
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
        let t = self.telemetry.take()?;
        tokio::task::spawn_blocking(move || t.finish())
            .await
            .ok()
            .flatten()
    }
}

/// A run's sources for the Sources screen: its citations and its children's (a
/// spawned child's sources belong to its parent's run too), its server-tool calls
/// and what checking them found.
pub fn run_sources(store: &Store, id: RunId) -> crate::Result<Msg> {
    let mut citations = store.citations(id)?;
    for child in store.children(id)? {
        citations.extend(store.citations(child.run_id)?);
    }
    Ok(Msg::RunSources(
        citations,
        store.server_tool_calls(id)?,
        store.checks(id)?,
    ))
}

/// Everything the Run panes show about a past run.
pub fn past_run(store: &Store, id: RunId, prices: &PriceTable) -> crate::Result<Msg> {
    Ok(Msg::Past(Box::new(PastRun {
        run: store.run(id)?,
        steps: store.steps(id)?,
        ledger: store.ledger(id, prices)?,
        server: store.server_tool_calls(id)?,
        citations: store.citations(id)?.len(),
    })))
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

/// The request a stored run's next step would send to `endpoint`, as lines: the
/// method and URL, then the body pretty-printed (secrets are never in a body).
pub fn next_request(
    store: &Store,
    run_id: RunId,
    endpoint: &Endpoint,
    model: String,
    max_tokens: u32,
    tools: Vec<crate::core::turn::ToolSpec>,
) -> crate::Result<Vec<String>> {
    let next = crate::run::next_step(store, run_id)?;
    let turn = crate::core::turn::Turn::for_step(
        &next.contract,
        model,
        max_tokens,
        tools,
        next.observations,
        next.history,
    );
    let request = crate::core::wire::encode(endpoint, &turn)?;
    let body: serde_json::Value = serde_json::from_slice(&request.body)
        .map_err(|e| crate::Error::config(format!("the request body is not JSON: {e}")))?;
    let pretty = serde_json::to_string_pretty(&body)
        .map_err(|e| crate::Error::config(format!("cannot show the request body: {e}")))?;
    let mut lines = vec![
        format!(
            "step {} · {} conversation · {} {}",
            next.step + 1,
            turn.conversation.as_str(),
            request.method,
            crate::provider::scrub::display_url(&request.url)
        ),
        String::new(),
    ];
    lines.extend(pretty.lines().map(str::to_string));
    Ok(lines)
}
