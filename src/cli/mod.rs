//! The headless command line (a contract: tests and scripts use it). Parsing with
//! clap; each subcommand is a thin script over the library, in its own file.
//! Exit codes: 0 success (for `run`: the verification passed), 1 a run that ended
//! without passing, 2 a configuration error or refusal before any request.

mod check_sources;
mod citations;
mod claims;
mod compare;
mod config;
mod eval;
mod exit;
mod export;
mod out;
mod preview;
mod prices;
mod printer;
mod run;
mod run_providers;
mod runs;
mod search;
mod store;
mod task;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use io_harness::core::id::GroupId;
use io_harness::core::id::RunId;

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
    Preview(preview::PreviewArgs),
    /// Run a task to its end, recording everything in the store.
    Run(task::RunArgs),
    /// A question set (JSON Lines) run across vendors, each question a run
    /// group, scored without a model: answer correct, gold-URL recall, cost,
    /// wall time, searches. `--demo` runs the bundled five questions offline.
    Eval(eval::EvalArgs),
    /// Stored evals, newest first.
    Evals {
        /// JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// At most this many.
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// Past runs, newest first.
    Runs {
        /// JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// At most this many.
        #[arg(long, default_value_t = 50)]
        limit: u32,
        /// Only the runs this user started (`IO_HARNESS_USER`, else the login
        /// name): one's own on a team's store.
        #[arg(long)]
        mine: bool,
    },
    /// A run group side by side (`run --providers`, `run --replay`): outcome,
    /// steps, tokens, cost, wall time, searches, citations, and the overlap of
    /// cited domains and URLs between each pair.
    Compare {
        /// The group (`io-harness runs` shows each run's).
        group_id: GroupId,
        /// JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// First check every run's sources (as `check-sources` does, under the
        /// [policy] net rules), so the verified share and unsupported count are set.
        #[arg(long)]
        check: bool,
    },
    /// A run's final answer sentence by sentence, each with the sources cited
    /// for it and their verdicts; the run's cited share, verified share and
    /// unsupported count.
    Claims {
        /// The run.
        run_id: RunId,
        /// One JSON object: {run_id, claims: [{step, start, end, text,
        /// citations: [{url, verdict, overlap}]}], cited_share, verified_share,
        /// unsupported}.
        #[arg(long)]
        json: bool,
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
        run_id: RunId,
        /// JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// The sources as a document: markdown (numbered references), csv or json
        /// (an array of objects).
        #[arg(long, conflicts_with = "json")]
        format: Option<String>,
    },
    /// Fetch each source a run cited, from this machine under the [policy] net
    /// rules, and look for its quoted text: one verdict a citation, recorded.
    CheckSources {
        /// The run.
        run_id: RunId,
        /// One JSON array of verdicts.
        #[arg(long)]
        json: bool,
    },
    /// Full-text search across every run: goals, the model's text, server-tool
    /// queries, citations.
    Search {
        /// FTS5 query: words, "a phrase", AND / OR / NOT, prefix*.
        query: String,
        /// One JSON array of hits.
        #[arg(long)]
        json: bool,
        /// At most this many hits.
        #[arg(long, default_value_t = 20)]
        limit: u32,
        /// Only this run's.
        #[arg(long)]
        run: Option<RunId>,
        /// Best match first (default: newest run first).
        #[arg(long)]
        rank: bool,
    },
    /// The merged configuration (user and project io.toml), one value or rule a
    /// line, each with the PATH:LINE it came from.
    Config {
        /// One JSON array of {key, value, origin, note}.
        #[arg(long)]
        json: bool,
        /// Also what `--demo` sets where io.toml says nothing (its origin `--demo`).
        #[arg(long)]
        demo: bool,
    },
    /// Send stored runs elsewhere: `export otlp [RUN_ID ...] [--since DATE]`.
    #[command(subcommand)]
    Export(export::ExportArgs),
    /// Stores themselves: `store copy FROM TO` copies one into another (a
    /// SQLite file and a postgres:// URL, either way round).
    #[command(subcommand)]
    Store(store::StoreArgs),
    /// Serve the vendors' endpoints on loopback from a script.
    ///
    /// Anthropic, OpenAI (Chat Completions and Responses), OpenRouter, Gemini, xAI and
    /// Perplexity (its Agent API and Sonar), as the script says. It reads no io.toml and no store: --config and --store are
    /// refused here.
    StubVendor {
        /// Address to listen on, e.g. 127.0.0.1:8089.
        #[arg(long)]
        listen: std::net::SocketAddr,
        /// The script (default: the built-in demo script).
        #[arg(long)]
        script: Option<PathBuf>,
        /// Not read here. Its own, hidden, so the global one is not offered in this
        /// help; given anyway, it is refused rather than ignored.
        #[arg(long, hide = true)]
        config: Option<PathBuf>,
        /// Not read here either; refused the same way.
        #[arg(long, hide = true)]
        store: Option<PathBuf>,
    },
}

