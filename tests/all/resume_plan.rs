//! A run goes on where it started (issue 33, item 1; issue 32, item 3): a run
//! begun on OpenAI and interrupted resumes on OpenAI — its wire, model and the
//! cost of every request stay OpenAI's — whatever io.toml's default vendor is;
//! `preview --resume` shows the body that resume sends; `--provider` naming
//! another vendor is refused before anything is sent. A run recorded before
//! plans were kept resumes on its own row's vendor and model.

#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

use std::path::Path;

use io_harness::core::endpoint::Endpoint;
use io_harness::core::plan::{PlanLimits, RunPlan};
use io_harness::store::{CHECKPOINT_FORMAT, Checkpoint, NewRun, Store};
use io_harness::{RunId, TaskContract, Vendor, Verification};
use serde_json::Value;

use crate::common::cli::{at, place, run};

const GOAL: &str = "Find the current io-harness release on crates.io and say which version it is.";

/// An OpenAI run of the demo, interrupted before its first answer: recorded as
/// the binary records one (its plan unless `plan` is false), its process gone.
fn interrupted(dir: &Path, plan: bool) -> RunId {
    let endpoint = Endpoint::public(Vendor::OpenAi).streaming(true);
    interrupted_on(dir, plan, endpoint, "gpt-5-search-api", &["read_file"])
}

/// As `interrupted`, on `endpoint` (its vendor and wire) with `model`, the run
/// having offered `tools`.
fn interrupted_on(
    dir: &Path,
    plan: bool,
    endpoint: Endpoint,
    model: &str,
    tools: &[&str],
) -> RunId {
    let vendor = endpoint.vendor;
    std::fs::create_dir_all(dir.join("data")).unwrap();
    let db = dir.join("data/runs.db");
    let store = Store::open(&db).unwrap();
    let contract = TaskContract::workspace(GOAL, dir, Verification::None);
    let checkpoint = Checkpoint {
        format: CHECKPOINT_FORMAT,
        step: 0,
        observations: Vec::new(),
        tokens_used: 0,
        continuations: 0,
        contract,
    };
    let plan = plan.then(|| RunPlan {
        endpoint: Endpoint {
            base_url: "http://127.0.0.1:9".into(),
            ..endpoint
        },
        model: model.into(),
        max_tokens: 4096,
        limits: {
            let l = io_harness::launch::Limits::default();
            PlanLimits {
                max_response_bytes: l.max_response_bytes,
                request_timeout_ms: l.request_timeout.as_millis() as u64,
                idle_timeout_ms: l.idle_timeout.as_millis() as u64,
            }
        },
        demo: true,
        tools: tools.iter().map(|t| t.to_string()).collect(),
    });
    let id = store
        .start_run(
            &NewRun {
                goal: GOAL.into(),
                provider: vendor,
                model: model.into(),
                plan,
                ..NewRun::default()
            },
            &checkpoint,
        )
        .unwrap();
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE runs SET runner_pid = ?1 WHERE run_id = ?2",
        (pid, id.0),
    )
    .unwrap();
    id
}

