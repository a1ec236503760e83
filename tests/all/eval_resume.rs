//! An eval stopped and continued, through the real binary on a loopback stub
//! (issue 33, items 2 and 5; issue 34, item 10): every run made for an eval
//! belongs to it — after SIGKILL and `eval --resume` its total is the sum of all
//! its runs, its cap counts them, and the killed question keeps its group (the
//! vendor that had answered is not asked again); a vendor that could not start
//! (no key) leaves its questions pending, said, with a non-zero exit, and a
//! resume runs them; one question's failure (its workspace copy) ends that
//! question only.

#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::cli::{at, place, run};
use io_harness::core::vendor::Vendor;
use io_harness::stub::{Script, ScriptedResponse, StubHandle, StubVendor};
use pretty_assertions::assert_eq;
use serde_json::Value;

const ANTHROPIC: &str = r#"{"type":"message","model":"claude-sonnet-4-5","content":[{"type":"text","text":"It was 2015."}],"stop_reason":"end_turn","usage":{"input_tokens":1000,"output_tokens":10}}"#;
const CHAT: &str = r#"{"id":"c","object":"chat.completion","model":"gpt-5-search-api","choices":[{"index":0,"message":{"role":"assistant","content":"It was 2015."},"finish_reason":"stop"}],"usage":{"prompt_tokens":1000,"completion_tokens":10,"total_tokens":1010}}"#;
const GEMINI: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"It was 2015."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":1000,"candidatesTokenCount":10,"totalTokenCount":1010},"modelVersion":"gemini-3.5-flash"}"#;

const SET: &str =
    "{\"id\":\"q1\",\"question\":\"When was Rust 1.0 released?\",\"answers\":[\"2015\"]}\n";

fn answer(vendor: Vendor, body: &str, delay_ms: Option<u64>) -> ScriptedResponse {
    ScriptedResponse {
        vendor: Some(vendor),
        body: body.as_bytes().to_vec(),
        delay_ms,
        ..ScriptedResponse::default()
    }
}

async fn stub(responses: Vec<ScriptedResponse>) -> StubHandle {
    StubVendor::start(
        "127.0.0.1:0".parse().unwrap(),
        Script {
            responses,
            repeat: false,
            emulate_usage: false,
        },
    )
    .await
    .unwrap()
}

/// `dir` with io.toml sending every vendor to `stub`, each vendor's key in
/// `EVAL_KEY_<VENDOR>`, and the question set.
fn place_on(stub: &StubHandle) -> tempfile::TempDir {
    let dir = place();
    let mut toml = String::new();
    for v in Vendor::ALL {
        toml.push_str(&format!(
            "[providers.{v}]\nbase_url = \"{}\"\napi_key_env = \"EVAL_KEY_{}\"\n",
            stub.base_url(v),
            v.as_str().to_uppercase()
        ));
    }
    std::fs::write(dir.path().join("io.toml"), toml).unwrap();
    std::fs::write(dir.path().join("set.jsonl"), SET).unwrap();
    dir
}

/// The binary in `dir` with the keys of `vendors` set.
fn with_keys(dir: &Path, vendors: &[Vendor]) -> Command {
    let mut c = at(dir);
    for v in vendors {
        c.env(format!("EVAL_KEY_{}", v.as_str().to_uppercase()), "sk-test");
    }
    c
}

