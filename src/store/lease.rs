//! Who holds a run: claiming it for a resume, atomically, and keeping the claim
//! alive while it runs. Of several processes resuming one run at once exactly
//! one proceeds: the claim is one transaction that reads the run's outcome and
//! recorded runner — SQLite's `BEGIN IMMEDIATE` holds the whole file, and
//! PostgreSQL locks the row (`FOR UPDATE`) — decides, and writes this process
//! as the runner. A claim is granted when no runner is recorded, the recorded
//! one is this process, or it is known to be gone: on this host by `runner`'s
//! liveness check (right the moment a process dies), on another host — which
//! cannot be asked — when its heartbeat is older than `EXPIRY`. Every process
//! that holds a run writes its heartbeat every `HEARTBEAT` from a thread of
//! its own while the store is open (`Store::hold`); on PostgreSQL the server's
//! clock stamps and judges it. A live holder, or one whose heartbeat was never
//! recorded (an older release), is named in the refusal. An eval is claimed
//! and kept the same way (`claim_eval`, by `eval` as it creates or resumes
//! one, released as it ends), so one process at a time runs it, across
//! machines too.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use super::engine::{Conn, DbError, Engine, Row, params};
use super::{Store, db_err, now};
use crate::core::error::{Error, Result};
use crate::core::id::{EvalId, RunId};
use crate::core::outcome::Outcome;
use crate::machine::process::{self as runner, Runner};

/// How often a holder says it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(20);

/// How old a heartbeat from another machine may be before its claim lapses.
pub const EXPIRY: Duration = Duration::from_secs(120);

/// The recorded runner of a run, as a claim reads it.
struct Holder {
    runner: Runner,
    user: Option<String>,
    /// When it last said it was alive (RFC 3339).
    heartbeat: Option<String>,
    /// Whether that is within `EXPIRY` (by the database's clock); `None`
    /// when no heartbeat was ever recorded.
    fresh: Option<bool>,
}

fn holder(r: &Row) -> std::result::Result<Option<Holder>, DbError> {
    let Some(pid) = r.get::<Option<i64>>(1)? else {
        return Ok(None);
    };
    Ok(Some(Holder {
        runner: Runner {
            pid,
            host: r.get(2)?,
            token: r.get(3)?,
        },
        user: r.get(4)?,
        heartbeat: r.get(5)?,
        fresh: r.get(6)?,
    }))
}

/// `now` less `EXPIRY`, as SQLite compares times (RFC 3339 text).
fn expired_before() -> String {
    let at = chrono::Utc::now() - chrono::Duration::from_std(EXPIRY).unwrap_or_default();
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Store {
    /// Make this process the run's runner and clear its outcome, or refuse before
    /// anything is sent: an unknown or finished run, or one another process holds.
    pub fn claim_run(&self, run_id: RunId) -> Result<()> {
        let me = runner::current();
        let mut conn = self.lock()?;
        let tx = conn.transaction().map_err(db_err("claiming a run"))?;
        let sql = claim_sql(&tx, "outcome", "runs", "run_id");
        let row: Option<(Option<Outcome>, Option<Holder>)> = tx
            .query_opt(&sql, params![run_id, expired_before()])
            .and_then(|r| r.map(|r| Ok((r.get(0)?, holder(&r)?))).transpose())
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
            return Err(refusal(&format!("run {run_id}"), &holder, &me));
        }
        let sql = format!(
            "UPDATE runs SET finished_at = NULL, outcome = NULL, outcome_detail = NULL,
               runner_pid = ?2, runner_host = ?3, runner_token = ?4, runner_user = ?5,
               runner_heartbeat = {} WHERE run_id = ?1",
            tx.clock(6)
        );
        tx.execute(
            &sql,
            params![run_id, me.pid, me.host, me.token, runner::user(), now()],
        )
        .map_err(db_err("claiming a run"))?;
        tx.commit().map_err(db_err("claiming a run"))?;
        drop(conn);
        self.hold(run_id);
        Ok(())
    }

    /// Keep run `run_id`'s heartbeat while this store is open and the run
    /// has no outcome (started from the thread the first hold starts).
    pub(crate) fn hold(&self, run_id: RunId) {
        if let Ok(mut runs) = self.held.runs.lock() {
            runs.insert(run_id);
        }
        self.beating();
    }

    /// Start the heartbeat thread, once (the first hold starts it).
    fn beating(&self) {
        if !self.held.beating.swap(true, Ordering::SeqCst) {
            let conn = Arc::downgrade(&self.conn);
            let held = Arc::downgrade(&self.held);
            let started = std::thread::Builder::new()
                .name("io-harness-heartbeat".into())
                .spawn(move || beat(&conn, &held));
            if started.is_err() {
                self.held.beating.store(false, Ordering::SeqCst);
            }
        }
    }

    /// Run `run_id` ended here: its heartbeat stops.
    pub(crate) fn release(&self, run_id: RunId) {
        if let Ok(mut runs) = self.held.runs.lock() {
            runs.remove(&run_id);
        }
    }
}

