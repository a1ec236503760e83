//! `io-harness run`: one contract to its end against the configured provider,
//! recorded in the store. `--json` prints one event per line, the last being the
//! outcome with its `run_id`; otherwise a readable line per event on stderr and
//! the answer on stdout. Ctrl-C ends the run as cancelled, everything so far kept.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use io_harness::launch::{self, Key};
use io_harness::run::{Observer, RunOptions, run_with_options};
use io_harness::stub::demo;
use io_harness::{
    ApproveAll, Approver, Config, Event, EventKind, NobodyToAsk, Result, RunId, RunOutcome, Store,
    Verification,
};
use tokio_util::sync::CancellationToken;

/// The flags of `run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// anthropic, openai or openrouter (default: `provider` in io.toml).
    #[arg(long)]
    pub provider: Option<String>,
    /// The goal (default: `[task] goal`).
    #[arg(long)]
    pub goal: Option<String>,
    /// The workspace local tools are confined to (default: `[task] workspace`).
    #[arg(long)]
    pub workspace: Option<PathBuf>,
    /// Success is this workspace file containing --verify-contains.
    #[arg(long, requires = "verify_contains")]
    pub verify_file: Option<PathBuf>,
    /// The text --verify-file must contain.
    #[arg(long, requires = "verify_file")]
    pub verify_contains: Option<String>,
    /// One JSON object per event, one a line.
    #[arg(long)]
    pub json: bool,
    /// Resume a killed run from its last checkpoint.
    #[arg(long)]
    pub resume: Option<i64>,
    /// Approve every `Ask` effect (default: refuse them; there is no one to ask).
    #[arg(long)]
    pub approve_all: bool,
    /// End the run once it has spent more than this many US dollars (overrides `[budget] usd`).
    #[arg(long)]
    pub max_usd: Option<f64>,
    /// Run against the built-in loopback stub vendor and its demo script: no
    /// key, nothing leaves this machine.
    #[arg(long)]
    pub demo: bool,
    /// Run the same task on several vendors at once, each in its own copy of the
    /// workspace, as one run group: e.g. anthropic,openai,openrouter.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["provider", "resume", "replay"])]
    pub providers: Vec<String>,
    /// Run a stored run's goal, declaration and verification on --provider, as a
    /// new run in the original's group.
    #[arg(long, requires = "provider", conflicts_with_all = ["resume", "goal", "workspace", "verify_file"])]
    pub replay: Option<i64>,
}

/// Run and pick the exit code from the outcome.
pub async fn run(config: Option<PathBuf>, store: Option<PathBuf>, args: RunArgs) -> ExitCode {
    if !args.providers.is_empty() || args.replay.is_some() {
        return super::group::run(config, store, args).await;
    }
    super::verdict(go(config, store, args).await)
}

async fn go(
    config_path: Option<PathBuf>,
    store_path: Option<PathBuf>,
    args: RunArgs,
) -> Result<bool> {
    let loaded = Config::discover(config_path.as_deref())?;
    let config = &loaded.config;
    let vendor = super::vendor(args.provider.as_deref(), config)?;
    let mut contract = task(&args, config);
    if contract.goal.trim().is_empty() && args.resume.is_none() {
        return Err(io_harness::Error::config(super::NO_GOAL));
    }
    // The demo's stub lives until this function returns; its key is not a secret.
    let stub = if args.demo {
        Some(demo::demo_stub().await?)
    } else {
        None
    };
    let provider = provider(config, vendor, stub.as_ref())?;
    let (store, _) = open_store(&loaded, store_path)?;
    let cancel = cancel_on_ctrl_c();
    let mcp = mcp_servers(config).await?;
    if let Some(cap) = max_usd(args.max_usd)? {
        contract.budget.usd_micro = Some(cap);
    }
    let prices = config.price_table();
    let printer: Arc<dyn Observer> = Arc::new(Printer {
        json: args.json,
        label: None,
    });
    let telemetry = io_harness::telemetry::Telemetry::from_config(config)?;
    let observer = match &telemetry {
        Some(t) => t.observer(&provider.endpoint().base_url, printer),
        None => printer,
    };
    let options = RunOptions {
        observer,
        prices: prices.clone(),
        cancel,
        resume: args.resume.map(RunId),
        agents: config.agents.clone(),
        mcp,
        ..RunOptions::default()
    };
    let approver: &dyn Approver = if args.approve_all {
        &ApproveAll
    } else {
        &NobodyToAsk
    };
    if !args.json {
        for line in config.web_provenance() {
            eprintln!("{line}");
        }
    }
    let policy = config.policy();
    let result = run_with_options(&contract, &provider, &store, &policy, approver, options).await;
    // Said once, after the run: what the collector did not take.
    if let Some(t) = telemetry {
        if let Some(line) = t.finish_blocking().await {
            eprintln!("{line}");
        }
    }
    let result = result?;
    if let Some(stub) = stub {
        stub.shutdown();
    }
    if !args.json {
        super::out::line(&result.answer)?;
        eprintln!(
            "run {} {} after {} steps, {}; `io-harness citations {}` lists its sources",
            result.run_id,
            result.outcome.label(),
            result.steps,
            spent(&store, &result, &prices),
            result.run_id
        );
    }
    Ok(result.outcome.passed())
}

