//! OpenAI Responses: `POST {base}/v1/responses` (`[providers.openai] api = "responses"`).
//!
//! Web search is a `web_search` tool entry, with the allow-list as
//! `filters.allowed_domains`, where OpenAI documents domain filtering. `max_uses`
//! becomes `max_tool_calls`, a cap on all built-in tool calls of a response rather
//! than on searches alone (said in a note). Local tools are Responses function tools
//! with `strict: false`: their schemas have optional properties, which strict mode
//! forbids. A block-list and a fetch are refused (the capability table in `wire`).
//! A streaming endpoint adds `"stream": true` (no `stream_options`: the final event
//! carries the usage); `stream::responses` assembles what comes back.
//!
//! Decoding reads `output[]`: `message` items' `output_text` with flat
//! `url_citation` annotations (url, title, no quote), one server-tool call per
//! `web_search_call` item (failed when its `status` is not `completed`, with that
//! status as the code), `function_call` items as local tool calls, `usage`, and
//! `status: "incomplete"` with `incomplete_details.reason` as the stop reason. An
//! `error` object inside a 2xx (a failed response) is the vendor error of the status
//! its code has (`server_error` a 500, retried; a rate limit a 429). Fields
//! the newest SDK types require but 2025 recordings lack are read as optional.

use serde_json::{Map, Value, json};

use super::chat::{bearer_headers, chat_error_object, chat_http_error};
use super::json::{
    CharIndex, annotation_claim, arguments, decode_with, finish, missing, request, str_field,
    u64_field,
};
use crate::core::capability::MAX_CITATIONS;
use crate::core::completion::{
    Citation, ClaimSet, Completion, ServerToolCall, StopReason, ToolCall, Usage, json_blocks,
};
use crate::core::endpoint::Endpoint;
use crate::core::error::{Error, Result};
use crate::core::transcript::{Conversation, Exchange, ResponsesState};
use crate::core::turn::{Turn, WireRequest, WireResponse};
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;

const PROVIDER: Vendor = Vendor::OpenAi;

/// Encode one turn (the declaration has already passed `carries`).
pub fn encode(endpoint: &Endpoint, turn: &Turn) -> Result<WireRequest> {
    let mut body = Map::new();
    body.insert("model".into(), json!(turn.model));
    let server = endpoint.responses_state == ResponsesState::Server;
    let (input, previous) = responses_input(turn, endpoint.wire, server)?;
    body.insert("input".into(), Value::Array(input));
    body.insert("max_output_tokens".into(), json!(turn.max_tokens));
    let mut tools: Vec<Value> = turn
        .tools
        .iter()
        .map(|t| {
            json!({"type": "function", "name": t.name, "description": t.description,
                   "parameters": t.input_schema, "strict": false})
        })
        .collect();
    if let Some(web) = turn.web_enabled() {
        let mut tool = Map::new();
        tool.insert("type".into(), json!("web_search"));
        let (allowed, _) = web.vendor_filter();
        if !allowed.is_empty() {
            tool.insert("filters".into(), json!({"allowed_domains": allowed}));
        }
        if let Some(l) = &web.location {
            tool.insert("user_location".into(), l.approximate());
        }
        tools.push(Value::Object(tool));
        if let Some(n) = web.max_uses {
            body.insert("max_tool_calls".into(), json!(n));
        }
    }
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    if turn.conversation == Conversation::Transcript {
        if let Some(id) = previous {
            body.insert("previous_response_id".into(), json!(id));
        }
        body.insert("store".into(), json!(server));
        if !server {
            body.insert("include".into(), json!(["reasoning.encrypted_content"]));
        }
    }
    if let Some(cache) = &turn.cache {
        body.insert("prompt_cache_key".into(), json!(cache.key));
    }
    // The usage arrives with `response.completed`: no `stream_options` here.
    if endpoint.stream {
        body.insert("stream".into(), json!(true));
    }
    request(endpoint, bearer_headers(endpoint), body)
}

/// What the operator should know about this wire.
pub fn cautions(web: &WebAccess) -> Vec<String> {
    let mut out = Vec::new();
    if web.max_uses.is_some() {
        out.push(
            "note: max_uses is sent as max_tool_calls, which caps all built-in tool calls of a \
             response, not searches alone"
                .to_string(),
        );
    }
    out
}

/// Decode one response, an `error` object inside a 2xx included.
pub fn decode(response: &WireResponse) -> Result<Completion> {
    decode_with(PROVIDER, response, chat_http_error, decode_value)
}

