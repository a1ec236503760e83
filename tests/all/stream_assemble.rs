//! The streamed path yields what the whole-body path yields. For every response
//! fixture under tests/fixtures (and every body of the demo script), its SSE
//! rendering, fed in chunks cut at byte boundaries — every single cut for small
//! streams, one byte at a time (so inside every UTF-8 character and every event),
//! and many random cuts — assembles to exactly the `Completion` the body decodes
//! to; and no prefix of a stream is ever a completion. Real recorded streams
//! (tests/fixtures/*/…chunks.jsonl, provenance in tests/fixtures/README.md)
//! assemble the same however they are cut, to what they say.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::stream::{
    Rng, assemble, assemble_on, head, recorded_the_same_however_cut, streamable, text_of,
};

use io_harness::core::vendor::Vendor;
use io_harness::core::vendor::Wire;
use io_harness::core::wire;
use io_harness::core::wire::stream::render::render;
use io_harness::core::wire::stream::{Delta, streams};
use io_harness::stub::Script;
use io_harness::{Error, ServerToolCall, StopReason, Usage, WireResponse};
use pretty_assertions::assert_eq;

/// Every 2xx response body kept as a fixture, with its wire.
/// The wire a fixture answers on: its name says so for the non-spec wires.
fn wire_of(vendor: Vendor, name: &str) -> Wire {
    match (vendor, name) {
        (Vendor::OpenAi, n) if n.starts_with("responses-") => Wire::OpenAiResponses,
        (Vendor::OpenRouter, n) if n.starts_with("server-tool") => Wire::OpenRouterServerTools,
        (Vendor::Perplexity, n) if n.starts_with("sonar-") => Wire::PerplexitySonar,
        _ => Wire::spec(vendor),
    }
}

pub(crate) fn response_fixtures() -> Vec<(String, Wire, Vec<u8>)> {
    let mut out = Vec::new();
    for vendor in Vendor::ALL {
        let dir = format!("{}/tests/fixtures/{vendor}", env!("CARGO_MANIFEST_DIR"));
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| {
                // Requests and error bodies are not answers (Gemini's recordings
                // are named `error_…`, `…_request.json`).
                n.ends_with(".json")
                    && !n.starts_with("request-")
                    && !n.contains("error")
                    && !n.contains("request")
            })
            .collect();
        names.sort();
        for name in names {
            let body = std::fs::read(format!("{dir}/{name}")).unwrap();
            let wire = wire_of(vendor, &name);
            // Wires this crate does not stream ask for no stream (see `streams`).
            if streams(wire) {
                out.push((format!("{vendor}/{name}"), wire, body));
            }
        }
    }
    for (i, r) in Script::demo().responses.iter().enumerate() {
        let wire = r
            .wire
            .unwrap_or_else(|| Wire::spec(r.vendor.unwrap_or(Vendor::Anthropic)));
        if streams(wire) {
            out.push((format!("demo response {}", i + 1), wire, r.body.clone()));
        }
    }
    // Bodies written here (not recorded) so every wire carries text with
    // multi-byte characters, a tool call and a citation.
    out.extend(unicode_bodies());
    out
}

const WORDS: &str =
    "Grüße aus Zürich — 東京の天気は晴れ 🌤️, naïve café, Ελληνικά, emoji 🚀🦀 and plain ASCII.";