fn providers_called(dir: &Path, run: RunId) -> Vec<String> {
    let conn = rusqlite::Connection::open(dir.join("data/runs.db")).unwrap();
    let mut stmt = conn
        .prepare("SELECT DISTINCT provider FROM provider_calls WHERE run_id = ?1")
        .unwrap();
    stmt.query_map([run.0], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn resumes_on_openai(plan: bool) {
    let dir = place();
    let id = interrupted(dir.path(), plan).to_string();
    // What the resume will send: OpenAI's Chat body, its model.
    let (code, preview, err) = run(at(dir.path()).args(["preview", "--resume", &id, "--demo"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        preview.starts_with("POST http://127.0.0.1:<port>/v1/chat/completions"),
        "{preview}"
    );
    assert!(
        preview.contains("\"model\":\"gpt-5-search-api\""),
        "{preview}"
    );
    let (code, out, err) = run(at(dir.path()).args(["run", "--resume", &id, "--demo", "--json"]));
    assert_eq!(code, 0, "{out}{err}");
    let started: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(started["kind"]["event"], "run_started", "{out}");
    assert_eq!(started["kind"]["provider"], "openai", "{out}");
    assert_eq!(started["kind"]["model"], "gpt-5-search-api", "{out}");
    assert_eq!(
        providers_called(dir.path(), RunId(id.parse().unwrap())),
        vec!["openai".to_string()]
    );
    let runs: Value = crate::common::cli::json(dir.path(), &["runs", "--json"]);
    assert_eq!(runs[0]["provider"], "openai");
}

#[test]
fn an_interrupted_openai_run_resumes_on_openai() {
    resumes_on_openai(true);
}

#[test]
fn a_run_recorded_before_plans_were_kept_resumes_on_its_own_vendor() {
    resumes_on_openai(false);
}

#[test]
fn another_vendor_on_a_resume_is_refused_before_anything_is_sent() {
    let dir = place();
    let id = interrupted(dir.path(), true).to_string();
    for cmd in [["run", "--resume"], ["preview", "--resume"]] {
        let (code, out, err) =
            run(at(dir.path())
                .args(cmd)
                .args([&id, "--demo", "--provider", "anthropic"]));
        assert_eq!(code, 2, "{cmd:?}: {out}{err}");
        assert!(
            err.contains(&format!(
                "run {id} was started on openai; it goes on there, not on anthropic"
            )),
            "{err}"
        );
        assert!(err.contains("Nothing was sent."), "{err}");
    }
    // Nothing was recorded for the refused resumes.
    assert!(providers_called(dir.path(), RunId(id.parse().unwrap())).is_empty());
    // A demo run is not resumed off the stub.
    let (code, _, err) = run(at(dir.path()).args(["run", "--resume", &id]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("ran on the built-in stub vendor"), "{err}");
    assert!(
        err.contains(&format!("`io-harness run --resume {id} --demo`")),
        "{err}"
    );
}

/// xAI's and Perplexity's runs (issue 37) go on where they started too: each
/// wire's plan is stored and read back, so `preview --resume` shows that wire's
/// path and model, and the resume is sent there, recorded as that vendor's —
/// whatever io.toml's default vendor is (Anthropic here).
#[test]
fn xai_and_perplexity_runs_resume_on_their_own_wire() {
    use io_harness::Wire;
    let cases = [
        (Wire::Xai, "grok-4.3", "/xai/v1/responses", "read_file"),
        (
            Wire::PerplexityAgent,
            "perplexity/sonar",
            "/perplexity/v1/agent",
            "read_file",
        ),
        // Sonar offers no local tools: its plan lists none.
        (
            Wire::PerplexitySonar,
            "sonar",
            "/perplexity/chat/completions",
            "",
        ),
    ];
    for (wire, model, path, tool) in cases {
        let dir = place();
        let endpoint = Endpoint::public(wire.vendor()).with_wire(wire);
        let tools: Vec<&str> = Some(tool).filter(|t| !t.is_empty()).into_iter().collect();
        let id = interrupted_on(dir.path(), true, endpoint, model, &tools).to_string();
        let (code, preview, err) = run(at(dir.path()).args(["preview", "--resume", &id, "--demo"]));
        assert_eq!(code, 0, "{wire:?}: {err}");
        assert!(
            preview.starts_with(&format!("POST http://127.0.0.1:<port>{path}")),
            "{wire:?}: {preview}"
        );
        assert!(
            preview.contains(&format!("\"model\":\"{model}\"")),
            "{wire:?}: {preview}"
        );
        let (code, out, err) =
            run(at(dir.path()).args(["run", "--resume", &id, "--demo", "--json"]));
        assert_eq!(code, 0, "{wire:?}: {out}{err}");
        let started: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        assert_eq!(started["kind"]["provider"], wire.vendor().as_str(), "{out}");
        assert_eq!(started["kind"]["model"], model, "{out}");
        assert_eq!(
            providers_called(dir.path(), RunId(id.parse().unwrap())),
            vec![wire.vendor().as_str().to_string()],
            "{wire:?}"
        );
        // The stored plan still names the wire.
        let conn = rusqlite::Connection::open(dir.path().join("data/runs.db")).unwrap();
        let plan: String = conn
            .query_row("SELECT plan_json FROM runs WHERE run_id = ?1", [&id], |r| {
                r.get(0)
            })
            .unwrap();
        let plan: RunPlan = serde_json::from_str(&plan).unwrap();
        assert_eq!(plan.wire(), wire, "{plan:?}");
    }
}
