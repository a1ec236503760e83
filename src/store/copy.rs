//! `store copy`: every run, step, call, citation, verdict, claim, checkpoint
//! and exchange, every group (with its refusals), session and eval, from one
//! store into another — SQLite to PostgreSQL and back — each row meaning what
//! it meant: ids are the target's own, and every reference (a run's parent,
//! session and group, an eval question's group) is remapped to them. Safe to
//! run twice: a run, group or eval is known by the stable identity recorded at
//! its start (`run_uid`, `group_uid`, `eval_uid`, 0020), and one the target
//! already holds is skipped, not duplicated. Each run is copied whole in one
//! transaction of the target; its search index rows are made there from the
//! copied rows, as 0007 builds them for an existing store.

use std::collections::HashMap;

use super::engine::{Conn, Value, params};
use super::{Store, db_err};
use crate::core::completion::Citation;
use crate::core::error::Result;
use crate::core::id::{EvalId, GroupId, RunId, SessionId};

/// What a copy did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct CopySummary {
    /// Runs copied.
    pub runs: u64,
    /// Runs the target already held (by identity), not copied again.
    pub runs_skipped: u64,
    /// Steps, provider calls and citations copied with them.
    pub steps: u64,
    /// Provider calls copied.
    pub calls: u64,
    /// Citations copied.
    pub citations: u64,
    /// Verdicts copied.
    pub verdicts: u64,
    /// Groups copied, and those already there.
    pub groups: u64,
    /// Groups the target already held.
    pub groups_skipped: u64,
    /// Evals copied, and those already there.
    pub evals: u64,
    /// Evals the target already held.
    pub evals_skipped: u64,
}

/// The per-run tables, their columns after `run_id`, and the order rows were
/// recorded in.
const RUN_TABLES: [(&str, &str, &str); 8] = [
    (
        "steps",
        "step, text, observations_json, search_suggestions",
        "step",
    ),
    (
        "provider_calls",
        "step, provider, model, input_tokens, output_tokens, server_tool_requests, has_usage,
         stop_reason, latency_ms, request_id, created_at, step_attempt, cache_write_tokens,
         cache_read_tokens, web_fetch_requests, reported_cost_micro_usd, cache_write_1h_tokens,
         endpoint, response_id, finish_reason, server_tool_calls_cut, searches_cut, fetches_cut,
         citations_cut, claim_links_cut",
        "id",
    ),
    (
        "server_tool_calls",
        "step, provider, tool, error, input",
        "id",
    ),
    ("citations", "step, url, title, cited_text", "id"),
    (
        "citation_checks",
        "step, url, verdict, detail, checked_at, resolved_url, overlap",
        "step, url",
    ),
    ("exchanges", "step, wire, exchange_json", "step"),
    (
        "checkpoints",
        "format, step, body_json, saved_at, sent",
        "run_id",
    ),
    ("step_claims", "step, claims_json", "step"),
];

/// A run's own columns, after its id; `parent_run_id`, `session_id` and
/// `group_id` (the 9th to 11th of a row read with the id first) are remapped.
const RUN_COLUMNS: &str = "run_uid, started_at, finished_at, goal, provider, model, outcome,
    outcome_detail, parent_run_id, session_id, group_id, web_json, mcp_declared_json, plan_json,
    runner_pid, runner_host, runner_token, runner_user, runner_heartbeat, run_user, run_host, agent, private";

fn placeholders(n: usize, from: usize) -> String {
    (from..from + n)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn id_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        _ => None,
    }
}