fn unicode_bodies() -> Vec<(String, Wire, Vec<u8>)> {
    let anthropic = serde_json::json!({"id":"msg_u","type":"message","role":"assistant","model":"m",
        "content":[{"type":"text","text": WORDS},
                   {"type":"server_tool_use","id":"srvtoolu_u","name":"web_search","input":{"query": "東京 天気 🌤️"}},
                   {"type":"web_search_tool_result","tool_use_id":"srvtoolu_u","content":[{"type":"web_search_result","url":"https://例え.jp/天気","title":"天気 — 東京"}]},
                   {"type":"text","text": WORDS, "citations":[{"type":"web_search_result_location","url":"https://例え.jp/天気","title":"天気 — 東京","cited_text":"晴れ 🌤️"}]},
                   {"type":"tool_use","id":"toolu_u","name":"write_file","input":{"path":"notes/ü.md","content": WORDS}}],
        "stop_reason":"tool_use","usage":{"input_tokens":12,"output_tokens":34,"server_tool_use":{"web_search_requests":1}}});
    let chat = |vendor: &str| {
        serde_json::json!({"id":"chatcmpl-u","object":"chat.completion","model":"m",
        "choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content": WORDS,
            "tool_calls":[{"id":"call_u","type":"function","function":{"name":"write_file","arguments": serde_json::json!({"path":"ü.md","content":WORDS}).to_string()}}],
            "annotations":[{"type":"url_citation","url_citation":{"url":"https://例え.jp/天気","title":"天気 — 東京","content":"晴れ 🌤️","start_index":0,"end_index":3}}]}}],
        "usage":{"prompt_tokens":5,"completion_tokens":6,"total_tokens":11, "server_tool_use": {"web_search_requests": u64::from(vendor == "openrouter")}}})
    };
    let xai = serde_json::json!({"id":"xai-u","object":"response","model":"grok-4.3","status":"completed",
        "output":[{"id":"ws_u","type":"web_search_call","status":"completed","action":{"type":"search","query":"東京 天気 🌤️","sources":[]}},
                  {"id":"fc_u","type":"function_call","call_id":"call_u","name":"write_file","status":"completed",
                   "arguments": serde_json::json!({"path":"ü.md","content":WORDS}).to_string()},
                  {"id":"msg_u","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":WORDS,"logprobs":[],
                   "annotations":[{"type":"url_citation","url":"https://例え.jp/天気","start_index":0,"end_index":5,"title":"天気 — 東京"}]}]}],
        "usage":{"input_tokens":5,"output_tokens":6,"cost_in_usd_ticks":12345,"server_side_tool_usage_details":{"web_search_calls":1}}});
    let agent = serde_json::json!({"id":"resp_u","object":"response","model":"perplexity/sonar","status":"completed",
        "output":[{"type":"search_results","queries":["東京 天気 🌤️"],"results":[{"id":1,"url":"https://例え.jp/天気","title":"天気 — 東京","snippet":"晴れ 🌤️"}]},
                  {"type":"function_call","id":"fc_u","call_id":"call_u","name":"write_file","status":"completed",
                   "arguments": serde_json::json!({"path":"ü.md","content":WORDS}).to_string()},
                  {"type":"message","id":"msg_u","role":"assistant","status":"completed","content":[{"type":"output_text","text":format!("{WORDS}[1]"),"annotations":[]}]}],
        "usage":{"input_tokens":5,"output_tokens":6,"cost":{"total_cost":0.0051},"tool_calls_details":{"search_web":{"invocation":1}}}});
    let sonar = serde_json::json!({"id":"sonar-u","model":"sonar","object":"chat.completion","citations":["https://例え.jp/天気"],
        "search_results":[{"url":"https://例え.jp/天気","title":"天気 — 東京"}],
        "choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":format!("<think>晴れ?</think>{WORDS}[1]")}}],
        "usage":{"prompt_tokens":5,"completion_tokens":6,"total_tokens":11,"cost":{"total_cost":0.00501}}});
    vec![
        (
            "unicode (xai)".into(),
            Wire::Xai,
            xai.to_string().into_bytes(),
        ),
        (
            "unicode (perplexity agent)".into(),
            Wire::PerplexityAgent,
            agent.to_string().into_bytes(),
        ),
        (
            "unicode (perplexity sonar)".into(),
            Wire::PerplexitySonar,
            sonar.to_string().into_bytes(),
        ),
        (
            "unicode (anthropic)".into(),
            Wire::Anthropic2026,
            anthropic.to_string().into_bytes(),
        ),
        (
            "unicode (openai)".into(),
            Wire::OpenAiChat,
            chat("openai").to_string().into_bytes(),
        ),
        (
            "unicode (openrouter)".into(),
            Wire::OpenRouterPlugin,
            chat("openrouter").to_string().into_bytes(),
        ),
    ]
}

