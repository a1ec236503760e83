//! Claiming a run for a resume, atomically: of several processes resuming one run
//! at once exactly one proceeds. SQLite has no liveness function, so the claim is
//! one `BEGIN IMMEDIATE` transaction — it takes the write lock first, so no other
//! claim can read between this one's read and its write — that reads the run's
//! outcome and recorded runner, decides with `runner`'s liveness check, and writes
//! this process as the runner. A claim is granted only when no runner is recorded,
//! the recorded one is this process, or it is known to be gone; a live one, or one
//! on another host (which this machine cannot check), is named in the refusal.
//! An eval is claimed the same way (`claim_eval`, by `eval` as it creates or
//! resumes one, released as it ends), so one process at a time runs it.

use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::{Store, db_err};
use crate::core::error::{Error, Result};
use crate::core::id::{EvalId, RunId};
use crate::core::outcome::Outcome;
use crate::machine::process::{self as runner, Runner};

impl Store {
    /// Make this process the run's runner and clear its outcome, or refuse before
    /// anything is sent: an unknown or finished run, or one another process holds.
    pub fn claim_run(&self, run_id: RunId) -> Result<()> {
        let me = runner::current();
        let mut conn = self.lock()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db_err("claiming a run"))?;
        let row: Option<(Option<Outcome>, Option<Runner>)> = tx
            .query_row(
                "SELECT outcome, runner_pid, runner_host, runner_token FROM runs WHERE run_id = ?1",
                [run_id.0],
                |r| {
                    let runner = match r.get::<_, Option<i64>>(1)? {
                        Some(pid) => Some(Runner {
                            pid,
                            host: r.get(2)?,
                            token: r.get(3)?,
                        }),
                        None => None,
                    };
                    Ok((r.get(0)?, runner))
                },
            )
            .optional()
            .map_err(db_err("claiming a run"))?;
        let Some((outcome, recorded)) = row else {
            return Err(Error::refused(format!(
                "there is no run {run_id} in this store; `io-harness runs` lists them"
            )));
        };
        if let Some(outcome) = outcome {
            return Err(Error::refused(format!(
                "run {run_id} already finished ({outcome}); a finished run is not resumed and nothing was sent — start a new run instead"
            )));
        }
        if let Some(holder) = recorded.filter(|r| held_by_other(r, &me)) {
            return Err(refusal(run_id, &holder, &me));
        }
        tx.execute(
            "UPDATE runs SET finished_at = NULL, outcome = NULL, outcome_detail = NULL,
               runner_pid = ?2, runner_host = ?3, runner_token = ?4 WHERE run_id = ?1",
            params![run_id.0, me.pid, me.host, me.token],
        )
        .map_err(db_err("claiming a run"))?;
        tx.commit().map_err(db_err("claiming a run"))
    }
}

impl Store {
    /// Make this process eval `eval_id`'s runner, or refuse before anything is
    /// sent or changed: an unknown eval, or one a live process holds (named) —
    /// one transaction taking the write lock first, as `claim_run`, so of two
    /// `eval --resume` at once exactly one runs it.
    pub fn claim_eval(&self, eval_id: EvalId) -> Result<()> {
        let me = runner::current();
        let mut conn = self.lock()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db_err("claiming an eval"))?;
        let row: Option<Option<Runner>> = tx
            .query_row(
                "SELECT runner_pid, runner_host, runner_token FROM evals WHERE eval_id = ?1",
                [eval_id],
                |r| {
                    Ok(match r.get::<_, Option<i64>>(0)? {
                        Some(pid) => Some(Runner {
                            pid,
                            host: r.get(1)?,
                            token: r.get(2)?,
                        }),
                        None => None,
                    })
                },
            )
            .optional()
            .map_err(db_err("claiming an eval"))?;
        let Some(recorded) = row else {
            return Err(Error::refused(format!(
                "there is no eval {eval_id} in this store; `io-harness evals` lists them"
            )));
        };
        if let Some(holder) = recorded.filter(|r| held_by_other(r, &me)) {
            return Err(held(&format!("eval {eval_id}"), &holder, &me));
        }
        tx.execute(
            "UPDATE evals SET runner_pid = ?2, runner_host = ?3, runner_token = ?4 WHERE eval_id = ?1",
            params![eval_id, me.pid, me.host, me.token],
        )
        .map_err(db_err("claiming an eval"))?;
        tx.commit().map_err(db_err("claiming an eval"))
    }

    /// This process no longer runs eval `eval_id` (it ended, or stopped).
    pub fn release_eval(&self, eval_id: EvalId) -> Result<()> {
        let me = runner::current();
        self.lock()?
            .execute(
                "UPDATE evals SET runner_pid = NULL, runner_host = NULL, runner_token = NULL
                 WHERE eval_id = ?1 AND runner_pid = ?2 AND runner_host IS ?3",
                params![eval_id, me.pid, me.host],
            )
            .map_err(db_err("releasing an eval"))?;
        Ok(())
    }
}

/// Whether `recorded` may still be running the run: not this process, not known
/// gone, and named by host (a runner recorded without a host, on a platform that
/// names none, was never refused and is not now).
fn held_by_other(recorded: &Runner, me: &Runner) -> bool {
    recorded.host.is_some() && recorded != me && !runner::is_gone(recorded)
}

/// The refusal naming the holder, and what to do.
fn refusal(run_id: RunId, holder: &Runner, me: &Runner) -> Error {
    held(&format!("run {run_id}"), holder, me)
}

/// `what` (a run, an eval) is held by `holder`: refused, naming it.
fn held(what: &str, holder: &Runner, me: &Runner) -> Error {
    let host = holder.host.as_deref().unwrap_or("an unnamed host");
    let todo = if holder.host == me.host {
        "resume it once that process has ended".to_string()
    } else {
        format!("this machine cannot tell whether it still runs; resume it on {host}")
    };
    Error::refused(format!(
        "{what} is being run by process {} on {host}; nothing was sent — {todo}",
        holder.pid
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::store::NewRun;

    fn run(store: &Store) -> RunId {
        store.begin_run(&NewRun::default()).unwrap()
    }

    fn set_runner(store: &Store, run_id: RunId, r: &Runner) {
        store
            .lock()
            .unwrap()
            .execute(
                "UPDATE runs SET runner_pid = ?2, runner_host = ?3, runner_token = ?4 WHERE run_id = ?1",
                params![run_id.0, r.pid, r.host, r.token],
            )
            .unwrap();
    }

    #[test]
    fn a_live_holder_is_refused_by_name_and_a_gone_one_is_taken_over() {
        let store = Store::open_in_memory().unwrap();
        let id = run(&store);
        // Held by this process (a run interrupted in it): claimed again.
        store.claim_run(id).unwrap();
        let me = runner::current();
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = i64::from(child.id());
        let live = Runner {
            pid,
            host: me.host.clone(),
            token: runner::token(pid),
        };
        set_runner(&store, id, &live);
        let e = store.claim_run(id).unwrap_err().to_string();
        let host = me.host.clone().unwrap();
        assert_eq!(
            e,
            format!(
                "run {id} is being run by process {pid} on {host}; nothing was sent — resume it once that process has ended"
            )
        );
        child.kill().unwrap();
        child.wait().unwrap();
        store.claim_run(id).unwrap();
        let elsewhere = Runner {
            pid: 1,
            host: Some("another-host.invalid".into()),
            token: None,
        };
        set_runner(&store, id, &elsewhere);
        let e = store.claim_run(id).unwrap_err().to_string();
        assert!(e.contains("resume it on another-host.invalid"), "{e}");
    }
}
