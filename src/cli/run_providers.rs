//! `run --providers a,b,c` and `run --replay RUN_ID --provider P`: one task on
//! several vendors at once, or a stored run's task on another vendor, as a run
//! group. Each run's events are printed with its vendor's name; at the end, each
//! run's line, its workspace copy, and the comparison table (`compare` prints it
//! again). Exit 0 when every vendor that ran passed, 1 when one did not, 2 when
//! none could run.

use std::path::PathBuf;
use std::sync::Arc;

use io_harness::launch::{Call, Group, Launch};
use io_harness::run::Observer;
use io_harness::run::group::{Announce, Column, Copies, GroupResult, Replay};
use io_harness::{Error, Result, Store, Vendor};

use super::printer::{Printer, spent, steps};
use super::task::{self, RunArgs};

/// Run the group; whether every vendor that ran passed.
pub async fn go(mut launch: Launch, store_path: Option<PathBuf>, args: RunArgs) -> Result<bool> {
    let vendors = match args.replay {
        Some(_) => vec![launch.plan().vendor(args.provider.as_deref())?],
        None => vendors(&args.providers)?,
    };
    let (store, path) = launch.open_store(store_path)?;
    let (mut contract, replay) = match args.replay {
        Some(id) => {
            let r = Replay::of(&store, id).map_err(|e| {
                Error::refused(format!("--replay {id}: {e} (store {})", path.display()))
            })?;
            (r.contract.clone(), Some(r))
        }
        None => (task::contract(&args, launch.plan()), None),
    };
    task::require_goal(&contract)?;
    let cap = task::max_usd(args.max_usd)?;
    if cap.is_some() {
        contract.budget.usd_micro = cap;
    }
    // The demo's stub serves every vendor; its key is not a secret.
    launch.start_stub().await?;
    launch.start_telemetry()?;
    let json = args.json;
    let printer = move |v: Vendor| -> Arc<dyn Observer> {
        Arc::new(Printer {
            json,
            label: Some(v.to_string()),
        })
    };
    let named: Vec<(Vendor, Option<String>)> = vendors.iter().map(|&v| (v, None)).collect();
    let entrants = launch.entrants(&named, &printer);
    let cancel = task::cancel_on_ctrl_c();
    launch.start_mcp().await?;
    if !json {
        for line in launch.plan().provenance.iter().chain(&launch.plan().notes) {
            super::out::note(line);
        }
    }
    let copies = copies(&path, json, args.keep_copies);
    let call = Call {
        store: &store,
        approver: task::approver(&args),
        cancel,
    };
    let group = Group {
        entrants,
        copies: &copies,
        cap,
        gate: None,
    };
    let result = match replay.as_ref() {
        Some(r) => launch.replay(r, group, call).await,
        None => launch.run_group(&contract, group, call).await,
    };
    if let Some(line) = launch.finish().await {
        super::out::note(&line);
    }
    report(&store, &launch, &result?, json)
}

/// Where the copies go (beside the store), each said as it is made unless `json`;
/// kept when the runs end with `keep`.
fn copies(store_path: &std::path::Path, json: bool, keep: bool) -> Copies {
    let mut copies = Copies::beside(store_path);
    copies.keep = keep;
    if !json {
        copies.announce = Some(Announce(Arc::new(|vendor, at, copied| {
            super::out::note(&format!(
                "{vendor}: workspace copied to {} ({} file{}, {})",
                at.display(),
                copied.files,
                if copied.files == 1 { "" } else { "s" },
                io_harness::run::copy::size(copied.bytes)
            ));
        })));
    }
    copies
}

/// The vendors `--providers` names, in the order given; a vendor named twice
/// is refused (one of a group's runs would not be the one asked for).
fn vendors(names: &[String]) -> Result<Vec<Vendor>> {
    let out = task::providers(names, |_, e| {
        Err(Error::config(format!("--providers: {e}")))
    })?;
    if out.is_empty() {
        return Err(Error::config(
            "--providers names no vendor: give one or more of anthropic,openai,openrouter,gemini,xai,perplexity",
        ));
    }
    Ok(out)
}

/// Each run's line and workspace, then the comparison; whether every run passed.
fn report(store: &Store, launch: &Launch, g: &GroupResult, json: bool) -> Result<bool> {
    let prices = &launch.plan().prices;
    let mut ran = 0;
    let mut passed = 0;
    for (vendor, copy, column) in &g.columns {
        let line = match column {
            Column::Ran(r) => {
                ran += 1;
                passed += usize::from(r.outcome.passed());
                let workspace = match copy.as_deref() {
                    Some(p) if g.kept => format!("workspace {}", p.display()),
                    Some(_) => "its workspace copy removed (--keep-copies keeps it)".into(),
                    None => "workspace —".into(),
                };
                format!(
                    "{vendor}: run {} {} after {}, {}; {workspace}",
                    r.run_id,
                    r.outcome.label(),
                    steps(r.steps),
                    spent(store, r, prices),
                )
            }
            Column::Refused(why) => format!("{vendor}: refused, not run — {why}"),
            Column::NotStarted(why) => format!("{vendor}: did not start — {why}"),
        };
        if !json {
            super::out::note(&line);
        }
    }
    let comparison = store
        .comparison(g.group_id, prices)?
        .ok_or_else(|| Error::store_says(format!("run group {} was not recorded", g.group_id)))?;
    if json {
        super::out::json(&serde_json::to_string(&comparison).unwrap_or_default())?;
    } else {
        super::out::print(&io_harness::core::compare::table::render(&comparison))?;
        super::out::note(&format!(
            "`io-harness compare {}` shows this again; `io-harness citations RUN_ID` lists a run's sources",
            g.group_id
        ));
    }
    if ran == 0 {
        return Err(Error::refused(format!(
            "no vendor could run the task (group {}): each one's reason is above",
            g.group_id
        )));
    }
    Ok(passed == ran)
}