#[test]
fn every_fixture_assembles_to_what_its_body_decodes_to_however_it_is_cut() {
    let fixtures = response_fixtures();
    let per_wire: Vec<Wire> = fixtures.iter().map(|f| f.1).collect();
    for w in Wire::ALL.into_iter().filter(|w| streams(*w)) {
        assert!(
            per_wire.contains(&w),
            "no response fixture for {}",
            w.label()
        );
    }
    let mut split_chars = 0;
    for (name, wire, body) in &fixtures {
        let want = wire::decode_wire(
            *wire,
            &WireResponse {
                status: 200,
                headers: head().headers,
                body: body.clone(),
            },
        )
        .unwrap();
        let stream = render(*wire, body).unwrap().concat().into_bytes();
        let check = |cuts: &[usize], how: &str| {
            let (_, got) = assemble_on(*wire, &stream, cuts);
            match got {
                Ok(got) => assert_eq!(streamable(got), streamable(want.clone()), "{name}, {how}"),
                Err(e) => panic!("{name}, {how}: {e}"),
            }
        };
        check(&[], "in one piece");
        let bytes: Vec<usize> = (1..stream.len()).collect();
        check(&bytes, "one byte at a time");
        split_chars += stream.iter().filter(|b| (0x80..0xC0).contains(*b)).count();
        if stream.len() <= 2_500 {
            for cut in 1..stream.len() {
                check(&[cut], &format!("cut once at byte {cut}"));
            }
        }
        for seed in 0..32u64 {
            let mut rng = Rng(seed);
            let cuts = rng.cuts(stream.len(), 1 + seed * 7);
            check(&cuts, &format!("random cuts, seed {seed}"));
        }
    }
    // Feeding byte by byte cut inside this many multi-byte characters.
    assert!(
        split_chars > 50,
        "the fixtures need non-ASCII text: {split_chars}"
    );
}

#[test]
fn no_prefix_of_a_stream_is_a_completion() {
    for (name, wire, body) in response_fixtures() {
        let stream = render(wire, &body).unwrap().concat().into_bytes();
        // xAI's stream is complete on `response.completed`; the `[DONE]` its API
        // reference sends after it is read where it comes, not waited for.
        let done = if wire == Wire::Xai {
            "data: [DONE]\n\n".len()
        } else {
            0
        };
        let needed = stream.len() - done;
        let step = (needed / 200).max(1);
        for end in (0..needed).step_by(step).chain([needed - 1]) {
            let (_, got) = assemble_on(wire, &stream[..end], &[]);
            match got {
                Err(Error::Transport {
                    retryable: true,
                    message,
                    ..
                }) => {
                    assert!(
                        message.contains("the stream ended before"),
                        "{name} at {end}: {message}"
                    )
                }
                other => panic!("{name}: a prefix of {end} bytes gave {other:?}"),
            }
        }
    }
}

#[test]
fn a_recorded_anthropic_search_stream_assembles_with_the_final_counts() {
    let (deltas, c) =
        recorded_the_same_however_cut(Wire::Anthropic2025, "stream-web-search.chunks.jsonl");
    assert_eq!(
        c.server_tools,
        vec![
            ServerToolCall::ok(Vendor::Anthropic, "web_search")
                .with_input("tech news today September 26 2025")
        ]
    );
    assert_eq!(c.stop, StopReason::EndTurn);
    // message_start said 2037 input tokens; the last message_delta says 15665.
    assert_eq!(
        c.usage,
        Some(Usage {
            input_tokens: 15665,
            output_tokens: 795,
            server_tool_requests: 1,
            ..Default::default()
        })
    );
    assert!(c.citations.len() > 3, "{:?}", c.citations);
    assert!(
        c.text.starts_with("Based on my search results"),
        "{}",
        c.text
    );
    // The search is announced, with its query, before its result and before any text.
    let first = deltas
        .iter()
        .position(|d| !matches!(d, Delta::OutputTokens(_)))
        .unwrap();
    assert_eq!(
        deltas[first],
        Delta::ServerToolStarted {
            id: "srvtoolu_01Bj5uzzLcYG5hfueSLcDH8k".into(),
            tool: "web_search".into(),
            input: Some("tech news today September 26 2025".into()),
        }
    );
    assert!(
        matches!(&deltas[first + 1], Delta::ServerToolReturned { call, .. } if call.succeeded())
    );
    assert_eq!(text_of(&deltas), c.text);
}

#[test]
fn a_recorded_anthropic_fetch_stream_with_pings_assembles() {
    let (_, c) =
        recorded_the_same_however_cut(Wire::Anthropic2025, "stream-web-fetch.chunks.jsonl");
    assert_eq!(
        c.server_tools,
        vec![
            ServerToolCall::ok(Vendor::Anthropic, "web_fetch")
                .with_input("https://en.wikipedia.org/wiki/Maglemosian_culture")
        ]
    );
    assert!(c.text.contains("Maglemosian"), "{}", c.text);
}

