//! The `runs` table (and `sessions`): a run recorded when it starts (with its
//! plan, and its first checkpoint where it can be resumed), its outcome when it
//! ends, and read back — one, newest first, a run's spawned children, a
//! session's turns — with the process that runs it told apart from one that is
//! gone (`interrupted`).

use super::db::count;
use super::engine::{Conn, DbError, Row, Value, params};
use super::{Store, db_err, now};
use crate::core::error::{Error, Result};
use crate::core::id::{RunId, SessionId};
use crate::core::outcome::{Outcome, RunOutcome};
use crate::core::plan::RunPlan;
use crate::machine::process::{self as runner, Runner};
use crate::store::types::RunRow;
use crate::store::types::{Checkpoint, NewRun};

const RUN_COLUMNS: &str =
    "r.run_id, r.started_at, r.finished_at, r.goal, r.provider, r.model, r.outcome,
    r.outcome_detail, r.parent_run_id, r.session_id,
    (WITH RECURSIVE tree(id) AS (
         SELECT r.run_id UNION SELECT k.run_id FROM runs k JOIN tree t ON k.parent_run_id = t.id)
     SELECT COUNT(*) FROM citations c WHERE c.run_id IN (SELECT id FROM tree)),
    r.runner_pid, r.runner_host, r.runner_token, r.group_id, r.run_user, r.run_host,
    r.runner_heartbeat, r.agent";

fn run_row(r: &Row) -> Result<(RunRow, Option<Runner>, Option<String>), DbError> {
    let runner = r
        .get::<Option<i64>>(11)?
        .map(|pid| -> Result<Runner, DbError> {
            Ok(Runner {
                pid,
                host: r.get(12)?,
                token: r.get(13)?,
            })
        });
    let row = RunRow {
        run_id: RunId(r.get(0)?),
        started_at: r.get(1)?,
        finished_at: r.get(2)?,
        goal: r.get(3)?,
        provider: r.get(4)?,
        model: r.get(5)?,
        outcome: r.get(6)?,
        outcome_detail: r.get(7)?,
        parent_run_id: r.get::<Option<i64>>(8)?.map(RunId),
        session_id: r.get(9)?,
        group_id: r.get(14)?,
        agent: r.get(18)?,
        citation_count: count(r.get(10)?),
        user: r.get(15)?,
        host: r.get(16)?,
        ..RunRow::default()
    };
    Ok((row, runner.transpose()?, r.get(17)?))
}

/// Call a run whose process is gone `interrupted`: known gone on this host,
/// or on another whose heartbeat is older than the lease's expiry. (Its
/// figures are read by `Store::figures`, the one place they are summed.)
fn complete((mut row, runner, heartbeat): (RunRow, Option<Runner>, Option<String>)) -> RunRow {
    if row.outcome.is_none()
        && runner
            .as_ref()
            .is_some_and(|r| runner::is_gone(r) || super::lease::lapsed(r, heartbeat.as_deref()))
    {
        row.outcome = Some(Outcome::Interrupted);
        row.outcome_detail = Some(format!(
            "the process running it is gone; `io-harness run --resume {}` continues it",
            row.run_id
        ));
    }
    row
}

impl Store {
    fn query_runs(&self, filter: &str, args: &[Value]) -> Result<Vec<RunRow>> {
        let conn = self.lock()?;
        let sql = format!("SELECT {RUN_COLUMNS} FROM runs r {filter}");
        let rows = conn
            .query_map(&sql, args, run_row)
            .map_err(db_err("reading runs"))?;
        Ok(rows.into_iter().map(complete).collect())
    }

    /// Runs started by `user` (`RunRow::user`), newest first.
    pub fn runs_of(&self, user: &str, limit: Option<u32>) -> Result<Vec<RunRow>> {
        self.query_runs(
            "WHERE r.run_user = ?2 ORDER BY r.started_at DESC, r.run_id DESC LIMIT ?1",
            params![limit.map_or(i64::MAX, i64::from), user],
        )
    }

    /// Runs, newest first.
    pub fn runs(&self, limit: Option<u32>) -> Result<Vec<RunRow>> {
        self.query_runs(
            "ORDER BY r.started_at DESC, r.run_id DESC LIMIT ?1",
            params![limit.map_or(i64::MAX, i64::from)],
        )
    }

