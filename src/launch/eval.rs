//! `Launch::eval`: a stored eval's pending questions run, each as a run group
//! (`Launch::run_group`: one run per vendor, each in its own workspace copy),
//! at most `jobs` runs at once across groups (one gate all groups share), the
//! next question starting as one ends. Once the eval's runs have cost its cap
//! no question starts; those left are recorded as skipped. Each question is
//! recorded as done when its group ends, so a killed eval resumed
//! (`eval --resume`) runs only the questions that had not ended.

use std::sync::Arc;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use tokio_util::sync::CancellationToken;

use crate::approve::Approver;
use crate::core::contract::{TaskContract, Verification};
use crate::core::error::Result;
use crate::core::eval::Question;
use crate::core::eval::QuestionStatus;
use crate::core::id::EvalId;
use crate::core::vendor::Vendor;
use crate::core::web::WebAccess;
use crate::launch::start::{Call, Group, Launch};
use crate::run::group::{Column, Copies};
use crate::store::Store;

/// Told as an eval goes: questions done of all, dollars spent so far.
pub trait EvalProgress: Send + Sync {
    /// `done` of `total` questions have ended (those ended before a resume
    /// included), the eval's runs having cost `spent_micro_usd`; `last` just did.
    fn ended(&self, last: &str, done: usize, total: usize, spent_micro_usd: u64);
}

/// Nothing told.
pub struct Quiet;

impl EvalProgress for Quiet {
    fn ended(&self, _: &str, _: usize, _: usize, _: u64) {}
}

/// Where and how an eval runs.
pub struct EvalCall<'a> {
    /// The store the eval and its runs are in.
    pub store: &'a Store,
    /// Where each run's workspace copy goes.
    pub copies: &'a Copies,
    /// Who answers what the policy asks.
    pub approver: &'a dyn Approver,
    /// Cancel to start no further question and end the running ones as cancelled.
    pub cancel: CancellationToken,
    /// Told as questions end.
    pub progress: &'a dyn EvalProgress,
}

impl Launch {
    /// The task a question is: its text as the goal, io.toml's task otherwise
    /// (its `[budget]` included), no verification (the eval scores the answer),
    /// and a search declared when io.toml declares no `[web]`.
    pub fn eval_contract(&self, question: &Question) -> TaskContract {
        let mut contract = self.plan().contract(|c| c.goal = question.question.clone());
        contract.verification = Verification::None;
        if contract.web.is_none() {
            contract.web = Some(WebAccess::search());
        }
        contract
    }

    /// Run eval `eval_id`'s pending questions on `vendors`, `jobs` runs at once,
    /// until they have ended or its runs have cost `cap` (millionths).
    pub async fn eval(
        &self,
        eval_id: EvalId,
        vendors: &[Vendor],
        jobs: u32,
        cap: Option<u64>,
        call: EvalCall<'_>,
    ) -> Result<()> {
        let store = call.store;
        let prices = &self.plan().prices;
        let records = store.eval_questions(eval_id, prices)?;
        let total = records.len();
        let mut done = records
            .iter()
            .filter(|q| q.status == QuestionStatus::Done)
            .count();
        let mut spent: u64 = records
            .iter()
            .flat_map(|q| &q.runs)
            .filter_map(|r| r.figures.cost_micro_usd)
            .sum();
        let mut pending = records
            .into_iter()
            .filter(|q| q.status != QuestionStatus::Done)
            .map(|q| q.question)
            .collect::<Vec<_>>()
            .into_iter();
        let jobs = usize::try_from(jobs.max(1)).unwrap_or(1);
        let gate = Arc::new(tokio::sync::Semaphore::new(jobs));
        // One key for every group: in the demo, one rewind of the stub's script.
        let key = self.key();
        let named: Vec<(Vendor, Option<String>)> = vendors.iter().map(|&v| (v, None)).collect();
        let quiet =
            |_: Vendor| -> Arc<dyn crate::run::Observer> { Arc::new(crate::run::NoObserver) };
        let mut running = FuturesUnordered::new();
        let mut open = true;
        loop {
            while open && running.len() < jobs {
                let Some(q) = pending.next() else {
                    open = false;
                    break;
                };
                if call.cancel.is_cancelled() || cap.is_some_and(|c| spent >= c) {
                    if !call.cancel.is_cancelled() {
                        store.eval_question_skipped(eval_id, &q.id)?;
                        for rest in pending.by_ref() {
                            store.eval_question_skipped(eval_id, &rest.id)?;
                        }
                    }
                    open = false;
                    break;
                }
                let contract = self.eval_contract(&q);
                let group = Group {
                    entrants: self.entrants_with(&named, &quiet, &key),
                    copies: call.copies,
                    cap: None,
                    gate: Some(gate.clone()),
                };
                let run = Call {
                    store,
                    approver: call.approver,
                    cancel: call.cancel.clone(),
                };
                running.push(async move {
                    let ran = self.run_group(&contract, group, run).await;
                    (q, ran)
                });
            }
            let Some((q, ran)) = running.next().await else {
                break;
            };
            let g = ran?;
            if call.cancel.is_cancelled() {
                // Its runs ended cancelled: left pending for `--resume`.
                continue;
            }
            store.eval_question_done(eval_id, &q.id, g.group_id)?;
            done += 1;
            for (_, _, column) in &g.columns {
                if let Column::Ran(r) = column {
                    spent = spent.saturating_add(
                        store
                            .figures(r.run_id, prices)?
                            .cost_micro_usd
                            .unwrap_or(r.spent_micro_usd),
                    );
                }
            }
            call.progress.ended(&q.id, done, total, spent);
        }
        if !call.cancel.is_cancelled() {
            store.eval_finished(eval_id)?;
        }
        Ok(())
    }
}
