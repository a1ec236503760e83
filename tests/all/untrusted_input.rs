//! What untrusted input cannot do: escape the workspace through a dangling link,
//! carry a key a vendor echoes back into any record, turn a vendor's counter into a
//! loop bound, overflow the clock with a budget, hold a run past its deadline or
//! cancellation in a local tool, open an unusable store, or send a response with
//! no size or time bound. Each was seen failing on the code before its fix.

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

use std::time::Duration;

use common::*;
use io_harness::core::policy::{Act, Policy};
use io_harness::run::tools::{ToolEnv, execute};
use io_harness::stub::ScriptedResponse;
use io_harness::{
    ApprovalRequest, ApproveAll, Approver, BudgetKind, EventKind, RunOptions, RunOutcome, ToolCall,
    Vendor, WireResponse,
};
use serde_json::json;

fn call(name: &str, input: serde_json::Value) -> ToolCall {
    ToolCall {
        id: "t1".into(),
        name: name.into(),
        input,
    }
}

async fn tool(dir: &std::path::Path, c: ToolCall) -> io_harness::run::tools::ToolResult {
    let policy = Policy::default()
        .layer("t")
        .allow(Act::Read, "**")
        .allow(Act::Write, "**");
    let emit = |_: EventKind| {};
    let env = ToolEnv {
        workspace: dir,
        policy: &policy,
        approver: &ApproveAll,
        emit: &emit,
    };
    execute(&env, &c).await
}

// Defect 1: a dangling symlink whose target lies outside.

#[cfg(unix)]
#[tokio::test]
async fn write_file_through_a_dangling_link_out_is_refused_and_creates_nothing() {
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("planted.txt");
    std::os::unix::fs::symlink(&target, ws.path().join("notes.md")).unwrap();
    let r = tool(
        ws.path(),
        call("write_file", json!({"path": "notes.md", "content": "x"})),
    )
    .await;
    assert!(!r.ok, "{}", r.output);
    assert!(r.output.contains("outside the workspace"), "{}", r.output);
    assert!(!target.exists(), "a file was created outside the workspace");
}

#[cfg(unix)]
#[tokio::test]
async fn a_dangling_directory_link_out_is_refused_and_creates_nothing() {
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("not-yet");
    std::os::unix::fs::symlink(&target, ws.path().join("sub")).unwrap();
    let r = tool(
        ws.path(),
        call(
            "write_file",
            json!({"path": "sub/deeper/x.txt", "content": "x"}),
        ),
    )
    .await;
    assert!(!r.ok, "{}", r.output);
    assert!(
        !target.exists(),
        "a directory was created outside the workspace"
    );
    // A dangling link that stays inside is still refused for writing through it:
    // the file it names does not exist, so nothing is followed.
    std::os::unix::fs::symlink("inside.txt", ws.path().join("alias")).unwrap();
    let r = tool(
        ws.path(),
        call("write_file", json!({"path": "alias", "content": "y"})),
    )
    .await;
    assert!(!r.ok, "{}", r.output);
    assert!(!ws.path().join("inside.txt").exists());
}

// Defect 7: a blocked local tool under the deadline and cancellation.

#[cfg(unix)]
fn mkfifo(path: &std::path::Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_file_on_a_fifo_is_refused_at_once() {
    let ws = tempfile::tempdir().unwrap();
    let fifo = ws.path().join("pipe");
    mkfifo(&fifo);
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        tool(ws.path(), call("read_file", json!({"path": "pipe"}))),
    )
    .await;
    if r.is_err() {
        // Unblock the reader the old code left waiting, so the test can end.
        let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
        panic!("read_file on a FIFO hung");
    }
    let r = r.unwrap();
    assert!(!r.ok);
    assert!(r.output.contains("not a regular file"), "{}", r.output);
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        tool(
            ws.path(),
            call("write_file", json!({"path": "pipe", "content": "x"})),
        ),
    )
    .await;
    if r.is_err() {
        let _ = std::fs::OpenOptions::new().read(true).open(&fifo);
        panic!("write_file on a FIFO hung");
    }
    assert!(r.unwrap().output.contains("not a regular file"));
}

/// An approver nobody answers: the tool waits on it for ever.
struct Silent;

#[async_trait::async_trait]
impl Approver for Silent {
    async fn approve(&self, _: &ApprovalRequest) -> bool {
        std::future::pending::<bool>().await
    }
}

fn asks_to_write() -> Policy {
    Policy::default().layer("t").ask(Act::Write, "**")
}

