//! `Launch`: the plan plus what a run needs started — the demo's stub vendor,
//! io.toml's MCP servers, the OTLP exporter — and the one place runs begin:
//! `run` (one vendor), `run_group` (several at once) and `replay` (a stored
//! run's task on another vendor). `run`, `run --providers`, `run --replay` and
//! the console's runs and comparisons all start here, with the provider the
//! plan's setup builds, the observer traced when `[telemetry]` says so, and the
//! options every run is given.

use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::approve::Approver;
use crate::config::Loaded;
use crate::core::contract::TaskContract;
use crate::core::error::Result;
use crate::core::id::{GroupId, RunId};
use crate::core::vendor::Vendor;
use crate::launch::plan::{Plan, Preview};
use crate::launch::ready::workspace_ready;
use crate::launch::vendor::Key;
use crate::mcp::McpServers;
use crate::provider::HttpProvider;
use crate::run::group::{Copies, Entrant, GroupResult, Replay, Venue, run_group, run_in_group};
use crate::run::{Observer, RunOptions, RunResult, run_with_options};
use crate::store::Store;
#[cfg(feature = "stub")]
use crate::stub::{Rewinder, StubHandle};
#[cfg(feature = "otlp")]
use crate::telemetry::Telemetry;

/// io.toml resolved, and what runs need started.
pub struct Launch {
    plan: Arc<Plan>,
    /// The io.toml that was read (`None`: the embedded defaults).
    pub config_file: Option<PathBuf>,
    store_default: PathBuf,
    telemetry_stated: Option<crate::telemetry::Stated>,
    #[cfg(feature = "stub")]
    stub: std::sync::Mutex<Option<StubHandle>>,
    #[cfg(feature = "stub")]
    rewinder: Option<Rewinder>,
    mcp: Option<Arc<McpServers>>,
    #[cfg(feature = "otlp")]
    telemetry: std::sync::Mutex<Option<Telemetry>>,
}

impl std::fmt::Debug for Launch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Launch").field("plan", &self.plan).finish()
    }
}

/// A comparison's runs: one entrant per vendor, where their workspace copies
/// go, and the dollars they share.
pub struct Group<'a> {
    /// Each vendor's provider (or why none could be built) and observer.
    pub entrants: Vec<Entrant<HttpProvider>>,
    /// Where the workspace copies go.
    pub copies: &'a Copies,
    /// The group's dollar cap, in millionths.
    pub cap: Option<u64>,
    /// At most so many of its runs at once, shared with other groups (an
    /// eval's `--jobs`); `None`: all at once.
    pub gate: Option<Arc<tokio::sync::Semaphore>>,
}

/// What a run is started with besides its contract and vendor.
pub struct Call<'a> {
    /// The store it records into.
    pub store: &'a Store,
    /// Who answers what the policy asks.
    pub approver: &'a dyn Approver,
    /// Cancel to end it (or every run of a group) as cancelled.
    pub cancel: CancellationToken,
}

impl Launch {
    /// io.toml (`loaded`) resolved; `demo` sends every request to the built-in
    /// stub vendor. Nothing is started.
    pub fn resolve(loaded: &Loaded, demo: bool) -> Launch {
        let config = &loaded.config;
        Launch {
            plan: Arc::new(Plan::of(config, demo)),
            config_file: loaded.path.clone(),
            store_default: config.store_path(loaded.path.as_deref()),
            telemetry_stated: config.telemetry.clone(),
            #[cfg(feature = "stub")]
            stub: std::sync::Mutex::new(None),
            #[cfg(feature = "stub")]
            rewinder: None,
            mcp: None,
            #[cfg(feature = "otlp")]
            telemetry: std::sync::Mutex::new(None),
        }
    }

    /// The plan every preview and run reads.
    pub fn plan(&self) -> &Arc<Plan> {
        &self.plan
    }

    /// The first request of `contract` to `vendor`, or its refusal (see `Plan::preview`).
    pub fn preview(&self, contract: &TaskContract, vendor: Vendor, model: Option<&str>) -> Preview {
        self.plan.preview(contract, vendor, model)
    }

