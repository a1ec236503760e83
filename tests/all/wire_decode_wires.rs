//! Decoding today's wires from recorded public responses (provenance in
//! tests/fixtures/README.md): OpenAI Responses (a real web search, and the same
//! body hand-edited to a failed `web_search_call`), OpenRouter server tools, and
//! what Anthropic's 2026 tool versions add (`caller`, new error codes).

#![allow(clippy::unwrap_used)]

use io_harness::core::vendor::{Vendor, Wire};
use io_harness::core::wire;
use io_harness::{Citation, Completion, ServerToolCall, StopReason, ToolCall, Usage, WireResponse};
use pretty_assertions::assert_eq;
use serde_json::json;

fn fixture(dir: &str, name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{dir}/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn decode(wire: Wire, status: u16, body: Vec<u8>) -> io_harness::Result<Completion> {
    wire::decode_wire(
        wire,
        &WireResponse {
            status,
            headers: vec![],
            body,
        },
    )
}

fn axios(path: &str, title: &str) -> Citation {
    Citation {
        url: format!(
            "https://www.axios.com/local/san-francisco/2025/03/{path}?utm_source=chatgpt.com"
        ),
        title: Some(title.into()),
        cited_text: None,
    }
}

#[test]
fn responses_recorded_web_search() {
    let c = decode(
        Wire::OpenAiResponses,
        200,
        fixture("openai", "responses-web-search.json"),
    )
    .unwrap();
    assert_eq!(c.provider.as_str(), "openai");
    assert!(c.text.starts_with("Last week in San Francisco"));
    assert_eq!(c.citations.len(), 5);
    assert_eq!(
        c.citations[..2],
        [
            axios(
                "07/bruce-lee-statue-sf-chinatown",
                "Bruce Lee statue to be installed in SF Chinatown"
            ),
            axios(
                "03/bay-area-office-leasing-activity",
                "The Bay Area is set to make an office leasing comeback"
            ),
        ]
    );
    assert_eq!(
        c.server_tools,
        [
            ServerToolCall::ok(Vendor::OpenAi, "web_search")
                .with_input("Vercel AI SDK next version features"),
            // A 2025 recording's second action has no query: not required here.
            ServerToolCall::ok(Vendor::OpenAi, "web_search"),
        ]
    );
    assert_eq!(c.stop, StopReason::EndTurn);
    assert_eq!(
        c.usage,
        Some(Usage {
            input_tokens: 327,
            output_tokens: 770,
            server_tool_requests: 0,
            ..Default::default()
        })
    );
    assert_eq!(c.model.as_deref(), Some("gpt-4o-2024-07-18"));
    assert_eq!(
        c.request_id.as_deref(),
        Some("resp_67cf2b2f6bd081909be2c8054ddef0eb")
    );
}

#[test]
fn responses_failed_web_search_call_hand_edited() {
    // The recorded body with the first item's status edited to "failed" (no public
    // recording of a failed call is known); labelled hand-edited in its file name.
    let c = decode(
        Wire::OpenAiResponses,
        200,
        fixture("openai", "responses-web-search-failed.hand-edited.json"),
    )
    .unwrap();
    assert_eq!(
        c.server_tools,
        [
            ServerToolCall::failed(Vendor::OpenAi, "web_search", "failed")
                .with_input("Vercel AI SDK next version features"),
            ServerToolCall::ok(Vendor::OpenAi, "web_search"),
        ]
    );
    assert_eq!(c.citations.len(), 5);
}

#[test]
fn responses_function_calls_incomplete_and_errors() {
    let body = json!({"id": "resp_1", "status": "incomplete", "model": "gpt-5.2",
        "incomplete_details": {"reason": "max_output_tokens"},
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read_file",
             "arguments": "{\"path\":\"README.md\"}", "status": "completed"}],
        "usage": {"input_tokens": 10, "output_tokens": 4}});
    let c = decode(
        Wire::OpenAiResponses,
        200,
        serde_json::to_vec(&body).unwrap(),
    )
    .unwrap();
    assert_eq!(
        c.tool_calls,
        [ToolCall {
            id: "call_1".into(),
            name: "read_file".into(),
            input: json!({"path": "README.md"})
        }]
    );
    assert_eq!(c.stop, StopReason::MaxTokens);
    let other = json!({"status": "incomplete", "incomplete_details": {"reason": "content_filter"}, "output": []});
    let c = decode(
        Wire::OpenAiResponses,
        200,
        serde_json::to_vec(&other).unwrap(),
    )
    .unwrap();
    assert_eq!(c.stop, StopReason::Other("content_filter".into()));
    let tool_use = json!({"status": "completed", "output": [
        {"type": "function_call", "call_id": "c", "name": "list_dir", "arguments": ""}]});
    let c = decode(
        Wire::OpenAiResponses,
        200,
        serde_json::to_vec(&tool_use).unwrap(),
    )
    .unwrap();
    assert_eq!(c.stop, StopReason::ToolUse);
    // The error body of a non-2xx, and an error object inside a 200 (status "failed").
    let err = decode(
        Wire::OpenAiResponses,
        400,
        fixture("openai", "error-unknown-parameter-400.json"),
    )
    .unwrap_err();
    assert_eq!(err.vendor().unwrap().status, 400);
    let failed = json!({"status": "failed", "output": [],
        "error": {"code": "server_error", "message": "The model failed to respond."}});
    let err = decode(
        Wire::OpenAiResponses,
        200,
        serde_json::to_vec(&failed).unwrap(),
    )
    .unwrap_err();
    let v = err.vendor().unwrap();
    assert_eq!(v.code.as_deref(), Some("server_error"));
    assert_eq!(v.message, "The model failed to respond.");
    // Under the status OpenAI gives its code, so it is retried as a 500 is.
    assert_eq!(v.status, 500, "{err}");
    assert!(err.is_retryable(), "{err}");
    // No output array: a decode error naming the vendor, not a panic or an empty answer.
    let err = decode(
        Wire::OpenAiResponses,
        200,
        b"{\"status\":\"completed\"}".to_vec(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("no output array"), "{err}");
}

