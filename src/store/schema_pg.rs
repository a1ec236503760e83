//! A PostgreSQL store opened and brought up to date: the same numbered
//! migrations as SQLite's (`migrations_pg/`, in PostgreSQL's own types), the
//! version kept in `io_harness_schema`, and the whole check-and-migrate done
//! under a session-level advisory lock, so that of several operators opening
//! an old (or empty) database at once exactly one migrates and the others wait
//! and then find it done. A database newer than this binary is refused, naming
//! both versions, before anything is read or written.

use super::engine::{Conn, params, too_new};
use super::pg::PgConn;
use crate::core::error::{Error, Result};

/// Ordered migrations; index + 1 is the version after applying it. The same
/// numbers, and the same meaning, as `db::MIGRATIONS`.
pub(crate) const MIGRATIONS_PG: [&str; 20] = [
    include_str!("migrations_pg/0001_init.sql"),
    include_str!("migrations_pg/0002_web.sql"),
    include_str!("migrations_pg/0003_mcp.sql"),
    include_str!("migrations_pg/0004_reliability.sql"),
    include_str!("migrations_pg/0005_cost.sql"),
    include_str!("migrations_pg/0006_conversation.sql"),
    include_str!("migrations_pg/0007_search.sql"),
    include_str!("migrations_pg/0008_checks.sql"),
    include_str!("migrations_pg/0009_groups.sql"),
    include_str!("migrations_pg/0010_figures.sql"),
    include_str!("migrations_pg/0011_suggestions.sql"),
    include_str!("migrations_pg/0012_resolved.sql"),
    include_str!("migrations_pg/0013_claims.sql"),
    include_str!("migrations_pg/0014_evals.sql"),
    include_str!("migrations_pg/0015_plan.sql"),
    include_str!("migrations_pg/0016_agent.sql"),
    include_str!("migrations_pg/0017_eval_runner.sql"),
    include_str!("migrations_pg/0018_cut.sql"),
    include_str!("migrations_pg/0019_eval_sets.sql"),
    include_str!("migrations_pg/0020_team.sql"),
];

/// The advisory lock every opening takes while it reads and moves the version
/// (a constant of io-harness's own: `io-h` in ASCII).
const SCHEMA_LOCK: i64 = 0x696f_2d68;

/// Open the store at `url` and bring it up to `upto` migrations.
pub(crate) fn open(url: &str, upto: usize) -> Result<Conn> {
    // The caller names the store; the server's (or the client's) words follow.
    let conn = PgConn::open(url).map_err(|e| match e {
        super::engine::DbError::Postgres(p) => Error::store_says(p.message),
        other => Error::store("cannot open the store", other),
    })?;
    let shown = conn.shown().to_string();
    let mut conn = Conn::Postgres(conn);
    conn.query("SELECT pg_advisory_lock(?1)", params![SCHEMA_LOCK])
        .map_err(|e| Error::store("waiting for the schema lock", e))?;
    let migrated = migrate(&mut conn, upto, &shown);
    let unlocked = conn.query("SELECT pg_advisory_unlock(?1)", params![SCHEMA_LOCK]);
    migrated?;
    unlocked.map_err(|e| Error::store("releasing the schema lock", e))?;
    Ok(conn)
}

/// The version recorded in `io_harness_schema` (0 for a database without it).
pub(crate) fn version(conn: &Conn) -> Result<usize> {
    let v: Option<i64> = conn
        .query_opt("SELECT max(version) FROM io_harness_schema", params![])
        .and_then(|r| r.map(|r| r.get(0)).transpose())
        .map_err(|e| Error::store("reading the schema version", e))?
        .flatten();
    Ok(v.and_then(|v| usize::try_from(v).ok()).unwrap_or(0))
}

fn migrate(conn: &mut Conn, upto: usize, shown: &str) -> Result<()> {
    conn.batch("CREATE TABLE IF NOT EXISTS io_harness_schema (version INTEGER NOT NULL)")
        .map_err(|e| Error::store("creating the schema table", e))?;
    let found = version(conn)?;
    if found > MIGRATIONS_PG.len() {
        return Err(too_new(shown, found, MIGRATIONS_PG.len()));
    }
    for (i, sql) in MIGRATIONS_PG.iter().enumerate().take(upto).skip(found) {
        let tx = conn
            .transaction()
            .map_err(|e| Error::store("starting a migration", e))?;
        tx.batch(sql)
            .map_err(|e| Error::store(format!("migration {} failed", i + 1), e))?;
        tx.execute("DELETE FROM io_harness_schema", params![])
            .and_then(|_| {
                tx.execute(
                    "INSERT INTO io_harness_schema (version) VALUES (?1)",
                    params![i64::try_from(i + 1).unwrap_or(i64::MAX)],
                )
            })
            .map_err(|e| Error::store("recording the schema version", e))?;
        tx.commit()
            .map_err(|e| Error::store("committing a migration", e))?;
    }
    Ok(())
}
