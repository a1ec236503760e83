//! The inverse of the assemblers: a non-streamed 2xx body rendered as the event
//! stream its vendor would have sent, one SSE frame per event, in the shapes
//! the vendors' streams have (text in small `text_delta`s / `delta.content`s,
//! tool inputs as JSON text in pieces, results and usage where the vendors put
//! them). The stub vendor streams with it, and the property test checks that
//! assembling a rendering yields exactly what decoding the body yields.

use serde_json::{Map, Value, json};

use super::frame::{frame, pieces};
use crate::core::error::{Error, Result};
use crate::core::vendor::Vendor;
use crate::core::vendor::Wire;

/// Render a non-streamed body as the SSE frames `wire` would send, each ending
/// in a blank line, ready to be written one after another.
pub fn render(wire: Wire, body: &[u8]) -> Result<Vec<String>> {
    let v: Value = serde_json::from_slice(body).map_err(|e| Error::Decode {
        provider: wire.vendor(),
        message: format!("cannot render a body that is not JSON as a stream: {e}"),
        snippet: crate::core::wire::json::snippet(body),
    })?;
    Ok(match wire {
        Wire::OpenAiResponses => super::openai_responses::render(&v),
        Wire::Xai => super::xai::render(&v),
        Wire::PerplexityAgent => super::perplexity_agent::render(&v),
        Wire::PerplexitySonar => super::perplexity_sonar::render(&v),
        _ => match wire.vendor() {
            Vendor::Anthropic => anthropic(&v),
            Vendor::OpenAi => chat(&v, false),
            Vendor::OpenRouter => chat(&v, true),
            _ => super::gemini::render(&v),
        },
    })
}

/// An Anthropic message as its events: `message_start`, each block's start,
/// deltas and stop (a `ping` after the first), `message_delta`, `message_stop`.
fn anthropic(v: &Value) -> Vec<String> {
    let usage = v.get("usage").and_then(Value::as_object);
    let mut events = vec![json!({"type": "message_start", "message": message_start(v, usage)})];
    let blocks = v
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (index, block) in blocks.iter().enumerate() {
        events.extend(block_events(index, block));
        events.push(json!({"type": "content_block_stop", "index": index}));
        if index == 0 {
            events.push(json!({"type": "ping"}));
        }
    }
    // message_delta: the stop reason and the final counts (input tokens left to
    // message_start, as the older API did, so both sources are exercised).
    let mut delta = json!({"type": "message_delta", "delta": {
        "stop_reason": v.get("stop_reason").cloned().unwrap_or(Value::Null),
        "stop_sequence": v.get("stop_sequence").cloned().unwrap_or(Value::Null)}});
    if let Some(u) = usage {
        let mut u = u.clone();
        u.remove("input_tokens");
        delta["usage"] = Value::Object(u);
    }
    events.push(delta);
    events.push(json!({"type": "message_stop"}));
    events
        .iter()
        .map(|data| {
            let name = data
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("message");
            frame(Some(name), data)
        })
        .collect()
}

/// `message_start`'s message: no content and no stop reason yet; its usage has
/// the input counts and a first output token, as the real one does.
fn message_start(v: &Value, usage: Option<&Map<String, Value>>) -> Map<String, Value> {
    let mut start = v.as_object().cloned().unwrap_or_default();
    start.insert("content".into(), json!([]));
    start.insert("stop_reason".into(), Value::Null);
    start.insert("stop_sequence".into(), Value::Null);
    match usage {
        Some(u) => {
            let mut u = u.clone();
            u.remove("server_tool_use");
            if u.contains_key("output_tokens") {
                u.insert("output_tokens".into(), json!(1));
            }
            start.insert("usage".into(), Value::Object(u));
        }
        None => {
            start.remove("usage");
        }
    }
    start
}

/// One content block's start and deltas: text with its citations and then its
/// text in pieces, a tool call's input as JSON text in pieces, anything else whole.
fn block_events(index: usize, block: &Value) -> Vec<Value> {
    let start = |head: &Value| json!({"type": "content_block_start", "index": index, "content_block": head});
    let delta = |d: Value| json!({"type": "content_block_delta", "index": index, "delta": d});
    let mut events = Vec::new();
    match block
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
    {
        "text" => {
            let mut head = Map::new();
            head.insert("type".into(), json!("text"));
            head.insert("text".into(), json!(""));
            let citations = block.get("citations").and_then(Value::as_array);
            if citations.is_some() {
                head.insert("citations".into(), json!([]));
            }
            events.push(start(&Value::Object(head)));
            for c in citations.into_iter().flatten() {
                events.push(delta(json!({"type": "citations_delta", "citation": c})));
            }
            let text = block
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default();
            for piece in pieces(text) {
                events.push(delta(json!({"type": "text_delta", "text": piece})));
            }
        }
        "tool_use" | "server_tool_use" => {
            let mut head = block.as_object().cloned().unwrap_or_default();
            let input = head.insert("input".into(), json!({})).unwrap_or(json!({}));
            events.push(start(&Value::Object(head)));
            for piece in pieces(&input.to_string()) {
                events.push(delta(
                    json!({"type": "input_json_delta", "partial_json": piece}),
                ));
            }
        }
        _ => events.push(start(block)),
    }
    events
}

fn chat(v: &Value, openrouter: bool) -> Vec<String> {
    let mut out = Vec::new();
    if openrouter {
        out.push(": OPENROUTER PROCESSING\n\n".to_string());
    }
    let mut top = v.as_object().cloned().unwrap_or_default();
    top.remove("choices");
    top.remove("usage");
    top.insert("object".into(), json!("chat.completion.chunk"));
    let chunk = |choices: Value| {
        let mut c = top.clone();
        c.insert("choices".into(), choices);
        frame(None, &Value::Object(c))
    };
    let choice = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .cloned()
        .unwrap_or(Value::Null);
    let message = choice.get("message").cloned().unwrap_or(Value::Null);
    let delta = |d: Value| json!([{"index": 0, "delta": d, "finish_reason": null}]);
    out.push(chunk(delta(json!({"role": "assistant", "content": ""}))));
    if let Some(text) = message.get("content").and_then(Value::as_str) {
        for piece in pieces(text) {
            out.push(chunk(delta(json!({"content": piece}))));
        }
    }
    for (i, call) in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let f = call.get("function").cloned().unwrap_or(Value::Null);
        out.push(chunk(delta(json!({"tool_calls": [{"index": i,
            "id": call.get("id").cloned().unwrap_or(Value::Null), "type": "function",
            "function": {"name": f.get("name").cloned().unwrap_or(Value::Null), "arguments": ""}}]}))));
        let args = f
            .get("arguments")
            .and_then(Value::as_str)
            .unwrap_or_default();
        for piece in pieces(args) {
            out.push(chunk(delta(
                json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}),
            )));
        }
    }
    if let Some(a) = message.get("annotations").filter(|a| a.is_array()) {
        out.push(chunk(delta(json!({"annotations": a}))));
    }
    let reason = choice.get("finish_reason").cloned().unwrap_or(Value::Null);
    out.push(chunk(
        json!([{"index": 0, "delta": {}, "finish_reason": reason}]),
    ));
    if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
        let mut c = top.clone();
        c.insert("choices".into(), json!([]));
        c.insert("usage".into(), u.clone());
        out.push(frame(None, &Value::Object(c)));
    }
    out.push("data: [DONE]\n\n".to_string());
    out
}
