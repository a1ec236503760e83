//! Reliability of the real binary: several processes creating and writing one new
//! store at once with a reader; a closed stdout pipe; a store holding absurd token
//! counts; plain `run` telling why a run failed; a killed run shown as interrupted.
//! (Crash safety — kill -9 at every step boundary — is `tests/crash_safety.rs`.)

// The binary is built with every default feature, and these tests run it.
#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use io_harness::core::vendor::Vendor;
use io_harness::store::{NewRun, ProviderCall};
use io_harness::stub::{Script, ScriptedResponse, StubHandle, StubVendor};
use io_harness::{Citation, Store, Usage};
use pretty_assertions::assert_eq;

/// Concurrency rounds; each creates a new store from `WRITERS` processes at once.
const ROUNDS: usize = 10;
/// `run` processes per round, besides one `runs` reader.
const WRITERS: usize = 4;

const ANSWER: &str = r#"{"type":"message","model":"m","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}"#;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_io-harness"));
    c.env_remove("ANTHROPIC_API_KEY")
        .env_remove("RUST_LOG")
        .env("IO_HARNESS_REL_TEST_KEY", "sk-test-SECRET")
        // Never the real user config directory.
        .env(io_harness::USER_CONFIG_ENV, "");
    c
}

async fn stub(responses: Vec<ScriptedResponse>, repeat: bool) -> StubHandle {
    StubVendor::start(
        "127.0.0.1:0".parse().unwrap(),
        Script {
            responses,
            repeat,
            emulate_usage: false,
        },
    )
    .await
    .unwrap()
}

fn ok(body: &str) -> ScriptedResponse {
    ScriptedResponse {
        body: body.as_bytes().to_vec(),
        ..ScriptedResponse::default()
    }
}

/// An io.toml pointing anthropic at the stub, the workspace at `dir`.
fn config(dir: &Path, stub: &StubHandle) -> PathBuf {
    let cfg = dir.join("io.toml");
    std::fs::write(
        &cfg,
        format!(
            "[providers.anthropic]\nbase_url = \"{}\"\napi_key_env = \"IO_HARNESS_REL_TEST_KEY\"\n[task]\nworkspace = \"{}\"\n",
            stub.base_url(Vendor::Anthropic),
            dir.display()
        ),
    )
    .unwrap();
    cfg
}

