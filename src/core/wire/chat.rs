//! The Chat-Completions-shaped pieces the OpenAI-compatible wires share (OpenRouter
//! copies OpenAI's shapes, and OpenAI's Responses its error envelope): bearer
//! headers, the chat body (its messages flattened or a transcript, and caching),
//! streaming flags, the error envelope a non-2xx carries, and decoding a chat
//! answer: the first choice's text, tool calls, citations and usage.

use serde_json::{Map, Value, json};

use super::json::{
    CharIndex, annotation_claim, arguments, code_string, finish, header_request_id, missing,
    opaque_error, retry_after, snippet, str_field, u64_field,
};
use crate::core::capability::MAX_CITATIONS;
use crate::core::completion::{
    Citation, ClaimSet, Completion, Cut, StopReason, ToolCall, Usage, json_blocks,
};
use crate::core::endpoint::Endpoint;
use crate::core::error::{Result, VendorError};
use crate::core::transcript::{CacheTtl, Caching};
use crate::core::turn::{HeaderValue, Turn, WireResponse};
use crate::core::vendor::Vendor;
use crate::core::vendor::Wire;

/// The `Authorization: Bearer $VAR` and JSON content type both chat vendors take.
pub(crate) fn bearer_headers(endpoint: &Endpoint) -> Vec<(String, HeaderValue)> {
    vec![
        (
            "authorization".to_string(),
            HeaderValue::Secret {
                prefix: "Bearer ".to_string(),
                env: endpoint.api_key_env.clone(),
            },
        ),
        (
            "content-type".to_string(),
            HeaderValue::Plain("application/json".to_string()),
        ),
    ]
}

/// The Chat Completions body without any web field: model, the messages (the one
/// user message, or a transcript), the output cap under the vendor's key, the local
/// tools in function format (omitted when there are none, never `tools: []`), and
/// the caching the vendor takes.
pub(crate) fn chat_body(
    endpoint: &Endpoint,
    turn: &Turn,
    max_tokens_key: &str,
) -> Result<Map<String, Value>> {
    let mut body = Map::new();
    body.insert("model".into(), json!(turn.model));
    let mut messages = chat_messages(turn, endpoint.wire)?;
    let parts = endpoint.vendor == Vendor::OpenRouter && turn.model.starts_with("anthropic/");
    if let Some(cache) = turn.cache.as_ref().filter(|_| parts) {
        chat_cache_parts(cache, &mut messages);
    }
    body.insert("messages".into(), Value::Array(messages));
    body.insert(max_tokens_key.into(), json!(turn.max_tokens));
    if !turn.tools.is_empty() {
        let tools: Vec<Value> = turn
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.input_schema}})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(cache) = turn
        .cache
        .as_ref()
        .filter(|_| endpoint.vendor == Vendor::OpenAi)
    {
        body.insert("prompt_cache_key".into(), json!(cache.key));
    }
    Ok(body)
}

/// Chat Completions streaming: `stream` and, so the last chunk carries the token
/// counts, `stream_options.include_usage`. Added last, after every other field.
pub(crate) fn chat_stream(endpoint: &Endpoint, body: &mut Map<String, Value>) {
    if endpoint.stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
}

/// The OpenAI-shaped error envelope `{"error": {message, type, code}}` of a non-2xx.
pub(crate) fn chat_http_error(provider: Vendor, response: &WireResponse) -> VendorError {
    let Ok(v) = serde_json::from_slice::<Value>(&response.body) else {
        return opaque_error(provider, response);
    };
    let Some(err) = v.get("error") else {
        return opaque_error(provider, response);
    };
    chat_error_object(provider, response, err, response.status)
}

