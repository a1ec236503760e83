//! The one way every store file talks to its database, whichever engine holds
//! it: SQL written once with `?N` placeholders, parameters as `Value`s, rows
//! read back as `Value`s through typed getters (`Row::get`), and a transaction
//! that rolls back unless committed. SQLite runs the SQL as written; the
//! PostgreSQL engine (`store::pg`, behind the `postgres` feature) rewrites the
//! placeholders to `$N` once per statement and keeps the statement prepared.
//! Where the dialects differ a caller asks `Conn::engine` and branches in the
//! one place that needs it.

use std::ops::Deref;

pub(crate) use super::value::{DbError, Row, Value, params};

/// Which database a store is on.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// One SQLite file.
    Sqlite,
    /// A PostgreSQL database, shared by a team.
    Postgres,
}

/// The connection a store holds: one SQLite file, or a PostgreSQL session.
pub(crate) enum Conn {
    /// SQLite, in this process.
    Sqlite(rusqlite::Connection),
    /// PostgreSQL, over its own thread.
    #[cfg(feature = "postgres")]
    Postgres(super::pg::PgConn),
}

impl Conn {
    /// Which engine this is.
    pub(crate) fn engine(&self) -> Engine {
        match self {
            Conn::Sqlite(_) => Engine::Sqlite,
            #[cfg(feature = "postgres")]
            Conn::Postgres(_) => Engine::Postgres,
        }
    }

    /// Run one statement; how many rows it changed.
    pub(crate) fn execute(&self, sql: &str, params: &[Value]) -> Result<usize, DbError> {
        match self {
            Conn::Sqlite(c) => {
                let mut stmt = c.prepare_cached(sql)?;
                Ok(stmt.execute(rusqlite::params_from_iter(params.iter()))?)
            }
            #[cfg(feature = "postgres")]
            Conn::Postgres(c) => c.execute(sql, params),
        }
    }

    /// Run one statement and read every row it returns.
    pub(crate) fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>, DbError> {
        match self {
            Conn::Sqlite(c) => {
                let mut stmt = c.prepare_cached(sql)?;
                let width = stmt.column_count();
                let mut rows = stmt.query(rusqlite::params_from_iter(params.iter()))?;
                let mut out = Vec::new();
                while let Some(r) = rows.next()? {
                    let mut values = Vec::with_capacity(width);
                    for i in 0..width {
                        values.push(super::value::from_sqlite(r.get_ref(i)?));
                    }
                    out.push(Row(values));
                }
                Ok(out)
            }
            #[cfg(feature = "postgres")]
            Conn::Postgres(c) => c.query(sql, params),
        }
    }

    /// Every row, each read by `f`.
    pub(crate) fn query_map<T>(
        &self,
        sql: &str,
        params: &[Value],
        f: impl FnMut(&Row) -> Result<T, DbError>,
    ) -> Result<Vec<T>, DbError> {
        self.query(sql, params)?.iter().map(f).collect()
    }

    /// The first row, if any.
    pub(crate) fn query_opt(&self, sql: &str, params: &[Value]) -> Result<Option<Row>, DbError> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    /// The first row; `DbError::NoRow` when there is none.
    pub(crate) fn query_one(&self, sql: &str, params: &[Value]) -> Result<Row, DbError> {
        self.query_opt(sql, params)?.ok_or(DbError::NoRow)
    }

    /// Statements without parameters, separated by `;` (a migration).
    pub(crate) fn batch(&self, sql: &str) -> Result<(), DbError> {
        match self {
            Conn::Sqlite(c) => Ok(c.execute_batch(sql)?),
            #[cfg(feature = "postgres")]
            Conn::Postgres(c) => c.batch(sql),
        }
    }

    /// Begin a transaction that writes: SQLite takes the write lock at once
    /// (`BEGIN IMMEDIATE`), so no other writer reads between this one's reads
    /// and its writes; PostgreSQL's rows are locked by the statements that need
    /// them (`FOR UPDATE`, see `Conn::for_update`). Rolled back unless committed.
    pub(crate) fn transaction(&mut self) -> Result<Tx<'_>, DbError> {
        match self.engine() {
            Engine::Sqlite => self.batch("BEGIN IMMEDIATE")?,
            Engine::Postgres => self.batch("BEGIN")?,
        }
        Ok(Tx {
            conn: self,
            open: true,
        })
    }

    /// The time a lease is written and judged by, in SQL, given as parameter
    /// `?n` (this machine's time): SQLite uses it; PostgreSQL uses its own
    /// clock (`CURRENT_TIMESTAMP`), so machines whose clocks differ agree on
    /// whose claim has lapsed (the parameter stays referenced, for its type).
    pub(crate) fn clock(&self, n: usize) -> String {
        match self.engine() {
            Engine::Sqlite => format!("?{n}"),
            Engine::Postgres => format!("COALESCE(CURRENT_TIMESTAMP, CAST(?{n} AS TIMESTAMPTZ))"),
        }
    }

    /// What a `SELECT` that decides a write in the same transaction ends with:
    /// ` FOR UPDATE` on PostgreSQL (the row stays locked until commit); nothing
    /// on SQLite, whose `BEGIN IMMEDIATE` already holds the whole file.
    pub(crate) fn for_update(&self) -> &'static str {
        match self.engine() {
            Engine::Sqlite => "",
            Engine::Postgres => " FOR UPDATE",
        }
    }
}

/// An open transaction: statements through it (it derefs to the `Conn`),
/// rolled back when dropped uncommitted.
pub(crate) struct Tx<'a> {
    conn: &'a mut Conn,
    open: bool,
}

impl Tx<'_> {
    /// Commit.
    pub(crate) fn commit(mut self) -> Result<(), DbError> {
        self.open = false;
        self.conn.batch("COMMIT")
    }
}

impl Deref for Tx<'_> {
    type Target = Conn;

    fn deref(&self) -> &Conn {
        self.conn
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if self.open {
            // A failed rollback leaves the connection as the failure left it;
            // the error that dropped this transaction is the one reported.
            let _ = self.conn.batch("ROLLBACK");
        }
    }
}

/// A store whose schema is newer than this binary's, refused before anything
/// is read or written: both versions named, and what to do.
pub(crate) fn too_new(store: &str, found: usize, known: usize) -> crate::core::error::Error {
    crate::core::error::Error::refused(format!(
        "the store {store} is at schema version {found}, newer than this io-harness ({}) knows \
         (up to {known}); nothing was read or changed — use the io-harness that wrote it, or a later one",
        env!("CARGO_PKG_VERSION"),
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_transaction_dropped_uncommitted_leaves_nothing() {
        let mut conn = Conn::Sqlite(rusqlite::Connection::open_in_memory().unwrap());
        conn.batch("CREATE TABLE t (x INTEGER)").unwrap();
        {
            let tx = conn.transaction().unwrap();
            tx.execute("INSERT INTO t (x) VALUES (?1)", params![1_i64])
                .unwrap();
        }
        let tx = conn.transaction().unwrap();
        tx.execute("INSERT INTO t (x) VALUES (?1)", params![2_i64])
            .unwrap();
        tx.commit().unwrap();
        let xs = conn
            .query_map("SELECT x FROM t", params![], |r| r.get::<i64>(0))
            .unwrap();
        assert_eq!(xs, vec![2]);
    }
}
