//! Reliability of the store and the loop, at the library level on real temp files
//! and the loopback stub: a new store opened by many connections at once, rows with
//! absurd token counts, counts that would wrap, resuming a finished run, a run
//! killed during its first request, a re-sent step marked as a retry, and refusals
//! and truncations reported as their own outcomes.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::{Arc, Barrier};

use common::*;
use io_harness::run::RunOptions;
use io_harness::store::{NewRun, ProviderCall};
use io_harness::{BudgetKind, RunId, RunOutcome, Store, Usage, Vendor};
use pretty_assertions::assert_eq;

/// Rounds of the fresh-store race; each opens one new file from every thread.
const ROUNDS: usize = 12;
/// Connections opening the same new file at once (plus one reader).
const OPENERS: usize = 4;

fn new_run(store: &Store) -> RunId {
    store
        .begin_run(&NewRun {
            goal: "g".into(),
            provider: Vendor::Anthropic,
            model: "claude-sonnet-4-5".into(),
            ..NewRun::default()
        })
        .unwrap()
}

fn call(input: u64, output: u64) -> ProviderCall {
    ProviderCall {
        provider: Vendor::Anthropic,
        model: "claude-sonnet-4-5".into(),
        usage: Some(Usage {
            input_tokens: input,
            output_tokens: output,
            server_tool_requests: 0,
            ..Default::default()
        }),
        stop_reason: "end_turn".into(),
        latency_ms: 1,
        request_id: None,
        ..ProviderCall::default()
    }
}

#[test]
fn a_new_store_opened_by_many_connections_at_once_never_fails() {
    let mut failures = Vec::new();
    for round in 0..ROUNDS {
        let dir = tempfile::tempdir().unwrap();
        let path = Arc::new(dir.path().join("runs.db"));
        let gate = Arc::new(Barrier::new(OPENERS + 1));
        let mut threads = Vec::new();
        for i in 0..=OPENERS {
            let (path, gate) = (path.clone(), gate.clone());
            threads.push(std::thread::spawn(move || -> Result<(), String> {
                gate.wait();
                let store = Store::open(path.as_path()).map_err(|e| e.to_string())?;
                if i == OPENERS {
                    // The reader.
                    store.runs(None).map_err(|e| e.to_string())?;
                } else {
                    let run = store
                        .begin_run(&NewRun {
                            goal: format!("writer {i}"),
                            ..NewRun::default()
                        })
                        .map_err(|e| e.to_string())?;
                    store.record_provider_call(run, 1, &call(1, 1));
                }
                Ok(())
            }));
        }
        for t in threads {
            if let Err(e) = t.join().unwrap() {
                failures.push(format!("round {round}: {e}"));
            }
        }
        let store = Store::open(path.as_path()).unwrap();
        let runs = store.runs(None).unwrap().len();
        if runs != OPENERS {
            failures.push(format!("round {round}: {runs} runs recorded"));
        }
    }
    assert_eq!(failures, Vec::<String>::new());
}

#[test]
fn every_migration_is_safe_to_meet_twice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    let latest = Store::open(&path).unwrap().schema_version().unwrap();
    // A file whose schema is current but whose version says it is new (what a
    // migration interrupted between its DDL and its version stamp would leave).
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 0).unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), latest);
    new_run(&store);
}

#[test]
fn absurd_token_counts_never_break_a_listing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("runs.db")).unwrap();
    let poisoned = new_run(&store);
    store.record_provider_call(poisoned, 1, &call(5_000_000_000_000_000_000, 1));
    store.record_provider_call(poisoned, 2, &call(5_000_000_000_000_000_000, 1));
    // A count beyond what SQLite holds is stored saturated, never as -1.
    let wrapped = new_run(&store);
    store.record_provider_call(wrapped, 1, &call(u64::MAX, 2));
    let fine = new_run(&store);
    store.record_provider_call(fine, 1, &call(10, 2));

    let runs = store
        .priced_runs(None, &io_harness::PriceTable::builtin())
        .unwrap();
    assert_eq!(runs.len(), 3);
    let row = |id: RunId| {
        let r = runs.iter().find(|r| r.run_id == id).unwrap();
        r.figures.clone().unwrap()
    };
    assert_eq!(row(poisoned).input_tokens, 10_000_000_000_000_000_000);
    assert_eq!(row(wrapped).input_tokens, i64::MAX as u64);
    assert_eq!(row(fine).input_tokens, 10);
    assert!(store.run(poisoned).unwrap().is_some());
    let calls = store.provider_calls(wrapped).unwrap();
    assert_eq!(calls[0].usage.unwrap().input_tokens, i64::MAX as u64);
}