#[tokio::test]
async fn a_tool_waiting_for_ever_is_cancelled() {
    let write = tool_use("write_file", r#"{"path":"a.md","content":"x"}"#);
    let h = Harness::new(vec![ok(&write), ok(ANSWER)]).await;
    let options = RunOptions::default();
    let cancel = options.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let mut c = contract("write");
    c.workspace = h.workspace.path().to_path_buf();
    let r = tokio::time::timeout(
        Duration::from_secs(20),
        io_harness::run_with_options(
            &c,
            &h.provider,
            &h.store,
            &asks_to_write(),
            &Silent,
            options,
        ),
    )
    .await
    .expect("the run ignored cancellation while a tool waited")
    .unwrap();
    assert_eq!(r.outcome, RunOutcome::Cancelled);
}

#[tokio::test]
async fn a_tool_waiting_for_ever_ends_at_the_time_budget() {
    let write = tool_use("write_file", r#"{"path":"a.md","content":"x"}"#);
    let h = Harness::new(vec![ok(&write), ok(ANSWER)]).await;
    let mut c = contract("write");
    c.workspace = h.workspace.path().to_path_buf();
    c.budget.seconds = 1;
    let r = tokio::time::timeout(
        Duration::from_secs(20),
        io_harness::run_with_options(
            &c,
            &h.provider,
            &h.store,
            &asks_to_write(),
            &Silent,
            RunOptions::default(),
        ),
    )
    .await
    .expect("the run ignored its time budget while a tool waited")
    .unwrap();
    assert_eq!(
        r.outcome,
        RunOutcome::BudgetExhausted {
            budget: BudgetKind::Time
        }
    );
}

// Defect 6: a budget the clock cannot hold.

#[tokio::test]
async fn a_huge_time_budget_does_not_panic() {
    let h = Harness::new(vec![ok(ANSWER)]).await;
    let mut c = contract("g");
    c.budget.seconds = u64::MAX;
    let r = h.run(c).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
}

// Defect 4: a vendor counter is a number, not a loop bound.

/// An OpenRouter answer whose search counter says `n`, decoded.
fn openrouter_counting(n: u64) -> io_harness::Completion {
    let body = format!(
        r#"{{"choices":[{{"message":{{"content":"x"}},"finish_reason":"stop"}}],
      "usage":{{"prompt_tokens":1,"completion_tokens":1,"server_tool_use_details":{{"web_search_requests":{n}}}}}}}"#
    );
    let response = WireResponse {
        status: 200,
        headers: vec![],
        body: body.into_bytes(),
    };
    io_harness::core::wire::decode(Vendor::OpenRouter, &response).unwrap()
}

#[test]
fn an_openrouter_counter_of_a_million_is_recorded_not_looped() {
    let c = openrouter_counting(1_000_000);
    assert_eq!(c.usage.unwrap().server_tool_requests, 1_000_000);
    assert!(c.server_tools.len() <= 64, "{} rows", c.server_tools.len());
}

#[test]
fn an_openrouter_counter_of_two_to_the_32_does_not_abort() {
    let c = openrouter_counting(1 << 32);
    assert_eq!(c.usage.unwrap().server_tool_requests, 1 << 32);
    assert!(c.server_tools.len() <= 64);
}

#[tokio::test]
async fn a_million_claimed_searches_write_a_bounded_number_of_rows() {
    let body = r#"{"choices":[{"message":{"content":"x"},"finish_reason":"stop"}],
      "usage":{"prompt_tokens":1,"completion_tokens":1,"server_tool_use_details":{"web_search_requests":1000000}}}"#;
    let h = Harness::vendor(Vendor::OpenRouter, vec![ok(body)]).await;
    let r = h.run(contract("g")).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let rows = h.store.server_tool_calls(r.run_id).unwrap();
    assert!(rows.len() <= 64, "{} rows", rows.len());
    assert!(!rows.is_empty());
}

// Defect 2: secrets a vendor echoes back.

const KEY: &str = "sk-test-SECRET";

fn no_secret(what: &str, text: &str, secret: &str) {
    assert!(!text.contains(secret), "{what} carries the secret: {text}");
}

#[tokio::test]
async fn a_key_echoed_in_a_401_reaches_no_record() {
    let echo = format!(
        r#"{{"type":"error","error":{{"type":"authentication_error","message":"invalid x-api-key: {KEY}"}}}}"#
    );
    let h = Harness::new(vec![status(401, &echo, &[])]).await;
    let r = h.run(contract("g")).await;
    let RunOutcome::Error { message } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    no_secret("the outcome", message, KEY);
    assert!(message.contains("invalid x-api-key"), "{message}");
    let row = h.store.run(r.run_id).unwrap().unwrap();
    no_secret(
        "runs.outcome_detail",
        row.outcome_detail.as_deref().unwrap_or_default(),
        KEY,
    );
    for e in h.events() {
        no_secret("an event", &serde_json::to_string(&e).unwrap(), KEY);
    }
}

