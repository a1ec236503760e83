//! Property tests over every decoder in `src/core/wire/` (each wire's whole-body
//! decoder and the stream assembler) and the `io.toml` parser: arbitrary bytes and
//! arbitrary JSON built from the vendors' own keys, with hostile numbers (2^32,
//! 2^64-1, -1, 1e300) where counters go, never panic, never make more rows than
//! the body could describe, and either decode or fail with an error. Case counts
//! are kept moderate so CI stays fast; `PROPTEST_CASES=2000` runs more.

#![allow(clippy::unwrap_used)]

use io_harness::core::vendor::Wire;
use io_harness::core::wire::{self, stream};
use io_harness::{Config, WireResponse};
use proptest::prelude::*;
use serde_json::{Map, Number, Value};

const KEYS: &[&str] = &[
    "type",
    "content",
    "text",
    "citations",
    "usage",
    "server_tool_use",
    "server_tool_use_details",
    "web_search_requests",
    "web_fetch_requests",
    "input_tokens",
    "output_tokens",
    "prompt_tokens",
    "completion_tokens",
    "choices",
    "message",
    "annotations",
    "url_citation",
    "url",
    "title",
    "error",
    "code",
    "status",
    "http_status",
    "metadata",
    "finish_reason",
    "stop_reason",
    "tool_calls",
    "function",
    "arguments",
    "name",
    "id",
    "input",
    "tool_use_id",
    "error_code",
    "document_index",
    "output",
    "refusal",
    "cited_text",
    "model",
    // OpenAI Responses stream events.
    "response",
    "item",
    "delta",
    "annotation",
    "output_index",
    "action",
    "query",
    "call_id",
    "incomplete_details",
    "reason",
];

const WORDS: &[&str] = &[
    "message",
    "text",
    "tool_use",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "web_search_result_location",
    "char_location",
    "url_citation",
    "web_search_call",
    "output_text",
    "end_turn",
    "pause_turn",
    "refusal",
    "stop",
    "length",
    "tool_calls",
    "error",
    "max_uses_exceeded",
    "https://docs.rs/a",
    "response.output_item.added",
    "response.output_item.done",
    "response.output_text.delta",
    "response.output_text.annotation.added",
    "response.completed",
    "response.incomplete",
    "response.failed",
    "function_call",
    "completed",
    "failed",
    "incomplete",
    "",
];

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<u64>().prop_map(|n| Value::Number(n.into())),
        Just(Value::Number((1u64 << 32).into())),
        Just(Value::Number(u64::MAX.into())),
        Just(Value::Number((-1i64).into())),
        Just(Value::Number(1_000_000u64.into())),
        any::<i64>().prop_map(|n| Value::Number(n.into())),
        Just(Number::from_f64(1e300).map_or(Value::Null, Value::Number)),
        (0u64..5).prop_map(|n| Value::Number(n.into())),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        prop::sample::select(WORDS).prop_map(|w| Value::String(w.to_string())),
        any::<String>().prop_map(Value::String),
    ]
}

/// JSON shaped like the vendors' bodies: objects keyed by their words.
fn vendorish() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..8).prop_map(|kv| {
                let mut m = Map::new();
                for (k, v) in kv {
                    m.insert(k.to_string(), v);
                }
                Value::Object(m)
            }),
        ]
    })
}

fn status() -> impl Strategy<Value = u16> {
    prop_oneof![
        Just(200u16),
        Just(400),
        Just(401),
        Just(429),
        Just(500),
        Just(529),
        100u16..600
    ]
}

/// Decode on every wire; whatever comes back is bounded by the body's size.
fn decode_everywhere(status: u16, body: &[u8]) {
    for wire in Wire::ALL {
        let response = WireResponse {
            status,
            headers: vec![("retry-after".into(), "7".into())],
            body: body.to_vec(),
        };
        if let Ok(c) = wire::decode_wire(wire, &response) {
            let made = c.server_tools.len() + c.citations.len() + c.tool_calls.len();
            assert!(
                made <= body.len() + 32,
                "{wire:?}: {made} items from a {}-byte body",
                body.len()
            );
        }
    }
}

