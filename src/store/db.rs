//! The connection: opening a store file (WAL, a busy timeout, `synchronous =
//! NORMAL`), the ordered additive migrations tracked by `PRAGMA user_version`,
//! and the lock every read and write takes. Below every other store file.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::Connection;

use super::engine::{Conn, DbError, params, too_new};
use crate::core::error::{Error, Result};
use crate::core::location;

/// Ordered migrations; index + 1 is the `user_version` after applying it.
pub(crate) const MIGRATIONS: [&str; 20] = [
    include_str!("migrations/0001_init.sql"),
    include_str!("migrations/0002_web.sql"),
    include_str!("migrations/0003_mcp.sql"),
    include_str!("migrations/0004_reliability.sql"),
    include_str!("migrations/0005_cost.sql"),
    include_str!("migrations/0006_conversation.sql"),
    include_str!("migrations/0007_search.sql"),
    include_str!("migrations/0008_checks.sql"),
    include_str!("migrations/0009_groups.sql"),
    include_str!("migrations/0010_figures.sql"),
    include_str!("migrations/0011_suggestions.sql"),
    include_str!("migrations/0012_resolved.sql"),
    include_str!("migrations/0013_claims.sql"),
    include_str!("migrations/0014_evals.sql"),
    include_str!("migrations/0015_plan.sql"),
    include_str!("migrations/0016_agent.sql"),
    include_str!("migrations/0017_eval_runner.sql"),
    include_str!("migrations/0018_cut.sql"),
    include_str!("migrations/0019_eval_sets.sql"),
    include_str!("migrations/0020_team.sql"),
];

/// The schema version a store is brought up to: the number of migrations.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// The migration that builds the full-text index for the rows a store holds.
const SEARCH_MIGRATION: usize = 7;

/// Building the index for a large store takes a while (about 10 s for a million
/// citations on 2 cores): say so once, on stderr, before it starts.
fn say_indexing(conn: &Conn) {
    let rows: i64 = conn
        .query_one("SELECT COUNT(*) FROM citations", params![])
        .and_then(|r| r.get(0))
        .unwrap_or(0);
    if rows >= 100_000 {
        eprintln!(
            "io-harness: building the search index for {rows} citations and their runs (once, about {} s) …",
            rows / 100_000 + 1
        );
    }
}

/// A handle on one store file. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct Store {
    pub(super) conn: Arc<Mutex<Conn>>,
    /// The runs this process runs, whose heartbeat it keeps (`lease`).
    pub(super) held: Arc<super::held::Held>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Store")
    }
}

pub(crate) fn db_err(what: &str) -> impl Fn(DbError) -> Error + '_ {
    move |e| Error::store(what, e)
}

fn sqlite_err(what: &str) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| Error::store(what, e)
}

