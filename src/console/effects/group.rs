//! Starting a comparison from the console: every vendor's provider built at the
//! one seam (`launch`), each run's events forwarded tagged with its vendor (and
//! traced when `[telemetry]` says so), the group run by the library
//! (`run::group`) off the UI task, and its comparison read back from the store.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::Executor;
use crate::console::state::Msg;
use crate::core::contract::TaskContract;
use crate::core::event::Event;
use crate::core::wire::Vendor;
use crate::run::group::{Entrant, Venue, run_group};
use crate::run::{NoObserver, Observer};

/// Forwards one vendor's events in a comparison.
struct Tagged(mpsc::UnboundedSender<Msg>, Vendor);

impl Observer for Tagged {
    fn event(&self, event: &Event) {
        let _ = self.0.send(Msg::GroupRun(self.1, Box::new(event.clone())));
    }
}

impl Executor {
    /// Run `contract` on each of `vendors` at once as a run group.
    pub(super) fn start_compare(&mut self, contract: TaskContract, vendors: Vec<(Vendor, String)>) {
        let Some(copies) = self.copies.clone() else {
            let _ = self.tx.send(Msg::Compared(Err(
                "the store's folder is not known, so the workspace copies have nowhere to go"
                    .into(),
            )));
            return;
        };
        // One rewind for the whole group: every vendor's script from its start,
        // under one key the stub knows as this group's.
        let key = self.key();
        let entrants = vendors
            .into_iter()
            .map(|(vendor, model)| {
                let tagged = Arc::new(Tagged(self.tx.clone(), vendor));
                let provider = self.provider(vendor, model, &key);
                let observer = match &provider {
                    Ok(p) => self.traced(&p.endpoint().base_url, tagged),
                    Err(_) => tagged,
                };
                Entrant {
                    vendor: vendor.to_string(),
                    provider,
                    observer,
                }
            })
            .collect::<Vec<_>>();
        // Each run's own observer replaces this one.
        let options = self.begin(Arc::new(NoObserver));
        let (store, policy, approver, tx, prices) = (
            self.store.clone(),
            self.policy.clone(),
            self.approver.clone(),
            self.tx.clone(),
            self.prices.clone(),
        );
        self.task = Some(tokio::spawn(async move {
            let venue = Venue {
                store: &store,
                copies: &copies,
                policy: &policy,
                approver: &approver,
            };
            let ran = run_group(&venue, &contract, entrants, options, None).await;
            let compared = match ran {
                Ok(g) => match store.comparison(g.group_id, &prices) {
                    Ok(Some(c)) => Ok(c),
                    Ok(None) => Err(format!("run group {} was not recorded", g.group_id)),
                    Err(e) => Err(e.to_string()),
                },
                Err(e) => Err(e.to_string()),
            };
            let _ = tx.send(Msg::Compared(compared));
        }));
    }
}