#[test]
fn recorded_chat_completions_streams_assemble() {
    let (_, c) = recorded_the_same_however_cut(Wire::OpenAiChat, "stream-text.chunks.jsonl");
    assert_eq!(c.stop, StopReason::EndTurn);
    assert_eq!(
        c.usage,
        Some(Usage {
            input_tokens: 16,
            output_tokens: 300,
            server_tool_requests: 0,
            ..Default::default()
        })
    );
    assert!(
        c.text.starts_with("**Holiday Name:** Harmony Day"),
        "{}",
        c.text
    );
    let (deltas, c) =
        recorded_the_same_however_cut(Wire::OpenAiChat, "stream-tool-call-deepseek.chunks.jsonl");
    assert_eq!(c.stop, StopReason::ToolUse);
    assert_eq!(c.tool_calls.len(), 1);
    assert_eq!(c.tool_calls[0].input["location"], "San Francisco");
    assert!(deltas.contains(&Delta::ToolCallRequested(c.tool_calls[0].clone())));
}

#[test]
fn a_demo_search_turn_reports_its_deltas_in_order() {
    let body = &Script::demo().responses[0].body;
    let stream = render(Wire::Anthropic2025, body)
        .unwrap()
        .concat()
        .into_bytes();
    let (deltas, _) = assemble(Vendor::Anthropic, &stream, &[]);
    let kinds: Vec<&str> = deltas
        .iter()
        .map(|d| match d {
            Delta::Text(_) => "text",
            Delta::ServerToolStarted { .. } => "server-tool-started",
            Delta::ServerToolReturned { .. } => "server-tool-returned",
            Delta::Citation(_) => "citation",
            Delta::ToolCallRequested(_) => "tool-call",
            Delta::OutputTokens(_) => "tokens",
        })
        .fold(Vec::new(), |mut v, k| {
            if v.last() != Some(&k) {
                v.push(k);
            }
            v
        });
    assert_eq!(
        kinds,
        vec![
            "text",
            "server-tool-started",
            "server-tool-returned",
            "citation",
            "text",
            "citation",
            "text",
            "tool-call",
            "tokens"
        ]
    );
}

#[test]
fn an_error_event_mid_stream_is_the_vendor_error_of_its_status() {
    let stream = b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let (_, got) = assemble(Vendor::Anthropic, stream, &[]);
    let e = got.unwrap_err();
    let v = e.vendor().unwrap();
    assert_eq!(
        (v.status, v.error_type.as_deref()),
        (529, Some("overloaded_error"))
    );
    assert!(e.is_retryable());
}

#[test]
fn an_openrouter_error_chunk_is_a_vendor_error_of_its_code() {
    let stream = b": OPENROUTER PROCESSING\n\ndata: {\"id\":\"gen-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}\n\ndata: {\"id\":\"gen-1\",\"object\":\"chat.completion.chunk\",\"error\":{\"code\":502,\"message\":\"Provider returned error\",\"metadata\":{\"error_type\":\"provider_unavailable\"}},\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"error\"}]}\n\n";
    let (deltas, got) = assemble(Vendor::OpenRouter, stream, &[]);
    assert_eq!(deltas, vec![Delta::Text("Hel".into())]);
    let e = got.unwrap_err();
    let v = e.vendor().unwrap();
    assert_eq!(
        (v.status, v.error_type.as_deref()),
        (502, Some("provider_unavailable"))
    );
    assert!(e.is_retryable());
}

#[test]
fn the_demo_holds_its_streams_right_after_a_search_query_is_complete() {
    let demo = Script::demo();
    let paused: Vec<_> = demo
        .responses
        .iter()
        .filter(|r| r.stream.pause_after.is_some())
        .collect();
    assert!(!paused.is_empty());
    for r in paused {
        let vendor = r.vendor.unwrap_or(Vendor::Anthropic);
        let wire = r.wire.unwrap_or_else(|| Wire::spec(vendor));
        let frames = render(wire, &r.body).unwrap();
        let n = r.stream.pause_after.unwrap();
        let (deltas, _) = assemble_on(wire, frames[..n].concat().as_bytes(), &[]);
        let started_at = (1..=frames.len()).find(|&k| {
            let (d, _) = assemble_on(wire, frames[..k].concat().as_bytes(), &[]);
            matches!(d.last(), Some(Delta::ServerToolStarted { .. }))
        });
        assert!(
            matches!(deltas.last(), Some(Delta::ServerToolStarted { .. })),
            "pause_after = {n}, but the search starts after {started_at:?} events"
        );
    }
}