/// The contract the flags and io.toml describe (the demo's where `--demo`).
pub(super) fn task(args: &RunArgs, config: &Config) -> io_harness::TaskContract {
    let mut contract = config.task_contract();
    if let Some(goal) = &args.goal {
        contract.goal = goal.clone();
    }
    if let Some(ws) = &args.workspace {
        contract.workspace = ws.clone();
    }
    if let (Some(file), Some(needle)) = (&args.verify_file, &args.verify_contains) {
        contract.verification = Verification::WorkspaceFileContains {
            file: file.clone(),
            needle: needle.clone(),
        };
    }
    if args.demo {
        demo::demo_defaults(config, &mut contract);
    }
    contract
}

/// The provider for `vendor` as io.toml configures it: at the demo's stub, with
/// its key, when there is one; else at the vendor, with the key from its variable.
pub(super) fn provider(
    config: &Config,
    vendor: io_harness::Vendor,
    stub: Option<&io_harness::stub::StubHandle>,
) -> Result<io_harness::HttpProvider> {
    match stub {
        Some(s) => launch::configured(
            config,
            vendor,
            Some(s.base_url(vendor)),
            &Key::Stub(demo::RUN_KEY.into()),
        ),
        None => launch::configured(config, vendor, None, &Key::FromEnv),
    }
}

/// The store the flag or io.toml names, opened, and where it is.
pub(super) fn open_store(
    loaded: &io_harness::config::Loaded,
    flag: Option<PathBuf>,
) -> Result<(Store, PathBuf)> {
    let path = flag.unwrap_or_else(|| loaded.config.store_path(loaded.path.as_deref()));
    let store = Store::open(&path).map_err(|e| io_harness::Error::store_unusable(&path, &e))?;
    Ok((store, path))
}

/// A cancellation Ctrl-C sets: the run (or every run of a group) ends as cancelled.
pub(super) fn cancel_on_ctrl_c() -> CancellationToken {
    let cancel = CancellationToken::new();
    let on_ctrl_c = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_ctrl_c.cancel();
        }
    });
    cancel
}

/// io.toml's `[[mcp]]` servers, started.
pub(super) async fn mcp_servers(
    config: &Config,
) -> Result<Option<Arc<io_harness::mcp::McpServers>>> {
    if config.mcp.is_empty() {
        return Ok(None);
    }
    Ok(Some(Arc::new(
        io_harness::mcp::McpServers::start(&config.mcp, io_harness::mcp::DEFAULT_TIMEOUT).await?,
    )))
}

/// `--max-usd` in millionths of a dollar.
pub(super) fn max_usd(flag: Option<f64>) -> Result<Option<u64>> {
    flag.map(|usd| {
        io_harness::config::usd_micro(usd).ok_or_else(|| {
            io_harness::Error::config(format!(
                "--max-usd {usd} is not a positive number of US dollars"
            ))
        })
    })
    .transpose()
}

/// The run's total from its ledger: the sum of the per-request lines printed.
pub(super) fn spent(
    store: &Store,
    result: &io_harness::RunResult,
    prices: &io_harness::PriceTable,
) -> String {
    match store.ledger(result.run_id, prices) {
        Ok(l) => match l.total_micro_usd() {
            Some(t) => format!("total {}", io_harness::price::usd(t)),
            None => format!(
                "total — ({})",
                l.unpriced().unwrap_or("no request was priced")
            ),
        },
        Err(e) => format!("total not read ({e})"),
    }
}

/// An event of a group's run, as one JSON line: its fields, then `vendor`.
#[derive(serde::Serialize)]
struct Tagged<'a> {
    #[serde(flatten)]
    event: &'a Event,
    vendor: &'a str,
}

/// Prints a run's events: a readable line each on stderr, or one JSON object a
/// line on stdout; in a group, each names its vendor (`label`).
pub(super) struct Printer {
    pub json: bool,
    pub label: Option<String>,
}

