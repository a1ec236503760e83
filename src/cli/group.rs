//! `run --providers a,b,c` and `run --replay RUN_ID --provider P`: one task on
//! several vendors at once, or a stored run's task on another vendor, as a run
//! group. Each run's events are printed with its vendor's name; at the end, each
//! run's line, its workspace copy, and the comparison table (`compare` prints it
//! again). Exit 0 when every vendor that ran passed, 1 when one did not, 2 when
//! none could run.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use io_harness::run::group::{
    Announce, Column, Copies, Entrant, GroupResult, Replay, Venue, run_group, run_in_group,
};
use io_harness::run::{Observer, RunOptions};
use io_harness::stub::demo;
use io_harness::{ApproveAll, Approver, Config, Error, NobodyToAsk, Result, RunId, Store, Vendor};

use super::run::{
    Printer, RunArgs, cancel_on_ctrl_c, max_usd, mcp_servers, open_store, provider, spent, task,
};

/// Run the group and pick the exit code.
pub async fn run(config: Option<PathBuf>, store: Option<PathBuf>, args: RunArgs) -> ExitCode {
    super::verdict(go(config, store, args).await)
}

async fn go(
    config_path: Option<PathBuf>,
    store_path: Option<PathBuf>,
    args: RunArgs,
) -> Result<bool> {
    let loaded = Config::discover(config_path.as_deref())?;
    let config = &loaded.config;
    let (store, path) = open_store(&loaded, store_path)?;
    let vendors = match args.replay {
        Some(_) => vec![super::vendor(args.provider.as_deref(), config)?],
        None => vendors(&args.providers)?,
    };
    let (mut contract, replay) = match args.replay {
        Some(id) => {
            let r = Replay::of(&store, RunId(id)).map_err(|e| {
                Error::config(format!("--replay {id}: {e} (store {})", path.display()))
            })?;
            (r.contract.clone(), Some(r))
        }
        None => (task(&args, config), None),
    };
    if contract.goal.trim().is_empty() {
        return Err(Error::config(super::NO_GOAL));
    }
    let cap = max_usd(args.max_usd)?;
    if cap.is_some() {
        contract.budget.usd_micro = cap;
    }
    // The demo's stub serves every vendor; its key is not a secret.
    let stub = if args.demo {
        Some(demo::demo_stub().await?)
    } else {
        None
    };
    let telemetry = io_harness::telemetry::Telemetry::from_config(config)?;
    let entrants = vendors
        .iter()
        .map(|&v| {
            let provider = provider(config, v, stub.as_ref());
            let printer: Arc<dyn Observer> = Arc::new(Printer {
                json: args.json,
                label: Some(v.to_string()),
            });
            let observer = match (&telemetry, &provider) {
                (Some(t), Ok(p)) => t.observer(&p.endpoint().base_url, printer),
                _ => printer,
            };
            Entrant {
                vendor: v.to_string(),
                provider,
                observer,
            }
        })
        .collect::<Vec<_>>();
    let options = RunOptions {
        prices: config.price_table(),
        cancel: cancel_on_ctrl_c(),
        agents: config.agents.clone(),
        mcp: mcp_servers(config).await?,
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
    let mut copies = Copies::beside(&path);
    if !args.json {
        copies.announce = Some(Announce(Arc::new(|vendor, at, copied| {
            eprintln!(
                "{vendor}: workspace copied to {} ({} file{}, {})",
                at.display(),
                copied.files,
                if copied.files == 1 { "" } else { "s" },
                io_harness::run::copy::size(copied.bytes)
            );
        })));
    }
    let policy = config.policy();
    let venue = Venue {
        store: &store,
        copies: &copies,
        policy: &policy,
        approver,
    };
    let result = match replay.as_ref() {
        Some(r) => {
            let group_id = r.group(&store, cap)?;
            run_in_group(&venue, &contract, entrants, options, cap, group_id).await
        }
        None => run_group(&venue, &contract, entrants, options, cap).await,
    };
    if let Some(t) = telemetry {
        if let Some(line) = t.finish_blocking().await {
            eprintln!("{line}");
        }
    }
    if let Some(stub) = stub {
        stub.shutdown();
    }
    report(&store, config, &result?, args.json)
}

/// The vendors `--providers` names, each once, in the order given.
fn vendors(names: &[String]) -> Result<Vec<Vendor>> {
    let mut out: Vec<Vendor> = Vec::new();
    for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        let v: Vendor = name
            .parse()
            .map_err(|e: Error| Error::config(format!("--providers: {e}")))?;
        if !out.contains(&v) {
            out.push(v);
        }
    }
    if out.is_empty() {
        return Err(Error::config(
            "--providers names no vendor: give one or more of anthropic,openai,openrouter",
        ));
    }
    Ok(out)
}

/// Each run's line and workspace, then the comparison; whether every run passed.
fn report(store: &Store, config: &Config, g: &GroupResult, json: bool) -> Result<bool> {
    let prices = config.price_table();
    let mut ran = 0;
    let mut passed = 0;
    for (vendor, copy, column) in &g.columns {
        let line = match column {
            Column::Ran(r) => {
                ran += 1;
                passed += usize::from(r.outcome.passed());
                format!(
                    "{vendor}: run {} {} after {} steps, {}; workspace {}",
                    r.run_id,
                    r.outcome.label(),
                    r.steps,
                    spent(store, r, &prices),
                    copy.as_deref()
                        .map_or("—".into(), |p| p.display().to_string())
                )
            }
            Column::Refused(why) => format!("{vendor}: refused, not run — {why}"),
            Column::NotStarted(why) => format!("{vendor}: did not start — {why}"),
        };
        if !json {
            eprintln!("{line}");
        }
    }
    let comparison = store
        .comparison(g.group_id, &prices)?
        .ok_or_else(|| Error::Store(format!("run group {} was not recorded", g.group_id)))?;
    if json {
        super::out::line(&serde_json::to_string(&comparison).unwrap_or_default())?;
    } else {
        super::out::print(&io_harness::core::compare::table::render(&comparison))?;
        eprintln!(
            "`io-harness compare {}` shows this again; `io-harness citations RUN_ID` lists a run's sources",
            g.group_id
        );
    }
    if ran == 0 {
        return Err(Error::config(format!(
            "no vendor could run the task (group {}): each one's reason is above",
            g.group_id
        )));
    }
    Ok(passed == ran)
}