#[test]
fn openrouter_server_tool_recorded_usage() {
    // Real: openrouter:web_search on openai/gpt-4.1-mini; no annotations key at all,
    // the counter under usage.server_tool_use_details.
    let c = decode(
        Wire::OpenRouterServerTools,
        200,
        fixture("openrouter", "server-tool-search.json"),
    )
    .unwrap();
    assert_eq!(c.text, "https://github.com/pydantic/pydantic-ai ");
    assert!(c.citations.is_empty());
    assert_eq!(
        c.server_tools,
        [ServerToolCall::ok(Vendor::OpenRouter, "web_search")]
    );
    assert_eq!(
        c.usage,
        Some(Usage {
            input_tokens: 8174,
            output_tokens: 30,
            server_tool_requests: 1,
            // OpenRouter's own figure for the request (`usage.cost` 0.0133176).
            reported_cost_micro_usd: Some(13_318),
            ..Default::default()
        })
    );
}

#[test]
fn openrouter_server_tools_annotations_and_errors_in_a_200() {
    let c = decode(
        Wire::OpenRouterServerTools,
        200,
        fixture("openrouter", "web-ok-docs-shape.json"),
    )
    .unwrap();
    assert!(!c.citations.is_empty());
    assert!(c.citations[0].cited_text.is_some());
    let err = decode(
        Wire::OpenRouterServerTools,
        200,
        br#"{"error":{"code":429,"message":"Rate limit exceeded","metadata":{"error_type":"rate_limit_exceeded"}}}"#.to_vec(),
    )
    .unwrap_err();
    assert_eq!(err.vendor().unwrap().status, 429);
}

#[test]
fn anthropic_2026_caller_and_new_error_codes() {
    // Constructed to the documented 2026 shapes: a call made from code execution
    // carries a `caller`; content_too_large (fetch) and request_too_large (search).
    let body = json!({"type": "message", "model": "claude-sonnet-4-5", "content": [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
         "input": {"query": "io-harness"}, "caller": {"type": "direct"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
         "content": {"type": "web_search_tool_result_error", "error_code": "request_too_large"}},
        {"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_fetch",
         "input": {"url": "https://docs.rs"},
         "caller": {"type": "code_execution_20260120", "tool_id": "srvtoolu_0"}},
        {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_2",
         "content": {"type": "web_fetch_tool_result_error", "error_code": "content_too_large"}},
        {"type": "text", "text": "Both failed."}],
        "stop_reason": "end_turn", "usage": {"input_tokens": 5, "output_tokens": 3}});
    let c = decode(Wire::Anthropic2026, 200, serde_json::to_vec(&body).unwrap()).unwrap();
    assert_eq!(
        c.server_tools,
        [
            ServerToolCall::failed(Vendor::Anthropic, "web_search", "request_too_large")
                .with_input("io-harness"),
            ServerToolCall::failed(Vendor::Anthropic, "web_fetch", "content_too_large")
                .with_input("https://docs.rs"),
        ]
    );
    assert_eq!(c.text, "Both failed.");
}