/// Run the parsed command line.
pub async fn main(cli: Cli) -> ExitCode {
    let result = match cli.command {
        None => io_harness::console::open(cli.config, cli.store, cli.demo).await,
        Some(Command::Console { demo }) => {
            io_harness::console::open(cli.config, cli.store, demo || cli.demo).await
        }
        Some(Command::Preview(args)) => preview::preview(cli.config, cli.store, args).await,
        Some(Command::Run(args)) => {
            let grouped = !args.providers.is_empty() || args.replay.is_some();
            let ran = match task::launch(cli.config.as_deref(), args.demo) {
                Ok(launch) if grouped => run_providers::go(launch, cli.store, args).await,
                Ok(launch) => run::go(launch, cli.store, args).await,
                Err(e) => Err(e),
            };
            return exit::verdict(ran);
        }
        Some(Command::Eval(args)) => {
            return eval::exit(eval::go(cli.config, cli.store, args).await);
        }
        Some(Command::Evals { json, limit }) => eval::list(cli.config, cli.store, json, limit),
        Some(Command::Runs { json, limit, mine }) => {
            runs::runs(cli.config, cli.store, json, limit, mine)
        }
        Some(Command::Compare {
            group_id,
            json,
            check,
        }) => compare::compare(cli.config, cli.store, group_id, json, check).await,
        Some(Command::Claims { run_id, json }) => {
            claims::claims(cli.config, cli.store, run_id, json)
        }
        Some(Command::Prices { json }) => prices::prices(cli.config, json),
        Some(Command::Citations {
            run_id,
            json,
            format,
        }) => citations::citations(cli.config, cli.store, run_id, json, format.as_deref()),
        Some(Command::Search {
            query,
            json,
            limit,
            run,
            rank,
        }) => {
            let q = io_harness::store::search::SearchQuery {
                text: query,
                limit,
                run,
                rank,
            };
            search::search(cli.config, cli.store, &q, json)
        }
        Some(Command::CheckSources { run_id, json }) => {
            check_sources::check_sources(cli.config, cli.store, run_id, json).await
        }
        Some(Command::Config { json, demo }) => config::show(cli.config, json, demo || cli.demo),
        Some(Command::Export(args)) => export::export(cli.config, cli.store, args).await,
        Some(Command::Store(args)) => {
            if cli.store.is_some() {
                Err(io_harness::Error::config(
                    "store copy takes its stores as FROM and TO: drop --store",
                ))
            } else {
                store::store(args)
            }
        }
        Some(Command::StubVendor {
            listen,
            script,
            config,
            store,
        }) => {
            // clap copies a global flag given before the subcommand into its own.
            let given = config.or(cli.config).is_some() || store.or(cli.store).is_some();
            if given {
                Err(io_harness::Error::config(
                    "stub-vendor reads no io.toml and no store: drop --config and --store (its script is --script)",
                ))
            } else {
                stub(listen, script).await
            }
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => exit::fail(&e),
    }
}

async fn stub(listen: std::net::SocketAddr, script: Option<PathBuf>) -> io_harness::Result<()> {
    let script = match script {
        Some(path) => io_harness::stub::Script::load(&path)?,
        None => io_harness::stub::Script::demo(),
    };
    io_harness::stub::serve(listen, script, |addr| {
        out::note(&format!("stub vendor listening on http://{addr} (anthropic: /v1/messages, openai: /v1/chat/completions and /v1/responses, openrouter: /api/v1/chat/completions, gemini: /v1beta/models/MODEL:generateContent, xai: /xai/v1/responses, perplexity: /perplexity/v1/agent and /perplexity/chat/completions); Ctrl-C stops it"));
    })
    .await
}