/// Decode a parsed 2xx body (`head` gives the request id): what a streamed answer's
/// final `response` object is read with, too.
pub fn decode_value(head: &WireResponse, v: &Value) -> Result<Completion> {
    let response = head;
    if let Some(err) = v.get("error").filter(|e| e.is_object()) {
        // Inside a 2xx (a failed response, a stream's `error` event) the status is
        // the one the code has, so the attempt is retried as that status would be.
        let code = err.get("code").or_else(|| err.get("type"));
        let status = if (200..300).contains(&response.status) {
            status_of(code.and_then(Value::as_str))
        } else {
            response.status
        };
        return Err(Error::from(chat_error_object(
            PROVIDER, response, err, status,
        )));
    }
    let items = v
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| missing(PROVIDER, response, "the response has no output array"))?;
    let (mut parts, refusal) = read_items(items);
    let refused = refusal.is_some() && parts.tool_calls.is_empty();
    if let Some(words) = refusal.filter(|_| refused && parts.text.trim().is_empty()) {
        parts.text = words;
    }
    parts.stop = stop_reason(v, refused, !parts.tool_calls.is_empty());
    parts.finish_reason = finish_reason(v);
    parts.usage = v.get("usage").filter(|u| u.is_object()).map(usage);
    parts.blocks = json_blocks(v.get("output"));
    Ok(finish(PROVIDER, response, v, parts))
}

/// The `output[]` items: `message` text and its citations, `web_search_call`s,
/// `function_call`s; reasoning and other item types are tolerated. A `refusal`
/// content part (the model declined, in its words) is returned beside.
fn read_items(items: &[Value]) -> (Completion, Option<String>) {
    let mut parts = Completion::default();
    let mut claims = ClaimSet::new(MAX_CITATIONS);
    let mut refusal: Option<String> = None;
    for item in items {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for part in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match part.get("type").and_then(Value::as_str) {
                        Some("refusal") => {
                            refusal = Some(str_field(part, "refusal").unwrap_or_default());
                        }
                        Some("output_text") => output_text(&mut parts, &mut claims, part),
                        _ => {}
                    }
                }
            }
            Some("web_search_call") => parts.server_tools.push(web_search_call(item)),
            Some("function_call") => parts.tool_calls.extend(function_call(item)),
            _ => {}
        }
    }
    (parts.claims, parts.cut.claim_links) = claims.finish();
    (parts, refusal)
}

/// One `output_text` part: its text appended, its citations and what each
/// was cited for (indices into this part's text).
fn output_text(parts: &mut Completion, claims: &mut ClaimSet, part: &Value) {
    let offset = parts.text.len();
    let text = part.get("text").and_then(Value::as_str).unwrap_or_default();
    parts.text.push_str(text);
    let index = CharIndex::new(text);
    let notes = part.get("annotations").and_then(Value::as_array);
    for a in notes.into_iter().flatten() {
        parts.citations.extend(url_citation(a));
        annotation_claim(claims, a, &parts.text, offset, &index);
    }
}

/// Why the response stopped: a refusal, an `incomplete` status's reason, a tool
/// call, or the end of the turn.
pub(crate) fn stop_reason(v: &Value, refused: bool, calls: bool) -> StopReason {
    match v.get("status").and_then(Value::as_str) {
        _ if refused => StopReason::Refusal,
        Some("incomplete") => {
            match v
                .get("incomplete_details")
                .and_then(|d| d.get("reason"))
                .and_then(Value::as_str)
            {
                Some("max_output_tokens") => StopReason::MaxTokens,
                Some(reason) => StopReason::Other(reason.to_string()),
                None => StopReason::Other("incomplete".to_string()),
            }
        }
        _ if calls => StopReason::ToolUse,
        Some("completed") | None => StopReason::EndTurn,
        Some(other) => StopReason::Other(other.to_string()),
    }
}

/// Why the response stopped as the vendor said it: an `incomplete` status's
/// reason (`max_output_tokens`), else the status itself (`completed`).
pub(crate) fn finish_reason(v: &Value) -> Option<String> {
    let status = v.get("status").and_then(Value::as_str)?;
    let reason = v
        .get("incomplete_details")
        .and_then(|d| d.get("reason"))
        .and_then(Value::as_str)
        .filter(|_| status == "incomplete");
    Some(reason.unwrap_or(status).to_string())
}