impl Observer for Printer {
    fn event(&self, event: &Event) {
        if self.json {
            let line = match &self.label {
                // In a group: the event's own fields, then the vendor's name.
                Some(vendor) => serde_json::to_string(&Tagged { event, vendor }),
                None => serde_json::to_string(event),
            };
            // A closed stdout does not stop a paid run: it is recorded all the same.
            if let Ok(line) = line {
                let _ = super::out::line(&line);
            }
            return;
        }
        if let Some(line) = describe(&event.kind) {
            let who = self
                .label
                .as_deref()
                .map(|l| format!("{l:<10} "))
                .unwrap_or_default();
            eprintln!(
                "[{who}{:>6.1}s step {}] {line}",
                event.elapsed_ms as f64 / 1000.0,
                event.step
            );
        }
    }
}

fn describe(kind: &EventKind) -> Option<String> {
    Some(match kind {
        EventKind::RunStarted {
            goal,
            provider,
            model,
            resumed,
        } => format!(
            "{} {provider} {model}: {goal}",
            if *resumed { "resuming" } else { "starting" }
        ),
        EventKind::Retrying {
            attempt,
            status,
            wait_ms,
            reason,
        } => format!(
            "attempt {attempt} failed ({}{reason}); retrying in {wait_ms} ms",
            status.map(|s| format!("HTTP {s}, ")).unwrap_or_default()
        ),
        EventKind::ProviderCalled {
            usage,
            stop_reason,
            latency_ms,
            cost,
            ..
        } => {
            let u = usage.unwrap_or_default();
            format!(
                "{} in ({} cached) / {} out tokens, {} search{}, {stop_reason}, {latency_ms} ms, {}",
                u.all_input_tokens(),
                u.cache_write_tokens.saturating_add(u.cache_read_tokens),
                u.output_tokens,
                u.server_tool_requests,
                if u.server_tool_requests == 1 {
                    ""
                } else {
                    "es"
                },
                io_harness::price::describe(cost)
            )
        }
        EventKind::ServerToolUsed {
            tool,
            ok,
            error,
            input,
            ..
        } => format!(
            "{tool} {}{}",
            if *ok { "ok" } else { "FAILED" },
            error
                .as_deref()
                .map(|e| format!(" ({e})"))
                .or(input.as_deref().map(|i| format!(": {i}")))
                .unwrap_or_default()
        ),
        EventKind::CitationRecorded { citation } => format!("source {}", citation.url),
        EventKind::ToolCalled {
            name,
            input,
            ok: true,
            ..
        } => format!("{name} {input} ok"),
        EventKind::ToolCalled {
            name,
            input,
            output,
            ..
        } => format!("{name} {input} refused/failed: {output}"),
        EventKind::ApprovalAsked { act, target, .. } => {
            format!("asks to {} {target}", act.as_str())
        }
        EventKind::ApprovalAnswered { approved } => {
            (if *approved { "approved" } else { "denied" }).to_string()
        }
        EventKind::Finished { outcome } => match why(outcome) {
            Some(why) => format!("finished: {} — {why}", outcome.label()),
            None => format!("finished: {}", outcome.label()),
        },
        EventKind::ServerToolStarted { tool, input, .. } => format!(
            "{tool} started{}",
            input
                .as_deref()
                .map(|i| format!(": {i}"))
                .unwrap_or_default()
        ),
        EventKind::ToolCallRequested { name, input, .. } => format!("asks for {name} {input}"),
        EventKind::RequestSent { attempt } if *attempt > 1 => format!("attempt {attempt}"),
        // Text and results are in the summary events that follow.
        EventKind::StepStarted { .. }
        | EventKind::RequestSent { .. }
        | EventKind::Observation { .. }
        | EventKind::TextDelta { .. }
        | EventKind::ServerToolReturned { .. }
        | EventKind::CitationReceived { .. }
        | EventKind::OutputTokens { .. } => return None,
    })
}

/// Why a run ended without passing, in the vendor's or the verification's words.
pub(super) fn why(outcome: &RunOutcome) -> Option<String> {
    Some(match outcome {
        RunOutcome::Passed | RunOutcome::Cancelled => return None,
        RunOutcome::Failed { reason } => reason.clone(),
        RunOutcome::Error { message } => message.clone(),
        RunOutcome::BudgetExhausted { budget } => {
            format!(
                "the {} budget ran out",
                format!("{budget:?}").to_lowercase()
            )
        }
        RunOutcome::Refused { text } if text.is_empty() => {
            "the model declined (stop_reason refusal) and said nothing".to_string()
        }
        RunOutcome::Refused { text } => format!("the model declined: {text}"),
        RunOutcome::Truncated { max_tokens } => format!(
            "the answer was cut off at max_tokens ({max_tokens}) and not verified; raise max_tokens for this provider in io.toml"
        ),
    })
}
