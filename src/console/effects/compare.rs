//! The Compare screen's effect: a comparison started through the launch seam
//! (`Launch::entrants`, `Launch::run_group`) off the UI task, each run's events
//! forwarded tagged with its vendor, and the comparison read back from the store.

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::console::effects::executor::Executor;
use crate::console::state::Msg;
use crate::core::contract::TaskContract;
use crate::core::event::Event;
use crate::core::vendor::Vendor;
use crate::launch::{Call, Group};
use crate::run::Observer;

/// Forwards one vendor's events in a comparison.
struct Tagged(mpsc::UnboundedSender<Msg>, Vendor);

impl Observer for Tagged {
    fn event(&self, event: &Event) {
        let _ = self.0.send(Msg::GroupRun {
            vendor: self.1,
            event: Box::new(event.clone()),
        });
    }
}

impl Executor {
    /// Run `contract` on each of `vendors` (with its model) at once as a run group.
    pub(super) fn start_compare(&mut self, contract: TaskContract, vendors: Vec<(Vendor, String)>) {
        if !self.workspace_ready(&contract) {
            return;
        }
        let tx = self.tx.clone();
        let tagged = move |v: Vendor| -> Arc<dyn Observer> { Arc::new(Tagged(tx.clone(), v)) };
        let vendors: Vec<(Vendor, Option<String>)> =
            vendors.into_iter().map(|(v, m)| (v, Some(m))).collect();
        let entrants = self.launch.entrants(&vendors, &tagged);
        let cancel = self.begin();
        let (launch, store, approver, tx, copies) = (
            self.launch.clone(),
            self.store.clone(),
            self.approver.clone(),
            self.tx.clone(),
            self.copies.clone(),
        );
        self.task = Some(tokio::spawn(async move {
            let call = Call {
                store: &store,
                approver: &approver,
                cancel,
            };
            let group = Group {
                entrants,
                copies: &copies,
                cap: None,
                gate: None,
            };
            let ran = launch.run_group(&contract, group, call).await;
            let prices = &launch.plan().prices;
            let compared = match ran {
                Ok(g) => match store.comparison(g.group_id, prices) {
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