/// One OpenAI/OpenRouter error object, wherever it was found.
pub(crate) fn chat_error_object(
    provider: Vendor,
    response: &WireResponse,
    err: &Value,
    status: u16,
) -> VendorError {
    let metadata = err.get("metadata");
    let error_type = str_field(err, "type")
        .or_else(|| metadata.and_then(|m| str_field(m, "error_type")))
        .or_else(|| str_field(err, "error_type"));
    let code = code_string(err.get("code"))
        .or_else(|| metadata.and_then(|m| code_string(m.get("provider_code"))));
    VendorError {
        provider,
        status,
        error_type,
        code,
        message: str_field(err, "message").unwrap_or_else(|| snippet(&response.body)),
        request_id: header_request_id(response).or_else(|| str_field(err, "request_id")),
        retry_after: retry_after(response),
    }
}

/// Decode a 2xx Chat Completions body: first choice's text, tool calls and
/// `url_citation` annotations (nested under `url_citation`; `content` is the quote
/// where a vendor sends one), finish reason and token counts. The caller supplies
/// the server-tool counter, which the two vendors report differently.
pub(crate) fn chat_completion(
    provider: Vendor,
    response: &WireResponse,
    v: &Value,
    server_tool_requests: u64,
) -> Result<Completion> {
    let choice = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| missing(provider, response, "the response has no choices"))?;
    let message = choice.get("message").unwrap_or(&Value::Null);
    // `message.refusal`: the model declined, in its own words.
    let refusal = str_field(message, "refusal").filter(|r| !r.trim().is_empty());
    let mut text = str_field(message, "content").unwrap_or_default();
    if let Some(words) = &refusal {
        if text.trim().is_empty() {
            text = words.clone();
        }
    }
    let tool_calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| calls.iter().filter_map(chat_tool_call).collect())
        .unwrap_or_default();
    let notes = message.get("annotations").and_then(Value::as_array);
    let citations = notes
        .map(|a| a.iter().filter_map(url_citation).collect())
        .unwrap_or_default();
    let mut claims = ClaimSet::new(MAX_CITATIONS);
    let index = CharIndex::new(&text);
    for a in notes.into_iter().flatten() {
        annotation_claim(&mut claims, a, &text, 0, &index);
    }
    let (claims, claim_links) = claims.finish();
    let said = choice.get("finish_reason").and_then(Value::as_str);
    let stop = match said {
        _ if refusal.is_some() => StopReason::Refusal,
        Some("stop") => StopReason::EndTurn,
        Some("tool_calls") | Some("function_call") => StopReason::ToolUse,
        Some("length") => StopReason::MaxTokens,
        Some(other) => StopReason::Other(other.to_string()),
        None => StopReason::Other("none".to_string()),
    };
    let usage = v
        .get("usage")
        .filter(|u| u.is_object())
        .map(|u| chat_usage(u, server_tool_requests));
    let parts = Completion {
        text,
        tool_calls,
        citations,
        claims,
        server_tools: Vec::new(),
        stop,
        finish_reason: said.map(str::to_string),
        usage,
        blocks: json_blocks(Some(message)),
        cut: Cut {
            claim_links,
            ..Cut::default()
        },
        ..Completion::default()
    };
    Ok(finish(provider, response, v, parts))
}

/// Chat Completions usage in the neutral shape: `prompt_tokens` includes the cached
/// tokens (`prompt_tokens_details.cached_tokens`) and the cache writes
/// (`cache_write_tokens`, where sent), so they are taken out of the plain input.
/// `usage.cost` (OpenRouter) is the vendor's own figure for the whole request; a
/// value that is not a finite, non-negative number of dollars is ignored.
fn chat_usage(u: &Value, server_tool_requests: u64) -> Usage {
    let details = u.get("prompt_tokens_details");
    let cache_read = details.map_or(0, |d| u64_field(d, "cached_tokens"));
    let cache_write = details.map_or(0, |d| u64_field(d, "cache_write_tokens"));
    let prompt = u64_field(u, "prompt_tokens");
    let reported = u
        .get("cost")
        .and_then(Value::as_f64)
        .filter(|c| c.is_finite() && *c >= 0.0 && *c < 1e9)
        .map(|c| (c * 1e6).round() as u64);
    Usage {
        input_tokens: prompt.saturating_sub(cache_read.saturating_add(cache_write)),
        output_tokens: u64_field(u, "completion_tokens"),
        server_tool_requests,
        cache_write_tokens: cache_write.min(prompt),
        cache_read_tokens: cache_read.min(prompt.saturating_sub(cache_write.min(prompt))),
        web_fetch_requests: 0,
        reported_cost_micro_usd: reported,
        cache_write_1h_tokens: 0,
    }
}

