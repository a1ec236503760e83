//! `eval` tells the truth through the real binary (issue 33, items 3 and 4): a
//! money total over parts some of which are unpriced is the known sum and how
//! many parts are unpriced, and a run that sent nothing cost $0; a question
//! that got no answer is not graded — its outcome is in the tables, accuracy is
//! over answered questions with the errors beside it — and `eval --demo`
//! answers on every wire the project speaks.

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
use io_harness::core::vendor::{Vendor, Wire};
use io_harness::stub::{Script, ScriptedResponse, StubHandle, StubVendor};
use pretty_assertions::assert_eq;
use serde_json::Value;

fn cell<'a>(report: &'a Value, id: &str, vendor: &str) -> &'a Value {
    report["questions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == id && q["vendor"] == vendor && q["superseded_by"].is_null())
        .unwrap()
}

fn vendor_row<'a>(report: &'a Value, vendor: &str) -> &'a Value {
    report["vendors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["vendor"] == vendor)
        .unwrap()
}

#[test]
fn a_total_is_the_known_sum_and_how_many_parts_are_unpriced() {
    // Fetch declared: OpenAI, OpenRouter and xAI refuse it and run nothing.
    let dir = place();
    std::fs::write(
        dir.path().join("io.toml"),
        "[web]\nsearch = true\nfetch = true\n",
    )
    .unwrap();
    let (code, out, err) = run(at(dir.path()).args(["eval", "--demo"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("eval 1 · demo · 5 questions × 6 vendors · $0.206416 in all\n"),
        "{out}"
    );
    let report = json(dir.path(), &["eval", "--resume", "1", "--json"]);
    assert_eq!(report["cost_micro_usd"], 206_416);
    for refused in ["openai", "openrouter", "xai"] {
        assert_eq!(vendor_row(&report, refused)["cost_micro_usd"], 0);
        assert_eq!(vendor_row(&report, refused)["runs"], 0);
    }

    // A model the price table does not know: its runs are unpriced.
    let dir = place();
    std::fs::write(
        dir.path().join("io.toml"),
        "[providers.openai]\nmodel = \"my-model\"\n",
    )
    .unwrap();
    let (code, out, err) =
        run(at(dir.path()).args(["eval", "--demo", "--providers", "anthropic,openai"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(
            "eval 1 · demo · 5 questions × 2 vendors · $0.096975 + 5 runs unpriced in all\n"
        ),
        "{out}"
    );
    let openai = out.lines().find(|l| l.starts_with("openai ")).unwrap();
    assert!(openai.contains("$0.000000 + 5 runs unpriced"), "{openai}");
    let report = json(dir.path(), &["eval", "--resume", "1", "--json"]);
    assert_eq!(report["cost_micro_usd"], Value::Null);
    assert_eq!(report["priced_micro_usd"], 96_975);
    assert_eq!(report["unpriced_runs"], 5);
    let row = vendor_row(&report, "openai");
    assert_eq!(
        (&row["cost_micro_usd"], &row["unpriced_runs"]),
        (&Value::Null, &Value::from(5))
    );
    // `runs` says the same of one run: its requests' known sum and how many
    // were unpriced.
    let (code, out, err) = run(at(dir.path()).args(["runs"]));
    assert_eq!(code, 0, "{err}");
    let line = out.lines().find(|l| l.contains(" openai ")).unwrap();
    assert!(line.contains("$0.000000 + 1 request unpriced"), "{line}");
    // So does `compare`.
    let group = cell(&report, "q1", "openai")["group_id"].to_string();
    let (code, out, err) = run(at(dir.path()).args(["compare", &group]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("$0.000000 + 1 request unpriced"), "{out}");
}

/// The stub on a free port answering `responses`.
async fn stub(responses: Vec<ScriptedResponse>) -> StubHandle {
    StubVendor::start(
        "127.0.0.1:0".parse().unwrap(),
        Script {
            responses,
            repeat: true,
            emulate_usage: false,
        },
    )
    .await
    .unwrap()
}

const CHAT_2015: &str = r#"{"id":"c","object":"chat.completion","model":"gpt-5-search-api","choices":[{"index":0,"message":{"role":"assistant","content":"It was 2015."},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":4,"total_tokens":104}}"#;

/// io.toml in `dir` sending anthropic and openai to `stub` (keys from the
/// test's variables).
fn stub_config(dir: &Path, stub: &StubHandle) {
    std::fs::write(
        dir.join("io.toml"),
        format!(
            "[providers.anthropic]\nbase_url = \"{}\"\napi_key_env = \"EVAL_TEST_KEY\"\n[providers.openai]\nbase_url = \"{}\"\napi_key_env = \"EVAL_TEST_KEY\"\n",
            stub.base_url(Vendor::Anthropic),
            stub.base_url(Vendor::OpenAi)
        ),
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_vendor_error_is_not_graded_and_a_run_that_sent_nothing_cost_nothing() {
    let stub = stub(vec![
        ScriptedResponse {
            vendor: Some(Vendor::Anthropic),
            status: 400,
            body: br#"{"type":"error","error":{"type":"invalid_request_error","message":"no"}}"#
                .to_vec(),
            ..ScriptedResponse::default()
        },
        ScriptedResponse {
            vendor: Some(Vendor::OpenAi),
            body: CHAT_2015.as_bytes().to_vec(),
            ..ScriptedResponse::default()
        },
    ])
    .await;
    let dir = place();
    stub_config(dir.path(), &stub);
    std::fs::write(
        dir.path().join("set.jsonl"),
        "{\"id\":\"q1\",\"question\":\"When was Rust 1.0 released?\",\"answers\":[\"2015\"]}\n{\"id\":\"q2\",\"question\":\"And Rust 2018?\",\"answers\":[\"2018\"]}\n",
    )
    .unwrap();
    let d = dir.path().to_path_buf();
    let (text, report) = tokio::task::spawn_blocking(move || {
        let eval = |extra: &[&str]| {
            let mut c = at(&d);
            c.env("EVAL_TEST_KEY", "sk-test")
                .args(["eval", "set.jsonl", "--providers", "anthropic,openai"])
                .args(extra);
            run(&mut c)
        };
        let (code, text, err) = eval(&[]);
        assert_eq!(code, 0, "{err}");
        let mut c = at(&d);
        c.env("EVAL_TEST_KEY", "sk-test")
            .args(["eval", "--resume", "1", "--json"]);
        let (code, out, err) = run(&mut c);
        assert_eq!(code, 0, "{err}");
        (text, serde_json::from_str::<Value>(&out).unwrap())
    })
    .await
    .unwrap();
    let q1 = cell(&report, "q1", "anthropic");
    assert_eq!(q1["outcome"], "error");
    assert_eq!(q1["correct"], Value::Null, "an error is not graded");
    assert_eq!(q1["cost_micro_usd"], 0, "it sent nothing that was answered");
    let a = vendor_row(&report, "anthropic");
    assert_eq!(
        (&a["runs"], &a["answered"], &a["errors"], &a["graded"]),
        (
            &Value::from(2),
            &Value::from(0),
            &Value::from(2),
            &Value::from(0)
        )
    );
    assert_eq!(a["accuracy"], Value::Null);
    assert_eq!(a["cost_micro_usd"], 0);
    let o = vendor_row(&report, "openai");
    assert_eq!(
        (&o["answered"], &o["errors"], &o["correct"], &o["graded"]),
        (
            &Value::from(2),
            &Value::from(0),
            &Value::from(1),
            &Value::from(2)
        )
    );
    // The tables carry the outcome; accuracy has the errors beside it.
    let matrix = text.lines().find(|l| l.starts_with("anthropic ")).unwrap();
    assert!(matrix.contains("— (2 errors)"), "{text}");
    let row = text
        .lines()
        .find(|l| l.starts_with("q1") && l.contains("anthropic"))
        .unwrap();
    assert!(row.contains(" error "), "{row}");
    assert!(!row.contains(" no "), "not graded as a wrong answer: {row}");
    assert!(
        text.lines().next().unwrap().contains("$0."),
        "the total is known: {text}"
    );
}

/// `eval --demo` on each wire answers as the vendor's default
/// wire does: the stub's eval script answers each wire in its own shape.
#[test]
fn the_demo_answers_on_every_wire() {
    for wire in Wire::ALL {
        let dir = place();
        std::fs::write(
            dir.path().join("io.toml"),
            format!("[providers.{}]\n{}\n", wire.vendor(), wire.choice()),
        )
        .unwrap();
        let vendor = wire.vendor().to_string();
        let report = json(
            dir.path(),
            &["eval", "--demo", "--providers", &vendor, "--json"],
        );
        let row = &report["vendors"][0];
        // Anthropic, xAI and Perplexity answer every question right; the
        // others miss one each.
        let expected = match wire.vendor() {
            Vendor::Anthropic | Vendor::Xai | Vendor::Perplexity => 1.0,
            _ => 0.8,
        };
        assert_eq!(row["errors"], 0, "{wire:?}: {row:#}");
        assert_eq!(row["answered"], 5, "{wire:?}: {row:#}");
        assert_eq!(row["accuracy"], expected, "{wire:?}: {row:#}");
        assert!(
            row["cost_micro_usd"].as_u64().unwrap() > 0,
            "{wire:?}: {row:#}"
        );
    }
}
