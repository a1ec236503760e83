//! `Launch::eval`: a stored eval's pending questions run, each as a run group
//! (`Launch::run_in_group`: one run per vendor, each in its own workspace
//! copy), at most `jobs` runs at once across groups (one gate all groups
//! share), the next question starting as one ends.
//!
//! - **Every run made for the eval is its own**: a question's group is recorded
//!   on the question as it starts; resumed, the question runs on in that group,
//!   only on the vendors without an ending there (a run interrupted by a kill
//!   or cancelled is run again; one that ended is kept), and the cap counts
//!   every run of every group.
//! - Once the eval's runs have cost its cap no question starts; those left are
//!   recorded as skipped.
//! - A question is done once every vendor has an ending or a refusal in its
//!   group. A vendor that could not start (no key, its workspace copy failed)
//!   leaves the question pending, and the eval says so (`EvalEnd`); a question
//!   whose group failed as a whole ends alone, the others run on. An eval with
//!   a question left pending is not finished: `eval --resume` runs it.
//! - **An eval with a judge** (stored with it) grades each question's answered
//!   runs once they have ended (`launch::judge`), under the same gate, before
//!   the question is done; the judgings' cost counts toward the cap.
//! - **A private eval's** groups are private (`NewGroup::private`): its runs
//!   are kept out of the search index.

use std::sync::Arc;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use tokio_util::sync::CancellationToken;

use crate::approve::Approver;
use crate::core::contract::{TaskContract, Verification};
use crate::core::error::Result;
use crate::core::eval::QuestionStatus;
use crate::core::eval::{Question, QuestionRecord};
use crate::core::id::{EvalId, GroupId};
use crate::core::vendor::Vendor;
use crate::core::web::WebAccess;
use crate::launch::judge::Judging;
use crate::launch::start::{Call, Group, Launch};
use crate::launch::vendor::Key;
use crate::run::Observer;
use crate::run::group::{Column, Copies, GroupResult};
use crate::store::{NewGroup, Store};

/// The most runs an eval has at once (`--jobs`).
pub const MAX_JOBS: u32 = 64;

/// Why `MAX_JOBS` is what it is, as `--jobs` says when refused.
pub const JOBS_BOUND: &str = "each run in flight holds a connection to its vendor, its \
    workspace copy's open files while it is made and its writes to the store, and 64 \
    stays well inside the usual limit of 1,024 open files a process; vendors limit \
    concurrent requests per key to about as many";

/// How a call of `Launch::eval` left the eval: what kept questions pending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EvalEnd {
    /// Per vendor and reason it could not start (no key, a workspace copy that
    /// failed), the questions it left pending, in order.
    pub not_started: Vec<(Vendor, String, Vec<String>)>,
    /// Questions whose group failed as a whole, and why.
    pub failed: Vec<(String, String)>,
    /// Runs this call started.
    pub started: usize,
}

impl EvalEnd {
    /// No question was left pending by a vendor that could not start or a failure.
    pub fn finished(&self) -> bool {
        self.not_started.is_empty() && self.failed.is_empty()
    }

    /// `vendor` could not start question `id`, for `why`.
    fn not_started(&mut self, vendor: Vendor, why: &str, id: &str) {
        match self
            .not_started
            .iter_mut()
            .find(|(v, w, _)| *v == vendor && w == why)
        {
            Some((_, _, ids)) => ids.push(id.to_string()),
            None => self
                .not_started
                .push((vendor, why.to_string(), vec![id.to_string()])),
        }
    }
}

/// What one pending question still needs: the vendors that will run it now,
/// and those it needs that cannot start, with why.
struct Needs {
    run: Vec<Vendor>,
    waiting: Vec<(Vendor, String)>,
}

impl Needs {
    /// Of `q`'s vendors without an ending in its group, those that can start
    /// and those in `cannot` (with why).
    fn of(q: &QuestionRecord, vendors: &[Vendor], cannot: &[(Vendor, String)]) -> Needs {
        let (waiting, run): (Vec<Vendor>, Vec<Vendor>) = q
            .to_run(vendors)
            .into_iter()
            .partition(|v| cannot.iter().any(|(c, _)| c == v));
        Needs {
            run,
            waiting: cannot
                .iter()
                .filter(|(v, _)| waiting.contains(v))
                .cloned()
                .collect(),
        }
    }
}

/// Where an eval stands as a call starts: its questions, those done, what
/// its runs have cost, and those left to run.
struct Standing {
    total: usize,
    done: usize,
    spent: u64,
    pending: Vec<QuestionRecord>,
}

impl Standing {
    fn of(records: Vec<QuestionRecord>) -> Standing {
        let total = records.len();
        let done = records
            .iter()
            .filter(|q| q.status == QuestionStatus::Done)
            .count();
        // Every run of every group the eval names, a killed question's included,
        // and every judging run.
        let spent = records
            .iter()
            .flat_map(|q| q.runs.iter().chain(q.judgings.iter().flat_map(|j| &j.runs)))
            .filter_map(|r| r.figures.cost_micro_usd)
            .fold(0u64, u64::saturating_add);
        let pending = records
            .into_iter()
            .filter(|q| q.status != QuestionStatus::Done)
            .collect();
        Standing {
            total,
            done,
            spent,
            pending,
        }
    }
}