impl Store {
    /// Open (creating) the store file and bring its schema up to date.
    ///
    /// `path` may instead be a PostgreSQL URL (`postgres://…`, see
    /// `core::location`): the team's store, opened and migrated under its lock.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        if let Some(url) = path.to_str().filter(|p| location::is_url(p)) {
            return Store::open_url(url, MIGRATIONS.len());
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        let conn = Connection::open(path)
            .map_err(|e| Error::store(format!("cannot open {}", path.display()), e))?;
        // Before anything that takes a lock: another process may be creating the file.
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(sqlite_err("setting the busy timeout"))?;
        enable_wal(&conn)?;
        // In WAL mode NORMAL keeps every committed transaction across a killed
        // process (kill -9 included) and never corrupts the file; only a power loss
        // can take back the last commits. It spares an fsync per step.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sqlite_err("setting synchronous"))?;
        Store::setup(conn, MIGRATIONS.len(), &path.display().to_string())
    }

    #[cfg(feature = "postgres")]
    fn open_url(url: &str, upto: usize) -> Result<Store> {
        let conn = super::schema_pg::open(url, upto)?;
        Ok(Store {
            conn: Arc::new(Mutex::new(conn)),
            held: Arc::default(),
        })
    }

    #[cfg(not(feature = "postgres"))]
    fn open_url(url: &str, _: usize) -> Result<Store> {
        Err(Error::refused(format!(
            "the store {} is on PostgreSQL, and this io-harness was built without the postgres feature",
            location::shown(url)
        )))
    }

    /// A store in memory, for tests and previews.
    pub fn open_in_memory() -> Result<Store> {
        let conn = Connection::open_in_memory().map_err(sqlite_err("opening in memory"))?;
        Store::setup(conn, MIGRATIONS.len(), ":memory:")
    }

    /// Open applying only the first `upto` migrations: how an older release left a
    /// file. For compatibility tests.
    #[doc(hidden)]
    pub fn open_at_schema(path: impl AsRef<Path>, upto: usize) -> Result<Store> {
        let path = path.as_ref();
        if let Some(url) = path.to_str().filter(|p| location::is_url(p)) {
            return Store::open_url(url, upto.min(MIGRATIONS.len()));
        }
        let conn = Connection::open(path).map_err(sqlite_err("opening"))?;
        Store::setup(
            conn,
            upto.min(MIGRATIONS.len()),
            &path.display().to_string(),
        )
    }

    /// Bring the schema up to `upto`. The version is read, and the migrations
    /// applied, inside one `BEGIN IMMEDIATE` transaction, so of several processes
    /// opening a new file at once exactly one migrates and the others then see its
    /// version; each statement is also safe to meet twice (`IF NOT EXISTS`, and an
    /// added column that already exists is taken as added).
    fn setup(conn: Connection, upto: usize, shown: &str) -> Result<Store> {
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| Error::store("setting the busy timeout", e))?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(|e| Error::store("enabling foreign keys", e))?;
        let mut conn = Conn::Sqlite(conn);
        let found = user_version(&conn)?;
        if found > MIGRATIONS.len() {
            return Err(too_new(shown, found, MIGRATIONS.len()));
        }
        if found < upto {
            let tx = conn.transaction().map_err(db_err("starting a migration"))?;
            let version = user_version(&tx)?;
            if version < upto {
                for (i, sql) in MIGRATIONS.iter().enumerate().take(upto).skip(version) {
                    if i + 1 == SEARCH_MIGRATION {
                        say_indexing(&tx);
                    }
                    migrate(&tx, sql)
                        .map_err(|e| Error::store(format!("migration {} failed", i + 1), e))?;
                }
                tx.batch(&format!("PRAGMA user_version = {upto}"))
                    .map_err(db_err("recording the schema version"))?;
            }
            tx.commit().map_err(db_err("committing migrations"))?;
        }
        Ok(Store {
            conn: Arc::new(Mutex::new(conn)),
            held: Arc::default(),
        })
    }

    /// The schema version of the open store.
    pub fn schema_version(&self) -> Result<i64> {
        let conn = self.lock()?;
        let v = user_version(&conn)?;
        Ok(i64::try_from(v).unwrap_or(i64::MAX))
    }

    pub(crate) fn lock(&self) -> Result<MutexGuard<'_, Conn>> {
        self.conn
            .lock()
            .map_err(|_| Error::store_says("the store connection was poisoned by a panic"))
    }
}

/// How long a statement waits for another connection's lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Switch a file to WAL. On a new file another connection may hold the lock this
/// needs, and SQLite answers "database is locked" at once rather than waiting in
/// the busy handler; so wait here, up to the busy timeout.
fn enable_wal(conn: &Connection) -> Result<()> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Ok(()) => return Ok(()),
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(sqlite_err("enabling WAL")(e)),
        }
    }
}

fn user_version(conn: &Conn) -> Result<usize> {
    #[cfg(feature = "postgres")]
    if conn.engine() == super::engine::Engine::Postgres {
        return super::schema_pg::version(conn);
    }
    let v: i64 = conn
        .query_one("PRAGMA user_version", params![])
        .and_then(|r| r.get(0))
        .map_err(db_err("reading the schema version"))?;
    Ok(usize::try_from(v).unwrap_or(0))
}

/// Run one migration statement by statement; `ADD COLUMN` of a column that is
/// already there (a migration met twice) is skipped.
fn migrate(conn: &Conn, sql: &str) -> std::result::Result<(), DbError> {
    for statement in statements(sql) {
        match conn.batch(&statement) {
            Ok(()) => {}
            Err(e) if e.to_string().starts_with("duplicate column name") => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The statements of a migration file: split at `;` outside quotes and `--`
/// comments (the migrations hold no triggers, so no `;` inside a statement).
fn statements(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '-') if chars.peek() == Some(&'-') => {
                for rest in chars.by_ref() {
                    if rest == '\n' {
                        break;
                    }
                }
                current.push('\n');
                continue;
            }
            (None, ';') => {
                if !current.trim().is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        out.push(current);
    }
    out
}

pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A stored count: negative only when an older release wrapped a huge one, which
/// reads as saturated.
pub(crate) fn count(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(i64::MAX as u64)
}

/// A count as SQLite holds it: saturated at `i64::MAX`, never wrapped negative.
pub(crate) fn stored(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_migration_splits_into_its_statements() {
        let parts = statements(
            "-- a; comment\nCREATE TABLE t (x TEXT DEFAULT 'a;b');\nALTER TABLE t ADD COLUMN y;\n",
        );
        assert_eq!(parts.len(), 2, "{parts:?}");
        assert!(parts[0].contains("'a;b'"));
        let counts: Vec<usize> = MIGRATIONS.iter().map(|m| statements(m).len()).collect();
        assert_eq!(
            counts,
            vec![7, 4, 1, 5, 4, 2, 2, 2, 4, 3, 1, 1, 3, 2, 1, 1, 3, 5, 11, 17]
        );
    }
}
