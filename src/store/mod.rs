//! The SQLite store: one file, WAL, a busy timeout, ordered additive migrations
//! tracked by `PRAGMA user_version`. Sync API; callers on async threads wrap calls
//! in `spawn_blocking` or accept a short write.
//!
//! Accounting and citation rows are logged and swallowed on failure: failing a run
//! the provider answered because a bookkeeping row could not be written would trade
//! a real answer for an entry. No secret ever reaches this module.

mod ledger;
mod read;
pub mod types;
mod write;

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::Connection;

use crate::error::{Error, Result};
pub use ledger::{Ledger, LedgerLine, sum as ledger_sum};
pub use types::*;

/// Ordered migrations; index + 1 is the `user_version` after applying it.
pub(crate) const MIGRATIONS: [&str; 4] = [
    include_str!("migrations/0001_init.sql"),
    include_str!("migrations/0002_web.sql"),
    include_str!("migrations/0003_mcp.sql"),
    include_str!("migrations/0004_cost.sql"),
];

/// A handle on one store file. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Store")
    }
}

pub(crate) fn db_err(what: &str) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| Error::Store(format!("{what}: {e}"))
}

impl Store {
    /// Open (creating) the store file and bring its schema up to date.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        let conn = Connection::open(path)
            .map_err(|e| Error::Store(format!("cannot open {}: {e}", path.display())))?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(db_err("enabling WAL"))?;
        Store::setup(conn, MIGRATIONS.len())
    }

    /// A store in memory, for tests and previews.
    pub fn open_in_memory() -> Result<Store> {
        let conn = Connection::open_in_memory().map_err(db_err("opening in memory"))?;
        Store::setup(conn, MIGRATIONS.len())
    }

    /// Open applying only the first `upto` migrations: how an older release left a
    /// file. For compatibility tests.
    #[doc(hidden)]
    pub fn open_at_schema(path: impl AsRef<Path>, upto: usize) -> Result<Store> {
        let conn = Connection::open(path.as_ref()).map_err(db_err("opening"))?;
        Store::setup(conn, upto.min(MIGRATIONS.len()))
    }

    fn setup(mut conn: Connection, upto: usize) -> Result<Store> {
        conn.busy_timeout(Duration::from_secs(5))
            .map_err(db_err("setting the busy timeout"))?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(db_err("enabling foreign keys"))?;
        let version: usize = conn
            .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
            .map_err(db_err("reading the schema version"))? as usize;
        if version < upto {
            let tx = conn.transaction().map_err(db_err("starting a migration"))?;
            for (i, sql) in MIGRATIONS.iter().enumerate().take(upto).skip(version) {
                tx.execute_batch(sql)
                    .map_err(|e| Error::Store(format!("migration {} failed: {e}", i + 1)))?;
            }
            tx.pragma_update(None, "user_version", upto as i64)
                .map_err(db_err("recording the schema version"))?;
            tx.commit().map_err(db_err("committing migrations"))?;
        }
        Ok(Store {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    /// The schema version of the open file.
    pub fn schema_version(&self) -> Result<i64> {
        self.lock()?
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(db_err("reading the schema version"))
    }

    pub(crate) fn lock(&self) -> Result<MutexGuard<'_, Connection>> {
        self.conn
            .lock()
            .map_err(|_| Error::Store("the store connection was poisoned by a panic".into()))
    }
}

pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
