//! The store's tests on both engines: `on_both_engines!` turns one test body
//! into a `sqlite` test (a temp file) and a `postgres` one (a database of its
//! own on the server `IO_HARNESS_TEST_PG` names — `scripts/pg-test-server`
//! starts one — created for the test and dropped after it). No mock: a real
//! server or nothing. Without the variable, `cargo test` starts that script's
//! server itself (as the MCP tests install theirs); when it cannot, the
//! PostgreSQL half passes without running, said once on stderr past the
//! harness's capture; under CI (`CI` set) it fails, so CI always runs it.

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
        None => started().clone(),
    }
}

/// With no server named, `cargo test` starts the project's own once, as the
/// MCP tests install their server: `scripts/pg-test-server start` (a cluster
/// under the build folder, PostgreSQL installed from the distribution's
/// packages when root and absent). When it cannot, the PostgreSQL halves pass
/// without running, said once on stderr past the harness's capture.
#[cfg(feature = "postgres")]
fn started() -> &'static Option<String> {
    static URL: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    URL.get_or_init(|| {
        use std::io::Write;
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pg-test-server");
        let out = std::process::Command::new(&script)
            .arg("start")
            .stdin(std::process::Stdio::null())
            .output();
        let url = out.ok().filter(|o| o.status.success()).and_then(|o| {
            let said = String::from_utf8_lossy(&o.stdout).into_owned();
            let (_, rest) = said.split_once("IO_HARNESS_TEST_PG='")?;
            Some(rest.split('\'').next()?.to_string())
        });
        let _ = match &url {
            Some(url) => writeln!(
                std::io::stderr(),
                "\nIO_HARNESS_TEST_PG was not set: started the test server at {} \
                 (`scripts/pg-test-server stop` stops it)\n",
                shown(url)
            ),
            None => writeln!(
                std::io::stderr(),
                "\nIO_HARNESS_TEST_PG is not set and scripts/pg-test-server could not start a \
                 server: the PostgreSQL halves of the store's tests (the `::postgres` tests) pass \
                 WITHOUT running\n"
            ),
        };
        url
    })
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
