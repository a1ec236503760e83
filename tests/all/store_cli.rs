//! Every command on either engine: the real binary, `--store` a SQLite file or
//! a PostgreSQL URL (`engines`), the built-in demo stub as the vendor — run,
//! `--providers`, replay, resume and preview --resume (refused once finished),
//! runs, citations, search, claims, check-sources, compare, eval, evals and
//! export otlp read and write the same things on both (the console's screens:
//! `console_pty`).

#![cfg(feature = "stub")]

use std::path::Path;

use crate::common::cli::{bin, run};
use crate::engines::on_both_engines;

/// The binary in `dir` on `store`, its data folder inside `dir`.
fn cmd(dir: &Path, store: &Path, args: &[&str]) -> (i32, String, String) {
    run(bin()
        .current_dir(dir)
        .env("XDG_DATA_HOME", dir.join("data-home"))
        .args(args)
        .args(["--config", "io.toml", "--store"])
        .arg(store))
}

fn ok(dir: &Path, store: &Path, args: &[&str]) -> String {
    let (code, out, err) = cmd(dir, store, args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

fn json(dir: &Path, store: &Path, args: &[&str]) -> serde_json::Value {
    let out = ok(dir, store, args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

on_both_engines! {
    fn every_command_on_the_store(place) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("io.toml"), "").unwrap();
        let (d, s) = (dir.path(), place.location());
        // Two runs, as two operators would make them.
        ok(d, s, &["run", "--demo"]);
        ok(d, s, &["run", "--demo"]);
        let runs = json(d, s, &["runs", "--json"]);
        let runs = runs.as_array().unwrap();
        assert_eq!(runs.len(), 2, "{runs:?}");
        assert!(runs.iter().all(|r| r["outcome"] == "passed"), "{runs:?}");
        assert!(ok(d, s, &["citations", "1"]).contains("https://crates.io/crates/io-harness"));
        let hits = ok(d, s, &["search", "crates"]);
        assert!(hits.contains("[crates]"), "{hits}");
        let hits = ok(d, s, &["search", "harn*", "--rank"]);
        assert!(hits.contains("run 2") && hits.contains("run 1"), "{hits}");
        let (code, _, err) = cmd(d, s, &["search", "NOT"]);
        assert_eq!(code, 2, "{err}");
        let claims = json(d, s, &["claims", "1", "--json"]);
        assert_eq!(claims["run_id"], 1, "{claims}");
        let checked = json(d, s, &["check-sources", "1", "--json"]);
        assert!(!checked.as_array().unwrap().is_empty(), "{checked}");
        // A comparison, a replay and the views over them.
        ok(d, s, &["run", "--demo", "--providers", "anthropic,openai"]);
        let compared = json(d, s, &["compare", "1", "--json"]);
        assert_eq!(compared["runs"].as_array().unwrap().len(), 2, "{compared}");
        ok(d, s, &["run", "--demo", "--replay", "1", "--provider", "openai"]);
        assert_eq!(json(d, s, &["compare", "2", "--json"])["runs"].as_array().unwrap().len(), 2);
        // A finished run is not resumed, nor previewed.
        let (code, _, err) = cmd(d, s, &["run", "--demo", "--resume", "1"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("already finished"), "{err}");
        let (code, _, err) = cmd(d, s, &["preview", "--resume", "1"]);
        assert_eq!(code, 2, "{err}");
        // An eval, and the list of them.
        let report = json(d, s, &["eval", "--demo", "--json"]);
        assert!(report["eval_id"].as_i64().is_some(), "{report}");
        assert!(ok(d, s, &["evals"]).contains("finished"));
        // export otlp reads the run from the store (the collector is down:
        // nothing listens on the discard port, so exit 1 once it was read).
        std::fs::write(d.join("io.toml"), "[telemetry]\notlp_endpoint = \"http://127.0.0.1:9\"\n").unwrap();
        let (code, _, err) = cmd(d, s, &["export", "otlp", "1"]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("1 run was read from the store"), "{err}");
        // Nothing of the store's password reached anything printed.
        for args in [&["runs"][..], &["config"][..]] {
            let (_, out, err) = cmd(d, s, args);
            assert!(!out.contains("io-harness-test") && !err.contains("io-harness-test"), "{out}{err}");
        }
    }
}
