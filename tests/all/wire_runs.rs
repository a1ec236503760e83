//! A run on each of today's wires, end to end: the loopback stub vendor over real
//! HTTP serving the wire's path and shape, a real SQLite file, and the rows and the
//! next request's observations checked; the Responses run once more streamed, to
//! the same rows, with the searches and the text reported as they arrive.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use io_harness::core::vendor::Vendor;
use io_harness::{EventKind, RunOutcome, ServerToolCall, WebAccess, Wire};
use pretty_assertions::assert_eq;

fn fixture_file(dir: &str, name: &str) -> String {
    let path = format!("{}/tests/fixtures/{dir}/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A Responses answer: one failed web_search_call and a local tool call.
const RESPONSES_FAILED_THEN_TOOL: &str = r#"{"id":"resp_1","object":"response","status":"completed","model":"gpt-5.2","output":[
 {"type":"web_search_call","id":"ws_1","status":"failed","action":{"type":"search","query":"io-harness release"}},
 {"type":"function_call","id":"fc_1","call_id":"call_1","name":"list_dir","arguments":"{\"path\":\".\"}","status":"completed"}],
 "usage":{"input_tokens":100,"output_tokens":12}}"#;

#[tokio::test]
async fn openai_responses_run_records_the_failed_search_tells_the_model_and_stores_citations() {
    let h = Harness::wire(
        Wire::OpenAiResponses,
        vec![
            ok(RESPONSES_FAILED_THEN_TOOL),
            ok(&fixture_file("openai", "responses-web-search.json")),
        ],
    )
    .await;
    let r = h
        .run(contract("what happened").with_web(WebAccess::search().max_uses(4).allow("axios.com")))
        .await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let requests = h.stub.requests();
    assert_eq!(
        requests.iter().map(|q| q.path.as_str()).collect::<Vec<_>>(),
        ["/v1/responses", "/v1/responses"]
    );
    let first = &h.bodies()[0];
    assert_eq!(first["max_tool_calls"], 4);
    let web = first["tools"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        web,
        serde_json::json!({"type": "web_search", "filters": {"allowed_domains": ["axios.com"]}})
    );
    // The failed search reached the model as the spec's observation.
    let second = h.bodies()[1]["input"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        second.contains("[step 1] provider web tool: web_search failed (failed)"),
        "{second}"
    );
    let calls = h.store.server_tool_calls(r.run_id).unwrap();
    assert_eq!(
        calls
            .iter()
            .map(|c| (c.step, c.tool.as_str(), c.error.as_deref()))
            .collect::<Vec<_>>(),
        [
            (1, "web_search", Some("failed")),
            (2, "web_search", None),
            (2, "web_search", None)
        ]
    );
    assert_eq!(h.store.citations(r.run_id).unwrap().len(), 5);
    let pc = h.store.provider_calls(r.run_id).unwrap();
    assert_eq!(pc.len(), 2);
    assert_eq!(pc[1].usage.unwrap().input_tokens, 327);
    assert!(h.events().contains(&io_harness::EventKind::ServerToolUsed {
        provider: Vendor::OpenAi,
        tool: "web_search".into(),
        ok: false,
        error: Some("failed".into()),
        input: Some("io-harness release".into()),
    }));
}

/// The same Responses run streamed: the same rows as the whole one, each search
/// reported live (started, then returned with its query and status), the text
/// and citations as they arrive, and every request asking for a stream.
#[tokio::test]
async fn openai_responses_run_streamed_records_what_the_whole_one_does() {
    let script = || {
        vec![
            ok(RESPONSES_FAILED_THEN_TOOL),
            ok(&fixture_file("openai", "responses-web-search.json")),
        ]
    };
    let web = || WebAccess::search().max_uses(4).allow("axios.com");
    let whole = Harness::wire(Wire::OpenAiResponses, script()).await;
    let w = whole.run(contract("what happened").with_web(web())).await;
    let live = Harness::wire(Wire::OpenAiResponses, script())
        .await
        .streamed(std::time::Duration::from_secs(5));
    let s = live.run(contract("what happened").with_web(web())).await;
    assert_eq!(
        (&w.outcome, &s.outcome),
        (&RunOutcome::Passed, &RunOutcome::Passed)
    );
    assert_eq!(live.recorded(s.run_id), whole.recorded(w.run_id));
    let bodies = live.bodies();
    assert!(bodies.iter().all(|b| b["stream"] == true), "{bodies:#?}");
    assert!(whole.bodies().iter().all(|b| b.get("stream").is_none()));
    // The requests the model saw are the same, `"stream": true` aside.
    let strip = |mut b: serde_json::Value| {
        b.as_object_mut().unwrap().remove("stream");
        b
    };
    assert_eq!(
        bodies.into_iter().map(strip).collect::<Vec<_>>(),
        whole.bodies()
    );
    let events = live.events();
    assert!(events.contains(&EventKind::ServerToolStarted {
        provider: Vendor::OpenAi,
        tool: "web_search".into(),
        id: "ws_1".into(),
        input: None,
    }));
    assert!(events.contains(&EventKind::ServerToolReturned {
        provider: Vendor::OpenAi,
        tool: "web_search".into(),
        id: "ws_1".into(),
        ok: false,
        error: Some("failed".into()),
        input: Some("io-harness release".into()),
    }));
    let count = |want: fn(&EventKind) -> bool| events.iter().filter(|k| want(k)).count();
    assert!(count(|k| matches!(k, EventKind::TextDelta { .. })) > 1);
    assert_eq!(
        count(|k| matches!(k, EventKind::CitationReceived { .. })),
        5
    );
    assert_eq!(
        count(|k| matches!(k, EventKind::ToolCallRequested { .. })),
        1
    );
    let whole_events = whole.events();
    assert!(
        !whole_events
            .iter()
            .any(|k| matches!(k, EventKind::TextDelta { .. }))
    );
}