impl Store {
    /// Copy everything this store holds into `to`, calling `progress` with
    /// (runs done, runs in all) as it goes.
    pub fn copy_into(&self, to: &Store, mut progress: impl FnMut(u64, u64)) -> Result<CopySummary> {
        let mut sum = CopySummary::default();
        let groups = self.copy_groups(to, &mut sum)?;
        let runs: Vec<Vec<Value>> = self
            .lock()?
            .query_map(
                &format!("SELECT run_id, {RUN_COLUMNS} FROM runs ORDER BY run_id"),
                params![],
                |r| Ok(r.0.clone()),
            )
            .map_err(db_err("reading the runs to copy"))?;
        let total = runs.len() as u64;
        let mut ids: HashMap<i64, i64> = HashMap::new();
        let mut sessions: HashMap<i64, i64> = HashMap::new();
        for (done, row) in runs.into_iter().enumerate() {
            self.copy_run(to, row, &groups, &mut ids, &mut sessions, &mut sum)?;
            progress(done as u64 + 1, total);
        }
        self.copy_evals(to, &groups, &mut sum)?;
        Ok(sum)
    }

    /// Every group not in `to` yet (by `group_uid`), with its refusals; the
    /// map from this store's group ids to the target's.
    fn copy_groups(&self, to: &Store, sum: &mut CopySummary) -> Result<HashMap<i64, i64>> {
        let rows = self
            .lock()?
            .query_map(
                "SELECT group_id, group_uid, created_at, goal, workspace, max_usd_micro, private FROM run_groups ORDER BY group_id",
                params![],
                |r| Ok(r.0.clone()),
            )
            .map_err(db_err("reading the groups to copy"))?;
        let mut map = HashMap::new();
        for row in rows {
            let Some(old) = id_of(&row[0]) else { continue };
            let mut target = to.lock()?;
            let tx = target.transaction().map_err(db_err("copying a group"))?;
            let found: Option<GroupId> = tx
                .query_opt(
                    "SELECT group_id FROM run_groups WHERE group_uid = ?1",
                    &row[1..2],
                )
                .and_then(|r| r.map(|r| r.get(0)).transpose())
                .map_err(db_err("copying a group"))?;
            let new = match found {
                Some(id) => {
                    sum.groups_skipped += 1;
                    id
                }
                None => {
                    sum.groups += 1;
                    let id: GroupId = tx
                        .query_one(
                            "INSERT INTO run_groups (group_uid, created_at, goal, workspace, max_usd_micro, private)
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING group_id",
                            &row[1..],
                        )
                        .and_then(|r| r.get(0))
                        .map_err(db_err("copying a group"))?;
                    let refusals = self
                        .lock()?
                        .query_map(
                            "SELECT vendor, message FROM group_refusals WHERE group_id = ?1",
                            params![old],
                            |r| Ok(r.0.clone()),
                        )
                        .map_err(db_err("reading a group's refusals"))?;
                    for r in refusals {
                        tx.execute(
                            "INSERT INTO group_refusals (group_id, vendor, message) VALUES (?1, ?2, ?3)
                             ON CONFLICT DO NOTHING",
                            &[Value::Int(id.0), r[0].clone(), r[1].clone()],
                        )
                        .map_err(db_err("copying a group's refusal"))?;
                    }
                    id
                }
            };
            tx.commit().map_err(db_err("copying a group"))?;
            map.insert(old, new.0);
        }
        Ok(map)
    }

