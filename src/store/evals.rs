//! Evals: a question set run across vendors (`io-harness eval`), each question
//! a run group. An eval keeps what it was asked and its questions as read; a
//! question names its group as it starts (`eval_question_group`), is `done`
//! once every vendor has an ending or a refusal there, or is `skipped` when
//! the eval's dollar cap was crossed before it started. Read back as
//! `core::eval::QuestionRecord`s: each run's figures from `Store::figures`, its
//! cited URLs and its final answer, for `core::eval::report` to score
//! (`Store::eval_report`: the one place a stored eval is scored, for `eval`
//! and the console alike).

use serde::{Deserialize, Serialize};

use super::engine::{Row, params};
use super::{Store, db_err, now};
use crate::core::error::{Error, Result};
use crate::core::eval::QuestionStatus;
use crate::core::eval::{
    AnswerKind, EvalReport, JudgeSpec, Question, QuestionRecord, RunRecord, SetName, Subset,
};
use crate::core::id::{EvalId, GroupId, RunId};
use crate::core::price::PriceTable;
use crate::core::record::final_answer;
use crate::core::vendor::Vendor;
use crate::machine::process::{self as runner, Runner};
use crate::store::NewGroup;

/// What `create_eval` records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewEval {
    /// The question file as given (`demo` for the bundled set).
    pub file: String,
    /// The vendors, in the order asked.
    pub vendors: Vec<Vendor>,
    /// Runs at once.
    pub jobs: u32,
    /// The eval's dollar cap, in millionths.
    pub max_usd_micro: Option<u64>,
    /// It runs on the built-in stub vendor.
    pub demo: bool,
    /// Its questions, in order.
    pub questions: Vec<Question>,
    /// The set the file is.
    pub set: SetName,
    /// The file's SHA-256 as read (hex).
    pub revision: Option<String>,
    /// The questions the file holds (of which `questions` is the subset run).
    pub rows: Option<u64>,
    /// Which of them it runs.
    pub subset: Subset,
    /// Its judge, when asked for.
    pub judge: Option<JudgeSpec>,
    /// Its questions and answers are kept out of the search index and exports.
    pub private: bool,
}

/// One row of `evals`, with its questions' progress.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvalRow {
    /// Id.
    pub eval_id: EvalId,
    /// RFC 3339.
    pub created_at: String,
    /// The question file (`demo` for the bundled set).
    pub file: String,
    /// The vendors, in the order asked.
    pub vendors: Vec<Vendor>,
    /// Runs at once.
    pub jobs: u32,
    /// The eval's dollar cap, in millionths.
    pub max_usd_micro: Option<u64>,
    /// It ran on the built-in stub vendor.
    pub demo: bool,
    /// When its last question ended; `None` while it runs or once it was stopped.
    pub finished_at: Option<String>,
    /// Its questions.
    pub questions: u64,
    /// Of them, run.
    pub done: u64,
    /// Of them, not run because the cap was crossed.
    pub skipped: u64,
    /// The live process running it (`process 4242 on host`); `None` when no
    /// process runs it (or the one recorded is gone: killed).
    #[serde(default)]
    pub running: Option<String>,
    /// The set its file is.
    #[serde(default)]
    pub set: SetName,
    /// The file's SHA-256 as read (hex); `None` before it was recorded.
    #[serde(default)]
    pub revision: Option<String>,
    /// The questions the file holds; `None` before it was recorded.
    #[serde(default)]
    pub rows: Option<u64>,
    /// Which of them it runs.
    #[serde(default)]
    pub subset: Subset,
    /// Its judge, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeSpec>,
    /// Its questions and answers are kept out of the search index and exports.
    #[serde(default)]
    pub private: bool,
}

impl EvalRow {
    /// Where it stands, as `evals` says it: running (and by which process),
    /// `finished`, how many questions the cap left unrun, or stopped (and how
    /// to continue it).
    pub fn status(&self) -> String {
        if let Some(by) = &self.running {
            return format!("running ({by})");
        }
        match (&self.finished_at, self.done + self.skipped < self.questions) {
            (_, true) => format!("stopped: `eval --resume {}` continues it", self.eval_id),
            (Some(_), false) if self.skipped > 0 => format!("{} not run (--max-usd)", self.skipped),
            _ => "finished".into(),
        }
    }
}

impl Store {
    /// Eval `eval_id` read back and scored (`core::eval::report`), priced by
    /// `prices`; `None` when there is no eval by that id.
    pub fn eval_report(&self, eval_id: EvalId, prices: &PriceTable) -> Result<Option<EvalReport>> {
        let Some(row) = self.eval(eval_id)? else {
            return Ok(None);
        };
        let records = self.eval_questions(eval_id, prices)?;
        let mut r = crate::core::eval::report(eval_id, &row.file, &row.vendors, &records);
        r.max_usd_micro = row.max_usd_micro;
        r.set = row.set;
        r.revision = row.revision;
        r.rows = row.rows;
        r.subset = row.subset;
        r.lower_bound = row.set.free_text();
        r.private = row.private;
        r.judge = row.judge;
        Ok(Some(r))
    }