    /// One run.
    pub fn run(&self, run_id: RunId) -> Result<Option<RunRow>> {
        Ok(self
            .query_runs("WHERE r.run_id = ?1", params![run_id])?
            .into_iter()
            .next())
    }

    /// What the launch resolved for run `run_id` when it started (`core::plan`);
    /// `None` for a run recorded before plans were kept (or not at all). A
    /// plan that does not parse is an error naming the run.
    pub fn run_plan(&self, run_id: RunId) -> Result<Option<RunPlan>> {
        let conn = self.lock()?;
        let json: Option<Option<String>> = conn
            .query_opt(
                "SELECT plan_json FROM runs WHERE run_id = ?1",
                params![run_id],
            )
            .and_then(|r| r.map(|r| r.get(0)).transpose())
            .map_err(db_err("reading a run's plan"))?;
        json.flatten()
            .map(|j| {
                serde_json::from_str(&j)
                    .map_err(|e| Error::store(format!("run {run_id}'s plan does not parse"), e))
            })
            .transpose()
    }

    /// The web declaration run `run_id` ran with, as stored (`runs.web_json`: a
    /// child's is its own, narrowed); `None` when it had none.
    pub fn web_json(&self, run_id: RunId) -> Result<Option<String>> {
        self.lock()?
            .query_opt(
                "SELECT web_json FROM runs WHERE run_id = ?1",
                params![run_id],
            )
            .and_then(|r| r.map(|r| r.get::<Option<String>>(0)).transpose())
            .map(Option::flatten)
            .map_err(db_err("reading a run's web declaration"))
    }

    /// Runs a run spawned, oldest first.
    pub fn children(&self, run_id: RunId) -> Result<Vec<RunRow>> {
        self.query_runs(
            "WHERE r.parent_run_id = ?1 ORDER BY r.run_id",
            params![run_id],
        )
    }

    /// The runs of one session, in order.
    pub fn session_runs(&self, session_id: SessionId) -> Result<Vec<RunRow>> {
        self.query_runs(
            "WHERE r.session_id = ?1 ORDER BY r.run_id",
            params![session_id],
        )
    }

    /// The pid of another live process on this host still running this run, if any.
    pub fn running_elsewhere(&self, run_id: RunId) -> Result<Option<i64>> {
        let runner: Option<Runner> = self
            .lock()?
            .query_opt(
                "SELECT runner_pid, runner_host, runner_token FROM runs
                 WHERE run_id = ?1 AND outcome IS NULL AND runner_pid IS NOT NULL",
                params![run_id],
            )
            .and_then(|r| {
                r.map(|r| {
                    Ok(Runner {
                        pid: r.get(0)?,
                        host: r.get(1)?,
                        token: r.get(2)?,
                    })
                })
                .transpose()
            })
            .map_err(db_err("looking up a run's process"))?;
        Ok(runner.filter(runner::is_other_live).map(|r| r.pid))
    }

    /// Whether a run exists.
    pub fn has_run(&self, run_id: RunId) -> Result<bool> {
        self.lock()?
            .query_opt("SELECT 1 FROM runs WHERE run_id = ?1", params![run_id])
            .map(|r| r.is_some())
            .map_err(db_err("looking up a run"))
    }

    /// Record a new run, run by this process; its id.
    pub fn begin_run(&self, run: &NewRun) -> Result<RunId> {
        let mut conn = self.lock()?;
        // One transaction: the run and its row in the search index.
        let tx = conn.transaction().map_err(db_err("recording a new run"))?;
        let id = insert_run(&tx, run)?;
        super::search::index_goal(&tx, id, &run.goal)?;
        tx.commit().map_err(db_err("committing a new run"))?;
        drop(conn);
        self.hold(id);
        Ok(id)
    }

    /// Record a new run and its first checkpoint (before any request) in one
    /// transaction, so even a run killed during its first request can be resumed.
    pub fn start_run(&self, run: &NewRun, checkpoint: &Checkpoint) -> Result<RunId> {
        let body = serde_json::to_string(checkpoint)
            .map_err(|e| Error::store("encoding the checkpoint", e))?;
        let mut conn = self.lock()?;
        let tx = conn.transaction().map_err(db_err("starting a new run"))?;
        let run_id = insert_run(&tx, run)?;
        super::search::index_goal(&tx, run_id, &run.goal)?;
        tx.execute(
            "INSERT INTO checkpoints (run_id, format, step, body_json, saved_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![run_id, checkpoint.format, checkpoint.step, body, now()],
        )
        .map_err(db_err("saving the first checkpoint"))?;
        tx.commit().map_err(db_err("committing a new run"))?;
        drop(conn);
        self.hold(run_id);
        Ok(run_id)
    }

