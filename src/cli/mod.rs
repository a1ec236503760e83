//! The headless command line (a contract: tests and scripts use it). Parsing with
//! clap; each subcommand is a thin script over the library, in its own file.
//! Exit codes: 0 success (for `run`: the verification passed), 1 a run that ended
//! without passing, 2 a configuration error or refusal before any request.

mod out;
mod preview;
mod records;
mod run;
mod settings;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use io_harness::{Error, Vendor};

/// Run agent tasks against LLM vendors, with provider-executed web search.
#[derive(Debug, Parser)]
#[command(name = "io-harness", version, about)]
pub struct Cli {
    /// io.toml to read (default: ./io.toml, then the user config directory).
    #[arg(long, global = true)]
    pub config: Option<PathBuf>,
    /// SQLite store (default: `store.path` in io.toml, else the data directory).
    #[arg(long, global = true)]
    pub store: Option<PathBuf>,
    /// Console: run against the built-in loopback stub vendor and its demo script.
    #[arg(long)]
    pub demo: bool,
    /// What to do; the console when omitted.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the operator console (the default).
    Console {
        /// Run against the built-in loopback stub vendor and its demo script.
        #[arg(long)]
        demo: bool,
    },
    /// Print the exact request a provider would get, or its refusal. Sends nothing.
    Preview {
        /// anthropic, openai or openrouter (default: `provider` in io.toml).
        #[arg(long)]
        provider: Option<String>,
        /// The model (default: the provider's model in io.toml).
        #[arg(long)]
        model: Option<String>,
        /// The goal (default: `[task] goal` in io.toml).
        #[arg(long)]
        goal: Option<String>,
        /// Print only the body bytes.
        #[arg(long)]
        body_only: bool,
        /// The request the built-in stub vendor would get (as `run --demo`): no key
        /// needed, the demo's goal and declaration where io.toml gives none.
        #[arg(long)]
        demo: bool,
        /// The request the next step of this stored run would send (in its
        /// conversation mode, from its checkpoint and transcript).
        #[arg(long, conflicts_with_all = ["goal", "demo"])]
        resume: Option<i64>,
    },
    /// Run a task to its end, recording everything in the store.
    Run {
        /// anthropic, openai or openrouter (default: `provider` in io.toml).
        #[arg(long)]
        provider: Option<String>,
        /// The goal (default: `[task] goal`).
        #[arg(long)]
        goal: Option<String>,
        /// The workspace local tools are confined to (default: `[task] workspace`).
        #[arg(long)]
        workspace: Option<PathBuf>,
        /// Success is this workspace file containing --verify-contains.
        #[arg(long, requires = "verify_contains")]
        verify_file: Option<PathBuf>,
        /// The text --verify-file must contain.
        #[arg(long, requires = "verify_file")]
        verify_contains: Option<String>,
        /// One JSON object per event, one a line.
        #[arg(long)]
        json: bool,
        /// Resume a killed run from its last checkpoint.
        #[arg(long)]
        resume: Option<i64>,
        /// Approve every `Ask` effect (default: refuse them; there is no one to ask).
        #[arg(long)]
        approve_all: bool,
        /// End the run once it has spent more than this many US dollars (overrides `[budget] usd`).
        #[arg(long)]
        max_usd: Option<f64>,
        /// Run against the built-in loopback stub vendor and its demo script: no
        /// key, nothing leaves this machine.
        #[arg(long)]
        demo: bool,
    },
    /// Past runs, newest first.
    Runs {
        /// JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// At most this many.
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// The price table: built-in rows (dated, sourced) with io.toml's [prices] applied.
    Prices {
        /// One JSON object per row, one a line.
        #[arg(long)]
        json: bool,
    },
    /// The sources a run drew on.
    Citations {
        /// The run.
        run_id: i64,
        /// JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// The merged configuration (user and project io.toml), one value or rule a
    /// line, each with the PATH:LINE it came from.
    Config {
        /// One JSON array of {key, value, origin, note}.
        #[arg(long)]
        json: bool,
    },
    /// Serve the three vendors' endpoints on loopback from a script.
    StubVendor {
        /// Address to listen on, e.g. 127.0.0.1:8089.
        #[arg(long)]
        listen: std::net::SocketAddr,
        /// The script (default: the built-in demo script).
        #[arg(long)]
        script: Option<PathBuf>,
    },
}

/// Run the parsed command line.
pub async fn main(cli: Cli) -> ExitCode {
    let result = match cli.command {
        None => io_harness::console::open(cli.config, cli.store, cli.demo).await,
        Some(Command::Console { demo }) => {
            io_harness::console::open(cli.config, cli.store, demo || cli.demo).await
        }
        Some(Command::Preview {
            provider,
            model,
            goal,
            body_only,
            demo,
            resume,
        }) => {
            let args = preview::PreviewArgs {
                provider,
                model,
                goal,
                body_only,
                demo,
                resume,
            };
            preview::preview(cli.config, cli.store, args).await
        }
        Some(Command::Run {
            provider,
            goal,
            workspace,
            verify_file,
            verify_contains,
            json,
            resume,
            approve_all,
            max_usd,
            demo,
        }) => {
            let args = run::RunArgs {
                provider,
                goal,
                workspace,
                verify_file,
                verify_contains,
                json,
                resume,
                approve_all,
                max_usd,
                demo,
            };
            return run::run(cli.config, cli.store, args).await;
        }
        Some(Command::Runs { json, limit }) => records::runs(cli.config, cli.store, json, limit),
        Some(Command::Prices { json }) => records::prices(cli.config, json),
        Some(Command::Citations { run_id, json }) => {
            records::citations(cli.config, cli.store, run_id, json)
        }
        Some(Command::Config { json }) => settings::show(cli.config, json),
        Some(Command::StubVendor { listen, script }) => stub(listen, script).await,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

/// What `run` and `preview` say when there is nothing to ask.
pub(crate) const NO_GOAL: &str = "no goal: pass --goal TEXT or set `goal` under [task] in io.toml";

/// Print an error and pick its exit code.
pub(crate) fn fail(e: &Error) -> ExitCode {
    eprintln!("{e}");
    if e.is_config() {
        ExitCode::from(2)
    } else {
        ExitCode::from(1)
    }
}

/// The vendor named on the command line, else the config's.
pub(crate) fn vendor(
    flag: Option<&str>,
    config: &io_harness::Config,
) -> io_harness::Result<Vendor> {
    match flag {
        Some(name) => name.parse(),
        None => Ok(config.provider),
    }
}

async fn stub(listen: std::net::SocketAddr, script: Option<PathBuf>) -> io_harness::Result<()> {
    let script = match script {
        Some(path) => io_harness::stub::Script::load(&path)?,
        None => io_harness::stub::Script::demo(),
    };
    io_harness::stub::serve(listen, script, |addr| {
        eprintln!("stub vendor listening on http://{addr} (anthropic: /v1/messages, openai: /v1/chat/completions, openrouter: /api/v1/chat/completions); Ctrl-C stops it");
    })
    .await
}
