//! Gemini through the whole run, on the loopback stub speaking its wire: what a
//! grounded answer leaves in the store (its redirect links as sent, the search
//! suggestions Google asks to be shown), how Sources shows them, and the faults —
//! a 429 RESOURCE_EXHAUSTED retried, a stream cut mid-event retried, a SAFETY
//! finish with no content a refusal, grounding with no text, a support naming a
//! chunk that does not exist — each a clear outcome with nothing lost.

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;

use common::{ok, status};
use io_harness::config::Loaded;
use io_harness::console::testing::{Effect, Msg, update};
use io_harness::run::NoObserver;
use io_harness::stub::{Script, ScriptedResponse, StubVendor};
use io_harness::{Call, Config, Launch, NobodyToAsk, RunResult, Store, Vendor};
use tokio_util::sync::CancellationToken;

const GROUNDED: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"It is 0.22.0."}]},"finishReason":"STOP",
 "groundingMetadata":{"webSearchQueries":["io-harness version"],
  "searchEntryPoint":{"renderedContent":"<div><a class=\"chip\" href=\"https://www.google.com/search?q=io-harness+version&amp;client=app\">io-harness version</a></div>"},
  "groundingChunks":[{"web":{"uri":"https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ1","title":"crates.io"}}],
  "groundingSupports":[{"segment":{"startIndex":0,"endIndex":13,"text":"It is 0.22.0."},"groundingChunkIndices":[0,7]}]}}],
 "usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":6,"totalTokenCount":106},"modelVersion":"gemini-3.5-flash"}"#;

/// A Gemini answer; `stream` picks `:streamGenerateContent` (the stub renders
/// the body as Google's chunks) or `:generateContent`.
fn gemini(r: ScriptedResponse) -> ScriptedResponse {
    ScriptedResponse {
        vendor: Some(Vendor::Gemini),
        ..r
    }
}