impl Store {
    /// Make this process eval `eval_id`'s runner, or refuse before anything is
    /// sent or changed: an unknown eval, or one another process holds (named)
    /// — one transaction as `claim_run`'s, judged the same way (a holder on
    /// another machine by its heartbeat), so of two `eval --resume` at once,
    /// on one machine or two, exactly one runs it.
    pub fn claim_eval(&self, eval_id: EvalId) -> Result<()> {
        let me = runner::current();
        let mut conn = self.lock()?;
        let tx = conn.transaction().map_err(db_err("claiming an eval"))?;
        let sql = claim_sql(&tx, "eval_id", "evals", "eval_id");
        let row: Option<Option<Holder>> = tx
            .query_opt(&sql, params![eval_id, expired_before()])
            .and_then(|r| r.map(|r| holder(&r)).transpose())
            .map_err(db_err("claiming an eval"))?;
        let Some(recorded) = row else {
            return Err(Error::refused(format!(
                "there is no eval {eval_id} in this store; `io-harness evals` lists them"
            )));
        };
        if let Some(holder) = recorded.filter(|r| held_by_other(r, &me)) {
            return Err(refusal(&format!("eval {eval_id}"), &holder, &me));
        }
        let sql = format!(
            "UPDATE evals SET runner_pid = ?2, runner_host = ?3, runner_token = ?4, runner_user = ?5,
               runner_heartbeat = {} WHERE eval_id = ?1",
            tx.clock(6)
        );
        tx.execute(
            &sql,
            params![eval_id, me.pid, me.host, me.token, runner::user(), now()],
        )
        .map_err(db_err("claiming an eval"))?;
        tx.commit().map_err(db_err("claiming an eval"))?;
        drop(conn);
        self.hold_eval(eval_id);
        Ok(())
    }

    /// Keep eval `eval_id`'s heartbeat while this store is open.
    pub(crate) fn hold_eval(&self, eval_id: EvalId) {
        if let Ok(mut evals) = self.held.evals.lock() {
            evals.insert(eval_id);
        }
        self.beating();
    }

    /// This process no longer runs eval `eval_id` (it ended, or stopped).
    pub fn release_eval(&self, eval_id: EvalId) -> Result<()> {
        if let Ok(mut evals) = self.held.evals.lock() {
            evals.remove(&eval_id);
        }
        let me = runner::current();
        self.lock()?
            .execute(
                "UPDATE evals SET runner_pid = NULL, runner_host = NULL, runner_token = NULL,
                   runner_user = NULL, runner_heartbeat = NULL
                 WHERE eval_id = ?1 AND runner_pid = ?2 AND COALESCE(runner_host, '') = COALESCE(?3, '')",
                params![eval_id, me.pid, me.host],
            )
            .map_err(db_err("releasing an eval"))?;
        Ok(())
    }
}

/// The claim's read of `table`'s row `key = ?1`: `first` (a run's outcome),
/// then the recorded runner and whether its heartbeat is fresh — later than
/// the clock less the expiry (`?2` on SQLite, the server's clock on
/// PostgreSQL) — the row locked until the claim commits.
fn claim_sql(tx: &Conn, first: &str, table: &str, key: &str) -> String {
    let fresh = match tx.engine() {
        Engine::Sqlite => "runner_heartbeat > ?2".to_string(),
        Engine::Postgres => format!(
            "runner_heartbeat > {} - make_interval(secs => {})",
            tx.clock(2),
            EXPIRY.as_secs()
        ),
    };
    format!(
        "SELECT {first}, runner_pid, runner_host, runner_token, runner_user, runner_heartbeat,
                {fresh} FROM {table} WHERE {key} = ?1{}",
        tx.for_update()
    )
}

