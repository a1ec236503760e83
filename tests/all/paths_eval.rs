//! The eval paths operators walk, generated (issue 33): each case draws the
//! vendors of `eval --demo`, its `--jobs`, and how often it is killed (SIGKILL
//! once a drawn number of further runs is recorded) and continued with
//! `eval --resume`, until it finishes. Whatever the draw, the finished eval
//! must tell the truth:
//!
//! - every run in the store was made for the eval, is in its report once, and
//!   is booked to a vendor the eval was asked for (the one its row names);
//! - each question has one group, and on each vendor exactly one run that was
//!   not superseded — passed; a question's vendor that had finished was not run
//!   again;
//! - the eval's total and each vendor's are the sums of their runs' costs, as
//!   `runs --json` reads them; `evals --json` says every question done.
//!
//! Seeded as tests/all/paths.rs is (`IO_HARNESS_PATHS_SEED`; the number of
//! cases here is `IO_HARNESS_PATHS_EVAL_CASES`, default 3).

#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::cli::{at, place, run};
use crate::paths::{Draw, seed_and_cases};

/// The demo's vendors (the set it answers every question of on each).
const VENDORS: [&str; 4] = ["anthropic", "openai", "openrouter", "gemini"];
/// The demo's question set has five questions.
const QUESTIONS: usize = 5;

#[derive(Debug)]
struct EvalCase {
    vendors: Vec<&'static str>,
    jobs: u64,
    /// Before each kill, how many more runs are recorded (the eval may finish
    /// first: then there is nothing to kill).
    kills: Vec<usize>,
}

fn draw_case(draw: &mut Draw) -> EvalCase {
    let mut vendors: Vec<&'static str> = VENDORS
        .iter()
        .copied()
        .filter(|_| draw.next() % 2 == 0)
        .collect();
    if vendors.is_empty() {
        vendors.push(draw.pick(&VENDORS));
    }
    let jobs = 1 + draw.next() % 3;
    let kills = (0..draw.next() % 3)
        .map(|_| 1 + (draw.next() % 4) as usize)
        .collect();
    EvalCase {
        vendors,
        jobs,
        kills,
    }
}

fn runs_recorded(dir: &Path) -> usize {
    let db = dir.join("data/runs.db");
    let Ok(conn) = rusqlite::Connection::open(&db) else {
        return 0;
    };
    conn.query_row("SELECT COUNT(*) FROM runs", [], |r| r.get::<_, i64>(0))
        .map_or(0, |n| n as usize)
}