#[test]
fn a_row_written_negative_by_an_older_release_reads_saturated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    let store = Store::open(&path).unwrap();
    let run = new_run(&store);
    store.record_provider_call(run, 1, &call(10, 2));
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE provider_calls SET input_tokens = -1", [])
        .unwrap();
    let runs = store
        .priced_runs(None, &io_harness::PriceTable::builtin())
        .unwrap();
    assert_eq!(
        runs[0].figures.as_ref().unwrap().input_tokens,
        i64::MAX as u64
    );
    assert_eq!(
        store.provider_calls(run).unwrap()[0]
            .usage
            .unwrap()
            .input_tokens,
        i64::MAX as u64
    );
}

fn with_usage(input: &str, output: &str) -> String {
    format!(
        r#"{{"type":"message","model":"m","content":[{{"type":"tool_use","id":"toolu_x","name":"list_dir","input":{{"path":"."}}}}],"stop_reason":"tool_use","usage":{{"input_tokens":{input},"output_tokens":{output}}}}}"#
    )
}

#[tokio::test]
async fn a_count_that_would_wrap_cannot_slip_past_the_token_budget() {
    for (input, output) in [("18446744073709551615", "2"), ("1e20", "2")] {
        let h = Harness::new(vec![
            ok(&with_usage(input, output)),
            ok(&tool_use("list_dir", r#"{"path":"."}"#)),
            ok(ANSWER),
        ])
        .await;
        let mut c = contract("g");
        c.budget.tokens = 1_000;
        let r = h.run(c).await;
        assert_eq!(
            r.outcome,
            RunOutcome::BudgetExhausted {
                budget: BudgetKind::Tokens
            },
            "input_tokens {input}"
        );
        assert_eq!(h.bodies().len(), 1, "no request after the budget was spent");
        assert!(r.usage.input_tokens >= 1 << 62, "{:?}", r.usage);
    }
}

#[tokio::test]
async fn resuming_a_finished_run_is_refused_and_sends_nothing() {
    let h = Harness::new(vec![ok(ANSWER), ok(ANSWER)]).await;
    let r = h.run(contract("g")).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let options = RunOptions {
        resume: Some(r.run_id),
        ..RunOptions::default()
    };
    let err = h.try_run_with(contract("g"), options).await.unwrap_err();
    assert!(err.before_anything(), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "run {} already finished (passed); a finished run is not resumed and nothing was sent — start a new run instead",
            r.run_id
        )
    );
    assert_eq!(h.bodies().len(), 1);
    let row = h.store.run(r.run_id).unwrap().unwrap();
    assert_eq!(row.outcome.map(|o| o.as_str()), Some("passed"));
}

#[tokio::test]
async fn a_run_killed_during_its_first_request_resumes_and_marks_the_resend() {
    let h = Harness::new(vec![delayed(ANSWER, 10_000), ok(ANSWER)]).await;
    let killed = tokio::time::timeout(
        std::time::Duration::from_millis(800),
        h.try_run(contract("g")),
    )
    .await;
    assert!(
        killed.is_err(),
        "the first request should still be in flight"
    );
    let run_id = h.store.runs(None).unwrap()[0].run_id;
    let r = h.resume(run_id).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    assert_eq!(r.steps, 1);
    let calls = h.store.provider_calls(run_id).unwrap();
    assert_eq!(
        calls
            .iter()
            .map(|c| (c.step, c.step_attempt))
            .collect::<Vec<_>>(),
        vec![(1, 2)],
        "one recorded answer for step 1, marked as its second sending"
    );
}

#[tokio::test]
async fn a_refusal_is_its_own_outcome_not_a_pass() {
    let refusal = r#"{"type":"message","model":"m","content":[{"type":"text","text":"I can't help with that."}],"stop_reason":"refusal","usage":{"input_tokens":10,"output_tokens":5}}"#;
    let h = Harness::new(vec![ok(refusal)]).await;
    let r = h.run(contract("g")).await;
    assert_eq!(
        r.outcome,
        RunOutcome::Refused {
            text: "I can't help with that.".into()
        }
    );
    assert!(!r.outcome.passed());
    let row = h.store.run(r.run_id).unwrap().unwrap();
    assert_eq!(row.outcome.map(|o| o.as_str()), Some("refused"));
    assert_eq!(
        row.outcome_detail.as_deref(),
        Some("I can't help with that.")
    );
}

#[tokio::test]
async fn a_truncated_answer_is_its_own_outcome_not_a_pass() {
    let cut = r#"{"type":"message","model":"m","content":[{"type":"text","text":"The answer is"}],"stop_reason":"max_tokens","usage":{"input_tokens":10,"output_tokens":256}}"#;
    let h = Harness::new(vec![ok(cut)]).await;
    let r = h.run(contract("g")).await;
    assert_eq!(r.outcome, RunOutcome::Truncated { max_tokens: 256 });
    let row = h.store.run(r.run_id).unwrap().unwrap();
    assert_eq!(row.outcome.map(|o| o.as_str()), Some("truncated"));
    assert_eq!(
        row.outcome_detail.as_deref(),
        Some(
            "the answer was cut off at max_tokens (256) and not verified; raise max_tokens for this provider in io.toml"
        )
    );
}

#[cfg(feature = "console")]
#[test]
fn a_run_whose_process_is_gone_reads_interrupted_in_runs_and_the_console() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use io_harness::console::testing::Msg;
    use io_harness::console::testing::initial_state;
    use io_harness::console::testing::update;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    let store = Store::open(&path).unwrap();
    let gone = new_run(&store);
    let live = new_run(&store);
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead_pid = child.id();
    child.wait().unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE runs SET runner_pid = ?1 WHERE run_id = ?2",
        (dead_pid, gone.0),
    )
    .unwrap();
    let runs = store.runs(None).unwrap();
    let outcome = |id: RunId| runs.iter().find(|r| r.run_id == id).unwrap().outcome;
    assert_eq!(outcome(gone).map(|o| o.as_str()), Some("interrupted"));
    assert_eq!(outcome(live), None, "this process still runs it");

    let loaded = io_harness::config::Loaded {
        config: io_harness::Config::parse("", "io.toml").unwrap(),
        path: None,
    };
    let plan = std::sync::Arc::new(io_harness::launch::Plan::of(&loaded.config, false));
    let mut state = initial_state(&loaded, &plan, "test").unwrap();
    update(
        &mut state,
        Msg::Key(KeyEvent::new(KeyCode::F(4), KeyModifiers::NONE)),
    );
    update(&mut state, Msg::Runs(runs));
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 20)).unwrap();
    t.draw(|f| io_harness::console::testing::draw(f, &state))
        .unwrap();
    let screen = t.backend().to_string();
    let line_of = |id: RunId| {
        screen
            .lines()
            .find(|l| l.contains(&format!("│{:<5}", id.0)))
            .unwrap_or_else(|| panic!("run {id} not on screen:\n{screen}"))
            .to_string()
    };
    assert!(line_of(gone).contains("interrupted"), "{screen}");
    assert!(line_of(live).contains("unfinished"), "{screen}");
}