/// How a question's call ended: its group (none when its runs had ended
/// before), the group's id, and what judging it cost.
type Asked = Result<(Option<GroupResult>, GroupId, u64)>;

/// What an eval whose every vendor cannot start ends with: every question
/// stays pending, as it was, each vendor's reason said for each.
fn none_can_start(
    pending: impl Iterator<Item = QuestionRecord>,
    cannot: &[(Vendor, String)],
) -> EvalEnd {
    let mut end = EvalEnd::default();
    for q in pending {
        for (v, why) in cannot {
            end.not_started(*v, why, &q.question.id);
        }
    }
    end
}

/// An eval's runs tell no one their events.
fn quiet(_: Vendor) -> Arc<dyn Observer> {
    Arc::new(crate::run::NoObserver)
}

/// Vendors on their plan's model.
fn named(vendors: &[Vendor]) -> Vec<(Vendor, Option<String>)> {
    vendors.iter().map(|&v| (v, None)).collect()
}

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

    /// Run eval `eval_id`'s pending questions on `vendors`, `jobs` runs at once
    /// (at most `MAX_JOBS`), until they have ended or its runs have cost `cap`
    /// (millionths); what kept any pending is in the `EvalEnd`.
    pub async fn eval(
        &self,
        eval_id: EvalId,
        vendors: &[Vendor],
        jobs: u32,
        cap: Option<u64>,
        call: EvalCall<'_>,
    ) -> Result<EvalEnd> {
        let store = call.store;
        let row = store.eval(eval_id)?.unwrap_or_default();
        let Standing {
            total,
            mut done,
            mut spent,
            pending,
        } = Standing::of(store.eval_questions(eval_id, &self.plan().prices)?);
        let mut pending = pending.into_iter();
        // One key for every group: in the demo, one rewind of the stub's script.
        let key = self.key();
        let cannot = self.cannot_start(vendors, &key);
        if cannot.len() == vendors.len() {
            return Ok(none_can_start(pending, &cannot));
        }
        let mut end = EvalEnd::default();
        let jobs = usize::try_from(jobs.clamp(1, MAX_JOBS)).unwrap_or(1);
        let gate = Arc::new(tokio::sync::Semaphore::new(jobs));
        let judging = row.judge.as_ref().map(|judge| Judging {
            eval_id,
            judge,
            private: row.private,
            gate: gate.clone(),
            key: &key,
        });
        let judging = judging.as_ref();
        let (mut running, mut open) = (FuturesUnordered::new(), true);
        loop {
            while open && running.len() < jobs {
                let Some(q) = pending.next() else {
                    open = false;
                    break;
                };
                if call.cancel.is_cancelled() || cap.is_some_and(|c| spent >= c) {
                    if !call.cancel.is_cancelled() {
                        for q in std::iter::once(q).chain(pending.by_ref()) {
                            store.eval_question_skipped(eval_id, &q.question.id)?;
                        }
                    }
                    open = false;
                    break;
                }
                let needs = Needs::of(&q, vendors, &cannot);
                for (v, why) in &needs.waiting {
                    end.not_started(*v, why, &q.question.id);
                }
                match self.question_group(eval_id, &q, &needs, store, (row.private, judging))? {
                    Some(group_id) => {
                        let group = Group {
                            entrants: self.entrants_with(&named(&needs.run), &quiet, &key),
                            copies: call.copies,
                            cap: None,
                            gate: Some(gate.clone()),
                        };
                        running.push(self.question(
                            q,
                            needs,
                            Some(group),
                            group_id,
                            &call,
                            judging,
                        ));
                    }
                    // Every vendor had ended before the eval was stopped: what
                    // is left is to judge them.
                    None => match (q.group_id, judging, needs.waiting.is_empty()) {
                        (Some(g), Some(_), true) => {
                            running.push(self.question(q, needs, None, g, &call, judging));
                        }
                        (_, _, true) => {
                            done += 1;
                            call.progress.ended(&q.question.id, done, total, spent);
                        }
                        _ => {}
                    },
                }
            }
            let Some((q, needs, ran)) = running.next().await else {
                break;
            };
            let (cost, finished) = self.answered(eval_id, &q, &needs, ran, &mut end, &call)?;
            spent = spent.saturating_add(cost);
            if finished {
                done += 1;
                call.progress.ended(&q.question.id, done, total, spent);
            }
        }
        if !call.cancel.is_cancelled() && end.finished() {
            store.eval_finished(eval_id)?;
        }
        Ok(end)
    }

    /// Question `q`'s call ended (`ran`): its group settled and, unless it is
    /// left pending (cancelled, a run not ended, a vendor that could not
    /// start, or its group failed), recorded done; what it cost (judging
    /// included) and whether it is done.
    fn answered(
        &self,
        eval_id: EvalId,
        q: &QuestionRecord,
        needs: &Needs,
        ran: Asked,
        end: &mut EvalEnd,
        call: &EvalCall<'_>,
    ) -> Result<(u64, bool)> {
        let (g, group_id, judged) = match ran {
            Ok(g) => g,
            Err(e) => {
                // This question ends here, pending; the others run on.
                end.failed.push((q.question.id.clone(), e.to_string()));
                return Ok((0, false));
            }
        };
        let (ended, cost) = match &g {
            Some(g) => self.settle(g, &q.question.id, end, call.store)?,
            None => (true, 0),
        };
        let cost = cost.saturating_add(judged);
        if call.cancel.is_cancelled() || !ended || !needs.waiting.is_empty() {
            // Left pending for `--resume`: its runs were cancelled, or a
            // vendor could not start.
            return Ok((cost, false));
        }
        call.store
            .eval_question_done(eval_id, &q.question.id, group_id)?;
        Ok((cost, true))
    }

    /// Of `vendors`, those that cannot start (no key) and why: found once,
    /// not per question.
    fn cannot_start(&self, vendors: &[Vendor], key: &Key) -> Vec<(Vendor, String)> {
        self.entrants_with(&named(vendors), &quiet, key)
            .into_iter()
            .filter_map(|e| e.provider.err().map(|err| (e.vendor, err.to_string())))
            .collect()
    }

    /// Question `q` run on `group`'s entrants (none: its runs had ended) in
    /// its group `group_id`, then its answered runs judged when `judging`: the
    /// question back, what it needed, how its group ended and what judging it
    /// cost.
    async fn question(
        &self,
        q: QuestionRecord,
        needs: Needs,
        group: Option<Group<'_>>,
        group_id: GroupId,
        call: &EvalCall<'_>,
        judging: Option<&Judging<'_>>,
    ) -> (QuestionRecord, Needs, Asked) {
        let run = Call {
            store: call.store,
            approver: call.approver,
            cancel: call.cancel.clone(),
        };
        let ran = async {
            let g = match group {
                Some(group) => {
                    let contract = self.eval_contract(&q.question);
                    let call = Call {
                        cancel: run.cancel.clone(),
                        ..run
                    };
                    Some(self.run_in_group(&contract, group, call, group_id).await?)
                }
                None => None,
            };
            let judged = match judging {
                Some(j) if !run.cancel.is_cancelled() => {
                    self.judge_question(&q.question, group_id, j, &run).await?
                }
                _ => 0,
            };
            Ok((g, group_id, judged))
        }
        .await;
        (q, needs, ran)
    }

    /// The group question `q` runs in: its own when it has one (a question
    /// resumed), else a new one recorded on it; `None` when no vendor is to run
    /// it now (marked done when none is waiting either).
    fn question_group(
        &self,
        eval_id: EvalId,
        q: &QuestionRecord,
        needs: &Needs,
        store: &Store,
        (private, judging): (bool, Option<&Judging<'_>>),
    ) -> Result<Option<GroupId>> {
        if needs.run.is_empty() {
            // Done now unless its runs are still to be judged.
            if let (Some(g), true, None) = (q.group_id, needs.waiting.is_empty(), judging) {
                store.eval_question_done(eval_id, &q.question.id, g)?;
            }
            if let Some(g) = q.group_id {
                for (v, why) in &needs.waiting {
                    store.record_refusal(g, *v, why)?;
                }
            }
            return Ok(None);
        }
        let group_id = match q.group_id {
            Some(g) => g,
            None => {
                let workspace = &self.plan().task.workspace;
                store.eval_question_group(
                    eval_id,
                    &q.question.id,
                    &NewGroup {
                        goal: q.question.question.clone(),
                        workspace: std::path::absolute(workspace)
                            .unwrap_or_else(|_| workspace.clone())
                            .display()
                            .to_string(),
                        max_usd_micro: None,
                        private,
                    },
                )?
            }
        };
        // Who cannot start is said in the question's group, beside the runs.
        for (v, why) in &needs.waiting {
            store.record_refusal(group_id, *v, why)?;
        }
        Ok(Some(group_id))
    }

    /// A question's group as it ended: whether every vendor that ran it has an
    /// ending (none cancelled, none not started), and what its runs cost; a
    /// vendor that did not start is told to `end`.
    fn settle(
        &self,
        g: &GroupResult,
        id: &str,
        end: &mut EvalEnd,
        store: &Store,
    ) -> Result<(bool, u64)> {
        let prices = &self.plan().prices;
        let mut ended = true;
        let mut cost: u64 = 0;
        for (vendor, _, column) in &g.columns {
            match column {
                Column::Ran(r) => {
                    end.started += 1;
                    ended &= r.outcome.word() != crate::core::outcome::Outcome::Cancelled;
                    cost = cost.saturating_add(
                        store
                            .figures(r.run_id, prices)?
                            .cost_micro_usd
                            .unwrap_or(r.spent_micro_usd),
                    );
                }
                Column::Refused(_) => {}
                Column::NotStarted(why) => {
                    ended = false;
                    end.not_started(*vendor, why, id);
                }
            }
        }
        Ok((ended, cost))
    }
}