/// Responses usage: `input_tokens` includes the cached part
/// (`input_tokens_details.cached_tokens`), which is priced at its own rate.
fn usage(u: &Value) -> Usage {
    let input = u64_field(u, "input_tokens");
    let cached = u
        .get("input_tokens_details")
        .map_or(0, |d| u64_field(d, "cached_tokens"))
        .min(input);
    Usage {
        input_tokens: input - cached,
        output_tokens: u64_field(u, "output_tokens"),
        // Responses usage carries no search counter today; read one if it appears.
        server_tool_requests: u
            .get("server_tool_use")
            .map_or(0, |s| u64_field(s, "web_search_requests")),
        cache_read_tokens: cached,
        ..Usage::default()
    }
}

/// The HTTP status OpenAI gives each code an error inside a 2xx can carry (a
/// stream's `error` event, a failed response; its error codes guide and
/// `ResponseError.code` in its API reference): a rate limit or spent
/// quota is a 429 (the quota is then not retried), a timeout a 504, a bad input
/// (the image and prompt codes) a 400, and anything else, `server_error` and an
/// unnamed code included, the vendor's own fault: a 500.
pub(crate) fn status_of(code: Option<&str>) -> u16 {
    match code {
        Some("rate_limit_exceeded" | "insufficient_quota") => 429,
        Some("vector_store_timeout") => 504,
        Some(c)
            if c.starts_with("invalid_")
                || c.starts_with("image_")
                || c.ends_with("_image")
                || c.ends_with("_image_file")
                || c.ends_with("_image_media_type") =>
        {
            400
        }
        _ => 500,
    }
}

/// A `web_search_call` item as a server-tool call: failed, with its status as the
/// code, when that status is not `completed`; the query (or URL) as its input.
pub(crate) fn web_search_call(item: &Value) -> ServerToolCall {
    let status = str_field(item, "status").unwrap_or_else(|| "completed".into());
    let mut call = if status == "completed" {
        ServerToolCall::ok(PROVIDER, "web_search")
    } else {
        ServerToolCall::failed(PROVIDER, "web_search", status)
    };
    call.input = item.get("action").and_then(search_input);
    call
}

/// What a search action was asked: its query, its first query, or its URL.
pub(crate) fn search_input(action: &Value) -> Option<String> {
    str_field(action, "query")
        .or_else(|| {
            action
                .get("queries")
                .and_then(Value::as_array)
                .and_then(|q| q.first())
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .or_else(|| str_field(action, "url"))
}

/// A `function_call` item as a local tool call (its arguments JSON text parsed,
/// kept as a string when they are not JSON).
pub(crate) fn function_call(item: &Value) -> Option<ToolCall> {
    let name = str_field(item, "name")?;
    Some(ToolCall {
        id: str_field(item, "call_id")
            .or_else(|| str_field(item, "id"))
            .unwrap_or_default(),
        name,
        input: arguments(str_field(item, "arguments").unwrap_or_default()),
    })
}

/// A flat `url_citation` annotation (url, title; no quote).
pub(crate) fn url_citation(a: &Value) -> Option<Citation> {
    if a.get("type").and_then(Value::as_str) != Some("url_citation") {
        return None;
    }
    Some(Citation {
        url: str_field(a, "url")?,
        title: str_field(a, "title"),
        cited_text: None,
    })
}

/// The Responses `input`. Flattened: the one user message. Transcript, stateless
/// (the default): the opening message, then per step every output item verbatim
/// and a `function_call_output` per call, and any other observation as a user
/// message. Server state (`server`): only what follows the last response, which
/// the body names as `previous_response_id` (returned beside the input).
fn responses_input(turn: &Turn, wire: Wire, server: bool) -> Result<(Vec<Value>, Option<String>)> {
    let Some((opening, history)) = turn.history_for(wire) else {
        return Ok((
            vec![json!({"role": "user", "content": turn.user_message()})],
            None,
        ));
    };
    let returns = |e: &Exchange| {
        let outputs = e.results.iter().map(
            |r| json!({"type": "function_call_output", "call_id": r.call_id, "output": r.output}),
        );
        let notes = e
            .notes
            .iter()
            .map(|n| json!({"role": "user", "content": n}));
        outputs.chain(notes).collect::<Vec<Value>>()
    };
    if let Some(last) = history.last().filter(|_| server) {
        if let Some(id) = &last.response_id {
            return Ok((returns(last), Some(id.clone())));
        }
    }
    let mut input = vec![json!({"role": "user", "content": turn.opening(opening)})];
    for (i, exchange) in history.iter().enumerate() {
        let items = exchange.resend(i)?;
        input.extend(items);
        input.extend(returns(exchange));
    }
    Ok((input, None))
}