fn output(c: &mut Command) -> (i32, String, String) {
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn several_processes_create_and_write_one_new_store_with_a_reader() {
    let stub = stub(vec![ok(ANSWER)], true).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &stub);
    let mut failures = Vec::new();
    for round in 0..ROUNDS {
        let db = dir.path().join(format!("round{round}.db"));
        let mut children = Vec::new();
        for i in 0..WRITERS {
            let child = bin()
                .args(["run", "--json", "--goal", &format!("writer {i}")])
                .arg("--config")
                .arg(&cfg)
                .arg("--store")
                .arg(&db)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            children.push(("run", child));
        }
        let reader = bin()
            .args(["runs", "--json"])
            .arg("--config")
            .arg(&cfg)
            .arg("--store")
            .arg(&db)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        children.push(("runs", reader));
        for (what, child) in children {
            let out = tokio::task::spawn_blocking(move || child.wait_with_output())
                .await
                .unwrap()
                .unwrap();
            if !out.status.success() {
                failures.push(format!(
                    "round {round} {what}: {:?} {}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
        let store = Store::open(&db).unwrap();
        let passed = store
            .runs(None)
            .unwrap()
            .iter()
            .filter(|r| r.outcome.map(|o| o.as_str()) == Some("passed"))
            .count();
        if passed != WRITERS {
            failures.push(format!("round {round}: {passed} runs passed"));
        }
    }
    assert_eq!(failures, Vec::<String>::new());
}

/// A store with enough runs and citations that every listing outgrows a pipe.
fn big_store(path: &Path) -> i64 {
    let store = Store::open(path).unwrap();
    let mut last = 0;
    for i in 0..300 {
        let run = store
            .begin_run(&NewRun {
                goal: format!("goal {i} {}", "x".repeat(200)),
                provider: Vendor::Anthropic,
                model: "m".into(),
                ..NewRun::default()
            })
            .unwrap();
        last = run.0;
    }
    let citations: Vec<Citation> = (0..2_000)
        .map(|i| Citation {
            url: format!("https://example.test/{i}"),
            title: Some("t".repeat(100)),
            cited_text: None,
        })
        .collect();
    store.record_citations(io_harness::RunId(last), 1, &citations);
    last
}

#[test]
fn a_closed_stdout_pipe_ends_every_listing_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let run = big_store(&db).to_string();
    let cfg = dir.path().join("io.toml");
    std::fs::write(&cfg, "").unwrap();
    let listings: [&[&str]; 4] = [
        &["runs", "--limit", "300"],
        &["runs", "--limit", "300", "--json"],
        &["citations", &run],
        &["citations", &run, "--json"],
    ];
    for args in listings {
        let mut child = bin()
            .args(args)
            .arg("--config")
            .arg(&cfg)
            .arg("--store")
            .arg(&db)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end before the command writes: `| head -0`.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_store_with_absurd_token_counts_still_lists() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let store = Store::open(&db).unwrap();
    let run = store
        .begin_run(&NewRun {
            goal: "g".into(),
            provider: Vendor::Anthropic,
            model: "claude-sonnet-4-5".into(),
            ..NewRun::default()
        })
        .unwrap();
    for step in 1..=2 {
        store.record_provider_call(
            run,
            step,
            &ProviderCall {
                provider: Vendor::Anthropic,
                model: "claude-sonnet-4-5".into(),
                usage: Some(Usage {
                    input_tokens: 5_000_000_000_000_000_000,
                    output_tokens: 5_000_000_000_000_000_000,
                    server_tool_requests: 0,
                    ..Default::default()
                }),
                stop_reason: "end_turn".into(),
                ..ProviderCall::default()
            },
        );
    }
    drop(store);
    let cfg = dir.path().join("io.toml");
    std::fs::write(&cfg, "").unwrap();
    let id = run.0.to_string();
    let listings: [&[&str]; 4] = [
        &["runs"],
        &["runs", "--json"],
        &["citations", &id],
        &["citations", &id, "--json"],
    ];
    for args in listings {
        let (code, out, err) = output(
            bin()
                .args(args)
                .arg("--config")
                .arg(&cfg)
                .arg("--store")
                .arg(&db),
        );
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!out.is_empty(), "{args:?}");
    }
    let (_, out, _) = output(
        bin()
            .args(["runs", "--json", "--config"])
            .arg(&cfg)
            .arg("--store")
            .arg(&db),
    );
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rows[0]["input_tokens"], 10_000_000_000_000_000_000_u64);
}

#[tokio::test(flavor = "multi_thread")]
async fn plain_run_prints_the_vendors_reason_for_an_error() {
    let spend_cap = ScriptedResponse {
        status: 429,
        body: br#"{"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low to access the API."}}"#.to_vec(),
        ..ScriptedResponse::default()
    };
    let stub = stub(vec![spend_cap], false).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &stub);
    let (code, _, err) = output(
        bin()
            .args(["run", "--goal", "g", "--config"])
            .arg(&cfg)
            .arg("--store")
            .arg(dir.path().join("runs.db")),
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("Your credit balance is too low to access the API."),
        "{err}"
    );
    assert!(err.contains("billing_error"), "{err}");
    assert!(err.contains("req_stub"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn plain_run_prints_why_the_verification_failed() {
    let stub = stub(vec![ok(ANSWER)], false).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &stub);
    let (code, _, err) = output(
        bin()
            .args(["run", "--goal", "g", "--verify-file", "notes.md"])
            .args(["--verify-contains", "0.22.0", "--config"])
            .arg(&cfg)
            .arg("--store")
            .arg(dir.path().join("runs.db")),
    );
    assert_eq!(code, 1);
    assert!(err.contains("notes.md could not be read"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn plain_run_says_a_refusal_and_exits_1() {
    let refusal = r#"{"type":"message","model":"m","content":[{"type":"text","text":"I can't help with that."}],"stop_reason":"refusal","usage":{"input_tokens":10,"output_tokens":5}}"#;
    let stub = stub(vec![ok(refusal)], false).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &stub);
    let (code, _, err) = output(
        bin()
            .args(["run", "--goal", "g", "--config"])
            .arg(&cfg)
            .arg("--store")
            .arg(dir.path().join("runs.db")),
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("finished: refused — the model declined: I can't help with that."),
        "{err}"
    );
}