/// Waits until `more` runs beyond `from` are recorded or the child has ended;
/// kills it in the first case. Whether it was killed.
fn kill_after(child: &mut Child, dir: &Path, from: usize, more: usize) -> bool {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if runs_recorded(dir) >= from + more {
            let sent = Command::new("kill")
                .args(["-s", "KILL", &child.id().to_string()])
                .status()
                .unwrap();
            assert!(sent.success());
            child.wait().unwrap();
            return true;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the eval recorded no run for a minute"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn json_of(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn walk(case: &EvalCase) {
    let dir = place();
    let d = dir.path();
    let providers = case.vendors.join(",");
    let jobs = case.jobs.to_string();
    let quiet = |c: &mut Command| {
        c.stdout(Stdio::null()).stderr(Stdio::null());
    };
    let mut started = false;
    for more in &case.kills {
        let mut c = at(d);
        if started {
            c.args(["eval", "--resume", "1"]);
        } else {
            c.args(["eval", "--demo", "--providers", &providers, "--jobs", &jobs]);
        }
        quiet(&mut c);
        let mut child = c.spawn().unwrap();
        started = true;
        let before = runs_recorded(d);
        if !kill_after(&mut child, d, before, *more) {
            break;
        }
        eprintln!("paths_eval: killed with {} runs recorded", runs_recorded(d));
    }
    let (code, out, err) = if started {
        run(at(d).args(["eval", "--resume", "1", "--json"]))
    } else {
        run(at(d).args([
            "eval",
            "--demo",
            "--providers",
            &providers,
            "--jobs",
            &jobs,
            "--json",
        ]))
    };
    assert_eq!(code, 0, "{case:?}: {err}");
    let report = json_of(&out);
    check(case, d, &report);
}

fn check(case: &EvalCase, d: &Path, report: &Value) {
    let (code, out, err) = run(at(d).args(["runs", "--json", "--limit", "1000"]));
    assert_eq!(code, 0, "{err}");
    let stored: BTreeMap<i64, Value> = json_of(&out)
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["run_id"].as_i64().unwrap(), r.clone()))
        .collect();
    let rows = report["questions"].as_array().unwrap();
    // Every run is the eval's, once, on the vendor its row names.
    let reported: Vec<i64> = rows.iter().filter_map(|q| q["run_id"].as_i64()).collect();
    let once: BTreeSet<i64> = reported.iter().copied().collect();
    assert_eq!(once.len(), reported.len(), "{case:?}: a run reported twice");
    assert_eq!(
        once,
        stored.keys().copied().collect::<BTreeSet<_>>(),
        "{case:?}: the store's runs and the report's"
    );
    for q in rows.iter().filter(|q| q["run_id"].is_i64()) {
        let r = &stored[&q["run_id"].as_i64().unwrap()];
        assert_eq!(r["provider"], q["vendor"], "{case:?}: {q}");
        assert!(
            case.vendors.contains(&q["vendor"].as_str().unwrap()),
            "{case:?}: {q}"
        );
        assert_eq!(r["group_id"], q["group_id"], "{case:?}: {q}");
    }
    // One group a question; on each vendor one standing run, passed.
    let groups: BTreeSet<(String, i64)> = rows
        .iter()
        .filter_map(|q| Some((q["id"].as_str()?.to_string(), q["group_id"].as_i64()?)))
        .collect();
    assert_eq!(groups.len(), QUESTIONS, "{case:?}: {groups:?}");
    let mut standing: BTreeMap<(String, String), usize> = BTreeMap::new();
    for q in rows.iter().filter(|q| q["superseded_by"].is_null()) {
        assert_eq!(q["outcome"], "passed", "{case:?}: {q}");
        let key = (
            q["id"].as_str().unwrap().to_string(),
            q["vendor"].as_str().unwrap().to_string(),
        );
        *standing.entry(key).or_default() += 1;
    }
    assert_eq!(
        standing.len(),
        QUESTIONS * case.vendors.len(),
        "{case:?}: {standing:?}"
    );
    assert!(standing.values().all(|n| *n == 1), "{case:?}: {standing:?}");
    // A run superseded had not finished: a passed run is never run again.
    for q in rows.iter().filter(|q| !q["superseded_by"].is_null()) {
        assert_ne!(q["outcome"], "passed", "{case:?}: {q}");
    }
    eprintln!(
        "paths_eval: {} runs, {} superseded",
        rows.len(),
        rows.iter()
            .filter(|q| !q["superseded_by"].is_null())
            .count()
    );
    // The totals are sums of the runs.
    let cost = |r: &Value| r["cost_micro_usd"].as_u64().unwrap();
    let all: u64 = stored.values().map(cost).sum();
    assert_eq!(report["cost_micro_usd"], all, "{case:?}");
    for v in report["vendors"].as_array().unwrap() {
        let own: u64 = stored
            .values()
            .filter(|r| r["provider"] == v["vendor"])
            .map(cost)
            .sum();
        assert_eq!(v["cost_micro_usd"], own, "{case:?}: {v}");
    }
    let (code, out, err) = run(at(d).args(["evals", "--json"]));
    assert_eq!(code, 0, "{err}");
    let listed = json_of(&out);
    assert_eq!(listed[0]["done"], QUESTIONS, "{case:?}: {listed}");
    assert_eq!(listed[0]["running"], Value::Null, "{case:?}");
}

#[test]
fn every_eval_path_tells_the_truth() {
    let (seed, cases) = seed_and_cases("IO_HARNESS_PATHS_EVAL_CASES", 3);
    eprintln!("paths_eval: seed {seed} (IO_HARNESS_PATHS_SEED={seed} reruns these {cases} cases)");
    let mut draw = Draw(seed);
    for n in 0..cases {
        let case = draw_case(&mut draw);
        eprintln!("paths_eval: case {n}: {case:?}");
        walk(&case);
    }
}