    /// The store file: the flag's, else io.toml's `[store] path`, else the data directory.
    pub fn store_path(&self, flag: Option<PathBuf>) -> PathBuf {
        flag.unwrap_or_else(|| self.store_default.clone())
    }

    /// The store the flag or io.toml names, opened, and where it is; one that
    /// cannot be opened is refused before anything runs.
    pub fn open_store(&self, flag: Option<PathBuf>) -> Result<(Store, PathBuf)> {
        let path = self.store_path(flag);
        let store =
            Store::open(&path).map_err(|e| crate::core::error::Error::store_unusable(&path, &e))?;
        Ok((store, path))
    }

    /// In the demo, start the built-in stub vendor with its demo script on a
    /// free loopback port and send every vendor's requests there; otherwise nothing.
    #[cfg(feature = "stub")]
    pub async fn start_stub(&mut self) -> Result<()> {
        if !self.plan.demo || self.plan.stub_started {
            return Ok(());
        }
        self.serve_with(crate::stub::demo::demo_stub().await?);
        Ok(())
    }

    /// Built without the `stub` feature there is no demo: asking for one is refused.
    #[cfg(not(feature = "stub"))]
    pub async fn start_stub(&mut self) -> Result<()> {
        if !self.plan.demo {
            return Ok(());
        }
        Err(crate::core::error::Error::config(
            "the offline demo needs the built-in stub vendor, which this build of io-harness \
             does not have (cargo feature `stub`). Nothing was sent.",
        ))
    }

    /// Send every vendor's requests to `stub` (already listening, with its own
    /// script), each run rewinding its script under a key of its own.
    #[cfg(feature = "stub")]
    pub fn serve_with(&mut self, stub: StubHandle) {
        self.plan = Arc::new(self.plan.served_by(|v| stub.base_url(v)));
        self.rewinder = Some(stub.rewinder());
        if let Ok(mut slot) = self.stub.lock() {
            *slot = Some(stub);
        }
    }

    /// The stub's address while it runs.
    #[cfg(feature = "stub")]
    pub fn stub_addr(&self) -> Option<std::net::SocketAddr> {
        self.stub.lock().ok()?.as_ref().map(StubHandle::addr)
    }

    /// Start io.toml's `[[mcp]]` servers; their tools are offered from now on
    /// (and shown in every preview).
    pub async fn start_mcp(&mut self) -> Result<()> {
        if self.plan.mcp.is_empty() || self.mcp.is_some() {
            return Ok(());
        }
        let servers = McpServers::start(&self.plan.mcp, crate::mcp::DEFAULT_TIMEOUT).await?;
        self.plan = Arc::new(self.plan.offering(servers.specs()));
        self.mcp = Some(Arc::new(servers));
        Ok(())
    }

    /// Start the OTLP exporter `[telemetry]` and the `OTEL_*` variables ask for,
    /// scrubbing every vendor's secrets; nothing when no endpoint is in effect.
    #[cfg(feature = "otlp")]
    pub fn start_telemetry(&mut self) -> Result<()> {
        let settings = crate::telemetry::resolved(self.telemetry_stated.as_ref())?;
        let endpoints = self.plan.vendors.values().map(|s| &s.endpoint);
        let secrets = crate::telemetry::vendor_secrets(endpoints);
        let started = Telemetry::start(&settings, secrets)?;
        if let Ok(mut slot) = self.telemetry.lock() {
            *slot = started;
        }
        Ok(())
    }

    /// Built without the `otlp` feature: io.toml asking for an exporter is
    /// refused (nothing is exported); the `OTEL_*` variables alone, which other
    /// programs on the machine may share, are not this build's to honour.
    #[cfg(not(feature = "otlp"))]
    pub fn start_telemetry(&mut self) -> Result<()> {
        match self
            .telemetry_stated
            .as_ref()
            .and_then(|t| t.otlp_endpoint.as_ref())
        {
            Some(endpoint) => Err(crate::core::error::Error::config(format!(
                "[telemetry] otlp_endpoint = {endpoint:?}, but this build of io-harness has no \
                 OTLP export (cargo feature `otlp`); build with it, or remove otlp_endpoint. \
                 Nothing was sent."
            ))),
            None => Ok(()),
        }
    }