    /// Start a session; its id.
    pub fn begin_session(&self, label: &str) -> Result<SessionId> {
        self.lock()?
            .query_one(
                "INSERT INTO sessions (started_at, label) VALUES (?1, ?2) RETURNING session_id",
                params![now(), label],
            )
            .and_then(|r| r.get(0))
            .map_err(db_err("recording a new session"))
    }

    /// Record how a run ended.
    pub fn finish_run(&self, run_id: RunId, outcome: &RunOutcome) -> Result<()> {
        self.lock()?
            .execute(
                "UPDATE runs SET finished_at = ?2, outcome = ?3, outcome_detail = ?4 WHERE run_id = ?1",
                params![run_id, now(), outcome.label(), outcome_detail(outcome)],
            )
            .map_err(db_err("recording a run's outcome"))?;
        self.release(run_id);
        Ok(())
    }

    /// Mark a run as running again, in this process, for a resume: `claim_run`,
    /// which refuses a run another live process holds.
    pub fn reopen_run(&self, run_id: RunId) -> Result<()> {
        self.claim_run(run_id)
    }
}

fn insert_run(conn: &Conn, run: &NewRun) -> Result<RunId> {
    let me = runner::current();
    let plan_json = match &run.plan {
        Some(p) => Some(
            serde_json::to_string(&p.clone().kept())
                .map_err(|e| Error::store("encoding a run's plan", e))?,
        ),
        None => None,
    };
    let user = runner::user();
    // Private in a private group (an eval's), or spawned by a private run.
    let sql = format!(
        "INSERT INTO runs (started_at, goal, provider, model, web_json, parent_run_id, session_id, mcp_declared_json,
           runner_pid, runner_host, runner_token, group_id, plan_json, run_uid, run_user, run_host,
           runner_user, runner_heartbeat, agent, private)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?10, ?15, {}, ?16,
           COALESCE((SELECT private FROM run_groups WHERE group_id = ?12), false)
             OR COALESCE((SELECT private FROM runs WHERE run_id = ?6), false))
         RETURNING run_id",
        conn.clock(1)
    );
    conn.query_one(
        &sql,
        params![
            now(),
            run.goal,
            run.provider,
            run.model,
            run.web_json,
            run.parent_run_id,
            run.session_id,
            run.mcp_declared_json,
            me.pid,
            me.host,
            me.token,
            run.group_id,
            plan_json,
            fresh_uid(),
            user,
            run.agent
        ],
    )
    .and_then(|r| r.get(0))
    .map_err(db_err("recording a new run"))
}

/// A new stable identity (32 hex digits): a run's across stores, by which
/// `store copy` knows a run it has copied. Random (the hasher's keys come
/// from the OS), mixed with the time and this process.
pub(crate) fn fresh_uid() -> String {
    use std::hash::{BuildHasher, Hasher};
    let nanos = chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default();
    let half = |salt: u64| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_i64(nanos);
        h.write_u32(std::process::id());
        h.write_u64(salt);
        h.finish()
    };
    format!("{:016x}{:016x}", half(1), half(2))
}

/// The `outcome_detail` recorded beside an outcome.
pub(crate) fn outcome_detail(outcome: &RunOutcome) -> Option<String> {
    match outcome {
        RunOutcome::Failed { reason } => Some(reason.clone()),
        RunOutcome::BudgetExhausted { budget } => serde_json::to_value(budget)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string)),
        RunOutcome::Error { message } => Some(message.clone()),
        RunOutcome::Refused { text } => Some(text.clone()),
        RunOutcome::Truncated { max_tokens } => Some(format!(
            "the answer was cut off at max_tokens ({max_tokens}) and not verified; raise max_tokens for this provider in io.toml"
        )),
        RunOutcome::Passed | RunOutcome::Cancelled => None,
    }
}
