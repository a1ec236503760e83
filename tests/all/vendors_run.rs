//! xAI and Perplexity through the whole run, on the loopback stub answering with
//! their recorded answers (tests/fixtures/xai, tests/fixtures/perplexity):
//! streamed and whole, what a run leaves in the store (citations, claims, the
//! server-tool rows with their queries, the vendor's own cost as the cost of
//! record), the request each vendor got, a transcript's second turn sending
//! xAI's encrypted reasoning back as received, Sonar offering no local tools and
//! refusing a workspace-verified task before anything is sent, the binary's
//! `preview` and `run --demo` on both, and their OpenTelemetry names.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;

use common::cli::{at, place, run as run_bin};
use common::{Collect, ok};
use io_harness::config::Loaded;
use io_harness::stub::{Script, ScriptedResponse, StubVendor};
use io_harness::{Call, Config, EventKind, Launch, NobodyToAsk, RunResult, Store, Vendor};
use pretty_assertions::assert_eq;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

fn fixture(path: &str) -> String {
    common::fixture(path)
}

/// The final response of a recorded stream (its last event's `response`).
fn final_response(path: &str) -> String {
    let text = fixture(path);
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    last["response"].to_string()
}

/// A run of io.toml's task (`toml` says the vendor and what else) against a stub
/// answering `responses`; the store's folder, the store, the result, the
/// requests the stub got and the events.
async fn run(
    vendor: Vendor,
    toml: &str,
    responses: Vec<ScriptedResponse>,
) -> (
    tempfile::TempDir,
    Store,
    RunResult,
    Vec<Value>,
    Arc<Collect>,
) {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "provider = \"{vendor}\"\n{toml}\n[task]\ngoal = \"Which version?\"\nworkspace = {:?}\n",
        dir.path().display().to_string()
    );
    let loaded = Loaded {
        config: Config::parse(&text, "io.toml").unwrap(),
        path: None,
    };
    let script = Script {
        responses: responses
            .into_iter()
            .map(|r| ScriptedResponse {
                vendor: Some(vendor),
                ..r
            })
            .collect(),
        repeat: false,
        emulate_usage: false,
    };
    let stub = StubVendor::start("127.0.0.1:0".parse().unwrap(), script)
        .await
        .unwrap();
    let mut launch = Launch::resolve(&loaded, false);
    launch.serve_with(stub);
    let contract = launch.plan().contract(|_| {});
    let provider = launch.provider(vendor, None, &launch.key()).unwrap();
    let store = Store::open(dir.path().join("runs.db")).unwrap();
    let events = Arc::new(Collect::default());
    let call = Call {
        store: &store,
        approver: &NobodyToAsk,
        cancel: CancellationToken::new(),
    };
    let r = launch
        .run(&contract, &provider, events.clone(), None, call)
        .await
        .unwrap();
    let addr = launch.stub_addr().unwrap();
    let bytes = reqwest::get(format!("http://{addr}/__requests"))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let got: Vec<Value> = serde_json::from_slice(&bytes).unwrap();
    (dir, store, r, got, events)
}

