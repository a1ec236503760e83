//! Run groups: one goal on several vendors at once, or a stored run replayed on
//! another vendor. A group keeps what every run of it was given (the goal, the
//! operator's workspace its copies came from, a cap on its total) and each
//! vendor's refusal; its runs name it in `runs.group_id`.

use serde::{Deserialize, Serialize};

use super::engine::{Conn, params};
use super::{Store, db_err, now};
use crate::core::error::{Error, Result};
use crate::core::id::{GroupId, RunId};
use crate::core::vendor::Vendor;

/// What `create_group` records.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewGroup {
    /// The goal every run of the group is given.
    pub goal: String,
    /// The operator's workspace each run's copy is made from.
    pub workspace: String,
    /// A cap on the group's total, in millionths of a dollar.
    pub max_usd_micro: Option<u64>,
    /// Its runs are private (a private eval's): kept out of the search index.
    pub private: bool,
}

/// One row of `run_groups`, with its refusals and its runs' ids.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GroupRow {
    /// Id.
    pub group_id: GroupId,
    /// RFC 3339.
    pub created_at: String,
    /// The goal.
    pub goal: String,
    /// The operator's workspace the copies came from.
    pub workspace: String,
    /// The cap on the group's total, in millionths of a dollar.
    pub max_usd_micro: Option<u64>,
    /// Per vendor that could not carry the declaration: the refusal, as said.
    pub refusals: Vec<(Vendor, String)>,
    /// Its runs, oldest first.
    pub runs: Vec<RunId>,
}

/// Insert `group` on `conn` (a transaction's, where the group is recorded with
/// what names it: an eval's question); its id.
pub(super) fn insert_group(conn: &Conn, group: &NewGroup) -> Result<GroupId> {
    conn.query_one(
        "INSERT INTO run_groups (created_at, goal, workspace, max_usd_micro, group_uid, private)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING group_id",
        params![
            now(),
            group.goal,
            group.workspace,
            group.max_usd_micro.map(super::db::stored),
            super::runs::fresh_uid(),
            group.private
        ],
    )
    .and_then(|r| r.get(0))
    .map_err(db_err("recording a new run group"))
}

impl Store {
    /// Record a new group; its id.
    pub fn create_group(&self, group: &NewGroup) -> Result<GroupId> {
        insert_group(&*self.lock()?, group)
    }

    /// `vendor` runs in the group after all: a refusal recorded for it before
    /// (it had no key then, or its copy failed) no longer stands.
    pub fn clear_refusal(&self, group_id: GroupId, vendor: Vendor) -> Result<()> {
        self.lock()?
            .execute(
                "DELETE FROM group_refusals WHERE group_id = ?1 AND vendor = ?2",
                params![group_id, vendor],
            )
            .map_err(db_err("clearing a vendor's refusal"))?;
        Ok(())
    }

    /// Record that `vendor` refused the group's declaration, in its own words.
    pub fn record_refusal(&self, group_id: GroupId, vendor: Vendor, message: &str) -> Result<()> {
        self.lock()?
            .execute(
                "INSERT INTO group_refusals (group_id, vendor, message) VALUES (?1, ?2, ?3)
                 ON CONFLICT (group_id, vendor) DO UPDATE SET message = excluded.message",
                params![group_id, vendor, message],
            )
            .map_err(db_err("recording a vendor's refusal"))?;
        Ok(())
    }

    /// Put a run made alone into `group_id` (a replay's original).
    pub fn join_group(&self, run_id: RunId, group_id: GroupId) -> Result<()> {
        let changed = self
            .lock()?
            .execute(
                "UPDATE runs SET group_id = ?1 WHERE run_id = ?2 AND group_id IS NULL",
                params![group_id, run_id],
            )
            .map_err(db_err("putting a run into a group"))?;
        if changed == 0 {
            return Err(Error::store_says(format!(
                "run {run_id} is not in the store or is already in a group"
            )));
        }
        Ok(())
    }

    /// The stored groups, newest first, at most `limit`, each with its
    /// refusals and runs (the console's Compare screen lists them).
    pub fn groups(&self, limit: u32) -> Result<Vec<GroupRow>> {
        let ids: Vec<GroupId> = {
            self.lock()?
                .query_map(
                    "SELECT group_id FROM run_groups ORDER BY group_id DESC LIMIT ?1",
                    params![limit],
                    |r| r.get(0),
                )
                .map_err(db_err("listing run groups"))?
        };
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            out.extend(self.group(id)?);
        }
        Ok(out)
    }

    /// One group with its refusals and runs; `None` when there is none by that id.
    pub fn group(&self, group_id: GroupId) -> Result<Option<GroupRow>> {
        let conn = self.lock()?;
        let Some(mut row) = conn
            .query_opt(
                "SELECT group_id, created_at, goal, workspace, max_usd_micro FROM run_groups WHERE group_id = ?1",
                params![group_id],
            )
            .and_then(|r| {
                r.map(|r| {
                    Ok(GroupRow {
                        group_id: r.get(0)?,
                        created_at: r.get(1)?,
                        goal: r.get(2)?,
                        workspace: r.get(3)?,
                        max_usd_micro: r
                            .get::<Option<i64>>(4)?
                            .map(|v| u64::try_from(v).unwrap_or(0)),
                        ..GroupRow::default()
                    })
                })
                .transpose()
            })
            .map_err(db_err("reading a run group"))?
        else {
            return Ok(None);
        };
        row.refusals = conn
            .query_map(
                "SELECT vendor, message FROM group_refusals WHERE group_id = ?1 ORDER BY vendor",
                params![group_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(db_err("reading a group's refusals"))?;
        row.runs = conn
            .query_map(
                "SELECT run_id FROM runs WHERE group_id = ?1 ORDER BY run_id",
                params![group_id],
                |r| r.get(0),
            )
            .map_err(db_err("reading a group's runs"))?;
        Ok(Some(row))
    }
}