fn decode(wire: io_harness::core::vendor::Wire, body: serde_json::Value) -> io_harness::Completion {
    io_harness::core::wire::decode_wire(
        wire,
        &io_harness::WireResponse {
            status: 200,
            headers: vec![],
            body: serde_json::to_vec(&body).unwrap(),
        },
    )
    .unwrap()
}

#[test]
fn openai_refusals_decode_as_refusals_in_the_models_words() {
    use io_harness::StopReason;
    use io_harness::core::vendor::Wire;
    let chat = serde_json::json!({"model": "gpt-5", "choices": [{"finish_reason": "stop",
        "message": {"role": "assistant", "content": null, "refusal": "I can't help with that."}}]});
    let c = decode(Wire::OpenAiChat, chat);
    assert_eq!(
        (c.stop, c.text.as_str()),
        (StopReason::Refusal, "I can't help with that.")
    );
    let responses = serde_json::json!({"status": "completed", "output": [{"type": "message",
        "content": [{"type": "refusal", "refusal": "I can't help with that."}]}]});
    let c = decode(Wire::OpenAiResponses, responses);
    assert_eq!(
        (c.stop, c.text.as_str()),
        (StopReason::Refusal, "I can't help with that.")
    );
}

#[test]
fn decoders_clamp_counts_instead_of_wrapping_or_dropping_them() {
    use io_harness::core::vendor::Wire;
    let body = |input: serde_json::Value, output: serde_json::Value| {
        serde_json::json!({"type": "message", "model": "m", "content": [], "stop_reason": "end_turn",
            "usage": {"input_tokens": input, "output_tokens": output}})
    };
    let usage = |i, o| decode(Wire::Anthropic2025, body(i, o)).usage.unwrap();
    let u = usage(serde_json::json!(u64::MAX), serde_json::json!(2));
    assert_eq!(u.input_tokens, Usage::MAX_COUNT);
    assert!(
        u.total_tokens() > Usage::MAX_COUNT,
        "{u:?}: never wraps to 1"
    );
    assert!(u.clamped());
    assert_eq!(
        usage(serde_json::json!(1e20), serde_json::json!(1)).input_tokens,
        Usage::MAX_COUNT
    );
    assert_eq!(
        usage(serde_json::json!(-5), serde_json::json!(1)).input_tokens,
        0
    );
    assert!(!usage(serde_json::json!(10), serde_json::json!(2)).clamped());
}