    /// The key the next run (or comparison) sends: in the demo, the stub's
    /// script rewound to its start under a key (not a secret) that tells the
    /// stub which requests are this run's; else each vendor's variable.
    pub fn key(&self) -> Key {
        self.key_resuming(0)
    }

    /// As `key`, for a run resumed after `steps` completed steps: in the demo,
    /// the stub's script continues at the step the run reached (each step took
    /// one answer), not at its first answer.
    pub fn key_resuming(&self, steps: u32) -> Key {
        #[cfg(not(feature = "stub"))]
        let _ = steps;
        #[cfg(not(feature = "stub"))]
        return Key::FromEnv;
        #[cfg(feature = "stub")]
        match &self.rewinder {
            Some(rewinder) => {
                Key::Stub(rewinder.rewind_to(usize::try_from(steps).unwrap_or(usize::MAX)))
            }
            None => Key::FromEnv,
        }
    }

    /// The provider for `vendor` asking `model` (the plan's when `None`), with `key`.
    pub fn provider(&self, vendor: Vendor, model: Option<&str>, key: &Key) -> Result<HttpProvider> {
        self.plan.setup(vendor).provider(model, key)
    }

    /// `inner`, traced when an exporter runs (spans name the provider's base URL).
    pub fn traced(&self, provider: &HttpProvider, inner: Arc<dyn Observer>) -> Arc<dyn Observer> {
        #[cfg(not(feature = "otlp"))]
        let _ = provider;
        #[cfg(not(feature = "otlp"))]
        return inner;
        #[cfg(feature = "otlp")]
        match self.telemetry.lock().ok().as_ref().and_then(|t| t.as_ref()) {
            Some(t) => t.observer(&provider.endpoint().base_url, inner),
            None => inner,
        }
    }

    /// What every run is given: `observer`, the prices, the agents, the MCP
    /// servers, and `cancel`.
    pub fn options(&self, observer: Arc<dyn Observer>, cancel: CancellationToken) -> RunOptions {
        RunOptions {
            observer,
            prices: self.plan.prices.clone(),
            cancel,
            agents: self.plan.agents.clone(),
            mcp: self.mcp.clone(),
            ..RunOptions::default()
        }
    }

    /// Run `contract` on `provider` to its end (or resume run `resume`),
    /// recorded in the call's store, its events to `observer` (traced).
    pub async fn run(
        &self,
        contract: &TaskContract,
        provider: &HttpProvider,
        observer: Arc<dyn Observer>,
        resume: Option<RunId>,
        call: Call<'_>,
    ) -> Result<RunResult> {
        if resume.is_none() {
            workspace_ready(&contract.workspace)?;
        }
        let observer = self.traced(provider, observer);
        let options = RunOptions {
            resume,
            ..self.options(observer, call.cancel)
        };
        run_with_options(
            contract,
            provider,
            call.store,
            &self.plan.policy,
            call.approver,
            options,
        )
        .await
    }

    /// One entrant per vendor of a comparison: its provider under one key (one
    /// rewind of the demo's script for the whole group), or why none could be
    /// built, and its events to `observer_for(vendor)`, traced.
    pub fn entrants(
        &self,
        vendors: &[(Vendor, Option<String>)],
        observer_for: &dyn Fn(Vendor) -> Arc<dyn Observer>,
    ) -> Vec<Entrant<HttpProvider>> {
        self.entrants_with(vendors, observer_for, &self.key())
    }

