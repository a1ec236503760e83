//! The store's tests on both engines: `on_both_engines!` turns one test body
//! into a `sqlite` test (a temp file) and a `postgres` one (a database of its
//! own on the server `IO_HARNESS_TEST_PG` names — `scripts/pg-test-server`
//! starts one — created for the test and dropped after it). No mock: a real
//! server or nothing. Without the variable the PostgreSQL half passes without
//! running, said once on stderr past the harness's capture; under CI (`CI`
//! set) it fails, so CI always runs it.

use std::path::{Path, PathBuf};

use io_harness::Store;

/// Where one test's store is: a SQLite file or a PostgreSQL database.
pub struct Place {
    location: PathBuf,
    _dir: Option<tempfile::TempDir>,
    #[cfg(feature = "postgres")]
    database: Option<(String, String)>,
}

impl Place {
    /// What `Store::open` and `--store` take: the file's path or the URL.
    pub fn location(&self) -> &Path {
        &self.location
    }

    /// The store, opened (and migrated).
    pub fn open(&self) -> Store {
        Store::open(&self.location).unwrap()
    }

    /// Whether this is the PostgreSQL half.
    pub fn is_postgres(&self) -> bool {
        self.location.to_string_lossy().starts_with("postgres")
    }

    /// Run SQL as written on the store's own engine, outside io-harness (to
    /// plant what an older release or another machine left).
    pub fn exec(&self, sql: &str) {
        #[cfg(feature = "postgres")]
        if self.is_postgres() {
            let mut c =
                postgres::Client::connect(&self.location.to_string_lossy(), postgres::NoTls)
                    .unwrap();
            c.batch_execute(sql).unwrap();
            return;
        }
        rusqlite::Connection::open(&self.location)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
    }
}

#[cfg(feature = "postgres")]
impl Drop for Place {
    fn drop(&mut self) {
        if let Some((admin, name)) = self.database.take() {
            if let Ok(mut c) = postgres::Client::connect(&admin, postgres::NoTls) {
                let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
            }
        }
    }
}

/// A store file in a temp folder (in a sub-folder that does not exist yet).
pub fn sqlite() -> Place {
    let dir = tempfile::tempdir().unwrap();
    Place {
        location: dir.path().join("nested/runs.db"),
        _dir: Some(dir),
        #[cfg(feature = "postgres")]
        database: None,
    }
}

/// The test server's URL; `None` (said on stderr) when it is not set outside CI.
#[cfg(feature = "postgres")]
pub fn server() -> Option<String> {
    match std::env::var("IO_HARNESS_TEST_PG")
        .ok()
        .filter(|v| !v.is_empty())
    {
        Some(url) => Some(url),
        None if std::env::var_os("CI").is_some() => {
            panic!(
                "IO_HARNESS_TEST_PG is not set: under CI the PostgreSQL half must run (.ci/run starts the server)"
            )
        }
        None => {
            // Once, past the test harness's capture (which keeps a passing
            // test's eprintln! to itself), so a run without a server says so.
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "\nIO_HARNESS_TEST_PG is not set: the PostgreSQL halves of the store's tests \
                     (the `::postgres` tests) pass WITHOUT running; start a server with \
                     `eval \"$(scripts/pg-test-server start)\"` to run them\n"
                );
            });
            None
        }
    }
}

/// A store URL as io-harness shows it: without its password.
#[cfg(feature = "postgres")]
pub fn shown(url: &str) -> String {
    let mut u = url::Url::parse(url).unwrap();
    u.set_password(None).unwrap();
    u.to_string()
}

/// A database of its own on the test server, dropped after the test.
#[cfg(feature = "postgres")]
pub fn postgres() -> Option<Place> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let admin = server()?;
    let name = format!(
        "iht_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    let mut c = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
    c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .unwrap();
    c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    let mut url = url::Url::parse(&admin).unwrap();
    url.set_path(&format!("/{name}"));
    Some(Place {
        location: PathBuf::from(url.to_string()),
        _dir: None,
        database: Some((admin, name)),
    })
}

/// One test body, run on SQLite and on PostgreSQL.
macro_rules! on_both_engines {
    ($(#[$meta:meta])* fn $name:ident($place:ident) $body:block) => {
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            #[allow(unused_imports)]
            use pretty_assertions::assert_eq;

            fn body($place: &$crate::engines::Place) $body

            #[test]
            fn sqlite() {
                body(&$crate::engines::sqlite());
            }

            #[cfg(feature = "postgres")]
            #[test]
            fn postgres() {
                if let Some(place) = $crate::engines::postgres() {
                    body(&place);
                }
            }
        }
    };
}
pub(crate) use on_both_engines;
