//! The judge of an eval (`eval --judge VENDOR[:MODEL]`): once a question's
//! runs have ended, each run that ended with an answer is graded by one run on
//! the judge — the project's grading prompt (`core::eval::judge::prompt`) as
//! the goal, no web access, no local tools, no verification — in a group of its
//! own named by the run it grades (`Store::eval_judging_group`), under the same
//! `--jobs` gate as the answering runs. A judging that ended is not run again;
//! one killed or cancelled runs again in its group on `eval --resume`. Its
//! cost is the eval's: it counts toward `--max-usd` and is shown apart.

use std::sync::Arc;

use crate::core::contract::Verification;
use crate::core::error::Result;
use crate::core::eval::judge::{JudgeSpec, prompt};
use crate::core::eval::{JudgingRecord, Question};
use crate::core::id::{EvalId, GroupId, RunId};
use crate::core::outcome::Outcome;
use crate::core::record::final_answer;
use crate::launch::start::{Call, Launch};
use crate::launch::vendor::Key;
use crate::store::NewGroup;

/// How an eval's judge runs.
pub(crate) struct Judging<'a> {
    /// The eval.
    pub eval_id: EvalId,
    /// Its judge.
    pub judge: &'a JudgeSpec,
    /// Its judgings' groups are private.
    pub private: bool,
    /// The eval's gate: at most `--jobs` runs at once, judges included.
    pub gate: Arc<tokio::sync::Semaphore>,
    /// The eval's key (the demo's stub script, rewound once for the eval).
    pub key: &'a Key,
}

impl Launch {
    /// Grade question `q`'s answered runs in its group `group_id` that have no
    /// ended judging; what the judging runs made now cost.
    pub(crate) async fn judge_question(
        &self,
        q: &Question,
        group_id: GroupId,
        j: &Judging<'_>,
        call: &Call<'_>,
    ) -> Result<u64> {
        let store = call.store;
        let prices = &self.plan().prices;
        let judgings = store.judgings(j.eval_id, &q.id, prices)?;
        let Some(group) = store.group(group_id)? else {
            return Ok(0);
        };
        let mut todo: Vec<(RunId, String, Option<GroupId>)> = Vec::new();
        for run_id in group.runs {
            let answered = store
                .run(run_id)?
                .and_then(|r| r.outcome)
                .is_some_and(Outcome::answered);
            let earlier: Option<&JudgingRecord> = judgings.iter().find(|x| x.graded == run_id);
            if !answered || earlier.is_some_and(JudgingRecord::ended) {
                continue;
            }
            let steps = store.steps(run_id)?;
            let answer = final_answer(&steps, |s| &s.text)
                .map(|s| s.text.clone())
                .unwrap_or_default();
            todo.push((run_id, answer, earlier.and_then(|x| x.group_id)));
        }
        let runs = todo.into_iter().map(|(graded, answer, group)| async move {
            self.judge_one(q, graded, &answer, group, j, call).await
        });
        let mut cost = 0u64;
        for made in futures_util::future::join_all(runs).await {
            cost = cost.saturating_add(made?);
        }
        Ok(cost)
    }

    /// One judging of run `graded`'s `answer`, in its group (made now when it
    /// has none); what its run cost.
    async fn judge_one(
        &self,
        q: &Question,
        graded: RunId,
        answer: &str,
        group: Option<GroupId>,
        j: &Judging<'_>,
        call: &Call<'_>,
    ) -> Result<u64> {
        let store = call.store;
        let goal = prompt(q, answer);
        let workspace = self.plan().task.workspace.clone();
        let group_id = match group {
            Some(g) => g,
            None => store.eval_judging_group(
                j.eval_id,
                &q.id,
                graded,
                &NewGroup {
                    goal: goal.clone(),
                    workspace: std::path::absolute(&workspace)
                        .unwrap_or_else(|_| workspace.clone())
                        .display()
                        .to_string(),
                    max_usd_micro: None,
                    private: j.private,
                },
            )?,
        };
        let mut contract = self.plan().contract(|c| c.goal = goal.clone());
        contract.verification = Verification::None;
        contract.web = None;
        let provider = self.provider(j.judge.vendor, j.judge.model.as_deref(), j.key)?;
        let observer = self.traced(&provider, Arc::new(crate::run::NoObserver));
        let options = crate::run::RunOptions {
            group_id: Some(group_id),
            tools: Some(Vec::new()),
            agents: Vec::new(),
            mcp: None,
            ..self.options(observer, call.cancel.clone())
        };
        // A judging waits for a slot of the eval's --jobs, as a run does.
        let _permit = j.gate.clone().acquire_owned().await.ok();
        let ran = crate::run::run_with_options(
            &contract,
            &provider,
            store,
            &self.plan().policy,
            call.approver,
            options,
        )
        .await?;
        Ok(store
            .figures(ran.run_id, &self.plan().prices)?
            .cost_micro_usd
            .unwrap_or(ran.spent_micro_usd))
    }
}
