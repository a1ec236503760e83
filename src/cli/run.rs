//! `io-harness run`: one contract to its end against the configured provider,
//! recorded in the store, begun through the launch seam (`Launch::run`).
//! `--json` prints one event per line, the last being the outcome with its
//! `run_id`; otherwise a readable line per event on stderr and the answer on
//! stdout. Ctrl-C ends the run as cancelled, everything so far kept.

use std::path::PathBuf;
use std::sync::Arc;

use io_harness::Result;
use io_harness::launch::{Call, Launch, started_with};
use io_harness::run::Observer;

use super::printer::{Printer, spent, steps};
use super::task::{self, RunArgs};

/// Run one contract; whether its verification passed.
pub async fn go(mut launch: Launch, store_path: Option<PathBuf>, args: RunArgs) -> Result<bool> {
    let vendor = launch.plan().vendor(args.provider.as_deref())?;
    let mut contract = task::contract(&args, launch.plan());
    if args.resume.is_none() {
        task::require_goal(&contract)?;
    }
    let (store, _) = launch.open_store(store_path)?;
    // The demo's stub lives until `finish`; its key is not a secret. A resumed
    // run takes the script up at the step it reached.
    launch.start_stub().await?;
    let done = match args.resume {
        Some(id) => store
            .load_checkpoint(id)
            .ok()
            .flatten()
            .map_or(0, |c| c.step),
        None => 0,
    };
    let key = launch.key_resuming(done);
    let provider = match args.resume {
        // A resumed run goes on on the vendor, wire and model it started with.
        Some(id) => {
            let flag = args.provider.is_some().then_some(vendor);
            let (setup, moved) = launch.plan().resumed(id, started_with(&store, id)?, flag)?;
            for line in &moved {
                super::out::note(line);
            }
            setup.provider(None, &key)?
        }
        None => launch.provider(vendor, None, &key)?,
    };
    let cancel = task::cancel_on_ctrl_c();
    launch.start_mcp().await?;
    if let Some(cap) = task::max_usd(args.max_usd)? {
        contract.budget.usd_micro = Some(cap);
    }
    launch.start_telemetry()?;
    let printer: Arc<dyn Observer> = Arc::new(Printer {
        json: args.json,
        label: None,
    });
    if !args.json {
        for line in launch.plan().provenance.iter().chain(&launch.plan().notes) {
            super::out::note(line);
        }
    }
    let call = Call {
        store: &store,
        approver: task::approver(&args),
        cancel,
    };
    let resume = args.resume;
    let result = launch
        .run(&contract, &provider, printer, resume, call)
        .await;
    // Said once, after the run: what the collector did not take.
    if let Some(line) = launch.finish().await {
        super::out::note(&line);
    }
    let result = result?;
    if !args.json {
        super::out::line(&result.answer)?;
        super::out::note(&format!(
            "run {} {} after {}, {}; `io-harness citations {}` lists its sources",
            result.run_id,
            result.outcome.label(),
            steps(result.steps),
            spent(&store, &result, &launch.plan().prices),
            result.run_id
        ));
    }
    Ok(result.outcome.passed())
}