/// A `server_error` event in the middle of a Responses stream ends that attempt
/// as a 500 would and the run retries it (attempt 2 visible); nothing of the cut
/// attempt is recorded.
#[tokio::test]
async fn a_responses_stream_error_event_is_retried_like_a_500() {
    let cut = "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_x\",\"status\":\"in_progress\",\"output\":[]}}\n\n\
               event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"item_id\":\"msg_x\",\"output_index\":0,\"content_index\":0,\"delta\":\"half an ans\"}\n\n\
               event: error\ndata: {\"type\":\"error\",\"sequence_number\":2,\"code\":\"server_error\",\"message\":\"The server had an error while processing your request.\",\"param\":null}\n\n";
    let raw = io_harness::stub::ScriptedResponse {
        stream: io_harness::stub::StreamScript {
            raw: true,
            ..Default::default()
        },
        ..ok(cut)
    };
    let h = Harness::wire(
        Wire::OpenAiResponses,
        vec![
            raw,
            ok(&fixture_file("openai", "responses-web-search.json")),
        ],
    )
    .await
    .streamed(std::time::Duration::from_secs(5));
    let r = h.run(contract("what happened")).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let events = h.events();
    let retried = events.iter().find_map(|k| match k {
        EventKind::Retrying { status, reason, .. } => Some((*status, reason.clone())),
        _ => None,
    });
    let (status, reason) = retried.expect("a retry");
    assert_eq!(status, Some(500), "{reason}");
    assert!(reason.contains("The server had an error"), "{reason}");
    assert!(events.contains(&EventKind::RequestSent { attempt: 2 }));
    let calls = h.store.provider_calls(r.run_id).unwrap();
    assert_eq!(calls.len(), 1, "only the completed attempt is recorded");
}

#[tokio::test]
async fn openrouter_server_tools_run_records_the_search() {
    let h = Harness::wire(
        Wire::OpenRouterServerTools,
        vec![ok(&fixture_file("openrouter", "server-tool-search.json"))],
    )
    .await;
    let r = h
        .run(
            contract("find the repo").with_web(
                WebAccess::search()
                    .with_fetch()
                    .max_uses(1)
                    .block("evil.test"),
            ),
        )
        .await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    assert_eq!(h.stub.requests()[0].path, "/api/v1/chat/completions");
    let tools = h.bodies()[0]["tools"].clone();
    let web: Vec<_> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["type"].as_str().unwrap().starts_with("openrouter:"))
        .cloned()
        .collect();
    assert_eq!(
        web,
        [
            serde_json::json!({"type": "openrouter:web_search", "parameters": {"max_uses": 1, "excluded_domains": ["evil.test"]}}),
            serde_json::json!({"type": "openrouter:web_fetch", "parameters": {"max_uses": 1, "blocked_domains": ["evil.test"]}}),
        ]
    );
    let calls = h.store.server_tool_calls(r.run_id).unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        ServerToolCall::ok(calls[0].provider, calls[0].tool.clone()),
        ServerToolCall::ok(Vendor::OpenRouter, "web_search")
    );
    let pc = h.store.provider_calls(r.run_id).unwrap();
    assert_eq!(pc[0].usage.unwrap().server_tool_requests, 1);
}

#[tokio::test]
async fn anthropic_2026_run_sends_the_current_tools_without_the_beta_header() {
    let body = r#"{"type":"message","model":"claude-sonnet-4-5","content":[
 {"type":"server_tool_use","id":"srvtoolu_1","name":"web_fetch","input":{"url":"https://docs.rs"},"caller":{"type":"direct"}},
 {"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"web_fetch_tool_result_error","error_code":"content_too_large"}},
 {"type":"text","text":"The page was too large."}],
 "stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":5,"server_tool_use":{"web_fetch_requests":1}}}"#;
    let h = Harness::wire(Wire::Anthropic2026, vec![ok(body)]).await;
    let r = h
        .run(contract("read docs.rs").with_web(WebAccess::default().with_fetch()))
        .await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let req = &h.stub.requests()[0];
    assert!(
        req.headers.iter().all(|(n, _)| n != "anthropic-beta"),
        "{:?}",
        req.headers
    );
    let tools = h.bodies()[0]["tools"].clone();
    assert_eq!(
        tools.as_array().unwrap().last().unwrap(),
        &serde_json::json!({"type": "web_fetch_20260318", "name": "web_fetch", "allowed_callers": ["direct"]})
    );
    let calls = h.store.server_tool_calls(r.run_id).unwrap();
    assert_eq!(calls[0].error.as_deref(), Some("content_too_large"));
}
