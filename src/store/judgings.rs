//! An eval's judgings (`eval --judge`): each answered run graded by the judge
//! in a group of its own, named in `eval_judgings` by the run it grades, in the
//! same transaction that creates the group — so every judging run is the
//! eval's from its first request (its cost counts, a killed one is run again
//! in the same group on resume). Read back as `core::eval::JudgingRecord`s
//! (each run as an eval reads a run), the grade read from the last one's reply.

use super::engine::params;
use super::{NewGroup, Store, db_err};
use crate::core::error::{Error, Result};
use crate::core::eval::JudgingRecord;
use crate::core::id::{EvalId, GroupId, RunId};
use crate::core::price::PriceTable;

impl Store {
    /// The judging of run `graded` (question `question_id` of eval `eval_id`)
    /// starts: a new group for it, named by the judging in one transaction.
    /// Refused when the run has a judging already.
    pub fn eval_judging_group(
        &self,
        eval_id: EvalId,
        question_id: &str,
        graded: RunId,
        group: &NewGroup,
    ) -> Result<GroupId> {
        let what = db_err("recording a judging's group");
        let mut conn = self.lock()?;
        let tx = conn.transaction().map_err(&what)?;
        let group_id = super::groups::insert_group(&tx, group)?;
        let named = tx
            .execute(
                "INSERT INTO eval_judgings (eval_id, question_id, graded_run_id, group_id)
                 VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
                params![eval_id, question_id, graded, group_id],
            )
            .map_err(&what)?;
        if named != 1 {
            return Err(Error::store_says(format!(
                "eval {eval_id}: run {graded} has a judging already"
            )));
        }
        tx.commit().map_err(&what)?;
        Ok(group_id)
    }

    /// Question `question_id`'s judgings, in the order their groups were made,
    /// each with its runs read as an eval reads a run.
    pub fn judgings(
        &self,
        eval_id: EvalId,
        question_id: &str,
        prices: &PriceTable,
    ) -> Result<Vec<JudgingRecord>> {
        let rows: Vec<(RunId, GroupId)> = self
            .lock()?
            .query_map(
                "SELECT graded_run_id, group_id FROM eval_judgings
                 WHERE eval_id = ?1 AND question_id = ?2 ORDER BY group_id",
                params![eval_id, question_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(db_err("reading an eval's judgings"))?;
        let mut out = Vec::with_capacity(rows.len());
        for (graded, group_id) in rows {
            let mut j = JudgingRecord {
                graded,
                group_id: Some(group_id),
                runs: Vec::new(),
            };
            if let Some(group) = self.group(group_id)? {
                for id in group.runs {
                    j.runs.push(self.eval_run(id, prices)?);
                }
            }
            out.push(j);
        }
        Ok(out)
    }
}