/// A recorded request's body, parsed.
fn body(request: &Value) -> Value {
    serde_json::from_str(request["body"].as_str().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xai_runs_streamed_and_whole_on_its_recorded_answer() {
    let answer = final_response("xai/web-search-sources.chunks.jsonl");
    for stream in [false, true] {
        let toml = format!(
            "[providers.xai]\nstream = {stream}\n[web]\nsearch = true\nallowed_domains = [\"x.ai\"]"
        );
        let (_dir, store, r, got, _) = run(Vendor::Xai, &toml, vec![ok(&answer)]).await;
        assert!(r.outcome.passed(), "{r:?}");
        assert_eq!(r.answer, "**xAI**");
        // What xAI was sent: its path, the bearer key, its web_search tool.
        assert_eq!(got[0]["path"], "/xai/v1/responses");
        let sent = body(&got[0]);
        assert_eq!(sent["model"], "grok-4.3");
        assert_eq!(
            sent["tools"].as_array().unwrap().last().unwrap(),
            &serde_json::json!({"type": "web_search", "allowed_domains": ["x.ai"]})
        );
        assert_eq!(sent["stream"].as_bool().unwrap_or(false), stream);
        // Nine sources, each once, none titled with its own URL.
        let cites = store.citations(r.run_id).unwrap();
        assert_eq!(cites.len(), 9, "{cites:?}");
        assert!(cites.iter().all(|c| c.title.is_none()));
        // Two searches with the queries xAI filled in.
        let calls = store.server_tool_calls(r.run_id).unwrap();
        let queries: Vec<_> = calls.iter().map(|c| c.input.clone().unwrap()).collect();
        assert_eq!(
            queries,
            ["current title of https://x.ai site:x.ai", "https://x.ai"]
        );
        // xAI's own cost, 132,865,000 ticks, is the request's cost.
        let rows = store.provider_calls(r.run_id).unwrap();
        let usage = rows[0].usage.unwrap();
        assert_eq!(usage.reported_cost_micro_usd, Some(13_287));
        assert_eq!(usage.server_tool_requests, 2);
        let ledger = store
            .ledger(r.run_id, &io_harness::PriceTable::builtin())
            .unwrap();
        assert_eq!(ledger.total_micro_usd(), Some(13_287));
        assert_eq!(rows[0].provider, Vendor::Xai);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x_search_reaches_xai_with_its_handles_and_days() {
    let toml = "[web]\nx_search = true\nx_handles = { allow = [\"@xai\"] }\nx_dates = { from = \"2025-10-01\" }";
    let answer = fixture("xai/x-search.json");
    let (_dir, store, r, got, _) = run(Vendor::Xai, toml, vec![ok(&answer)]).await;
    assert!(r.outcome.passed(), "{r:?}");
    assert_eq!(
        body(&got[0])["tools"].as_array().unwrap().last().unwrap(),
        &serde_json::json!({"type": "x_search", "allowed_x_handles": ["xai"], "from_date": "2025-10-01"})
    );
    let calls = store.server_tool_calls(r.run_id).unwrap();
    assert_eq!(calls[0].tool, "x_semantic_search");
    assert_eq!(store.citations(r.run_id).unwrap().len(), 20);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perplexitys_agent_api_run_keeps_its_sources_and_what_was_cited() {
    let answer = fixture("perplexity/agent-web-search.json");
    for stream in [false, true] {
        let toml = format!("[providers.perplexity]\nstream = {stream}\n[web]\nsearch = true");
        let (_dir, store, r, got, _) = run(Vendor::Perplexity, &toml, vec![ok(&answer)]).await;
        assert!(r.outcome.passed(), "{r:?}");
        assert_eq!(got[0]["path"], "/perplexity/v1/agent");
        let sent = body(&got[0]);
        assert_eq!(sent["model"], "perplexity/sonar");
        assert!(sent["input"].is_string(), "{sent}");
        let cites = store.citations(r.run_id).unwrap();
        assert_eq!(cites.len(), 10);
        let cited: Vec<_> = cites.iter().filter(|c| c.cited_text.is_some()).collect();
        assert_eq!(cited.len(), 1);
        assert_eq!(cited[0].url, "https://www.typescriptlang.org/");
        let claims = store.claims(r.run_id).unwrap();
        assert_eq!(claims.len(), 1);
        assert_eq!(claims[0].claim.urls, ["https://www.typescriptlang.org/"]);
        let calls = store.server_tool_calls(r.run_id).unwrap();
        assert_eq!(calls[0].tool, "search_web");
        let usage = store.provider_calls(r.run_id).unwrap()[0].usage.unwrap();
        assert_eq!(usage.reported_cost_micro_usd, Some(1_190));
        assert_eq!(
            (usage.cache_write_tokens, usage.cache_read_tokens),
            (1224, 1780)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sonar_run_offers_no_local_tools_and_says_so() {
    let answer = fixture("perplexity/sonar-citations.json");
    let toml = "[providers.perplexity]\napi = \"sonar\"\nsearch_context_size = \"low\"\n[web]\nsearch = true";
    let sonar = ScriptedResponse {
        wire: Some(io_harness::Wire::PerplexitySonar),
        ..ok(&answer)
    };
    let (_dir, store, r, got, events) = run(Vendor::Perplexity, toml, vec![sonar]).await;
    assert!(r.outcome.passed(), "{r:?}");
    assert_eq!(got[0]["path"], "/perplexity/chat/completions");
    let sent = body(&got[0]);
    assert!(sent.get("tools").is_none(), "{sent}");
    assert_eq!(sent["model"], "sonar");
    assert_eq!(sent["web_search_options"]["search_context_size"], "low");
    let said = events.0.lock().unwrap().iter().find_map(|e| match &e.kind {
        EventKind::RunStarted { no_local_tools, .. } => Some(no_local_tools.clone()),
        _ => None,
    });
    assert_eq!(
        said,
        Some(Some("Sonar takes no function tools".to_string()))
    );
    // The run's plan records no tools offered.
    let plan = store.run_plan(r.run_id).unwrap().unwrap();
    assert!(plan.tools.is_empty(), "{plan:?}");
    assert_eq!(store.citations(r.run_id).unwrap().len(), 7);
}

/// A transcript's second request sends xAI's reasoning item back exactly as it
/// came, encrypted content and all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_turn_sends_xais_encrypted_reasoning_back() {
    let recorded: Value =
        serde_json::from_str(&final_response("xai/reasoning-encrypted.chunks.jsonl")).unwrap();
    let reasoning = recorded["output"][0].clone();
    assert!(reasoning["encrypted_content"].is_string());
    let mut first = recorded.clone();
    first["output"] = serde_json::json!([reasoning,
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "list_dir",
         "arguments": "{\"path\":\".\"}", "status": "completed"}]);
    let toml = "[run]\nconversation = \"transcript\"\n[providers.xai]\nstream = true";
    let (_dir, _store, r, got, _) = run(
        Vendor::Xai,
        toml,
        vec![ok(&first.to_string()), ok(&recorded.to_string())],
    )
    .await;
    assert!(r.outcome.passed(), "{r:?}");
    assert_eq!(got.len(), 2);
    let second = body(&got[1]);
    assert_eq!(second["store"], false);
    let input = second["input"].as_array().unwrap();
    assert_eq!(input[1], reasoning, "the reasoning item, as received");
    assert_eq!(input[2]["type"], "function_call");
    assert_eq!(input[3]["type"], "function_call_output");
}

#[test]
fn sonar_refuses_a_workspace_verified_task_before_anything_is_sent() {
    let dir = place();
    std::fs::write(
        dir.path().join("io.toml"),
        "provider = \"perplexity\"\n[providers.perplexity]\napi = \"sonar\"\n[task]\ngoal = \"Update the README\"\nverify_file = \"README.md\"\nverify_contains = \"0.22.0\"\n",
    )
    .unwrap();
    let want = "provider \"perplexity\" with api = \"sonar\" cannot run a task verified in the workspace — Sonar takes no function tools, so the model cannot write the file this task is verified by (README.md must contain \"0.22.0\"): it can only pass through a local tool; use `api = \"agent\"` in [providers.perplexity], or another provider. No request was sent.";
    for args in [&["preview"][..], &["run", "--demo"][..]] {
        let (code, out, err) = run_bin(at(dir.path()).args(args));
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
    }
}

#[test]
fn preview_and_the_demo_speak_both_vendors() {
    let dir = place();
    let (code, out, err) =
        run_bin(at(dir.path()).args(["preview", "--provider", "xai", "--goal", "g"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("POST https://api.x.ai/v1/responses\n"),
        "{out}"
    );
    assert!(out.contains("authorization: Bearer $XAI_API_KEY"), "{out}");
    let (code, out, err) =
        run_bin(at(dir.path()).args(["preview", "--provider", "perplexity", "--goal", "g"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("POST https://api.perplexity.ai/v1/agent\n"),
        "{out}"
    );
    assert!(
        out.contains("authorization: Bearer $PERPLEXITY_API_KEY"),
        "{out}"
    );
    for vendor in ["xai", "perplexity"] {
        let (code, out, err) =
            run_bin(at(dir.path()).args(["run", "--demo", "--provider", vendor]));
        assert_eq!(code, 0, "{vendor}: {err}");
        assert!(out.contains("0.22.0"), "{vendor}: {out}");
        assert!(
            err.contains(&format!("starting {vendor}")),
            "{vendor}: {err}"
        );
    }
    // Sonar in the demo: its header says it offers no local tools.
    std::fs::write(
        dir.path().join("io.toml"),
        "[providers.perplexity]\napi = \"sonar\"\n",
    )
    .unwrap();
    let (code, out, err) =
        run_bin(at(dir.path()).args(["run", "--demo", "--provider", "perplexity"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("0.22.0"), "{out}");
    assert!(
        err.contains("starting perplexity sonar: ")
            && err.contains("(no local tools: Sonar takes no function tools)"),
        "{err}"
    );
    let (code, out, _) =
        run_bin(at(dir.path()).args(["preview", "--provider", "perplexity", "--goal", "g"]));
    assert_eq!(code, 0);
    assert!(out.contains("\"model\":\"sonar\""), "{out}");
    assert!(!out.contains("\"tools\""), "{out}");
}

/// Traced under the GenAI registry's names: `x_ai`, `perplexity`.
#[cfg(feature = "otlp")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_are_traced_under_the_registrys_names() {
    use common::otlp::{Mode, Receiver, attr};
    for (vendor, name, model) in [
        (Vendor::Xai, "x_ai", "grok-4.3"),
        (Vendor::Perplexity, "perplexity", "perplexity/sonar"),
    ] {
        let rx = Receiver::start(Mode::Ok).await;
        let dir = tempfile::tempdir().unwrap();
        let text = format!(
            "provider = \"{vendor}\"\n[task]\nworkspace = {:?}\n[telemetry]\notlp_endpoint = {:?}\n",
            dir.path().display().to_string(),
            rx.base_url
        );
        let loaded = Loaded {
            config: Config::parse(&text, "io.toml").unwrap(),
            path: None,
        };
        let mut launch = Launch::resolve(&loaded, true);
        launch.start_stub().await.unwrap();
        launch.start_telemetry().unwrap();
        let contract = launch.plan().contract(|_| {});
        let provider = launch.provider(vendor, None, &launch.key()).unwrap();
        let store = Store::open(dir.path().join("runs.db")).unwrap();
        let call = Call {
            store: &store,
            approver: &NobodyToAsk,
            cancel: CancellationToken::new(),
        };
        let r = launch
            .run(
                &contract,
                &provider,
                Arc::new(io_harness::run::NoObserver),
                None,
                call,
            )
            .await
            .unwrap();
        assert!(r.outcome.passed(), "{r:?}");
        assert_eq!(launch.finish().await, None);
        let spans = rx.spans();
        let chat = spans
            .iter()
            .find(|s| s.name == format!("chat {model}"))
            .unwrap_or_else(|| panic!("no chat span for {model}"));
        assert_eq!(attr(chat, "gen_ai.provider.name").as_deref(), Some(name));
        assert_eq!(
            attr(chat, "io_harness.server_tool.searches").as_deref(),
            Some("1")
        );
    }
}

/// A new user needs nothing but io.toml's table and the key in the vendor's
/// variable: `[providers.xai]` or `[providers.perplexity]` (here pointed at the
/// stub, which stands in for the public host) and `XAI_API_KEY` or
/// `PERPLEXITY_API_KEY` set — the binary runs, sends the key as a bearer token
/// to the vendor's path; without the variable it is refused naming it, nothing
/// sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_in_the_vendors_variable_and_its_table_are_all_it_takes() {
    let stub = StubVendor::start("127.0.0.1:0".parse().unwrap(), Script::demo())
        .await
        .unwrap();
    for (vendor, key, path) in [
        (Vendor::Xai, "XAI_API_KEY", "/xai/v1/responses"),
        (
            Vendor::Perplexity,
            "PERPLEXITY_API_KEY",
            "/perplexity/v1/agent",
        ),
    ] {
        let dir = place();
        std::fs::write(
            dir.path().join("io.toml"),
            format!(
                "provider = \"{vendor}\"\n\n[providers.{vendor}]\nbase_url = \"{}\"\n",
                stub.base_url(vendor)
            ),
        )
        .unwrap();
        let goal = "Find the current io-harness release on crates.io and say which version it is.";
        let (code, _, err) = run_bin(at(dir.path()).args(["run", "--goal", goal]));
        assert_eq!(code, 2, "{vendor}: {err}");
        assert!(err.contains(key), "{vendor}: {err}");
        let before = stub.requests().len();
        let (code, out, err) = run_bin(
            at(dir.path())
                .args(["run", "--goal", goal])
                .env(key, "sk-new-user"),
        );
        assert_eq!(code, 0, "{vendor}: {err}");
        assert!(out.contains("0.22.0"), "{vendor}: {out}");
        let sent = stub.requests();
        let sent = &sent[before..];
        assert_eq!(sent.len(), 1, "{vendor}: {sent:?}");
        assert_eq!(sent[0].path, path, "{vendor}");
        assert!(
            sent[0]
                .headers
                .iter()
                .any(|(n, v)| n == "authorization" && v == "<redacted>"),
            "{vendor}: {:?}",
            sent[0].headers
        );
    }
}
