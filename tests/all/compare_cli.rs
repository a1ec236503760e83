//! `run --providers`, `run --replay` and `compare` through the real binary on the
//! built-in demo stub: the comparison printed at the end is the one `compare`
//! reads back; two comparisons at once on one store lose nothing; a comparison
//! killed with SIGKILL leaves each run resumable on its own; bad flags are named.

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

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use common::cli::{at, json, place, run};
use pretty_assertions::assert_eq;

fn runs(dir: &Path) -> Vec<serde_json::Value> {
    json(dir, &["runs", "--json"]).as_array().unwrap().clone()
}

/// Send `sig` (`KILL`, `INT`) to the process.
fn signal(child: &std::process::Child, sig: &str) {
    let sent = Command::new("kill")
        .args(["-s", sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -s {sig}");
}

#[test]
fn three_vendors_at_once_then_compare_reads_the_same_comparison_back() {
    let dir = place();
    let (code, out, err) = run(at(dir.path()).args([
        "run",
        "--demo",
        "--json",
        "--keep-copies",
        "--providers",
        "anthropic,openai,openrouter",
    ]));
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Every event names its vendor; the last line is the comparison.
    let (last, events) = lines.split_last().unwrap();
    for v in ["anthropic", "openai", "openrouter"] {
        assert!(
            events
                .iter()
                .any(|e| e["vendor"] == v && e["kind"]["event"] == "finished"),
            "{v}"
        );
    }
    let group = last["group_id"].as_i64().unwrap();
    let (code, again, err) = run(at(dir.path()).args(["compare", &group.to_string(), "--json"]));
    assert_eq!(code, 0, "{err}");
    let again: serde_json::Value = serde_json::from_str(&again).unwrap();
    assert_eq!(&again, last);
    let cols = again["runs"].as_array().unwrap();
    assert_eq!(cols.len(), 3);
    for c in cols {
        assert_eq!(c["outcome"], "passed");
        assert!(c["cost_micro_usd"].as_u64().unwrap() > 0);
        assert!(c["citations"].as_u64().unwrap() > 0);
        assert!(!c["answer"].as_array().unwrap().is_empty());
        let ws = c["workspace"].as_str().unwrap();
        assert!(
            ws.ends_with(&format!("groups/{group}/{}", c["vendor"].as_str().unwrap())),
            "{ws}"
        );
        // The store's own files are never copied into a workspace copy.
        assert!(!dir.path().join(ws).join("data/runs.db").exists());
    }
    assert_eq!(again["overlaps"].as_array().unwrap().len(), 3);
    // `runs` names the group of each.
    let listed = runs(dir.path());
    assert_eq!(listed.len(), 3);
    assert!(listed.iter().all(|r| r["group_id"] == group));

    // The table for people: a column a vendor, the overlaps, the answers.
    let (code, table, _) = run(at(dir.path()).args(["compare", &group.to_string()]));
    assert_eq!(code, 0);
    for needle in [
        "#1 anthropic",
        "searches (failed)",
        "cited domains",
        "overlap of cited sources",
        "answers (first lines)",
        "workspaces (each run's own copy)",
    ] {
        assert!(table.contains(needle), "{needle}:\n{table}");
    }

    // Replay the OpenAI run on Anthropic: a fourth run in the same group.
    let openai = cols.iter().find(|c| c["vendor"] == "openai").unwrap();
    let id = openai["run_id"].as_i64().unwrap().to_string();
    let (code, _, err) =
        run(at(dir.path()).args(["run", "--demo", "--replay", &id, "--provider", "anthropic"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!("groups/{group}/anthropic-2")),
        "{err}"
    );
    let listed = runs(dir.path());
    assert_eq!(listed.len(), 4);
    assert!(listed.iter().all(|r| r["group_id"] == group));
}

#[test]
fn bad_group_flags_are_named_and_nothing_runs() {
    let dir = place();
    for (args, needle) in [
        (vec!["compare", "7"], "there is no run group 7"),
        (
            vec!["run", "--demo", "--providers", "anthropic,bogus"],
            "--providers: unknown provider \"bogus\"",
        ),
        (
            vec!["run", "--demo", "--replay", "3", "--provider", "openai"],
            "--replay 3: there is no run 3",
        ),
        (
            vec!["run", "--demo", "--providers", ","],
            "--providers names no vendor",
        ),
    ] {
        let (code, _, err) = run(at(dir.path()).args(&args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // --replay needs --provider; --providers and --provider do not go together.
    let (code, _, _) = run(at(dir.path()).args(["run", "--replay", "1"]));
    assert_eq!(code, 2);
    let (code, _, _) =
        run(at(dir.path()).args(["run", "--providers", "openai", "--provider", "openai"]));
    assert_eq!(code, 2);
    assert!(runs(dir.path()).is_empty());
}

#[test]
fn two_comparisons_at_once_on_one_store_lose_nothing() {
    let dir = place();
    let spawn = || {
        at(dir.path())
            .args([
                "run",
                "--demo",
                "--json",
                "--providers",
                "anthropic,openai,openrouter",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let listed = runs(dir.path());
    assert_eq!(listed.len(), 6);
    assert!(
        listed.iter().all(|r| r["outcome"] == "passed"),
        "{listed:#?}"
    );
    let mut groups: Vec<i64> = listed
        .iter()
        .map(|r| r["group_id"].as_i64().unwrap())
        .collect();
    groups.sort();
    groups.dedup();
    assert_eq!(groups.len(), 2);
    // Each group's runs wrote the same rows as the other's.
    let conn = rusqlite::Connection::open(dir.path().join("data/runs.db")).unwrap();
    let per_group = |table: &str| -> Vec<i64> {
        groups
            .iter()
            .map(|g| {
                conn.query_row(
                    &format!("SELECT COUNT(*) FROM {table} t JOIN runs r ON r.run_id = t.run_id WHERE r.group_id = ?1"),
                    [g],
                    |r| r.get(0),
                )
                .unwrap()
            })
            .collect()
    };
    for table in ["provider_calls", "citations", "server_tool_calls", "steps"] {
        let n = per_group(table);
        assert_eq!(n[0], n[1], "{table}");
        assert!(n[0] > 0, "{table}");
    }
}

#[test]
fn a_comparison_killed_with_sigkill_leaves_each_run_resumable_on_its_own() {
    let dir = place();
    let mut child = at(dir.path())
        .args(["run", "--demo", "--json", "--providers", "anthropic,openai"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed once Anthropic's first answer is in (its run has two more steps).
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let e: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        if e["vendor"] == "anthropic" && e["kind"]["event"] == "provider_called" {
            signal(&child, "KILL");
            break;
        }
    }
    let _ = child.wait();
    let listed = runs(dir.path());
    let anthropic = listed
        .iter()
        .find(|r| r["provider"] == "anthropic")
        .unwrap();
    assert_eq!(anthropic["outcome"], "interrupted", "{listed:#?}");
    let id = anthropic["run_id"].as_i64().unwrap().to_string();
    let (code, _, err) =
        run(at(dir.path()).args(["run", "--demo", "--resume", &id, "--provider", "anthropic"]));
    assert!(code == 0 || code == 1, "{err}");
    assert!(err.contains(&format!("run {id} ")), "{err}");
    let after = runs(dir.path());
    let resumed = after
        .iter()
        .find(|r| r["run_id"].as_i64() == anthropic["run_id"].as_i64())
        .unwrap();
    assert_ne!(resumed["outcome"], "interrupted");
    assert!(resumed["outcome"].is_string());
    assert_eq!(resumed["group_id"], anthropic["group_id"]);
}

#[test]
fn ctrl_c_cancels_every_run_of_a_comparison_and_each_is_recorded_cancelled() {
    let dir = place();
    let mut child = at(dir.path())
        .args(["run", "--demo", "--json", "--providers", "anthropic,openai"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // SIGINT (what Ctrl-C sends) once both runs have started.
    let mut started = 0;
    for line in lines.by_ref() {
        let e: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        if e["kind"]["event"] == "run_started" {
            started += 1;
            if started == 2 {
                signal(&child, "INT");
                break;
            }
        }
    }
    // The rest of the output: each run's end, then the comparison.
    let rest: Vec<serde_json::Value> = lines
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "a cancelled run did not pass");
    let comparison = rest.last().unwrap();
    let outcomes: Vec<&str> = comparison["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["cancelled", "cancelled"]);
    let listed = runs(dir.path());
    assert!(
        listed.iter().all(|r| r["outcome"] == "cancelled"),
        "{listed:#?}"
    );
}
