//! `io-harness preview`: the exact request a provider would get, or its refusal.
//! Calls the same encoder the transport uses; opens no socket. The API key is read
//! only to say whether it is set.

use std::io::Write;
use std::path::PathBuf;

use io_harness::core::tools::offered_tools;
use io_harness::core::wire;
use io_harness::core::wire::transcript::same_family;
use io_harness::launch;
use io_harness::run::next_step;
use io_harness::stub::demo;
use io_harness::{Config, Error, HeaderValue, Result, RunId, Store, Turn, Wire};

/// What `preview` was asked: its flags.
#[derive(Debug, clap::Args)]
pub struct PreviewArgs {
    /// anthropic, openai or openrouter (default: `provider` in io.toml).
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
    #[arg(long, conflicts_with_all = ["goal", "demo"])]
    pub resume: Option<i64>,
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
    } = args;
    let loaded = Config::discover(config_path.as_deref())?;
    let config = &loaded.config;
    let mut contract = config.task_contract();
    if let Some(goal) = goal {
        contract.goal = goal;
    }
    let agents: Vec<String> = config.agents.iter().map(|a| a.name.clone()).collect();
    let tools = offered_tools(&agents, &[]);
    let mut resumed_notes = Vec::new();
    let (vendor, turn) = match resume {
        Some(run_id) => {
            let path = store_path.unwrap_or_else(|| config.store_path(loaded.path.as_deref()));
            let store = Store::open(&path)?;
            let next = next_step(&store, RunId(run_id))?;
            // As `run --resume` will: the configured (or named) vendor and model.
            let vendor = super::vendor(provider.as_deref(), config)?;
            let turn = Turn::for_step(
                &next.contract,
                model.unwrap_or_else(|| config.model(vendor)),
                config.max_tokens(vendor),
                tools,
                next.observations,
                next.history,
            );
            resumed_notes.push(format!(
                "note: the next step (step {}) of run {run_id}, in its {} conversation; \
                 `io-harness run --resume {run_id}` sends it",
                next.step + 1,
                turn.conversation.as_str()
            ));
            contract = next.contract;
            (vendor, turn)
        }
        None => {
            let vendor = super::vendor(provider.as_deref(), config)?;
            if demo {
                demo::demo_defaults(config, &mut contract);
            }
            let model = model.unwrap_or_else(|| config.model(vendor));
            let turn = Turn::for_step(
                &contract,
                model,
                config.max_tokens(vendor),
                tools,
                Vec::new(),
                Vec::new(),
            );
            (vendor, turn)
        }
    };
    // `run --demo` starts the stub on a free port; none is listening now, so none
    // is named.
    let stub_url = demo.then(|| io_harness::stub::base_url("127.0.0.1:<port>", vendor));
    let endpoint = launch::endpoint(config, vendor, stub_url);
    resumed_notes.extend(foreign_steps(&turn, endpoint.wire));
    // A refusal first (it is about the declaration, whatever the goal), then
    // the same refusal of an empty goal that `run` gives.
    let request = wire::encode(&endpoint, &turn)?;
    if contract.goal.trim().is_empty() {
        return Err(Error::config(super::NO_GOAL));
    }
    let mut cautions = wire::cautions_wire(endpoint.wire, contract.web.as_ref());
    cautions.extend(resumed_notes);
    cautions.extend(contract.budget.note_for(vendor));
    if demo {
        cautions.push(
            "note: `run --demo` starts the stub vendor on a free loopback port, chosen when the \
             run starts"
                .to_string(),
        );
    }
    cautions.extend(config.web_provenance());
    if !config.mcp.is_empty() {
        let names: Vec<String> = config.mcp.iter().map(|m| format!("`{}`", m.name)).collect();
        let (servers, start) = if names.len() == 1 {
            ("server", "it starts")
        } else {
            ("servers", "they start")
        };
        cautions.push(format!(
            "note: a run also offers the tools of the MCP {servers} {} once {start}; preview starts no process, so they are not in this body",
            names.join(", ")
        ));
    }
    let mut out = std::io::stdout().lock();
    let io = |e: std::io::Error| Error::io("stdout", e);
    if body_only {
        out.write_all(&request.body).map_err(io)?;
        out.flush().map_err(io)?;
        for c in &cautions {
            eprintln!("{c}");
        }
        return Ok(());
    }
    writeln!(
        out,
        "{} {}",
        request.method,
        io_harness::provider::scrub::display_url(&request.url)
    )
    .map_err(io)?;
    for (name, value) in &request.headers {
        let shown = match value {
            HeaderValue::Secret { .. } if demo => "(none: the stub vendor checks no key)".into(),
            _ => shown(value),
        };
        writeln!(out, "{name}: {shown}").map_err(io)?;
    }
    writeln!(out).map_err(io)?;
    out.write_all(&request.body).map_err(io)?;
    writeln!(out).map_err(io)?;
    for c in &cautions {
        writeln!(out, "{c}").map_err(io)?;
    }
    Ok(())
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

/// Where a transcript's earlier steps were answered by another vendor (a
/// fallback): their blocks are not sent — encrypted content is readable only by
/// the vendor that produced it — and this vendor starts from the goal and the
/// observations made before them.
fn foreign_steps(turn: &Turn, wire: Wire) -> Option<String> {
    let foreign = turn
        .history
        .iter()
        .filter(|e| !same_family(e.wire, wire))
        .count();
    (turn.conversation == io_harness::core::wire::transcript::Conversation::Transcript
        && foreign > 0)
        .then(|| {
            format!(
                "note: {foreign} earlier step(s) were answered by another vendor; their blocks are not sent to {} (encrypted content is readable only by the vendor that produced it), which starts from the goal and the observations made so far",
                wire.label()
            )
        })
}
