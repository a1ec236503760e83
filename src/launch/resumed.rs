//! A stored run going on: the setup its next step is sent with, from the plan
//! recorded when it started (`core::plan::RunPlan`) — its vendor, wire, model,
//! output cap and limits — at the address and with the key variable io.toml
//! gives that vendor now (the stub's, in the demo), each change said in a note.
//! `run --resume`, `preview --resume` and the console's next-request view all
//! come here, so the previewed body is the one a resume sends, to the vendor
//! the run started on.
//!
//! Refused, before anything is sent (exit 2): a `--provider` that is not the
//! run's own, and a demo run resumed off the stub or a real one onto it. A run
//! recorded before plans were kept goes on on its own vendor and model
//! (`runs.provider`, `runs.model`).

use std::time::Duration;

use crate::core::error::{Error, Result};
use crate::core::id::RunId;
use crate::core::plan::RunPlan;
use crate::core::vendor::Vendor;
use crate::launch::plan::Plan;
use crate::launch::vendor::{Limits, VendorSetup};
use crate::store::Store;

impl Plan {
    /// The setup run `run_id` goes on with, given what it was started with
    /// (`stored`, or the run row's vendor and model where no plan was kept) and
    /// the `--provider` given with the resume, if any; and what moved in
    /// io.toml since, a note each.
    pub fn resumed(
        &self,
        run_id: RunId,
        stored: Result<RunPlan, (Vendor, String)>,
        flag: Option<Vendor>,
    ) -> Result<(VendorSetup, Vec<String>)> {
        let vendor = match &stored {
            Ok(p) => p.vendor(),
            Err((v, _)) => *v,
        };
        if let Some(asked) = flag.filter(|f| *f != vendor) {
            return Err(Error::refused(format!(
                "run {run_id} was started on {vendor}; it goes on there, not on {asked} (a run's \
                 transcript and cost belong to its vendor). Leave --provider out, or start a new \
                 run on {asked}. Nothing was sent."
            )));
        }
        let now = self.setup(vendor);
        let plan = match stored {
            Err((_, model)) => {
                let setup = VendorSetup {
                    model,
                    ..now.clone()
                };
                return Ok((setup, Vec::new()));
            }
            Ok(plan) => plan,
        };
        let demo = if plan.demo { " --demo" } else { "" };
        if plan.demo != self.demo {
            let (was, is) = match plan.demo {
                true => ("on the built-in stub vendor", "a real vendor"),
                false => ("on a real vendor", "the built-in stub vendor"),
            };
            return Err(Error::refused(format!(
                "run {run_id} ran {was}; this command sends to {is}. Resume it as it ran: \
                 `io-harness run --resume {run_id}{demo}`. Nothing was sent."
            )));
        }
        let notes = plan.moved(run_id, &now.endpoint);
        let ms = Duration::from_millis;
        let setup = VendorSetup {
            endpoint: crate::core::endpoint::Endpoint {
                // Where the vendor is reached now (the stub's port changes),
                // with the key io.toml names now; everything else as it started.
                base_url: now.endpoint.base_url.clone(),
                api_key_env: now.endpoint.api_key_env.clone(),
                ..plan.endpoint
            },
            model: plan.model,
            max_tokens: plan.max_tokens,
            limits: Limits {
                max_response_bytes: plan.limits.max_response_bytes,
                request_timeout: ms(plan.limits.request_timeout_ms),
                idle_timeout: ms(plan.limits.idle_timeout_ms),
            },
        };
        Ok((setup, notes))
    }
}

/// What run `run_id` was started with, read from `store`: its plan, else its
/// row's vendor and model; an unknown run is refused naming it.
pub fn started_with(store: &Store, run_id: RunId) -> Result<Result<RunPlan, (Vendor, String)>> {
    if let Some(plan) = store.run_plan(run_id)? {
        return Ok(Ok(plan));
    }
    let row = store.run(run_id)?.ok_or_else(|| {
        Error::refused(format!(
            "there is no run {run_id} in this store; `io-harness runs` lists them"
        ))
    })?;
    Ok(Err((row.provider, row.model)))
}
