//! What `run`'s flags ask for, shared by a single run and a group: the flags
//! (`RunArgs`), the contract they describe over io.toml's (the demo's defaults
//! applied by the plan), `--max-usd` in millionths, the refusal of an empty goal
//! (`preview` gives the same), the cancellation Ctrl-C sets, and the vendors
//! `--providers` names (`run --providers` and `eval`).

use std::path::PathBuf;

use io_harness::core::id::RunId;
use io_harness::launch::{Launch, Plan};
use io_harness::{
    ApproveAll, Approver, Config, Error, NobodyToAsk, Result, Store, TaskContract, Vendor,
    Verification,
};
use tokio_util::sync::CancellationToken;

/// The flags of `run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// anthropic, openai, openrouter, gemini, xai or perplexity (default: `provider` in io.toml).
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
    pub resume: Option<RunId>,
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
    /// workspace, as one run group: e.g. anthropic,openai,openrouter,gemini,xai,perplexity.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["provider", "resume", "replay"])]
    pub providers: Vec<String>,
    /// Run a stored run's goal, declaration and verification on --provider, as a
    /// new run in the original's group.
    #[arg(long, requires = "provider", conflicts_with_all = ["resume", "goal", "workspace", "verify_file"])]
    pub replay: Option<RunId>,
    /// With --providers or --replay: keep each run's workspace copy when the run
    /// ends (they are removed otherwise; a run that is killed keeps its copy for
    /// --resume).
    #[arg(long)]
    pub keep_copies: bool,
}

/// io.toml (`--config`, else `./io.toml` and the user's) resolved for a run;
/// `demo` sends it to the built-in stub vendor.
pub fn launch(config_path: Option<&std::path::Path>, demo: bool) -> Result<Launch> {
    let loaded = Config::discover(config_path)?;
    Ok(Launch::resolve(&loaded, demo))
}

/// Who answers what the policy asks: nobody on a pipe (every `Ask` is refused,
/// naming the rule), or everything with `--approve-all`.
pub fn approver(args: &RunArgs) -> &'static dyn Approver {
    if args.approve_all {
        &ApproveAll
    } else {
        &NobodyToAsk
    }
}

/// What `run` and `preview` say when there is nothing to ask.
pub const NO_GOAL: &str = "no goal: pass --goal TEXT or set `goal` under [task] in io.toml";

/// Refuse an empty goal, before anything is sent.
pub fn require_goal(contract: &TaskContract) -> Result<()> {
    if contract.goal.trim().is_empty() {
        return Err(Error::config(NO_GOAL));
    }
    Ok(())
}

/// The contract the flags and io.toml describe (the demo's where `--demo`).
pub fn contract(args: &RunArgs, plan: &Plan) -> TaskContract {
    plan.contract(|contract| {
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
    })
}

/// A cancellation Ctrl-C sets: the run (or every run of a group) ends as cancelled.
pub fn cancel_on_ctrl_c() -> CancellationToken {
    let cancel = CancellationToken::new();
    let on_ctrl_c = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_ctrl_c.cancel();
        }
    });
    cancel
}

/// `--max-usd` in millionths of a dollar.
///
/// Refused: not a positive number, a billion dollars or more (the largest cap
/// the store keeps exactly), or less than a millionth of a dollar (costs are
/// counted in millionths, so it would round to $0 and stop everything).
pub fn max_usd(flag: Option<f64>) -> Result<Option<u64>> {
    let Some(usd) = flag else {
        return Ok(None);
    };
    if !(usd.is_finite() && usd > 0.0) {
        return Err(Error::config(format!(
            "--max-usd {usd} is not a positive number of US dollars"
        )));
    }
    if usd >= 1e9 {
        return Err(Error::config(format!(
            "--max-usd {usd} is too large: a cap is under $1000000000 (a billion US dollars)"
        )));
    }
    match io_harness::config::usd_micro(usd) {
        Some(micro) => Ok(Some(micro)),
        None => Err(Error::config(format!(
            "--max-usd {usd} is less than $0.000001, the smallest amount counted (costs are kept in millionths of a dollar); give 0.000001 or more"
        ))),
    }
}

/// The vendors `--providers` names, in order, each once (a name given twice is
/// refused); a name that is no vendor goes to `unknown`, which refuses it or
/// lets the others run. Empty when it names none.
pub fn providers(
    names: &[String],
    mut unknown: impl FnMut(&str, Error) -> Result<()>,
) -> Result<Vec<Vendor>> {
    let mut out: Vec<Vendor> = Vec::new();
    for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        match name.parse::<Vendor>() {
            Ok(v) if out.contains(&v) => {
                return Err(Error::config(format!(
                    "--providers names {v} twice; name each vendor once"
                )));
            }
            Ok(v) => out.push(v),
            Err(e) => unknown(name, e.into())?,
        }
    }
    Ok(out)
}

/// io.toml (`--config`, else discovered) and the store (`--store`, else io.toml's),
/// opened for a command that reads records; a store that cannot be opened is
/// refused naming it.
pub fn open(config: Option<PathBuf>, store: Option<PathBuf>) -> Result<(Config, Store)> {
    let loaded = Config::discover(config.as_deref())?;
    let path = store.unwrap_or_else(|| loaded.config.store_path(loaded.path.as_deref()));
    let store = Store::open(&path).map_err(|e| io_harness::Error::store_unusable(&path, &e))?;
    Ok((loaded.config, store))
}
