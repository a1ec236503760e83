//! The executor: what runs need (the store, the launch, the channels back to
//! the loop) and the dispatch of each effect `update` returns. A run begins
//! through `Launch::run` on a spawned task; a question a run asks reaches the
//! loop through the approver, its answer comes back through `pending`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use base64::Engine;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::approve::ChannelApprover;
use crate::console::effects::reads::{past_run, run_sources};
use crate::console::state::{Effect, Msg};
use crate::core::contract::TaskContract;
use crate::core::event::Event;
use crate::core::vendor::Vendor;
use crate::launch::{Call, Launch};
use crate::run::Observer;
use crate::run::group::Copies;
use crate::store::Store;

/// Where runs go and how they are reached.
pub struct Executor {
    /// The store every run records into.
    pub store: Store,
    /// Where `Ctrl-S` writes `[web]`: the io.toml that was read, else `./io.toml`.
    pub config_path: PathBuf,
    /// io.toml resolved, and what runs need started: every run and comparison
    /// begins here.
    pub launch: Arc<Launch>,
    /// Messages back to the loop.
    pub tx: mpsc::UnboundedSender<Msg>,
    /// The approver runs ask; its questions reach the loop.
    pub approver: ChannelApprover,
    /// The answer slot of the question on screen.
    pub pending: Option<oneshot::Sender<crate::approve::Answer>>,
    /// Where a comparison's workspace copies go (beside the store file).
    pub(super) copies: Copies,
    cancel: Option<CancellationToken>,
    pub(super) task: Option<JoinHandle<()>>,
    started: Option<Instant>,
}

struct Forward(mpsc::UnboundedSender<Msg>);

impl Observer for Forward {
    fn event(&self, event: &Event) {
        let _ = self.0.send(Msg::Run(Box::new(event.clone())));
    }
}

impl Executor {
    /// An executor with nothing running, recording into `store` (the file at
    /// `store_path`, beside which a comparison's copies go).
    pub fn new(
        store: Store,
        store_path: &Path,
        launch: Arc<Launch>,
        tx: mpsc::UnboundedSender<Msg>,
        approver: ChannelApprover,
    ) -> Executor {
        let config_path = launch
            .config_file
            .clone()
            .unwrap_or_else(|| PathBuf::from("io.toml"));
        Executor {
            store,
            config_path,
            launch,
            tx,
            approver,
            pending: None,
            copies: Copies::beside(store_path),
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
                let prices = self.launch.plan().prices.clone();
                self.read(move |s| s.priced_runs(Some(500), &prices).map(Msg::Runs))
            }
            Effect::LoadGroups => self.read(|s| s.groups(200).map(Msg::Groups)),
            Effect::OpenGroup(id) => {
                let prices = self.launch.plan().prices.clone();
                self.read(move |s| {
                    Ok(Msg::Compared(match s.comparison(id, &prices)? {
                        Some(c) => Ok(c),
                        None => Err(format!("there is no run group {id} in the store")),
                    }))
                })
            }
            Effect::LoadEvals => self.load_evals(),
            Effect::OpenEval(id) => self.open_eval(id),
            Effect::ExportEval(id) => self.export_eval(id),
            Effect::LoadRunSources(id) => self.read(move |s| run_sources(s, id)),
            Effect::LoadClaims(id) => {
                self.read(move |s| Ok(Msg::Claims(Box::new(s.run_claims(id)?))))
            }
            Effect::Search(text) => self.search(text),
            Effect::SearchAll(text) => self.search_all(text),
            Effect::CheckSources(run_id) => self.check_sources(run_id),
            Effect::ExportSources(run_id) => self.export_sources(run_id),
            Effect::PreviewNext(run_id) => self.preview_next(run_id),
            Effect::OpenRun(id) => {
                let prices = self.launch.plan().prices.clone();
                self.read(move |s| past_run(s, id, &prices))
            }
            Effect::SaveWeb(web) => {
                let msg = match crate::config::write_web(&self.config_path, &web) {
                    Ok(()) => Msg::info(saved(&self.config_path, &web)),
                    Err(e) => Msg::error(e.to_string()),
                };
                let _ = self.tx.send(msg);
            }
            Effect::Copy(url) => {
                let code = base64::engine::general_purpose::STANDARD.encode(url.as_bytes());
                let mut out = std::io::stdout();
                let ok = write!(out, "\x1b]52;c;{code}\x07").and_then(|()| out.flush());
                let _ = self.tx.send(match ok {
                    Ok(()) => Msg::info(format!("copied {url} (OSC 52)")),
                    Err(e) => Msg::error(format!("cannot copy: {e}")),
                });
            }
            Effect::Open(url) => {
                let _ = self.tx.send(super::browser::open_url(&url));
            }
        }
        true
    }

    fn start(&mut self, contract: TaskContract, vendor: Vendor, model: String) {
        if !self.workspace_ready(&contract) {
            return;
        }
        let key = self.launch.key();
        let provider = match self.launch.provider(vendor, Some(&model), &key) {
            Ok(p) => p,
            Err(e) => {
                let _ = self.tx.send(Msg::RunFailed(e.to_string()));
                return;
            }
        };
        let forward: Arc<dyn Observer> = Arc::new(Forward(self.tx.clone()));
        let cancel = self.begin();
        let (launch, store, approver, tx) = (
            self.launch.clone(),
            self.store.clone(),
            self.approver.clone(),
            self.tx.clone(),
        );
        self.task = Some(tokio::spawn(async move {
            let call = Call {
                store: &store,
                approver: &approver,
                cancel,
            };
            let result = launch.run(&contract, &provider, forward, None, call).await;
            if let Err(e) = result {
                let _ = tx.send(Msg::RunFailed(e.to_string()));
            }
        }));
    }

    /// Whether `contract`'s workspace is a folder here; if not, the form is told
    /// and nothing starts.
    pub(super) fn workspace_ready(&self, contract: &TaskContract) -> bool {
        match crate::launch::workspace_ready(&contract.workspace) {
            Ok(()) => true,
            Err(e) => {
                let _ = self.tx.send(Msg::WorkspaceRefused(e.to_string()));
                false
            }
        }
    }

    /// A new cancellation for the run (or comparison) about to start, kept for
    /// Esc; "allow for this run" starts over.
    pub(super) fn begin(&mut self) -> CancellationToken {
        self.approver.forget();
        let cancel = CancellationToken::new();
        self.cancel = Some(cancel.clone());
        self.started = Some(Instant::now());
        cancel
    }

    pub(super) fn read<F>(&self, f: F)
    where
        F: FnOnce(&Store) -> crate::Result<Msg> + Send + 'static,
    {
        let (store, tx) = (self.store.clone(), self.tx.clone());
        tokio::task::spawn_blocking(move || {
            let msg = f(&store).unwrap_or_else(|e| Msg::error(e.to_string()));
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

    /// Send the spans still held (briefly), stop the demo's stub, and say what
    /// the collector did not take, in one line; `None` when nothing is traced
    /// or all went out.
    pub async fn finish_launch(&mut self) -> Option<String> {
        self.launch.finish().await
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