/// 96 cases per property unless `PROPTEST_CASES` asks for more.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(96)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn arbitrary_bytes_never_panic(status in status(), body in prop::collection::vec(any::<u8>(), 0..2048)) {
        decode_everywhere(status, &body);
    }

    #[test]
    fn arbitrary_vendor_shaped_json_never_panics(status in status(), v in vendorish()) {
        decode_everywhere(status, &serde_json::to_vec(&v).unwrap());
    }

    #[test]
    fn arbitrary_json_under_the_usual_envelopes_never_panics(v in vendorish(), usage in vendorish()) {
        let bodies = [
            serde_json::json!({"type": "message", "content": [v.clone()], "stop_reason": "end_turn", "usage": usage.clone()}),
            serde_json::json!({"choices": [{"message": v.clone(), "finish_reason": "stop"}], "usage": usage.clone()}),
            serde_json::json!({"output": [v.clone()], "status": "completed", "usage": usage}),
            serde_json::json!({"error": v}),
        ];
        for b in bodies {
            decode_everywhere(200, &serde_json::to_vec(&b).unwrap());
        }
    }

    #[test]
    fn arbitrary_stream_chunks_never_panic(
        chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..256), 0..12),
        events in prop::collection::vec(vendorish(), 0..6),
    ) {
        for wire in Wire::ALL {
            let head = WireResponse {
                status: 200,
                headers: vec![("content-type".into(), "text/event-stream".into())],
                body: Vec::new(),
            };
            let Some(mut a) = stream::assembler_for(wire, head) else { continue };
            let mut deltas = Vec::new();
            let mut fed: u64 = 0;
            for c in &chunks {
                fed += c.len() as u64;
                if a.feed(c, &mut deltas).is_err() { break; }
            }
            for e in &events {
                let line = format!("data: {}\n\n", serde_json::to_string(e).unwrap());
                fed += line.len() as u64;
                if a.feed(line.as_bytes(), &mut deltas).is_err() { break; }
            }
            prop_assert!(deltas.len() as u64 <= fed + 32);
            let _ = a.finish();
        }
    }

    #[test]
    fn arbitrary_text_is_parsed_or_refused_with_a_located_error(text in any::<String>()) {
        if let Err(e) = Config::parse(&text, "io.toml") {
            prop_assert!(e.is_config());
            prop_assert!(e.to_string().starts_with("io.toml"), "{}", e);
        }
    }

    #[test]
    fn arbitrary_tables_of_known_keys_are_parsed_or_refused_naming_the_file(
        entries in prop::collection::vec((
            prop::sample::select(&["web", "budget", "task", "store", "console", "providers.anthropic", "providers.openrouter", "prices.m", "policy"][..]),
            prop::sample::select(&["search", "fetch", "max_uses", "allowed_domains", "steps", "seconds", "tokens", "goal", "path", "model", "max_tokens", "base_url", "api_key_env", "input_per_mtok", "output_per_mtok", "max_response_bytes", "request_timeout_secs", "theme", "stream"][..]),
            prop_oneof![
                Just("true".to_string()), Just("0".to_string()), Just("-1".to_string()),
                Just("9223372036854775807".to_string()), Just("nan".to_string()), Just("\"\"".to_string()),
                Just("[\"docs.rs\", \"\"]".to_string()), Just("1.5".to_string()), Just("\"x\"".to_string()),
                Just("{ a = 1 }".to_string()), Just("1979-05-27".to_string()),
            ],
        ), 0..8),
    ) {
        let mut text = String::new();
        for (table, key, value) in entries {
            text.push_str(&format!("[{table}]\n{key} = {value}\n"));
        }
        if let Err(e) = Config::parse(&text, "io.toml") {
            prop_assert!(e.is_config());
            prop_assert!(e.to_string().starts_with("io.toml"), "{}", e);
        }
    }
}