fn chat_tool_call(call: &Value) -> Option<ToolCall> {
    let function = call.get("function")?;
    let name = str_field(function, "name")?;
    Some(ToolCall {
        id: str_field(call, "id").unwrap_or_default(),
        name,
        input: arguments(str_field(function, "arguments").unwrap_or_default()),
    })
}

pub(crate) fn url_citation(annotation: &Value) -> Option<Citation> {
    if annotation.get("type").and_then(Value::as_str) != Some("url_citation") {
        return None;
    }
    // Chat Completions nests the fields; accept the flat Responses form too.
    let c = annotation.get("url_citation").unwrap_or(annotation);
    Some(Citation {
        url: str_field(c, "url")?,
        title: str_field(c, "title"),
        cited_text: str_field(c, "content"),
    })
}

/// The Chat Completions `messages`. Flattened: the one user message. Transcript:
/// the opening user message, then per step an `assistant` message with the
/// answer's `content` and `tool_calls` (and OpenRouter's `reasoning_details`, when
/// the answer carried them) and one `role: "tool"` message per call, in order; any
/// other observation as a user message. `parts` (OpenRouter with an `anthropic/*`
/// model, caching) writes contents as text parts so `cache_control` can mark one.
pub(crate) fn chat_messages(turn: &Turn, wire: Wire) -> Result<Vec<Value>> {
    let Some((opening, history)) = turn.history_for(wire) else {
        return Ok(vec![
            json!({"role": "user", "content": turn.user_message()}),
        ]);
    };
    let mut messages = vec![json!({"role": "user", "content": turn.opening(opening)})];
    let mut notes = Vec::new();
    for (i, exchange) in history.iter().enumerate() {
        let values = exchange.resend(i)?;
        for message in values {
            let mut out = serde_json::Map::new();
            out.insert("role".into(), json!("assistant"));
            out.insert(
                "content".into(),
                message.get("content").cloned().unwrap_or(Value::Null),
            );
            for key in ["tool_calls", "reasoning_details"] {
                if let Some(v) = message.get(key).filter(|v| !v.is_null()) {
                    out.insert(key.into(), v.clone());
                }
            }
            messages.push(Value::Object(out));
        }
        notes.extend(exchange.notes.iter().cloned());
        if exchange.paused {
            continue;
        }
        for r in &exchange.results {
            messages.push(json!({"role": "tool", "tool_call_id": r.call_id, "content": r.output}));
        }
        if !notes.is_empty() {
            messages.push(json!({"role": "user", "content": notes.join("\n")}));
            notes.clear();
        }
    }
    Ok(messages)
}

/// OpenRouter caching for `anthropic/*` models: the newest message's content as
/// text parts, its last part marked with `cache_control`, as OpenRouter documents.
pub(crate) fn chat_cache_parts(cache: &Caching, messages: &mut [Value]) {
    let mark = match cache.ttl {
        CacheTtl::FiveMinutes => json!({"type": "ephemeral"}),
        CacheTtl::OneHour => json!({"type": "ephemeral", "ttl": "1h"}),
    };
    let Some(last) = messages
        .iter_mut()
        .rev()
        .find(|m| m["content"].is_string() || m["content"].is_array())
    else {
        return;
    };
    let mut parts = match &last["content"] {
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        Value::Array(parts) => parts.clone(),
        _ => return,
    };
    if let Some(part) = parts.last_mut() {
        part["cache_control"] = mark;
    }
    last["content"] = Value::Array(parts);
}