    /// One run and its rows, in one transaction of `to`; skipped when `to`
    /// holds its identity already.
    fn copy_run(
        &self,
        to: &Store,
        mut row: Vec<Value>,
        groups: &HashMap<i64, i64>,
        ids: &mut HashMap<i64, i64>,
        sessions: &mut HashMap<i64, i64>,
        sum: &mut CopySummary,
    ) -> Result<()> {
        let Some(old) = id_of(&row[0]) else {
            return Ok(());
        };
        let remap = |v: &Value, map: &HashMap<i64, i64>| match id_of(v) {
            Some(i) => map.get(&i).map_or(Value::Null, |n| Value::Int(*n)),
            None => Value::Null,
        };
        let mut target = to.lock()?;
        let tx = target.transaction().map_err(db_err("copying a run"))?;
        let found: Option<RunId> = tx
            .query_opt("SELECT run_id FROM runs WHERE run_uid = ?1", &row[1..2])
            .and_then(|r| r.map(|r| r.get(0)).transpose())
            .map_err(db_err("copying a run"))?;
        if let Some(id) = found {
            sum.runs_skipped += 1;
            ids.insert(old, id.0);
            return Ok(());
        }
        // References, as the target numbers them.
        row[9] = remap(&row[9], ids);
        row[11] = remap(&row[11], groups);
        if let Some(session) = id_of(&row[10]) {
            row[10] = Value::Int(match sessions.get(&session) {
                Some(s) => *s,
                None => {
                    let s = self.copy_session(&tx, session)?;
                    sessions.insert(session, s.0);
                    s.0
                }
            });
        }
        let width = row.len() - 1;
        let new: RunId = tx
            .query_one(
                &format!(
                    "INSERT INTO runs ({RUN_COLUMNS}) VALUES ({}) RETURNING run_id",
                    placeholders(width, 1)
                ),
                &row[1..],
            )
            .and_then(|r| r.get(0))
            .map_err(db_err("copying a run"))?;
        ids.insert(old, new.0);
        let source = self.lock()?;
        for (table, columns, order) in RUN_TABLES {
            let rows = source
                .query_map(
                    &format!("SELECT {columns} FROM {table} WHERE run_id = ?1 ORDER BY {order}"),
                    params![old],
                    |r| Ok(r.0.clone()),
                )
                .map_err(db_err("reading a run's rows"))?;
            let n = columns.split(',').count();
            let insert = format!(
                "INSERT INTO {table} (run_id, {columns}) VALUES (?1, {})",
                placeholders(n, 2)
            );
            for r in &rows {
                let mut values = Vec::with_capacity(n + 1);
                values.push(Value::Int(new.0));
                values.extend(r.iter().cloned());
                tx.execute(&insert, &values)
                    .map_err(db_err("copying a run's rows"))?;
            }
            let count = rows.len() as u64;
            match table {
                "steps" => sum.steps += count,
                "provider_calls" => sum.calls += count,
                "citations" => sum.citations += count,
                "citation_checks" => sum.verdicts += count,
                _ => {}
            }
        }
        index(&source, &tx, old, RunId(new.0))?;
        drop(source);
        tx.commit().map_err(db_err("copying a run"))?;
        sum.runs += 1;
        Ok(())
    }

    /// A session of this store, made anew in the target (`tx`).
    fn copy_session(&self, tx: &Conn, session: i64) -> Result<SessionId> {
        let row = self
            .lock()?
            .query_opt(
                "SELECT started_at, label FROM sessions WHERE session_id = ?1",
                params![session],
            )
            .map_err(db_err("reading a session"))?;
        let values = row.map_or_else(|| vec![Value::Text(super::now()), Value::Null], |r| r.0);
        tx.query_one(
            "INSERT INTO sessions (started_at, label) VALUES (?1, ?2) RETURNING session_id",
            &values,
        )
        .and_then(|r| r.get(0))
        .map_err(db_err("copying a session"))
    }