/// A run of the io.toml's task on Gemini against a stub answering `responses`;
/// the store (and the folder it lives in), the result, and how many requests
/// were recorded.
async fn run(
    responses: Vec<ScriptedResponse>,
    stream: bool,
) -> (tempfile::TempDir, Store, RunResult, usize) {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "provider = \"gemini\"\n[providers.gemini]\nstream = {stream}\n[task]\ngoal = \"Which version?\"\nworkspace = {:?}\n[web]\nsearch = true\n",
        dir.path().display().to_string()
    );
    let loaded = Loaded {
        config: Config::parse(&text, "io.toml").unwrap(),
        path: None,
    };
    let script = Script {
        responses: responses.into_iter().map(gemini).collect(),
        repeat: false,
        emulate_usage: false,
    };
    let stub = StubVendor::start("127.0.0.1:0".parse().unwrap(), script)
        .await
        .unwrap();
    let mut launch = Launch::resolve(&loaded, false);
    launch.serve_with(stub);
    let contract = launch.plan().contract(|_| {});
    let provider = launch
        .provider(Vendor::Gemini, None, &launch.key())
        .unwrap();
    let store = Store::open(dir.path().join("runs.db")).unwrap();
    let call = Call {
        store: &store,
        approver: &NobodyToAsk,
        cancel: CancellationToken::new(),
    };
    let r = launch
        .run(&contract, &provider, Arc::new(NoObserver), None, call)
        .await
        .unwrap();
    let calls = store.provider_calls(r.run_id).unwrap().len();
    (dir, store, r, calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grounded_answer_keeps_its_redirects_and_its_search_suggestions() {
    for stream in [false, true] {
        let (_dir, store, r, _) = run(vec![ok(GROUNDED)], stream).await;
        assert!(r.outcome.passed(), "{r:?}");
        let cites = store.citations(r.run_id).unwrap();
        // The link as Google sent it, its title (the domain) kept; the support's
        // index 7 names no chunk and is passed over.
        assert_eq!(cites.len(), 1, "{cites:?}");
        assert_eq!(
            cites[0].url,
            "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ1"
        );
        assert_eq!(cites[0].title.as_deref(), Some("crates.io"));
        assert_eq!(cites[0].cited_text.as_deref(), Some("It is 0.22.0."));
        let suggestions = store.search_suggestions(r.run_id).unwrap();
        assert_eq!(suggestions.len(), 1);
        assert_eq!(suggestions[0].query, "io-harness version");
        assert_eq!(
            suggestions[0].url,
            "https://www.google.com/search?q=io-harness+version&client=app"
        );
        let calls = store.server_tool_calls(r.run_id).unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].input.as_deref(), Some("io-harness version"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sources_shows_the_redirect_honestly_and_o_opens_a_suggestion() {
    let (_dir, store, r, _) = run(vec![ok(GROUNDED)], true).await;
    let mut s = common::console::state();
    update(
        &mut s,
        common::console::key(crossterm::event::KeyCode::F(4)),
    );
    update(&mut s, Msg::Runs(store.runs(Some(10)).unwrap()));
    update(
        &mut s,
        Msg::RunSources {
            citations: store.citations(r.run_id).unwrap(),
            calls: store.server_tool_calls(r.run_id).unwrap(),
            checks: vec![],
            suggestions: store.search_suggestions(r.run_id).unwrap(),
        },
    );
    let shown = common::console::screen(&s, 120, 30);
    assert!(
        shown.contains("crates.io · via Google redirect (vertexaisearch.cloud.google.com)"),
        "{shown}"
    );
    assert!(shown.contains("Google Search suggestions"), "{shown}");
    assert!(
        shown.contains("io-harness version · https://www.google.com/search?q="),
        "{shown}"
    );
    // Into the list, past the one citation, onto the suggestion: o opens it.
    update(&mut s, common::console::key(crossterm::event::KeyCode::Tab));
    update(
        &mut s,
        common::console::key(crossterm::event::KeyCode::Down),
    );
    let effects = update(
        &mut s,
        common::console::key(crossterm::event::KeyCode::Char('o')),
    );
    assert_eq!(
        effects,
        vec![Effect::Open(
            "https://www.google.com/search?q=io-harness+version&client=app".into()
        )]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_resource_exhausted_is_retried_and_nothing_is_lost() {
    let exhausted = std::fs::read_to_string(format!(
        "{}/tests/fixtures/gemini/error_429_resource_exhausted.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    // Google asks for 58 s; the stub's retry-after header asks for 0 s, which the
    // transport takes over the body's hint.
    let busy = status(429, &exhausted, &[("retry-after", "0")]);
    let (_dir, store, r, calls) = run(vec![busy, ok(GROUNDED)], false).await;
    assert!(r.outcome.passed(), "{r:?}");
    assert_eq!(calls, 1, "one answered request is recorded");
    assert_eq!(store.citations(r.run_id).unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_cut_mid_event_is_retried() {
    let cut = ScriptedResponse {
        stream: io_harness::stub::StreamScript {
            reset_after: Some(1),
            ..Default::default()
        },
        ..ok(GROUNDED)
    };
    let (_dir, store, r, _) = run(vec![cut, ok(GROUNDED)], true).await;
    assert!(r.outcome.passed(), "{r:?}");
    assert_eq!(store.citations(r.run_id).unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_safety_finish_with_no_content_is_a_refusal() {
    let body = std::fs::read_to_string(format!(
        "{}/tests/fixtures/gemini/safety_no_content.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    for stream in [false, true] {
        let (_dir, store, r, calls) = run(vec![ok(&body)], stream).await;
        assert_eq!(r.outcome.label(), "refused", "{r:?}");
        assert!(!r.outcome.passed());
        assert_eq!(calls, 1, "the refused request is recorded");
        let row = &store.provider_calls(r.run_id).unwrap()[0];
        assert_eq!(row.finish_reason.as_deref(), Some("SAFETY"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grounding_with_no_text_ends_the_run_with_its_sources_kept() {
    let body = r#"{"candidates":[{"content":{"role":"model","parts":[]},"finishReason":"STOP",
 "groundingMetadata":{"webSearchQueries":["q"],"groundingChunks":[{"web":{"uri":"https://docs.rs/a","title":"docs.rs"}}]}}],
 "usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":0,"totalTokenCount":10}}"#;
    let (_dir, store, r, _) = run(vec![ok(body)], false).await;
    assert!(r.outcome.passed(), "{r:?}");
    assert_eq!(r.answer, "");
    assert_eq!(
        store.citations(r.run_id).unwrap()[0].url,
        "https://docs.rs/a"
    );
}
