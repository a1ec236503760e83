//! Behaviour that surprised an operator in the first hour (issue 27), through
//! the real binary on the built-in demo stub: a missing workspace refused before
//! any request by `run`, `run --providers` and `run --replay`; everyday words
//! searched as written; a replay that could not start not recorded as the
//! vendor's verdict; a demo run resumed where it stopped; the demo's mode said
//! by `config`; the small wordings.

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

use std::path::Path;

use common::cli::{at, json, place, run};

fn runs(dir: &Path) -> Vec<serde_json::Value> {
    json(dir, &["runs", "--json"]).as_array().unwrap().clone()
}

#[test]
fn a_missing_workspace_is_refused_before_any_request() {
    let dir = place();
    let missing = dir.path().join("no-such-dir");
    let missing = missing.to_str().unwrap();
    for args in [
        vec!["run", "--demo", "--workspace", missing],
        vec!["run", "--demo", "--workspace", missing, "--json"],
        vec![
            "run",
            "--demo",
            "--workspace",
            missing,
            "--providers",
            "anthropic,openai",
        ],
    ] {
        let (code, _, err) = run(at(dir.path()).args(&args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(missing), "{args:?} names the path: {err}");
        assert!(err.contains("workspace"), "{args:?}: {err}");
    }
    assert!(runs(dir.path()).is_empty(), "no run recorded");

    // A run whose workspace has gone since: its replay is refused the same way.
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let (code, _, err) =
        run(at(dir.path()).args(["run", "--demo", "--workspace", ws.to_str().unwrap()]));
    assert_eq!(code, 0, "{err}");
    std::fs::remove_dir(&ws).unwrap();
    let (code, _, err) =
        run(at(dir.path()).args(["run", "--demo", "--replay", "1", "--provider", "openai"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(ws.to_str().unwrap()), "{err}");
    let listed = runs(dir.path());
    assert_eq!(listed.len(), 1, "{listed:#?}");
    assert!(
        listed[0]["group_id"].is_null(),
        "no group made: {listed:#?}"
    );
}

#[test]
fn config_demo_says_what_the_demo_turns_on() {
    let dir = place();
    let (code, out, err) = run(at(dir.path()).args(["config", "--demo"]));
    assert_eq!(code, 0, "{err}");
    for line in [
        "run.conversation = \"transcript\"  (the demo's default: io.toml has no [run])  --demo",
        "run.cache = true  (the demo's default: io.toml has no [run])  --demo",
        "run.cache_ttl = \"5m\"",
        "web.search = true  (the demo's default: io.toml has no [web])  --demo",
    ] {
        assert!(out.contains(line), "{line}:\n{out}");
    }
    let (_, json, _) = run(at(dir.path()).args(["config", "--demo", "--json"]));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(
        json.as_array()
            .unwrap()
            .iter()
            .any(|s| s["key"] == "run.conversation" && s["origin"] == "--demo"),
        "{json:#}"
    );
    // Without --demo nothing of the demo; with [run] stated, the demo keeps it.
    let (_, plain, _) = run(at(dir.path()).arg("config"));
    assert!(!plain.contains("--demo"), "{plain}");
    std::fs::write(
        dir.path().join("io.toml"),
        "[run]\nconversation = \"flattened\"\n",
    )
    .unwrap();
    let (_, out, _) = run(at(dir.path()).args(["config", "--demo"]));
    assert!(!out.contains("run.cache"), "{out}");
    assert!(out.contains("run.conversation = \"flattened\""), "{out}");
}

#[test]
fn a_replay_that_could_not_start_is_not_the_vendors_verdict() {
    let dir = place();
    let (code, _, err) =
        run(at(dir.path()).args(["run", "--demo", "--providers", "anthropic,openai"]));
    assert_eq!(code, 0, "{err}");
    // No key and no --demo: openai cannot start; nothing is sent or recorded.
    let (code, _, err) = run(at(dir.path()).args(["run", "--replay", "1", "--provider", "openai"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("OPENAI_API_KEY"), "{err}");
    let (code, out, err) = run(at(dir.path()).args(["compare", "1", "--json"]));
    assert_eq!(code, 0, "{err}");
    let c: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(c["not_run"], serde_json::json!([]), "{c:#}");
    assert_eq!(c["runs"].as_array().unwrap().len(), 2);
    let (_, table, _) = run(at(dir.path()).args(["compare", "1"]));
    assert!(!table.contains("did not run"), "{table}");
    // A solo run's replay that cannot start makes no group either.
    let (code, _, err) = run(at(dir.path()).args(["run", "--demo"]));
    assert_eq!(code, 0, "{err}");
    let (code, _, _) = run(at(dir.path()).args(["run", "--replay", "3", "--provider", "openai"]));
    assert_eq!(code, 2);
    let listed = runs(dir.path());
    let solo = listed.iter().find(|r| r["run_id"] == 3).unwrap();
    assert!(solo["group_id"].is_null(), "{solo:#}");
}

/// "after N steps" from a run's last stderr line (the cost differs: a new
/// stub's cache emulation has not seen the first step's prefix).
fn steps_of(err: &str) -> String {
    let line = err.lines().rev().find(|l| l.contains(" after ")).unwrap();
    let from = line.find(" after ").unwrap();
    line[from..].split(',').next().unwrap().to_string()
}

#[test]
fn a_demo_run_resumes_on_the_stub_where_it_stopped() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = place();
    // A whole demo run, for what a resumed one should come to.
    let (code, _, whole) = run(at(dir.path()).args(["run", "--demo"]));
    assert_eq!(code, 0, "{whole}");
    // Killed once its first answer is in.
    let mut child = at(dir.path())
        .args(["run", "--demo", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let e: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        if e["kind"]["event"] == "step_finished" || e["kind"]["event"] == "tool_called" {
            child.kill().unwrap();
            break;
        }
    }
    let _ = child.wait();
    let listed = runs(dir.path());
    let killed = listed.iter().find(|r| r["run_id"] == 2).unwrap();
    assert_eq!(killed["outcome"], "interrupted", "{listed:#?}");

    // The preview of its next step takes --demo, and names the command that sends it.
    let (code, out, err) = run(at(dir.path()).args(["preview", "--resume", "2", "--demo"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("`io-harness run --resume 2 --demo` sends it"),
        "{out}"
    );

    let (code, _, resumed) = run(at(dir.path()).args(["run", "--demo", "--resume", "2"]));
    assert_eq!(code, 0, "{resumed}");
    assert_eq!(steps_of(&resumed), steps_of(&whole), "{resumed}");
    let listed = runs(dir.path());
    let count =
        |id: i64| listed.iter().find(|r| r["run_id"] == id).unwrap()["citation_count"].clone();
    assert_eq!(count(2), count(1), "{listed:#?}");
}

#[test]
fn the_small_words() {
    let dir = place();
    // One step: "after 1 step".
    std::fs::write(dir.path().join("io.toml"), "[budget]\nsteps = 1\n").unwrap();
    let (_, _, err) = run(at(dir.path()).args(["run", "--demo"]));
    assert!(err.contains("after 1 step,"), "{err}");
    assert!(!err.contains("after 1 steps"), "{err}");
    std::fs::write(dir.path().join("io.toml"), "").unwrap();
    // --limit 0 on a store with runs is refused, as `search` refuses it.
    let (code, out, err) = run(at(dir.path()).args(["runs", "--limit", "0"]));
    assert_eq!(code, 2, "{out}");
    assert!(err.starts_with("--limit 0 would list no runs"), "{err}");
    // OpenAI reports no search counter: the count its fees are made of is said.
    let (_, _, err) = run(at(dir.path()).args(["run", "--demo", "--provider", "openai"]));
    assert!(err.contains("1 search/fetch, counted here"), "{err}");
    assert!(!err.contains("0 searches"), "{err}");
    // A replayed solo run's workspace is absolute beside its copy's (kept, so
    // compare names it: a removed copy is named by no view).
    let (code, _, err) = run(at(dir.path()).args([
        "run",
        "--demo",
        "--replay",
        "1",
        "--provider",
        "openai",
        "--keep-copies",
    ]));
    assert!(code == 0 || code == 1, "{err}");
    let (_, out, _) = run(at(dir.path()).args(["compare", "1", "--json"]));
    let c: serde_json::Value = serde_json::from_str(&out).unwrap();
    for r in c["runs"].as_array().unwrap() {
        let ws = r["workspace"].as_str().unwrap();
        assert!(Path::new(ws).is_absolute(), "{ws}");
    }
}
