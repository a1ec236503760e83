//! `eval` and `evals` through the real binary on the built-in stub: the bundled
//! demo scored as its script says (each vendor's answers and citations), the
//! JSON, CSV and Markdown shapes, `--max-usd` leaving questions unrun and
//! saying which, bad question files refused before anything runs (file, line,
//! field; exit 2), an unknown vendor said and the others run, and an eval
//! killed with SIGKILL resumed without re-running a finished question.

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
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::cli::{at, json, place, run};
use io_harness::core::vendor::Vendor;
use io_harness::core::verdict::Verdict;
use pretty_assertions::assert_eq;
use serde_json::Value;

fn cell<'a>(report: &'a Value, id: &str, vendor: &str) -> &'a Value {
    report["questions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == id && q["vendor"] == vendor)
        .unwrap()
}

#[test]
fn the_demo_is_scored_as_its_script_answers() {
    let dir = place();
    let report = json(dir.path(), &["eval", "--demo", "--json"]);
    assert_eq!(report["file"], "demo");
    let vendors: Vec<&str> = report["vendors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["vendor"].as_str().unwrap())
        .collect();
    assert_eq!(
        vendors,
        [
            "anthropic",
            "openai",
            "openrouter",
            "gemini",
            "xai",
            "perplexity"
        ]
    );
    let row = |v: usize| &report["vendors"][v];
    assert_eq!(row(0)["accuracy"], 1.0);
    assert_eq!(row(1)["accuracy"], 0.8);
    // OpenAI's utm_source is dropped; its q2 cites another docs.rs page.
    assert_eq!(row(1)["url_recall"], 0.8);
    assert_eq!(row(1)["domain_recall"], 1.0);
    // Gemini cites Google's redirect links only.
    assert_eq!(row(3)["url_recall"], 0.0);
    // xAI's q5 cites a post on X, Perplexity's q2 another page than the gold one:
    // both right, each 4 of 5 gold URLs cited.
    for v in [4, 5] {
        assert_eq!(row(v)["accuracy"], 1.0);
        assert_eq!(row(v)["url_recall"], 0.8);
    }
    for v in 0..6 {
        // Cited share is the store's claim figure; nothing was fetched, so
        // nothing is verified.
        assert!(row(v)["cited_share"].as_f64().unwrap() > 0.0);
        assert_eq!(row(v)["verified_share"], Value::Null);
        assert_eq!(row(v)["runs"], 5);
        assert!(row(v)["cost_micro_usd"].as_u64().unwrap() > 0);
        assert!(row(v)["wall_ms_p95"].as_u64().unwrap() >= row(v)["wall_ms_p50"].as_u64().unwrap());
    }
    assert_eq!(report["questions"].as_array().unwrap().len(), 30);
    assert_eq!(cell(&report, "q2", "openai")["correct"], false);
    assert_eq!(cell(&report, "q5", "openrouter")["correct"], false);
    assert_eq!(cell(&report, "q4", "gemini")["correct"], false);
    let q5 = cell(&report, "q5", "anthropic");
    assert_eq!(
        (q5["searches"].as_u64(), q5["failed_searches"].as_u64()),
        (Some(2), Some(1))
    );
    // The figures are the store's: `runs --json` gives the same cost and searches.
    let runs = json(dir.path(), &["runs", "--json"]);
    let id = q5["run_id"].as_i64().unwrap();
    let stored = runs
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["run_id"] == id)
        .unwrap();
    assert_eq!(stored["cost_micro_usd"], q5["cost_micro_usd"]);
    assert_eq!(stored["searches"], q5["searches"]);
    // Each question is a comparison `compare` reads back.
    let group = q5["group_id"].as_i64().unwrap();
    let compared = json(dir.path(), &["compare", &group.to_string(), "--json"]);
    assert_eq!(compared["runs"].as_array().unwrap().len(), 6);
    let compared_q5 = compared["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["run_id"] == id)
        .unwrap();
    assert_eq!(compared_q5["cited_share"], q5["cited_share"]);
    // Listed, finished.
    let evals = json(dir.path(), &["evals", "--json"]);
    assert_eq!(evals[0]["eval_id"], report["eval_id"]);
    assert_eq!(
        (evals[0]["done"].as_u64(), evals[0]["questions"].as_u64()),
        (Some(5), Some(5))
    );
}

#[test]
fn csv_and_markdown_carry_the_same_rows() {
    let dir = place();
    let (code, csv, err) = run(at(dir.path()).args([
        "eval",
        "--demo",
        "--providers",
        "anthropic,openai",
        "--format",
        "csv",
    ]));
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with(
        "eval_id,set,revision,subset,id,vendor,run_id,outcome,correct,lower_bound,set_recall"
    ));
    assert_eq!(lines.len(), 1 + 5 * 2);
    assert!(
        lines[1].starts_with("1,jsonl,,all 5,q1,anthropic,"),
        "{}",
        lines[1]
    );
    let (code, md, err) = run(at(dir.path()).args([
        "eval",
        "--demo",
        "--providers",
        "gemini",
        "--format",
        "markdown",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(
        md.starts_with("# eval 2 · demo · 5 questions × 1 vendor"),
        "{md}"
    );
    assert!(md.contains("| vendor | accuracy | url recall |"), "{md}");
    assert!(md.contains("| gemini | 80% (4/5) |"), "{md}");
}

#[test]
fn the_dollar_cap_stops_new_questions_and_says_which() {
    let dir = place();
    // One question at a time; the first question's runs cost more than a cent.
    let (code, out, err) = run(at(dir.path()).args([
        "eval",
        "--demo",
        "--providers",
        "anthropic",
        "--jobs",
        "1",
        "--max-usd",
        "0.01",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "did not run (the eval's --max-usd $0.010000 was crossed first): q2, q3, q4, q5"
        ),
        "{out}"
    );
    let report = json(
        dir.path(),
        &["eval", "--resume", "1", "--json", "--max-usd", "0.01"],
    );
    assert_eq!(
        report["not_run"],
        serde_json::json!(["q2", "q3", "q4", "q5"])
    );
    assert_eq!(cell(&report, "q1", "anthropic")["correct"], true);
    assert_eq!(cell(&report, "q3", "anthropic")["outcome"], "not run");
}

#[test]
fn a_bad_question_file_is_refused_before_anything_runs() {
    let dir = place();
    let cases: [(&str, &str); 5] = [
        (
            "{\"id\":\"q1\",\"question\":\"a\"}\nnot json\n",
            "set.jsonl:2: not JSON",
        ),
        (
            "{\"id\":\"q1\",\"answers\":[\"x\"]}\n",
            "set.jsonl:1: field `question` is missing",
        ),
        (
            "{\"id\":\"q1\",\"question\":\"a\"}\n{\"id\":\"q1\",\"question\":\"b\"}\n",
            "set.jsonl:2: field `id`",
        ),
        (
            "{\"id\":\"q1\",\"question\":\"a\"}\n\n",
            "set.jsonl:2: the line is empty",
        ),
        ("", "set.jsonl: no questions"),
    ];
    for (text, said) in cases {
        std::fs::write(dir.path().join("set.jsonl"), text).unwrap();
        let (code, out, err) =
            run(at(dir.path()).args(["eval", "set.jsonl", "--demo", "--providers", "anthropic"]));
        assert_eq!(code, 2, "{text:?}: {err}");
        assert!(err.contains(said), "{text:?}: {err}");
        assert!(out.is_empty());
    }
    // Nothing was recorded.
    let evals = json(dir.path(), &["evals", "--json"]);
    assert_eq!(evals, serde_json::json!([]));
    let (code, _, err) = run(at(dir.path()).args(["eval", "--demo", "--format", "xml"]));
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(at(dir.path()).args(["eval", "--resume", "9"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("there is no eval 9"), "{err}");
}

#[test]
fn an_unknown_vendor_is_said_and_the_others_run() {
    let dir = place();
    let (code, out, err) =
        run(at(dir.path()).args(["eval", "--demo", "--providers", "anthropic,acme", "--json"]));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("acme: not run"), "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["vendors"].as_array().unwrap().len(), 1);
    assert_eq!(report["vendors"][0]["accuracy"], 1.0);
    let (code, _, err) = run(at(dir.path()).args(["eval", "--demo", "--providers", "acme"]));
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_question_without_a_scripted_answer_is_scored_wrong() {
    let dir = place();
    std::fs::write(
        dir.path().join("set.jsonl"),
        "{\"id\":\"x\",\"question\":\"Who wrote it?\",\"answers\":[\"Ferris\"]}\n{\"id\":\"y\",\"question\":\"Anything?\"}\n",
    )
    .unwrap();
    let report = json(
        dir.path(),
        &[
            "eval",
            "set.jsonl",
            "--demo",
            "--providers",
            "openai",
            "--json",
        ],
    );
    assert_eq!(cell(&report, "x", "openai")["correct"], false);
    // No gold answers: not graded.
    assert_eq!(cell(&report, "y", "openai")["correct"], Value::Null);
    assert_eq!(report["vendors"][0]["graded"], 1);
}

/// Evals listed until `ok` holds of the newest, or a few seconds have passed.
fn wait_for(dir: &Path, ok: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let evals = json(dir, &["evals", "--json"]);
        if evals.get(0).is_some_and(&ok) || start.elapsed() > Duration::from_secs(20) {
            return evals;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_killed_eval_resumes_without_rerunning_a_finished_question() {
    let dir = place();
    let mut child = at(dir.path())
        .args([
            "eval",
            "--demo",
            "--providers",
            "anthropic,openai",
            "--jobs",
            "1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let seen = wait_for(dir.path(), |e| e["done"].as_u64() >= Some(1));
    let sent = Command::new("kill")
        .args(["-s", "KILL", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    child.wait().unwrap();
    assert!(seen[0]["done"].as_u64() >= Some(1), "{seen}");
    let before = json(dir.path(), &["evals", "--json"]);
    let done_before = before[0]["done"].as_u64().unwrap();
    assert!(
        done_before < 5,
        "the eval ended before it was killed: {before}"
    );
    assert_eq!(before[0]["finished_at"], Value::Null);
    // The finished questions' runs, as recorded before the kill.
    let runs_before = json(dir.path(), &["runs", "--json"]);
    let (code, out, err) = run(at(dir.path()).args(["eval", "--resume", "1", "--json"]));
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["pending"], serde_json::json!([]));
    assert_eq!(report["vendors"][0]["runs"], 5);
    assert_eq!(report["vendors"][1]["runs"], 5);
    // q1 ended before the kill: its runs are the ones recorded then.
    for v in ["anthropic", "openai"] {
        let id = cell(&report, "q1", v)["run_id"].clone();
        assert!(
            runs_before
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["run_id"] == id && r["outcome"] == "passed"),
            "{v}: run {id} was not among the finished runs before the kill"
        );
    }
    let after = json(dir.path(), &["evals", "--json"]);
    assert_eq!(after[0]["done"], 5);
    assert!(after[0]["finished_at"].is_string());
}

#[test]
fn check_fills_verified_share_and_unsupported_from_the_stored_verdicts() {
    let dir = place();
    // No [policy] rule names a host: every source is checked and not allowed —
    // nothing is fetched, and the figures are set from the recorded verdicts.
    let report = json(dir.path(), &["eval", "--demo", "--check", "--json"]);
    // Not allowed is not read: unchecked, not "0% verified" (issue 33, item 7).
    for v in report["vendors"].as_array().unwrap() {
        assert_eq!(v["verified_share"], serde_json::Value::Null, "{v:#}");
    }
    let cell = cell(&report, "q1", "anthropic");
    assert_eq!(cell["verified_share"], serde_json::Value::Null);
    // One truth: `claims` reads the same figures for the same run.
    let id = cell["run_id"].as_i64().unwrap().to_string();
    let claims = json(dir.path(), &["claims", &id, "--json"]);
    assert_eq!(claims["verified_share"], cell["verified_share"]);
    assert_eq!(claims["unsupported"], cell["unsupported"]);
}

/// Gemini cites Google's redirect links; once `check-sources` (or `eval --check`)
/// has followed one to its page, URL recall counts the page it led to.
#[test]
fn a_resolved_redirect_counts_for_url_recall() {
    use io_harness::core::eval::{Question, report};
    use io_harness::core::price::PriceTable;
    use io_harness::store::verdicts::VerdictRow;
    use io_harness::store::{NewEval, NewGroup, NewRun};
    use io_harness::{Citation, Store};

    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("runs.db")).unwrap();
    let gold = "https://docs.rs/rusqlite";
    let redirect = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ1";
    let group = store
        .create_group(&NewGroup {
            goal: "Which crate?".into(),
            workspace: ".".into(),
            max_usd_micro: None,
            private: false,
        })
        .unwrap();
    let run = store
        .begin_run(&NewRun {
            goal: "Which crate?".into(),
            provider: Vendor::Gemini,
            model: "gemini-3.5-flash".into(),
            ..NewRun::default()
        })
        .unwrap();
    store.join_group(run, group).unwrap();
    // Answered: only an answer is graded.
    store
        .finish_run(
            run,
            &io_harness::RunOutcome::Failed {
                reason: "no check".into(),
            },
        )
        .unwrap();
    store.record_citations(
        run,
        1,
        &[Citation {
            url: redirect.into(),
            title: Some("docs.rs".into()),
            cited_text: None,
        }],
    );
    let eval_id = store
        .create_eval(&NewEval {
            file: "set.jsonl".into(),
            vendors: vec![Vendor::Gemini],
            jobs: 1,
            max_usd_micro: None,
            demo: false,
            questions: vec![Question {
                id: "q1".into(),
                question: "Which crate?".into(),
                answers: vec![],
                urls: vec![gold.into()],
                ..Question::default()
            }],
            ..NewEval::default()
        })
        .unwrap();
    store.eval_question_done(eval_id, "q1", group).unwrap();
    let recall = |store: &Store| {
        let records = store
            .eval_questions(eval_id, &PriceTable::default())
            .unwrap();
        report(eval_id, "set.jsonl", &[Vendor::Gemini], &records).questions[0].url_recall
    };
    assert_eq!(
        recall(&store),
        Some(0.0),
        "the redirect link is not the page"
    );
    store
        .record_verdicts(
            run,
            &[VerdictRow {
                run_id: run,
                step: 1,
                url: redirect.into(),
                verdict: Verdict::NoQuote,
                detail: None,
                overlap: None,
                checked_at: String::new(),
                resolved_url: Some(gold.into()),
            }],
        )
        .unwrap();
    assert_eq!(
        recall(&store),
        Some(1.0),
        "the page it led to is the gold URL"
    );
}
