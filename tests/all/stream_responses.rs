//! The OpenAI Responses wire, streamed. Recorded streams (vercel/ai's fixtures,
//! provenance in tests/fixtures/README.md) assemble the same however they are cut:
//! six searches announced live and closed with their queries, a function call, a
//! quota `error` event; every Responses body this project keeps, rendered as the
//! events OpenAI sends, reports its text, citations, searches and tool calls as
//! deltas that agree with the decoded answer; and a stream that stops short of
//! its terminal event is never a completion.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::stream::{assemble_on, recorded_the_same_however_cut, text_of};
use io_harness::core::vendor::{Vendor, Wire};
use io_harness::core::wire;
use io_harness::core::wire::stream::Delta;
use io_harness::core::wire::stream::render::render;
use io_harness::stub::Script;
use io_harness::{Completion, Error, ServerToolCall, StopReason, Usage, WireResponse};
use pretty_assertions::assert_eq;
use serde_json::json;

const WIRE: Wire = Wire::OpenAiResponses;

/// Every claim the deltas make agrees with the completion: the text, the
/// citations, the searches (each started before it returned, under the same
/// id), the local tool calls.
fn deltas_agree(name: &str, deltas: &[Delta], c: &Completion) {
    assert_eq!(text_of(deltas), c.text, "{name}: text");
    let cited: Vec<_> = deltas
        .iter()
        .filter_map(|d| match d {
            Delta::Citation(c) => Some(c.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(cited, c.citations, "{name}: citations");
    let mut started = Vec::new();
    let mut returned = Vec::new();
    for d in deltas {
        match d {
            Delta::ServerToolStarted { id, tool, .. } => {
                assert_eq!(tool, "web_search", "{name}");
                started.push(id.clone());
            }
            Delta::ServerToolReturned { id, call } => {
                assert!(
                    started.contains(id),
                    "{name}: {id} returned before it started"
                );
                returned.push(call.clone());
            }
            _ => {}
        }
    }
    assert_eq!(returned, c.server_tools, "{name}: searches");
    let calls: Vec<_> = deltas
        .iter()
        .filter_map(|d| match d {
            Delta::ToolCallRequested(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(calls, c.tool_calls, "{name}: tool calls");
}

#[test]
fn a_recorded_search_stream_announces_each_search_and_closes_it_with_its_query() {
    let (deltas, c) =
        recorded_the_same_however_cut(WIRE, "responses-stream-web-search.chunks.jsonl");
    deltas_agree("recorded search", &deltas, &c);
    assert_eq!(c.server_tools.len(), 6);
    assert!(c.server_tools.iter().all(ServerToolCall::succeeded));
    assert_eq!(
        c.server_tools[0].input.as_deref(),
        Some("tech news today December 5 2025")
    );
    // An `open_page` action names its page.
    assert!(
        c.server_tools[2]
            .input
            .as_deref()
            .is_some_and(|u| u.starts_with("https://techcrunch.com/2025/12/05/")),
        "{:?}",
        c.server_tools[2]
    );
    assert_eq!(c.citations.len(), 12);
    assert_eq!(c.stop, StopReason::EndTurn);
    assert_eq!(
        c.usage,
        Some(Usage {
            input_tokens: 31073 - 3712,
            cache_read_tokens: 3712,
            output_tokens: 4416,
            ..Usage::default()
        })
    );
    assert!(
        c.text.starts_with("I checked today’s tech headlines"),
        "{}",
        c.text
    );
    // The first search is announced (no query yet: OpenAI names it when done)
    // before any text, and the token count comes last.
    let first = deltas
        .iter()
        .position(|d| matches!(d, Delta::ServerToolStarted { .. }))
        .unwrap();
    let first_text = deltas
        .iter()
        .position(|d| matches!(d, Delta::Text(_)))
        .unwrap();
    assert!(first < first_text);
    assert!(matches!(
        &deltas[first],
        Delta::ServerToolStarted { input: None, .. }
    ));
    assert_eq!(deltas.last(), Some(&Delta::OutputTokens(4416)));
}

#[test]
fn a_recorded_function_call_stream_is_a_tool_call() {
    let (deltas, c) =
        recorded_the_same_however_cut(WIRE, "responses-stream-function-call-azure.chunks.jsonl");
    deltas_agree("recorded function call", &deltas, &c);
    assert_eq!(c.stop, StopReason::ToolUse);
    assert_eq!(c.tool_calls.len(), 1);
    assert_eq!(c.tool_calls[0].name, "weather");
    assert_eq!(c.tool_calls[0].id, "call_H5DxLSFnsGhiROnUiDHmgyc8");
    assert_eq!(c.tool_calls[0].input, json!({"location": "San Francisco"}));
    assert_eq!(
        c.usage.map(|u| (u.input_tokens, u.output_tokens)),
        Some((45, 24))
    );
}

#[test]
fn a_recorded_quota_error_event_ends_the_attempt_as_that_vendor_error() {
    let stream = common::stream::recorded(WIRE, "responses-stream-error-quota.chunks.jsonl");
    let (deltas, got) = assemble_on(WIRE, &stream, &[]);
    assert!(deltas.is_empty(), "{deltas:?}");
    let e = got.unwrap_err();
    let v = e
        .vendor()
        .unwrap_or_else(|| panic!("not a vendor error: {e}"));
    assert_eq!(v.error_type.as_deref(), Some("insufficient_quota"), "{e}");
    // The status OpenAI gives that code, not the stream's 200.
    assert_eq!(v.status, 429, "{e}");
    assert!(!e.is_retryable(), "a spent quota is not retried: {e}");
    assert!(
        e.to_string().contains("You exceeded your current quota"),
        "{e}"
    );
}

#[test]
fn a_failed_response_without_an_error_event_is_still_an_error() {
    let stream = concat!(
        "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_f\",\"status\":\"in_progress\",\"output\":[]}}\n\n",
        "event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":1,\"response\":{\"id\":\"resp_f\",\"status\":\"failed\",\"output\":[],",
        "\"error\":{\"code\":\"server_error\",\"message\":\"The model failed to generate a response.\"}}}\n\n",
    );
    let (_, got) = assemble_on(WIRE, stream.as_bytes(), &[]);
    let e = got.unwrap_err();
    assert!(e.vendor().is_some(), "{e}");
    assert!(e.to_string().contains("The model failed"), "{e}");
}

/// Every Responses body kept here: the recorded and hand-edited fixtures, the
/// demo's, and an incomplete one with multi-byte text.
fn bodies() -> Vec<(String, Vec<u8>)> {
    let dir = format!("{}/tests/fixtures/openai", env!("CARGO_MANIFEST_DIR"));
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("responses-") && n.ends_with(".json"))
        .map(|n| (n.clone(), std::fs::read(format!("{dir}/{n}")).unwrap()))
        .collect();
    for (i, r) in Script::demo().responses.iter().enumerate() {
        if r.wire == Some(WIRE) {
            out.push((format!("demo response {}", i + 1), r.body.clone()));
        }
    }
    let incomplete = json!({"id":"resp_u","object":"response","status":"incomplete","model":"gpt-5.2",
        "incomplete_details":{"reason":"max_output_tokens"},
        "output":[
            {"type":"web_search_call","id":"ws_u","status":"failed","action":{"type":"search","query":"東京 天気 🌤️"}},
            {"type":"message","id":"msg_u","status":"incomplete","role":"assistant","content":[
                {"type":"output_text","text":"Grüße aus Zürich — 東京の天気は晴れ 🌤️, naïve café","annotations":[
                    {"type":"url_citation","url":"https://例え.jp/天気","title":"天気 — 東京","start_index":0,"end_index":4}]}]},
            {"type":"function_call","id":"fc_u","call_id":"call_u","name":"write_file","status":"completed",
             "arguments":"{\"path\":\"ü.md\",\"content\":\"晴れ 🌤️\"}"}],
        "usage":{"input_tokens":12,"output_tokens":34}});
    out.push((
        "incomplete, unicode".into(),
        incomplete.to_string().into_bytes(),
    ));
    out
}

#[test]
fn every_responses_body_streams_deltas_that_agree_with_its_decode() {
    let bodies = bodies();
    assert!(
        bodies.len() >= 4,
        "{:?}",
        bodies.iter().map(|b| &b.0).collect::<Vec<_>>()
    );
    let mut searches = 0;
    for (name, body) in &bodies {
        let want = wire::decode_wire(
            WIRE,
            &WireResponse {
                status: 200,
                headers: common::stream::head().headers,
                body: body.clone(),
            },
        )
        .unwrap();
        let stream = render(WIRE, body).unwrap().concat().into_bytes();
        let (deltas, got) = assemble_on(WIRE, &stream, &[]);
        let got = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got, want, "{name}");
        deltas_agree(name, &deltas, &got);
        searches += got.server_tools.len();
        if name.starts_with("incomplete") {
            assert_eq!(got.stop, StopReason::MaxTokens);
            assert_eq!(
                got.server_tools,
                vec![
                    ServerToolCall::failed(Vendor::OpenAi, "web_search", "failed")
                        .with_input("東京 天気 🌤️")
                ]
            );
        }
    }
    assert!(searches >= 3, "{searches}");
}

#[test]
fn a_responses_stream_cut_before_its_terminal_event_is_a_retryable_transport_error() {
    let stream = common::stream::recorded(WIRE, "responses-stream-web-search.chunks.jsonl");
    let last = stream[..stream.len() - 2]
        .windows(2)
        .rposition(|w| w == b"\n\n")
        .unwrap();
    let (deltas, got) = assemble_on(WIRE, &stream[..last + 2], &[]);
    assert!(!deltas.is_empty());
    match got {
        Err(Error::Transport {
            retryable: true,
            message,
            ..
        }) => assert!(message.contains("response.completed"), "{message}"),
        other => panic!("{other:?}"),
    }
}

/// An `error` event (or a `response.failed`) mid-stream is the vendor error of the
/// status OpenAI gives its code, so it is retried exactly as that status would be:
/// `server_error` as a 500, `rate_limit_exceeded` as a 429; a bad image is a 400,
/// not retried.
#[test]
fn an_error_event_is_the_vendor_error_of_its_codes_status() {
    let cases = [
        ("server_error", 500, true),
        ("rate_limit_exceeded", 429, true),
        ("invalid_image", 400, false),
    ];
    for (code, status, retried) in cases {
        for stream in [
            format!(
                "event: error\ndata: {{\"type\":\"error\",\"code\":\"{code}\",\"message\":\"m\",\"param\":null,\"sequence_number\":1}}\n\n"
            ),
            format!(
                "event: response.failed\ndata: {{\"type\":\"response.failed\",\"sequence_number\":1,\"response\":{{\"id\":\"resp_f\",\"status\":\"failed\",\"output\":[],\"error\":{{\"code\":\"{code}\",\"message\":\"m\"}}}}}}\n\n"
            ),
        ] {
            let (_, got) = assemble_on(WIRE, stream.as_bytes(), &[]);
            let e = got.unwrap_err();
            let v = e.vendor().unwrap_or_else(|| panic!("{code}: {e}"));
            assert_eq!(
                (v.status, e.is_retryable()),
                (status, retried),
                "{code}: {e}"
            );
            assert_eq!(v.code.as_deref(), Some(code));
        }
    }
}