fn json_of(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn runs(dir: &Path) -> Vec<Value> {
    let (code, out, err) = run(at(dir).args(["runs", "--json"]));
    assert_eq!(code, 0, "{err}");
    json_of(&out).as_array().unwrap().clone()
}

/// `eval set.jsonl --providers anthropic,openai` started, and killed with
/// SIGKILL once OpenAI's run has passed while Anthropic's still waits.
fn start_and_kill(dir: &Path) {
    let mut child = with_keys(dir, &[Vendor::Anthropic, Vendor::OpenAi])
        .args(["eval", "set.jsonl", "--providers", "anthropic,openai"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !runs(dir)
        .iter()
        .any(|r| r["provider"] == "openai" && r["outcome"] == "passed")
    {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "OpenAI's run never passed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let sent = Command::new("kill")
        .args(["-s", "KILL", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    child.wait().unwrap();
}

/// Anthropic's first answer waits a minute (the eval is killed meanwhile), its
/// second comes at once; OpenAI answers at once.
async fn killable() -> StubHandle {
    stub(vec![
        answer(Vendor::Anthropic, ANTHROPIC, Some(60_000)),
        answer(Vendor::Anthropic, ANTHROPIC, None),
        answer(Vendor::OpenAi, CHAT, None),
        answer(Vendor::OpenAi, CHAT, None),
    ])
    .await
}

fn db(dir: &Path) -> PathBuf {
    dir.join("data/runs.db")
}

fn count(dir: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db(dir)).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_run_of_a_killed_eval_is_in_its_report_and_its_total() {
    let stub = killable().await;
    let dir = place_on(&stub);
    let d = dir.path().to_path_buf();
    let report = tokio::task::spawn_blocking(move || {
        start_and_kill(&d);
        let (code, out, err) = run(with_keys(&d, &[Vendor::Anthropic, Vendor::OpenAi])
            .args(["eval", "--resume", "1", "--json"]));
        assert_eq!(code, 0, "{err}");
        json_of(&out)
    })
    .await
    .unwrap();
    // OpenAI had answered before the kill: it was not asked again.
    let paths: Vec<String> = stub.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths
            .iter()
            .filter(|p| p.as_str() == "/v1/chat/completions")
            .count(),
        1,
        "{paths:?}"
    );
    assert_eq!(
        paths
            .iter()
            .filter(|p| p.as_str() == "/v1/messages")
            .count(),
        2
    );
    // Every run in the store is the eval's, in its report once, and its total
    // is their sum.
    let stored = runs(dir.path());
    assert_eq!(stored.len(), 3, "{stored:#?}");
    let sum: u64 = stored
        .iter()
        .map(|r| r["cost_micro_usd"].as_u64().unwrap())
        .sum();
    assert!(sum > 0);
    assert_eq!(report["cost_micro_usd"], sum, "{report:#}");
    let mut reported: Vec<i64> = report["questions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|q| q["run_id"].as_i64())
        .collect();
    reported.sort_unstable();
    let mut ids: Vec<i64> = stored
        .iter()
        .map(|r| r["run_id"].as_i64().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(reported, ids);
    // The killed run is superseded by the one the resume made, in one group.
    let interrupted = stored
        .iter()
        .find(|r| r["outcome"] == "interrupted")
        .unwrap();
    let row = report["questions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["run_id"] == interrupted["run_id"])
        .unwrap();
    assert!(row["superseded_by"].is_i64(), "{row:#}");
    assert_eq!(row["correct"], Value::Null);
    assert_eq!(report["vendors"][0]["runs"], 1);
    assert_eq!(report["vendors"][0]["accuracy"], 1.0);
    assert_eq!(count(dir.path(), "SELECT COUNT(*) FROM run_groups"), 1);
    assert_eq!(
        count(
            dir.path(),
            "SELECT COUNT(*) FROM runs WHERE group_id IS NULL OR group_id NOT IN (SELECT group_id FROM eval_questions WHERE group_id IS NOT NULL)"
        ),
        0,
        "no run outside the eval's groups"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cap_of_a_resumed_eval_counts_the_runs_made_before_the_kill() {
    let stub = killable().await;
    let dir = place_on(&stub);
    let d = dir.path().to_path_buf();
    let (code, out, err) = tokio::task::spawn_blocking(move || {
        start_and_kill(&d);
        // OpenAI's run has cost more than a millionth of a dollar.
        run(with_keys(&d, &[Vendor::Anthropic, Vendor::OpenAi]).args([
            "eval",
            "--resume",
            "1",
            "--json",
            "--max-usd",
            "0.000001",
        ]))
    })
    .await
    .unwrap();
    assert_eq!(code, 0, "{err}");
    let report = json_of(&out);
    assert_eq!(report["not_run"], serde_json::json!(["q1"]), "{report:#}");
    assert_eq!(
        stub.requests().len(),
        2,
        "nothing was sent after the resume: the cap was already crossed"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_vendor_that_cannot_start_leaves_its_questions_pending_and_a_resume_runs_them() {
    let stub = stub(vec![
        answer(Vendor::Anthropic, ANTHROPIC, None),
        answer(Vendor::Anthropic, ANTHROPIC, None),
        answer(Vendor::Gemini, GEMINI, None),
        answer(Vendor::Gemini, GEMINI, None),
    ])
    .await;
    let dir = place_on(&stub);
    std::fs::write(
        dir.path().join("set.jsonl"),
        format!("{SET}{{\"id\":\"q2\",\"question\":\"And Rust 2018?\",\"answers\":[\"2018\"]}}\n"),
    )
    .unwrap();
    let d = dir.path().to_path_buf();
    tokio::task::spawn_blocking(move || {
        let eval = |keys: &[Vendor], args: &[&str]| run(with_keys(&d, keys).args(args));
        let evals = || {
            let (_, out, _) = run(at(&d).args(["evals", "--json"]));
            json_of(&out)[0].clone()
        };
        // No key at all: nothing runs, the eval says why, exits 2, stays pending.
        let (code, _, err) = eval(
            &[],
            &["eval", "set.jsonl", "--providers", "gemini,anthropic"],
        );
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("gemini did not start: EVAL_KEY_GEMINI is not set"),
            "{err}"
        );
        assert!(
            err.contains("anthropic did not start: EVAL_KEY_ANTHROPIC is not set"),
            "{err}"
        );
        assert!(
            err.contains("`io-harness eval --resume 1` runs them"),
            "{err}"
        );
        let e = evals();
        assert_eq!(
            (&e["done"], &e["finished_at"]),
            (&Value::from(0), &Value::Null),
            "{e:#}"
        );
        // Anthropic's key only: Anthropic answers each question, Gemini's half
        // stays pending; exit 1.
        let (code, _, err) = eval(&[Vendor::Anthropic], &["eval", "--resume", "1"]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("gemini did not start"), "{err}");
        assert_eq!(evals()["done"], 0);
        // Both: only Gemini runs now, and the eval finishes.
        let (code, out, err) = eval(
            &[Vendor::Anthropic, Vendor::Gemini],
            &["eval", "--resume", "1", "--json"],
        );
        assert_eq!(code, 0, "{err}");
        let report = json_of(&out);
        assert_eq!(report["pending"], serde_json::json!([]));
        for v in &report["vendors"].as_array().unwrap()[..] {
            assert_eq!(
                (&v["runs"], &v["not_run"]),
                (&Value::from(2), &Value::from(0)),
                "{v:#}"
            );
        }
        let e = evals();
        assert_eq!(e["done"], 2);
        assert!(e["finished_at"].is_string());
    })
    .await
    .unwrap();
    let paths: Vec<String> = stub.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths
            .iter()
            .filter(|p| p.as_str() == "/v1/messages")
            .count(),
        2,
        "Anthropic answered each question once: {paths:?}"
    );
}

#[test]
fn one_questions_failure_ends_that_question_only() {
    let dir = place();
    std::fs::create_dir(dir.path().join("ws")).unwrap();
    std::fs::write(dir.path().join("ws/notes.md"), "notes").unwrap();
    std::fs::write(dir.path().join("io.toml"), "[task]\nworkspace = \"ws\"\n").unwrap();
    let mut set = String::new();
    for (i, q) in [
        "What is the latest version of the io-harness crate on crates.io?",
        "In which year was Rust 1.0 released?",
        "What is the boiling point of water at sea level, in degrees Fahrenheit?",
    ]
    .iter()
    .enumerate()
    {
        set.push_str(&format!("{{\"id\":\"q{}\",\"question\":\"{q}\"}}\n", i + 1));
    }
    std::fs::write(dir.path().join("set.jsonl"), set).unwrap();
    // The second question's group folder cannot be made: a file is in its place.
    std::fs::create_dir_all(dir.path().join("data/groups")).unwrap();
    std::fs::write(dir.path().join("data/groups/2"), "in the way").unwrap();
    let (code, out, err) = run(at(dir.path()).args([
        "eval",
        "set.jsonl",
        "--demo",
        "--providers",
        "anthropic,openai",
        "--json",
    ]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("could not be copied"), "{err}");
    let report = json_of(&out);
    assert_eq!(report["pending"], serde_json::json!(["q2"]), "{report:#}");
    for v in report["vendors"].as_array().unwrap() {
        assert_eq!(v["runs"], 2, "{v:#}");
        assert_eq!(v["errors"], 0, "{v:#}");
    }
    // No run was left behind by the failure.
    assert!(runs(dir.path()).iter().all(|r| r["outcome"] == "passed"));
    std::fs::remove_file(dir.path().join("data/groups/2")).unwrap();
    let (code, out, err) = run(at(dir.path()).args(["eval", "--resume", "1", "--json"]));
    assert_eq!(code, 0, "{err}");
    let report = json_of(&out);
    assert_eq!(report["pending"], serde_json::json!([]));
    assert_eq!(report["vendors"][0]["runs"], 3);
}

/// `evals --json` in `dir`, newest first.
fn evals(dir: &Path) -> Value {
    let (code, out, err) = run(at(dir).args(["evals", "--json"]));
    assert_eq!(code, 0, "{err}");
    json_of(&out)
}

fn host() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// `eval --demo --providers anthropic --jobs 1` spawned in `dir` by operator
/// `ann`, once its first question has ended.
fn demo_under_way(dir: &Path) -> std::process::Child {
    let child = at(dir)
        .env("IO_HARNESS_USER", "ann")
        .args(["eval", "--demo", "--providers", "anthropic", "--jobs", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while evals(dir)
        .get(0)
        .is_none_or(|e| e["done"].as_u64() < Some(1))
    {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no question ended"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

fn kill(child: &mut std::process::Child) {
    let sent = Command::new("kill")
        .args(["-s", "KILL", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    child.wait().unwrap();
}

/// A running eval is shown as running (not "stopped: `eval --resume` continues
/// it"), and a resume of it is refused naming the operator, process and host; once that
/// process is gone, it is stopped and resumes.
#[test]
fn a_running_eval_is_shown_running_and_not_resumed_by_another_process() {
    let dir = place();
    let mut child = demo_under_way(dir.path());
    let pid = child.id();
    let listed = evals(dir.path());
    let by = format!("ann (process {pid} on {})", host());
    assert_eq!(listed[0]["running"], by.as_str(), "{listed:#}");
    let (code, out, err) = run(at(dir.path()).args(["evals"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("running ({by})")), "{out}");
    let (code, _, err) = run(at(dir.path()).args(["eval", "--resume", "1"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("eval 1 is being run by {by}; nothing was sent")),
        "{err}"
    );
    kill(&mut child);
    let listed = evals(dir.path());
    assert_eq!(listed[0]["running"], Value::Null, "{listed:#}");
    let (code, out, _) = run(at(dir.path()).args(["evals"]));
    assert_eq!(code, 0);
    assert!(
        out.contains("stopped: `eval --resume 1` continues it"),
        "{out}"
    );
    let (code, _, err) = run(at(dir.path()).args(["eval", "--resume", "1"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(evals(dir.path())[0]["running"], Value::Null);
}

/// Two `eval --resume` of one stopped eval started together: exactly one runs
/// it, the other is refused naming the process and host that holds it, and no
/// question is run twice. Three rounds.
#[test]
fn two_resumes_of_one_eval_at_once_exactly_one_runs_it() {
    for round in 1..=3 {
        let dir = place();
        let mut first = demo_under_way(dir.path());
        kill(&mut first);
        let resume = || {
            at(dir.path())
                .env("IO_HARNESS_USER", "ann")
                .args(["eval", "--resume", "1"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let children = [resume(), resume()];
        let outs = children.map(|c| (c.id(), c.wait_with_output().unwrap()));
        let codes: Vec<Option<i32>> = outs.iter().map(|(_, o)| o.status.code()).collect();
        let (Some(w), Some(l)) = (
            codes.iter().position(|c| *c == Some(0)),
            codes.iter().position(|c| *c == Some(2)),
        ) else {
            panic!("round {round}: exit codes {codes:?}, not one 0 and one 2");
        };
        let err = String::from_utf8_lossy(&outs[l].1.stderr);
        assert!(
            err.contains(&format!(
                "eval 1 is being run by ann (process {} on {})",
                outs[w].0,
                host()
            )),
            "round {round}: {err}"
        );
        // Each question has one finished run: none was run twice.
        let finished = runs(dir.path())
            .into_iter()
            .filter(|r| r["outcome"] == "passed")
            .count();
        assert_eq!(finished, 5, "round {round}");
        assert_eq!(evals(dir.path())[0]["done"], 5, "round {round}");
    }
}
