//! `store copy FROM TO`: a SQLite store copied into the store of each engine
//! (`engines`) and back out into a fresh file reads the same — runs, their
//! figures and who ran them, a comparison, a run's claims and verdicts, an
//! eval's report, search — and a second copy copies nothing twice.

#![cfg(feature = "stub")]

use std::path::Path;

use crate::common::cli::{bin, run};
use crate::engines::on_both_engines;

fn ok(dir: &Path, args: &[&std::ffi::OsStr]) -> String {
    let (code, out, err) = run(bin()
        .current_dir(dir)
        .env("XDG_DATA_HOME", dir.join("data-home"))
        .env("IO_HARNESS_USER", "ann")
        .args(args));
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

fn on(dir: &Path, store: &Path, args: &[&str]) -> String {
    let mut all: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    all.extend(["--config", "io.toml", "--store"].map(std::ffi::OsStr::new));
    all.push(store.as_os_str());
    ok(dir, &all)
}

fn copy(dir: &Path, from: &Path, to: &Path) -> serde_json::Value {
    let out = ok(
        dir,
        &[
            "store".as_ref(),
            "copy".as_ref(),
            from.as_os_str(),
            to.as_os_str(),
            "--json".as_ref(),
        ],
    );
    serde_json::from_str(&out).unwrap()
}

/// What the views say of a store, ids and all (the copies are made in order
/// into empty stores, so the ids come out the same).
fn views(dir: &Path, store: &Path) -> Vec<String> {
    [
        &["runs", "--json"][..],
        &["compare", "1", "--json"],
        &["claims", "1", "--json"],
        &["citations", "1", "--format", "json"],
        &["evals"],
        &["search", "crates", "--limit", "1000"],
    ]
    .iter()
    .map(|args| {
        let out = on(dir, store, args);
        if args[0] != "search" {
            return out;
        }
        // The same things found: the copy's index is made from the copied
        // rows (as 0007 makes it for an older store), so the index's order
        // among runs recorded at once (the eval's, interleaved) is the copy's,
        // and a URL's second quote in one step (which `citations` does not
        // keep) is not indexed again: each run, step, kind and URL found, once.
        let hits: std::collections::BTreeSet<&str> =
            out.lines().filter(|l| l.starts_with("run ")).collect();
        hits.into_iter().collect::<Vec<_>>().join("\n")
    })
    .collect()
}

on_both_engines! {
    fn a_store_copied_there_and_back_reads_the_same_and_a_second_copy_adds_nothing(place) {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("io.toml"), "").unwrap();
        let first = d.join("first.db");
        on(d, &first, &["run", "--demo"]);
        on(d, &first, &["run", "--demo", "--providers", "anthropic,openai"]);
        on(d, &first, &["check-sources", "1"]);
        on(d, &first, &["eval", "--demo"]);
        let before = views(d, &first);
        let sum = copy(d, &first, place.location());
        assert_eq!((sum["runs"].as_u64(), sum["groups"].as_u64(), sum["evals"].as_u64()), (Some(33), Some(6), Some(1)), "{sum}");
        assert_eq!(sum["verdicts"], 3, "{sum}");
        let again = copy(d, &first, place.location());
        assert_eq!((again["runs"].as_u64(), again["runs_skipped"].as_u64()), (Some(0), Some(33)), "{again}");
        assert_eq!((again["groups"].as_u64(), again["evals"].as_u64()), (Some(0), Some(0)), "{again}");
        let back = d.join("back.db");
        copy(d, place.location(), &back);
        for (store, name) in [(back.as_path(), "back"), (place.location(), "between")] {
            for (i, (a, b)) in before.iter().zip(views(d, store)).enumerate() {
                if *a != b {
                    let diff: Vec<String> = a
                        .lines()
                        .zip(b.lines())
                        .filter(|(x, y)| x != y)
                        .take(5)
                        .map(|(x, y)| format!("- {x}\n+ {y}"))
                        .collect();
                    panic!("view {i} of the {name} store differs:\n{}", diff.join("\n"));
                }
            }
        }
    }
}

#[test]
fn a_store_that_is_not_there_is_refused_and_nothing_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) =
        run(bin()
            .current_dir(dir.path())
            .args(["store", "copy", "missing.db", "to.db"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("there is no store at missing.db"), "{err}");
    assert!(!dir.path().join("to.db").exists());
}