/// The token `runner` records for `pid` on Linux: the boot and the start time.
fn token(pid: u32) -> Option<String> {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let start = rest.split_whitespace().nth(22 - 3)?;
    Some(format!("{}:{start}", boot.trim()))
}

#[tokio::test]
async fn a_resume_of_a_run_another_live_process_holds_is_refused_before_any_request() {
    let h = Harness::new(vec![delayed(ANSWER, 10_000), ok(ANSWER)]).await;
    let killed = tokio::time::timeout(
        std::time::Duration::from_millis(800),
        h.try_run(contract("g")),
    )
    .await;
    assert!(
        killed.is_err(),
        "the first request should still be in flight"
    );
    let run_id = h.store.runs(None).unwrap()[0].run_id;
    // Another process on this host, alive, is recorded as running it.
    let mut other = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    let conn = rusqlite::Connection::open(h.db.path().join("runs.db")).unwrap();
    conn.execute(
        "UPDATE runs SET runner_pid = ?1, runner_host = ?2, runner_token = ?3 WHERE run_id = ?4",
        (other.id(), &host, token(other.id()), run_id.0),
    )
    .unwrap();
    let options = RunOptions {
        resume: Some(run_id),
        ..RunOptions::default()
    };
    let err = h.try_run_with(contract("g"), options).await.unwrap_err();
    assert!(err.before_anything(), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "run {run_id} is being run by process {} on {host}; nothing was sent — resume it once that process has ended",
            other.id()
        )
    );
    assert_eq!(h.bodies().len(), 1, "only the killed run's first request");
    // Once that process has ended the run is taken over and resumes.
    other.kill().unwrap();
    other.wait().unwrap();
    let r = h.resume(run_id).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
}