#[tokio::test]
async fn a_key_echoed_in_a_500_is_scrubbed_from_retry_lines() {
    let echo = format!(r#"{{"error":{{"message":"upstream saw key {KEY} and died"}}}}"#);
    let h = Harness::new(vec![
        status(500, &echo, &[]),
        status(500, &echo, &[]),
        status(500, &echo, &[]),
    ])
    .await;
    let r = h.run(contract("g")).await;
    assert!(matches!(r.outcome, RunOutcome::Error { .. }));
    let events = h.events();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, EventKind::Retrying { .. }))
    );
    for e in events {
        no_secret("an event", &serde_json::to_string(&e).unwrap(), KEY);
    }
    let row = h.store.run(r.run_id).unwrap().unwrap();
    let detail = row.outcome_detail.unwrap_or_default();
    no_secret("runs.outcome_detail", &detail, KEY);
    assert!(detail.contains("upstream saw key"), "{detail}");
}

#[tokio::test]
async fn a_password_in_the_base_url_reaches_no_record() {
    // Nothing listens on the discard port: the transport error names the URL.
    let mut h = Harness::new(vec![]).await;
    let endpoint = io_harness::Endpoint {
        vendor: Vendor::Anthropic,
        base_url: "http://operator:hunter2-pw@127.0.0.1:9".into(),
        api_key_env: "IO_HARNESS_TEST_KEY".into(),
        wire: io_harness::core::vendor::Wire::spec(Vendor::Anthropic),
        stream: false,
        responses_state: Default::default(),
        search: Default::default(),
    };
    h.provider = io_harness::HttpProvider::new(endpoint, "m", 16)
        .with_api_key(io_harness::ApiKey::new(KEY))
        .with_retry(io_harness::RetryPolicy {
            base_delay: Duration::from_millis(5),
            ..io_harness::RetryPolicy::default()
        });
    let r = h.run(contract("g")).await;
    let RunOutcome::Error { message } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    no_secret("the outcome", message, "hunter2-pw");
    for e in h.events() {
        no_secret(
            "an event",
            &serde_json::to_string(&e).unwrap(),
            "hunter2-pw",
        );
    }
}

#[tokio::test]
async fn a_key_echoed_inside_a_200_error_is_scrubbed() {
    let echo = format!(r#"{{"error":{{"code":401,"message":"bad key {KEY}"}}}}"#);
    let h = Harness::vendor(Vendor::OpenRouter, vec![ok(&echo)]).await;
    let r = h.run(contract("g")).await;
    let RunOutcome::Error { message } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    no_secret("the outcome", message, KEY);
}

// Defect 15: response size and total time.

#[tokio::test]
async fn a_body_over_the_cap_is_refused_naming_the_key() {
    let mut h = Harness::new(vec![ScriptedResponse {
        body: format!("{}{}", ANSWER, " ".repeat(3 * 1024 * 1024)).into_bytes(),
        ..ScriptedResponse::default()
    }])
    .await;
    h.provider = h.provider.clone().with_max_response_bytes(1024 * 1024);
    let r = h.run(contract("g")).await;
    let RunOutcome::Error { message } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert!(message.contains("max_response_bytes"), "{message}");
    // Not retried: the same request would get the same body.
    assert_eq!(h.stub.requests().len(), 1);
}

#[tokio::test]
async fn a_slow_drip_ends_at_the_request_deadline() {
    let mut h = Harness::new(vec![ScriptedResponse {
        drip_ms: Some(200),
        ..ok(ANSWER)
    }])
    .await;
    h.provider = h
        .provider
        .clone()
        .with_request_timeout(Duration::from_secs(1))
        .with_retry(io_harness::RetryPolicy {
            max_retries: 0,
            ..io_harness::RetryPolicy::default()
        });
    let r = tokio::time::timeout(Duration::from_secs(30), h.run(contract("g")))
        .await
        .expect("the drip held the request open");
    let RunOutcome::Error { message } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert!(message.contains("request_timeout_secs"), "{message}");
}

// Defect 14: a store that cannot be opened is an error before any request.

#[test]
fn a_store_that_cannot_be_opened_exits_2_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    // A directory is not a SQLite file.
    for args in [
        vec!["runs"],
        vec!["citations", "1"],
        vec!["run", "--goal", "g"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_io-harness"))
            .args(&args)
            .args(["--store", dir.path().to_str().unwrap()])
            .args(["--config", "/dev/null"])
            .env("ANTHROPIC_API_KEY", "sk-test-SECRET")
            .env(io_harness::USER_CONFIG_ENV, "")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("--store"), "{args:?}: {err}");
        assert!(err.contains(dir.path().to_str().unwrap()), "{err}");
    }
}
