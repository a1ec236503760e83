//! A PostgreSQL store that cannot be had, or goes away: a URL that does not
//! parse, a server that refuses the connection, a wrong password, a database
//! that disappears in the middle of a run, a statement timeout — each a clear
//! error naming the store without its password, the exit codes as for a
//! SQLite store (2 before anything ran, 1 while working), never a panic; and
//! the run cut off keeps no partial step and resumes once the store is back.

#![cfg(all(feature = "stub", feature = "postgres"))]

use std::path::Path;

use crate::common::cli::{bin, run};

fn on(dir: &Path, store: &str, args: &[&str]) -> (i32, String, String) {
    std::fs::write(dir.join("io.toml"), "").unwrap();
    run(bin()
        .current_dir(dir)
        .env("XDG_DATA_HOME", dir.join("data-home"))
        .args(args)
        .args(["--config", "io.toml", "--store", store]))
}

fn refused(store: &str, shown: &str, why: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = on(dir.path(), store, &["runs"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(&format!("the store {shown} cannot be opened")),
        "{err}"
    );
    assert!(err.contains(why), "{err}");
    assert!(
        !err.contains("s3cret") && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn a_url_that_does_not_parse_is_refused_naming_it_without_its_password() {
    refused(
        "postgres://ann:s3cret@db.invalid:notaport/team",
        "postgres://ann@db.invalid:notaport/team",
        "does not parse",
    );
}

#[test]
fn a_server_that_refuses_the_connection_is_named() {
    // Port 1 on loopback: nothing listens there.
    refused(
        "postgres://ann:s3cret@127.0.0.1:1/team",
        "postgres://ann@127.0.0.1:1/team",
        "Connection refused",
    );
}

#[test]
fn a_wrong_password_is_refused_and_never_repeated() {
    let Some(server) = crate::engines::server() else {
        return;
    };
    let mut url = url::Url::parse(&server).unwrap();
    url.set_password(Some("s3cret")).unwrap();
    let mut shown = url.clone();
    shown.set_password(None).unwrap();
    refused(
        url.as_str(),
        shown.as_str(),
        "password authentication failed",
    );
}

/// The server, as its administrator for this test's database.
fn admin() -> postgres::Client {
    let server = crate::engines::server().unwrap();
    postgres::Client::connect(&server, postgres::NoTls).unwrap()
}

#[test]
fn a_database_that_disappears_mid_run_stops_it_whole_and_it_resumes_once_back() {
    let Some(place) = crate::engines::postgres() else {
        return;
    };
    let store = place.location().to_str().unwrap().to_string();
    let name = store.rsplit('/').next().unwrap().to_string();
    drop(place.open());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("io.toml"), "").unwrap();
    let child = bin()
        .current_dir(dir.path())
        .env("XDG_DATA_HOME", dir.path().join("data-home"))
        .args(["run", "--demo", "--config", "io.toml", "--store", &store])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once its first step is recorded, the database goes away: no new
    // connection is let in and the run's own is cut.
    let mut watch = postgres::Client::connect(&store, postgres::NoTls).unwrap();
    let mut steps = 0i64;
    for _ in 0..300 {
        steps = watch
            .query_one("SELECT count(*) FROM steps", &[])
            .unwrap()
            .get(0);
        if steps >= 1 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(steps, 1, "the demo's first step was never recorded");
    drop(watch);
    let mut admin = admin();
    admin
        .batch_execute(&format!(
            "ALTER DATABASE {name} ALLOW_CONNECTIONS false;
             SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        ))
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    admin
        .batch_execute(&format!("ALTER DATABASE {name} ALLOW_CONNECTIONS true"))
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("run 1 stopped at step 2"), "{err}");
    assert!(err.contains(&crate::engines::shown(&store)), "{err}");
    assert!(err.contains("io-harness run --resume 1"), "{err}");
    assert!(
        !err.contains("io-harness-test") && !err.contains("panicked"),
        "{err}"
    );
    // Nothing of step 2: the rows of step 1 alone, and no outcome.
    let mut c = postgres::Client::connect(&store, postgres::NoTls).unwrap();
    let count =
        |c: &mut postgres::Client, sql: &str| -> i64 { c.query_one(sql, &[]).unwrap().get(0) };
    assert_eq!(
        count(&mut c, "SELECT count(*) FROM steps WHERE step > 1"),
        0
    );
    assert_eq!(
        count(&mut c, "SELECT count(*) FROM provider_calls WHERE step > 1"),
        0
    );
    assert_eq!(
        count(&mut c, "SELECT count(*) FROM runs WHERE outcome IS NULL"),
        1
    );
    // The store is back: the run goes on from its checkpoint and passes.
    let (code, _, err) = on(dir.path(), &store, &["run", "--demo", "--resume", "1"]);
    assert_eq!(code, 0, "{err}");
    let attempts: Vec<(i32, i32)> = c
        .query(
            "SELECT step, step_attempt FROM provider_calls ORDER BY id",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(
        attempts,
        [(1, 1), (2, 2), (3, 1)],
        "step 2 re-sent once, marked"
    );
}

#[test]
fn a_statement_timeout_is_a_clear_error_naming_the_store() {
    let Some(place) = crate::engines::postgres() else {
        return;
    };
    let store = place.location().to_str().unwrap().to_string();
    drop(place.open());
    // Another session holds the runs table; this one waits at most 300 ms.
    let mut holder = postgres::Client::connect(&store, postgres::NoTls).unwrap();
    let mut tx = holder.transaction().unwrap();
    tx.batch_execute("LOCK TABLE runs IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let timed = format!("{store}?options=-c%20statement_timeout%3D300");
    let (code, _, err) = on(dir.path(), &timed, &["runs"]);
    tx.rollback().unwrap();
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("canceling statement due to statement timeout"),
        "{err}"
    );
    assert!(err.contains(&crate::engines::shown(&store)), "{err}");
    assert!(
        !err.contains("io-harness-test") && !err.contains("panicked"),
        "{err}"
    );
}