/// Every `HEARTBEAT`, stamp the held runs and evals this process still runs,
/// until the store is closed.
fn beat(conn: &Weak<std::sync::Mutex<Conn>>, held: &Weak<super::held::Held>) {
    let me = runner::current();
    loop {
        std::thread::sleep(HEARTBEAT);
        let (Some(conn), Some(held)) = (conn.upgrade(), held.upgrade()) else {
            return;
        };
        let (Ok(runs), Ok(evals)) = (held.runs.lock(), held.evals.lock()) else {
            return;
        };
        let (runs, evals): (Vec<RunId>, Vec<EvalId>) = (
            runs.iter().copied().collect(),
            evals.iter().copied().collect(),
        );
        let Ok(conn) = conn.lock() else { return };
        for run in runs {
            let sql = format!(
                "UPDATE runs SET runner_heartbeat = {} WHERE run_id = ?1 AND outcome IS NULL
                   AND runner_pid = ?2 AND COALESCE(runner_host, '') = COALESCE(?3, '')",
                conn.clock(4)
            );
            // A missed beat is retried at the next; the claim lapses only
            // after several.
            if let Err(e) = conn.execute(&sql, params![run, me.pid, me.host, now()]) {
                tracing::warn!("run {run}: heartbeat not written: {e}");
            }
        }
        for eval in evals {
            let sql = format!(
                "UPDATE evals SET runner_heartbeat = {} WHERE eval_id = ?1
                   AND runner_pid = ?2 AND COALESCE(runner_host, '') = COALESCE(?3, '')",
                conn.clock(4)
            );
            if let Err(e) = conn.execute(&sql, params![eval, me.pid, me.host, now()]) {
                tracing::warn!("eval {eval}: heartbeat not written: {e}");
            }
        }
    }
}

/// Whether `recorded` may still be running the run: not this process, not
/// known gone, and named by host (a runner recorded without a host, on a
/// platform that names none, was never refused and is not now). On another
/// host, held while its heartbeat is fresh or was never recorded.
fn held_by_other(recorded: &Holder, me: &Runner) -> bool {
    let r = &recorded.runner;
    if r.host.is_none() || r == me {
        return false;
    }
    if r.host == me.host {
        return !runner::is_gone(r);
    }
    recorded.fresh != Some(false)
}

/// Whether a holder on another host has lapsed, by this machine's clock: its
/// last heartbeat (`heartbeat`, RFC 3339) older than `EXPIRY` — what a reader
/// (`runs`, `evals`) judges by; a claim asks the database's clock instead.
pub(crate) fn lapsed(r: &Runner, heartbeat: Option<&str>) -> bool {
    r.host.is_some()
        && r.host != runner::current().host
        && heartbeat.is_some_and(|at| {
            chrono::DateTime::parse_from_rfc3339(at).is_ok_and(|at| {
                chrono::Utc::now().signed_duration_since(at)
                    > chrono::Duration::from_std(EXPIRY).unwrap_or_default()
            })
        })
}

/// `what` (a run, an eval) is held by `holder`: refused, naming it, and what
/// to do.
fn refusal(what: &str, holder: &Holder, me: &Runner) -> Error {
    let r = &holder.runner;
    let host = r.host.as_deref().unwrap_or("an unnamed host");
    let who = match &holder.user {
        Some(user) => format!("{user} (process {} on {host}", r.pid),
        None => format!("process {} on {host}", r.pid),
    };
    let who = if holder.user.is_some() {
        format!("{who})")
    } else {
        who
    };
    let todo = if r.host == me.host {
        "resume it once that process has ended".to_string()
    } else if let Some(at) = &holder.heartbeat {
        format!(
            "its last heartbeat was at {at}; a claim lapses {} s after its last heartbeat — resume it then, or on {host}",
            EXPIRY.as_secs()
        )
    } else {
        format!("this machine cannot tell whether it still runs; resume it on {host}")
    };
    Error::refused(format!(
        "{what} is being run by {who}; nothing was sent — {todo}"
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
                "UPDATE runs SET runner_pid = ?2, runner_host = ?3, runner_token = ?4,
                   runner_user = NULL, runner_heartbeat = NULL WHERE run_id = ?1",
                params![run_id, r.pid, r.host, r.token],
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
