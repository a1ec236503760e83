//! Evals: a question set run across vendors (`io-harness eval`), each question
//! a run group. An eval keeps what it was asked and its questions as read; a
//! question names its group as it starts (`eval_question_group`), is `done`
//! once every vendor has an ending or a refusal there, or is `skipped` when
//! the eval's dollar cap was crossed before it started. Read back as
//! `core::eval::QuestionRecord`s: each run's figures from `Store::figures`, its
//! cited URLs and its final answer, for `core::eval::report` to score
//! (`Store::eval_report`: the one place a stored eval is scored, for `eval`
//! and the console alike).

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::{Store, db_err, now};
use crate::core::error::{Error, Result};
use crate::core::eval::QuestionStatus;
use crate::core::eval::{EvalReport, Question, QuestionRecord, RunRecord};
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
        Ok(Some(r))
    }

    /// Record a new eval and its questions (all pending), claimed by this
    /// process (`claim_eval`); its id.
    pub fn create_eval(&self, e: &NewEval) -> Result<EvalId> {
        let me = runner::current();
        let mut conn = self.lock()?;
        let tx = conn.transaction().map_err(db_err("recording a new eval"))?;
        tx.execute(
            "INSERT INTO evals (created_at, file, vendors, jobs, max_usd_micro, demo, runner_pid, runner_host, runner_token)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                now(),
                e.file,
                e.vendors.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(","),
                e.jobs,
                e.max_usd_micro.map(super::db::stored),
                e.demo,
                me.pid,
                me.host,
                me.token
            ],
        )
        .map_err(db_err("recording a new eval"))?;
        let id = EvalId(tx.last_insert_rowid());
        for (i, q) in e.questions.iter().enumerate() {
            tx.execute(
                "INSERT INTO eval_questions (eval_id, position, question_id, question, answers, urls) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    id,
                    i64::try_from(i).unwrap_or(i64::MAX),
                    q.id,
                    q.question,
                    serde_json::to_string(&q.answers).unwrap_or_default(),
                    serde_json::to_string(&q.urls).unwrap_or_default()
                ],
            )
            .map_err(db_err("recording an eval's question"))?;
        }
        tx.commit().map_err(db_err("recording a new eval"))?;
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
            [eval_id],
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
            let conn = self.lock()?;
            let mut stmt = conn
                .prepare("SELECT eval_id FROM evals ORDER BY eval_id DESC LIMIT ?1")
                .map_err(db_err("listing evals"))?;
            stmt.query_map([i64::from(limit)], |r| r.get(0))
                .and_then(Iterator::collect)
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
        conn.query_row(
            "SELECT e.eval_id, e.created_at, e.file, e.vendors, e.jobs, e.max_usd_micro, e.demo, e.finished_at,
                    (SELECT COUNT(*) FROM eval_questions q WHERE q.eval_id = e.eval_id),
                    (SELECT COUNT(*) FROM eval_questions q WHERE q.eval_id = e.eval_id AND q.status = 'done'),
                    (SELECT COUNT(*) FROM eval_questions q WHERE q.eval_id = e.eval_id AND q.status = 'skipped'),
                    e.runner_pid, e.runner_host, e.runner_token
             FROM evals e WHERE e.eval_id = ?1",
            [eval_id],
            |r| {
                let vendors: String = r.get(3)?;
                Ok(EvalRow {
                    eval_id: r.get(0)?,
                    created_at: r.get(1)?,
                    file: r.get(2)?,
                    vendors: vendors
                        .split(',')
                        .filter(|v| !v.is_empty())
                        .map(|v| {
                            v.parse().map_err(|e| {
                                rusqlite::Error::FromSqlConversionFailure(
                                    3,
                                    rusqlite::types::Type::Text,
                                    Box::new(e),
                                )
                            })
                        })
                        .collect::<rusqlite::Result<_>>()?,
                    jobs: r.get(4)?,
                    max_usd_micro: r.get::<_, Option<i64>>(5)?.map(super::db::count),
                    demo: r.get(6)?,
                    finished_at: r.get(7)?,
                    questions: super::db::count(r.get(8)?),
                    done: super::db::count(r.get(9)?),
                    skipped: super::db::count(r.get(10)?),
                    running: match r.get::<_, Option<i64>>(11)? {
                        Some(pid) => running(&Runner {
                            pid,
                            host: r.get(12)?,
                            token: r.get(13)?,
                        }),
                        None => None,
                    },
                })
            },
        )
        .optional()
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
            let conn = self.lock()?;
            let mut stmt = conn
                .prepare(
                    "SELECT question_id, question, answers, urls, status, group_id FROM eval_questions
                     WHERE eval_id = ?1 ORDER BY position",
                )
                .map_err(db_err("reading an eval's questions"))?;
            stmt.query_map([eval_id], |r| {
                let list = |s: String| serde_json::from_str::<Vec<String>>(&s).unwrap_or_default();
                Ok((
                    Question {
                        id: r.get(0)?,
                        question: r.get(1)?,
                        answers: list(r.get(2)?),
                        urls: list(r.get(3)?),
                    },
                    r.get(4)?,
                    r.get(5)?,
                ))
            })
            .and_then(Iterator::collect)
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
            out.push(record);
        }
        Ok(out)
    }

    /// One run as an eval scores it: its figures as every view reads them, the
    /// URLs it cited (a followed redirect as the page it led to), its final answer.
    fn eval_run(&self, id: RunId, prices: &PriceTable) -> Result<RunRecord> {
        let run = self.run(id)?.unwrap_or_default();
        let answer = final_answer(&self.steps(id)?, |s| &s.text)
            .map(|s| s.text.clone())
            .unwrap_or_default();
        Ok(RunRecord {
            run_id: id,
            vendor: run.provider,
            outcome: run.outcome,
            answer,
            cited: self.cited_urls(id)?,
            figures: self.figures(id, prices)?,
        })
    }
}

/// The recorded runner as `evals` names it, unless it is known to be gone
/// (killed): a process on another host, which this machine cannot check, is
/// shown as running — unknown is never reported as stopped.
fn running(r: &Runner) -> Option<String> {
    if runner::is_gone(r) {
        return None;
    }
    Some(match &r.host {
        Some(host) => format!("process {} on {host}", r.pid),
        None => format!("process {}", r.pid),
    })
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