    /// Every eval not in `to` yet (by `eval_uid`), with its questions.
    fn copy_evals(
        &self,
        to: &Store,
        groups: &HashMap<i64, i64>,
        sum: &mut CopySummary,
    ) -> Result<()> {
        let evals = self
            .lock()?
            .query_map(
                "SELECT eval_id, eval_uid, created_at, file, vendors, jobs, max_usd_micro, demo, finished_at,
                        set_name, revision, rows, subset_json, judge, private
                 FROM evals ORDER BY eval_id",
                params![],
                |r| Ok(r.0.clone()),
            )
            .map_err(db_err("reading the evals to copy"))?;
        for row in evals {
            let Some(old) = id_of(&row[0]) else { continue };
            let mut target = to.lock()?;
            let tx = target.transaction().map_err(db_err("copying an eval"))?;
            let found = tx
                .query_opt("SELECT eval_id FROM evals WHERE eval_uid = ?1", &row[1..2])
                .map_err(db_err("copying an eval"))?;
            if found.is_some() {
                sum.evals_skipped += 1;
                continue;
            }
            let id: EvalId = tx
                .query_one(
                    "INSERT INTO evals (eval_uid, created_at, file, vendors, jobs, max_usd_micro, demo, finished_at,
                        set_name, revision, rows, subset_json, judge, private)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) RETURNING eval_id",
                    &row[1..],
                )
                .and_then(|r| r.get(0))
                .map_err(db_err("copying an eval"))?;
            let questions = self
                .lock()?
                .query_map(
                    "SELECT position, question_id, question, answers, urls, status, group_id, answer_kind
                     FROM eval_questions WHERE eval_id = ?1 ORDER BY position",
                    params![old],
                    |r| Ok(r.0.clone()),
                )
                .map_err(db_err("reading an eval's questions"))?;
            for mut q in questions {
                q[6] = match id_of(&q[6]) {
                    Some(g) => groups.get(&g).map_or(Value::Null, |n| Value::Int(*n)),
                    None => Value::Null,
                };
                let mut values = vec![Value::Int(id.0)];
                values.extend(q);
                tx.execute(
                    "INSERT INTO eval_questions (eval_id, position, question_id, question, answers, urls, status, group_id, answer_kind)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    &values,
                )
                .map_err(db_err("copying an eval's question"))?;
            }
            tx.commit().map_err(db_err("copying an eval"))?;
            sum.evals += 1;
        }
        Ok(())
    }
}

/// The copied run's rows in the target's search index, made from the rows as
/// 0007 builds the index for an existing store: its goal, each step's text,
/// each server-side query, each citation.
fn index(source: &Conn, tx: &Conn, old: i64, new: RunId) -> Result<()> {
    let what = db_err("indexing a copied run");
    let goal: String = tx
        .query_one("SELECT goal FROM runs WHERE run_id = ?1", params![new])
        .and_then(|r| r.get(0))
        .map_err(&what)?;
    super::search::index_goal(tx, new, &goal)?;
    let texts: HashMap<u32, String> = source
        .query_map(
            "SELECT step, text FROM steps WHERE run_id = ?1",
            params![old],
            |r| Ok((r.get::<u32>(0)?, r.get::<String>(1)?)),
        )
        .map_err(&what)?
        .into_iter()
        .collect();
    // Every step any of the indexed rows names (a citation may come without
    // its step's text).
    let steps = source
        .query_map(
            "SELECT step FROM steps WHERE run_id = ?1
             UNION SELECT step FROM server_tool_calls WHERE run_id = ?1
             UNION SELECT step FROM citations WHERE run_id = ?1 ORDER BY 1",
            params![old],
            |r| r.get::<u32>(0),
        )
        .map_err(&what)?;
    for step in steps {
        let text = texts.get(&step).map_or("", String::as_str);
        let calls = source
            .query_map(
                "SELECT provider, tool, error, input FROM server_tool_calls WHERE run_id = ?1 AND step = ?2 ORDER BY id",
                params![old, step],
                |r| {
                    Ok(crate::core::completion::ServerToolCall {
                        provider: r.get(0)?,
                        tool: r.get(1)?,
                        error: r.get(2)?,
                        input: r.get(3)?,
                    })
                },
            )
            .map_err(&what)?;
        let citations = source
            .query_map(
                "SELECT url, title, cited_text FROM citations WHERE run_id = ?1 AND step = ?2 ORDER BY id",
                params![old, step],
                |r| {
                    Ok(Citation {
                        url: r.get(0)?,
                        title: r.get(1)?,
                        cited_text: r.get(2)?,
                    })
                },
            )
            .map_err(&what)?;
        super::search::index_step(tx, new, step, false, text, &calls, &citations)?;
    }
    Ok(())
}
