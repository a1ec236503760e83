//! Exit codes say what failed: 2 only for configuration and refusals before
//! anything is sent or done, 1 for failures while working (the terminal, an
//! export that did not go out, a vendor, the store), each message naming the
//! thing and what to do. Through the real binary.

// The binary is built with every default feature, and these tests run it.
#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::cli::{bin, run};

#[test]
fn a_terminal_that_cannot_be_taken_over_is_a_failure_not_a_configuration_error() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(bin()
        .current_dir(dir.path())
        .args(["--store", "s.db", "console", "--demo"])
        .stdin(std::process::Stdio::null()));
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("the terminal: cannot take it over: "),
        "{err}"
    );
}

#[test]
fn refusals_before_anything_is_done_exit_2_and_name_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let at = |args: &[&str]| run(bin().current_dir(dir.path()).args(args));
    let (code, _, err) = at(&["--store", "s.db", "citations", "99"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim(),
        "there is no run 99 in this store; `io-harness runs` lists them"
    );
    let (code, _, err) = at(&["--store", "s.db", "search", " "]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("nothing to search for"), "{err}");
    let (code, _, err) = at(&["--store", "s.db", "compare", "7"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("there is no run group 7 in "), "{err}");
    let (code, _, err) = at(&["--store", "s.db", "citations", "1", "--format", "pdf"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown export format \"pdf\""), "{err}");
}

#[test]
fn an_export_the_collector_did_not_take_is_a_failure_while_working() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens on the discard port: the collector is down.
    std::fs::write(
        dir.path().join("io.toml"),
        "[telemetry]\notlp_endpoint = \"http://127.0.0.1:9\"\n",
    )
    .unwrap();
    let at = |args: &[&str]| run(bin().current_dir(dir.path()).args(args));
    let (code, _, err) = at(&["--store", "s.db", "run", "--demo"]);
    assert_eq!(
        code, 0,
        "a collector that is down costs a run nothing: {err}"
    );
    let (code, _, err) = at(&["--store", "s.db", "export", "otlp", "1"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(
            "1 run was read from the store; send them again once the collector is reachable"
        ),
        "{err}"
    );
}