    /// As `entrants`, under `key`: groups run at once on the demo's stub share
    /// one key (a rewind for each would answer the others' requests 409).
    pub fn entrants_with(
        &self,
        vendors: &[(Vendor, Option<String>)],
        observer_for: &dyn Fn(Vendor) -> Arc<dyn Observer>,
        key: &Key,
    ) -> Vec<Entrant<HttpProvider>> {
        vendors
            .iter()
            .map(|(vendor, model)| {
                let provider = self.provider(*vendor, model.as_deref(), key);
                let inner = observer_for(*vendor);
                let observer = match &provider {
                    Ok(p) => self.traced(p, inner),
                    Err(_) => inner,
                };
                Entrant {
                    vendor: *vendor,
                    provider,
                    observer,
                }
            })
            .collect()
    }

    /// Run `contract` on every entrant at once as a new run group, each in its
    /// own copy of the workspace (`copies`), sharing `cap` dollars.
    pub async fn run_group(
        &self,
        contract: &TaskContract,
        group: Group<'_>,
        call: Call<'_>,
    ) -> Result<GroupResult> {
        workspace_ready(&contract.workspace)?;
        self.grouped(contract, group, call, None).await
    }

    /// As `run_group`, in group `group_id`, which exists already (an eval's
    /// question: resumed, it runs on in its own group).
    pub async fn run_in_group(
        &self,
        contract: &TaskContract,
        group: Group<'_>,
        call: Call<'_>,
        group_id: GroupId,
    ) -> Result<GroupResult> {
        workspace_ready(&contract.workspace)?;
        self.grouped(contract, group, call, Some(group_id)).await
    }

    /// Run a stored run's task (`replay`) on the entrants, in the original's
    /// group (a new one holding the original when it had none). An entrant
    /// that cannot start (no key) is refused before anything is sent or
    /// recorded: a failed attempt is not the vendor's outcome in the group.
    pub async fn replay(
        &self,
        replay: &Replay,
        group: Group<'_>,
        call: Call<'_>,
    ) -> Result<GroupResult> {
        workspace_ready(&replay.contract.workspace)?;
        if let Some((vendor, e)) = group
            .entrants
            .iter()
            .find_map(|e| e.provider.as_ref().err().map(|err| (&e.vendor, err)))
        {
            return Err(crate::core::error::Error::refused(format!(
                "--replay {}: {vendor} cannot start: {e}. Nothing was sent, and nothing was \
                 recorded in the run's group.",
                replay.original
            )));
        }
        let mut contract = replay.contract.clone();
        if group.cap.is_some() {
            contract.budget.usd_micro = group.cap;
        }
        let group_id = replay.group(call.store, group.cap)?;
        self.grouped(&contract, group, call, Some(group_id)).await
    }

    /// The runs of a group: a new one, or `group_id`.
    async fn grouped(
        &self,
        contract: &TaskContract,
        group: Group<'_>,
        call: Call<'_>,
        group_id: Option<GroupId>,
    ) -> Result<GroupResult> {
        let Group {
            entrants,
            copies,
            cap,
            gate,
        } = group;
        let venue = Venue {
            store: call.store,
            copies,
            policy: &self.plan.policy,
            approver: call.approver,
        };
        // Each entrant's own observer replaces this one.
        let options = RunOptions {
            gate,
            ..self.options(Arc::new(crate::run::NoObserver), call.cancel)
        };
        match group_id {
            Some(g) => run_in_group(&venue, contract, entrants, options, cap, g).await,
            None => run_group(&venue, contract, entrants, options, cap).await,
        }
    }

    /// Send the spans still held (briefly), stop the stub, and say in one line
    /// what the collector did not take; `None` when nothing is traced or all
    /// went out.
    pub async fn finish(&self) -> Option<String> {
        #[cfg(feature = "stub")]
        if let Some(stub) = self.stub.lock().ok().and_then(|mut s| s.take()) {
            stub.shutdown();
        }
        #[cfg(feature = "otlp")]
        return self
            .telemetry
            .lock()
            .ok()
            .and_then(|mut t| t.take())?
            .finish_blocking()
            .await;
        #[cfg(not(feature = "otlp"))]
        None
    }
}