    /// Record a new eval and its questions (all pending), claimed by this
    /// process (`claim_eval`: its runner and heartbeat, kept while it runs);
    /// its id.
    pub fn create_eval(&self, e: &NewEval) -> Result<EvalId> {
        let me = runner::current();
        let mut conn = self.lock()?;
        let tx = conn.transaction().map_err(db_err("recording a new eval"))?;
        let sql = format!(
            "INSERT INTO evals (created_at, file, vendors, jobs, max_usd_micro, demo, eval_uid,
               runner_pid, runner_host, runner_token, runner_user, runner_heartbeat,
               set_name, revision, rows, subset_json, judge, private)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, {}, ?12, ?13, ?14, ?15, ?16, ?17)
             RETURNING eval_id",
            tx.clock(1)
        );
        let id: EvalId = tx
            .query_one(
                &sql,
                params![
                    now(),
                    e.file,
                    e.vendors
                        .iter()
                        .map(|v| v.as_str())
                        .collect::<Vec<_>>()
                        .join(","),
                    e.jobs,
                    e.max_usd_micro.map(super::db::stored),
                    e.demo,
                    super::runs::fresh_uid(),
                    me.pid,
                    me.host,
                    me.token,
                    runner::user(),
                    e.set.as_str(),
                    e.revision,
                    e.rows.map(super::db::stored),
                    serde_json::to_string(&e.subset).unwrap_or_default(),
                    e.judge.as_ref().map(JudgeSpec::to_string),
                    e.private
                ],
            )
            .and_then(|r| r.get(0))
            .map_err(db_err("recording a new eval"))?;
        for (i, q) in e.questions.iter().enumerate() {
            tx.execute(
                "INSERT INTO eval_questions (eval_id, position, question_id, question, answers, urls, answer_kind) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    id,
                    i64::try_from(i).unwrap_or(i64::MAX),
                    q.id,
                    q.question,
                    serde_json::to_string(&q.answers).unwrap_or_default(),
                    serde_json::to_string(&q.urls).unwrap_or_default(),
                    q.kind.as_str()
                ],
            )
            .map_err(db_err("recording an eval's question"))?;
        }
        tx.commit().map_err(db_err("recording a new eval"))?;
        drop(conn);
        self.hold_eval(id);
        Ok(id)
    }

    /// Question `question_id` of eval `eval_id` starts: a new group for it,
    /// named by the question in the same transaction, so every run made for the
    /// eval is in a group the eval names — a question killed and resumed runs
    /// on in it (`eval_questions` reads it back for a pending question too).
    pub fn eval_question_group(
        &self,
        eval_id: EvalId,
        question_id: &str,
        group: &NewGroup,
    ) -> Result<GroupId> {
        let mut conn = self.lock()?;
        let tx = conn
            .transaction()
            .map_err(db_err("recording an eval's question's group"))?;
        let group_id = super::groups::insert_group(&tx, group)?;
        let named = tx
            .execute(
                "UPDATE eval_questions SET group_id = ?3 WHERE eval_id = ?1 AND question_id = ?2 AND group_id IS NULL",
                params![eval_id, question_id, group_id],
            )
            .map_err(db_err("recording an eval's question's group"))?;
        if named != 1 {
            return Err(Error::store_says(format!(
                "eval {eval_id}'s question {question_id:?} is not there or has a group already"
            )));
        }
        tx.commit()
            .map_err(db_err("recording an eval's question's group"))?;
        Ok(group_id)
    }

    /// Question `question_id` of eval `eval_id` ran as group `group_id`.
    pub fn eval_question_done(
        &self,
        eval_id: EvalId,
        question_id: &str,
        group_id: GroupId,
    ) -> Result<()> {
        self.lock()?
            .execute(
                "UPDATE eval_questions SET status = 'done', group_id = ?3 WHERE eval_id = ?1 AND question_id = ?2",
                params![eval_id, question_id, group_id],
            )
            .map_err(db_err("recording an eval's question as run"))?;
        Ok(())
    }

    /// Question `question_id` did not start: the eval's cap was crossed.
    pub fn eval_question_skipped(&self, eval_id: EvalId, question_id: &str) -> Result<()> {
        self.lock()?
            .execute(
                "UPDATE eval_questions SET status = 'skipped' WHERE eval_id = ?1 AND question_id = ?2 AND status = 'pending'",
                params![eval_id, question_id],
            )
            .map_err(db_err("recording an eval's question as not run"))?;
        Ok(())
    }

    /// Eval `eval_id` is resumed: its skipped questions are pending again, to
    /// be run under the cap now in force.
    pub fn eval_resumed(&self, eval_id: EvalId, max_usd_micro: Option<u64>) -> Result<()> {
        let mut conn = self.lock()?;
        // One transaction: the questions reopened and the cap they run under.
        let tx = conn.transaction().map_err(db_err("resuming an eval"))?;
        tx.execute(
            "UPDATE eval_questions SET status = 'pending' WHERE eval_id = ?1 AND status = 'skipped'",
            params![eval_id],
        )
        .map_err(db_err("resuming an eval"))?;
        tx.execute(
            "UPDATE evals SET max_usd_micro = ?2, finished_at = NULL WHERE eval_id = ?1",
            params![eval_id, max_usd_micro.map(super::db::stored)],
        )
        .map_err(db_err("resuming an eval"))?;
        tx.commit().map_err(db_err("resuming an eval"))
    }

    /// Eval `eval_id` has no question left to start.
    pub fn eval_finished(&self, eval_id: EvalId) -> Result<()> {
        self.lock()?
            .execute(
                "UPDATE evals SET finished_at = ?2 WHERE eval_id = ?1",
                params![eval_id, now()],
            )
            .map_err(db_err("recording an eval's end"))?;
        Ok(())
    }

    /// The stored evals, newest first, at most `limit`.
    pub fn evals(&self, limit: u32) -> Result<Vec<EvalRow>> {
        let ids: Vec<EvalId> = {
            self.lock()?
                .query_map(
                    "SELECT eval_id FROM evals ORDER BY eval_id DESC LIMIT ?1",
                    params![limit],
                    |r| r.get(0),
                )
                .map_err(db_err("listing evals"))?
        };
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            out.extend(self.eval(id)?);
        }
        Ok(out)
    }

    /// One eval; `None` when there is none by that id.
    pub fn eval(&self, eval_id: EvalId) -> Result<Option<EvalRow>> {
        let conn = self.lock()?;
        conn.query_opt(
            "SELECT e.eval_id, e.created_at, e.file, e.vendors, e.jobs, e.max_usd_micro, e.demo, e.finished_at,
                    (SELECT COUNT(*) FROM eval_questions q WHERE q.eval_id = e.eval_id),
                    (SELECT COUNT(*) FROM eval_questions q WHERE q.eval_id = e.eval_id AND q.status = 'done'),
                    (SELECT COUNT(*) FROM eval_questions q WHERE q.eval_id = e.eval_id AND q.status = 'skipped'),
                    e.runner_pid, e.runner_host, e.runner_token, e.runner_user, e.runner_heartbeat,
                    e.set_name, e.revision, e.rows, e.subset_json, e.judge, e.private
             FROM evals e WHERE e.eval_id = ?1",
            params![eval_id],
        )
        .and_then(|r| {
            r.map(|r| {
                let vendors: String = r.get(3)?;
                Ok(EvalRow {
                    eval_id: r.get(0)?,
                    created_at: r.get(1)?,
                    file: r.get(2)?,
                    vendors: vendors
                        .split(',')
                        .filter(|v| !v.is_empty())
                        .map(|v| {
                            v.parse().map_err(|e: crate::core::word::UnknownWord| {
                                super::engine::DbError::Column {
                                    index: 3,
                                    why: e.to_string(),
                                }
                            })
                        })
                        .collect::<std::result::Result<_, _>>()?,
                    jobs: r.get(4)?,
                    max_usd_micro: r.get::<Option<i64>>(5)?.map(super::db::count),
                    demo: r.get(6)?,
                    finished_at: r.get(7)?,
                    questions: super::db::count(r.get(8)?),
                    done: super::db::count(r.get(9)?),
                    skipped: super::db::count(r.get(10)?),
                    running: running(&r)?,
                    set: word(r.get::<String>(16)?, 16)?,
                    revision: r.get(17)?,
                    rows: r.get::<Option<i64>>(18)?.map(super::db::count),
                    subset: r
                        .get::<Option<String>>(19)?
                        .and_then(|s| serde_json::from_str(&s).ok())
                        .unwrap_or_default(),
                    judge: match r.get::<Option<String>>(20)? {
                        Some(j) => Some(JudgeSpec::parse(&j).map_err(|e| {
                            super::engine::DbError::Column {
                                index: 20,
                                why: e.to_string(),
                            }
                        })?),
                        None => None,
                    },
                    private: r.get(21)?,
                })
            })
            .transpose()
        })
        .map_err(db_err("reading an eval"))
    }

    /// Eval `eval_id`'s questions in order, each with its group's runs and
    /// refusals read for scoring.
    pub fn eval_questions(
        &self,
        eval_id: EvalId,
        prices: &PriceTable,
    ) -> Result<Vec<QuestionRecord>> {
        let rows: Vec<(Question, QuestionStatus, Option<GroupId>)> = {
            self.lock()?
                .query_map(
                    "SELECT question_id, question, answers, urls, status, group_id, answer_kind FROM eval_questions
                     WHERE eval_id = ?1 ORDER BY position",
                    params![eval_id],
                    |r| {
                let list = |s: String| serde_json::from_str::<Vec<String>>(&s).unwrap_or_default();
                Ok((
                    Question {
                        id: r.get(0)?,
                        question: r.get(1)?,
                        answers: list(r.get(2)?),
                        urls: list(r.get(3)?),
                        kind: word::<AnswerKind>(r.get(6)?, 6)?,
                    },
                    r.get(4)?,
                    r.get(5)?,
                ))
                    },
                )
                .map_err(db_err("reading an eval's questions"))?
        };
        let mut out = Vec::with_capacity(rows.len());
        for (question, status, group_id) in rows {
            let mut record = QuestionRecord {
                question,
                group_id,
                status,
                ..QuestionRecord::default()
            };
            if let Some(group) = group_id.map(|g| self.group(g)).transpose()?.flatten() {
                record.refusals = group.refusals;
                for id in group.runs {
                    record.runs.push(self.eval_run(id, prices)?);
                }
            }
            record.judgings = self.judgings(eval_id, &record.question.id, prices)?;
            out.push(record);
        }
        Ok(out)
    }

    /// One run as an eval scores it: its figures as every view reads them, the
    /// URLs it cited (a followed redirect as the page it led to), its final
    /// answer, and its final answer's sentences with their sources' verdicts.
    pub(super) fn eval_run(&self, id: RunId, prices: &PriceTable) -> Result<RunRecord> {
        let run = self.run(id)?.unwrap_or_default();
        let answer = final_answer(&self.steps(id)?, |s| &s.text)
            .map(|s| s.text.clone())
            .unwrap_or_default();
        // The claims read once: for the figures and for citation quality.
        let claims = self.run_claims(id)?;
        let figures = self
            .ledger(id, prices)?
            .figures(super::wall_ms(&run))
            .with_claims(claims.figures);
        Ok(RunRecord {
            run_id: id,
            vendor: run.provider,
            outcome: run.outcome,
            answer,
            cited: self.cited_urls(id)?,
            figures,
            claims: claims.claims,
        })
    }
}

