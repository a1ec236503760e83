//! `io-harness preview`: the exact request a provider would get, or its refusal.
//! Calls the same encoder the transport uses; opens no socket. The API key is read
//! only to say whether it is set.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use io_harness::launch::{Launch, Preview, started_with};
use io_harness::run::next_step;
use io_harness::{Config, Error, HeaderValue, Result, RunId, Store};

use super::task::require_goal;

/// What `preview` was asked: its flags.
#[derive(Debug, clap::Args)]
pub struct PreviewArgs {
    /// anthropic, openai, openrouter, gemini, xai or perplexity (default: `provider` in io.toml).
    #[arg(long)]
    pub provider: Option<String>,
    /// The model (default: the provider's model in io.toml).
    #[arg(long)]
    pub model: Option<String>,
    /// The goal (default: `[task] goal` in io.toml).
    #[arg(long)]
    pub goal: Option<String>,
    /// Print only the body bytes.
    #[arg(long)]
    pub body_only: bool,
    /// The request the built-in stub vendor would get (as `run --demo`): no key
    /// needed, the demo's goal and declaration where io.toml gives none.
    #[arg(long)]
    pub demo: bool,
    /// The request the next step of this stored run would send (in its
    /// conversation mode, from its checkpoint and transcript).
    #[arg(long, conflicts_with = "goal")]
    pub resume: Option<RunId>,
    /// The first request this `[[agent]]` would send when the run spawns it
    /// with the goal as its task: the run's declaration narrowed by the agent's
    /// own `web` table, or the refusal it would meet.
    #[arg(long, conflicts_with = "resume")]
    pub agent: Option<String>,
}

/// Print `POST <url>`, redacted headers, a blank line and the body; or only the
/// body bytes with `body_only` (cautions then go to stderr). With `resume`, the
/// request of a stored run's next step (the store is read, nothing written).
pub async fn preview(
    config_path: Option<PathBuf>,
    store_path: Option<PathBuf>,
    args: PreviewArgs,
) -> Result<()> {
    let PreviewArgs {
        provider,
        model,
        goal,
        body_only,
        demo,
        resume,
        agent,
    } = args;
    let loaded = Config::discover(config_path.as_deref())?;
    // Nothing is started: `run --demo` starts the stub on a free port, so none is
    // named; MCP servers start with a run, so their tools are not in the body.
    let launch = Launch::resolve(&loaded, demo);
    let plan = launch.plan();
    let vendor = plan.vendor(provider.as_deref())?;
    let (preview, contract) = match resume {
        Some(run_id) => {
            let store = Store::open(launch.store_path(store_path))?;
            let next = next_step(&store, run_id)?;
            // As `run --resume` will: the run's own vendor, wire and model.
            if let Some(m) = model.as_deref() {
                return Err(Error::refused(format!(
                    "--model {m} with --resume: run {run_id} goes on with the model it started \
                     with; leave --model out. Nothing was sent."
                )));
            }
            let flag = provider.is_some().then_some(vendor);
            let (setup, moved) = plan.resumed(run_id, started_with(&store, run_id)?, flag)?;
            let contract = next.contract.clone();
            let mut preview = plan.preview_next(next, run_id, &setup);
            preview.cautions.extend(moved);
            (preview, contract)
        }
        None => {
            let contract = plan.contract(|c| {
                if let Some(goal) = goal {
                    c.goal = goal;
                }
            });
            let preview = match &agent {
                Some(name) => {
                    let task = contract.goal.clone();
                    plan.preview_agent(&contract, vendor, model.as_deref(), name, &task)?
                }
                None => plan.preview(&contract, vendor, model.as_deref()),
            };
            (preview, contract)
        }
    };
    let Preview {
        request, cautions, ..
    } = preview;
    // A refusal first (it is about the declaration, whatever the goal), then
    // the same refusal of an empty goal that `run` gives.
    let request = request?;
    require_goal(&contract)?;
    if body_only {
        // The exact bytes (JSON: no control character is ever raw in it).
        let mut out = std::io::stdout().lock();
        let io = |e: std::io::Error| Error::io("stdout", e);
        out.write_all(&request.body).map_err(io)?;
        out.flush().map_err(io)?;
        // On a terminal the body (which ends without a newline) and the notes
        // share the screen: the notes start on a line of their own. stdout's
        // bytes stay exactly the body.
        if !cautions.is_empty() && out.is_terminal() && std::io::stderr().is_terminal() {
            eprintln!();
        }
        for c in &cautions {
            super::out::note(c);
        }
        return Ok(());
    }
    // Read by a person: through `out`, so a terminal is shown no control character.
    let mut text = format!(
        "{} {}\n",
        request.method,
        io_harness::provider::scrub::display_url(&request.url)
    );
    for (name, value) in &request.headers {
        let shown = match value {
            HeaderValue::Secret { .. } if demo => value.previewed(demo),
            _ => shown(value),
        };
        text.push_str(&format!("{name}: {shown}\n"));
    }
    text.push('\n');
    text.push_str(&String::from_utf8_lossy(&request.body));
    text.push('\n');
    for c in &cautions {
        text.push_str(&format!("{c}\n"));
    }
    super::out::print(&text)
}

/// A header as the operator may see it: secrets as the variable that supplies them.
fn shown(value: &HeaderValue) -> String {
    match value {
        HeaderValue::Plain(_) => value.redacted(),
        HeaderValue::Secret { env, .. } => {
            let set = std::env::var_os(env).is_some_and(|v| !v.is_empty());
            format!(
                "{} ({})",
                value.redacted(),
                if set { "set" } else { "not set" }
            )
        }
    }
}