/// A stored word read back; one this build does not know is an error naming
/// column `i`.
fn word<W: std::str::FromStr<Err = crate::core::word::UnknownWord>>(
    s: String,
    i: usize,
) -> std::result::Result<W, super::engine::DbError> {
    s.parse().map_err(
        |e: crate::core::word::UnknownWord| super::engine::DbError::Column {
            index: i,
            why: e.to_string(),
        },
    )
}

/// The recorded runner (columns 11 to 15) as `evals` names it, unless it is
/// known to be gone: killed, on this host; on another, which this machine
/// cannot ask, its heartbeat older than the lease's expiry (`lease::EXPIRY`)
/// — otherwise it is shown as running: unknown is never reported as stopped.
fn running(r: &Row) -> std::result::Result<Option<String>, super::engine::DbError> {
    let Some(pid) = r.get::<Option<i64>>(11)? else {
        return Ok(None);
    };
    let holder = Runner {
        pid,
        host: r.get(12)?,
        token: r.get(13)?,
    };
    let user: Option<String> = r.get(14)?;
    let heartbeat: Option<String> = r.get(15)?;
    if runner::is_gone(&holder) || super::lease::lapsed(&holder, heartbeat.as_deref()) {
        return Ok(None);
    }
    let process = match &holder.host {
        Some(host) => format!("process {pid} on {host}"),
        None => format!("process {pid}"),
    };
    Ok(Some(match user {
        Some(user) => format!("{user} ({process})"),
        None => process,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words `evals` and the console's Compare screen show.
    #[test]
    fn a_running_eval_is_running_whatever_its_questions_say() {
        let row = EvalRow {
            eval_id: EvalId(8),
            questions: 40,
            done: 3,
            ..EvalRow::default()
        };
        assert_eq!(row.status(), "stopped: `eval --resume 8` continues it");
        let running = EvalRow {
            running: Some("process 42 on here".into()),
            ..row.clone()
        };
        assert_eq!(running.status(), "running (process 42 on here)");
        let finished = EvalRow {
            done: 40,
            finished_at: Some("2026-01-01T00:00:00Z".into()),
            ..row
        };
        assert_eq!(finished.status(), "finished");
    }
}
