//! xAI's Responses API: `POST {base}/responses` (base `https://api.x.ai/v1`), the
//! key as `Authorization: Bearer $XAI_API_KEY`; `stream::xai` assembles a stream.
//!
//! Search is the `web_search` tool, its domain list as the top-level
//! `allowed_domains` or `excluded_domains` (at most five, never both: the
//! capability table's row, which `wire::encode` checks first); `[web] x_search`
//! is the `x_search` tool, with `allowed_x_handles` or `excluded_x_handles` and
//! `from_date` / `to_date`. Fetch, a location and `max_uses` are refused (xAI has
//! no fetch tool, rejects `user_location` and has no cap on tool calls). Local
//! tools are function tools. A transcript goes back stateless (`store: false`,
//! `include: ["reasoning.encrypted_content"]`): each reasoning item exactly as
//! received, encrypted content and all, the answer's text as an assistant
//! message, each local call and its `function_call_output`; the searches xAI ran
//! itself are not sent back (it keeps no state to match them to), as xAI's own
//! SDK and peers do. `[run] cache` sends `prompt_cache_key`.
//!
//! Decoding reads `output[]` in the three shapes xAI has been recorded sending: a
//! search as a function-call-shaped `web_search_call` / `x_search_call` (`name`,
//! `arguments` JSON, 2025-11), as an OpenAI-shaped `web_search_call` with an
//! `action` (its query and sources empty in 2025-12, filled in 2026-07), and X's
//! sub-tools as `custom_tool_call`s (`x_keyword_search`, `view_x_video`): one
//! server-tool row each, named as xAI names it, with its query. `url_citation`
//! annotations are citations; where their indices span text (they are 0/0 or
//! absent in every recording: unpositioned), that text is the cited text, and a
//! title that is only a number or the URL itself is no title. `usage`:
//! `input_tokens` includes `cached_tokens`, `output_tokens` includes reasoning,
//! the searches are `server_side_tool_usage_details`' per-tool counters (web and
//! X; `num_server_side_tools_used` only where those are absent), and
//! `cost_in_usd_ticks` (10^10 ticks a dollar) is the vendor's own cost, the
//! cost of record. An error is `{"code": …, "error": "…"}` (xAI's own envelope,
//! a bad key included) or OpenAI's. Pure: no I/O.

use serde_json::{Map, Value, json};

use super::chat::{bearer_headers, chat_error_object};
use super::json::{
    CharIndex, annotation_claim, arguments, decode_with, finish, header_request_id, missing,
    opaque_error, request, retry_after, snippet, str_field, u64_field,
};
use super::openai_responses::{finish_reason, function_call, status_of, stop_reason};
use crate::core::capability::MAX_CITATIONS;
use crate::core::completion::{Citation, ClaimSet, Completion, ServerToolCall, Usage, json_blocks};
use crate::core::endpoint::Endpoint;
use crate::core::error::{Error, Result, VendorError};
use crate::core::transcript::{Conversation, Exchange};
use crate::core::turn::{Turn, WireRequest, WireResponse};
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;

const PROVIDER: Vendor = Vendor::Xai;

/// Ticks of `cost_in_usd_ticks` per millionth of a dollar (10^10 a dollar).
const TICKS_PER_MICRO_USD: u64 = 10_000;

/// Encode one turn (the declaration has already passed `carries`).
pub fn encode(endpoint: &Endpoint, turn: &Turn) -> Result<WireRequest> {
    let mut body = Map::new();
    body.insert("model".into(), json!(turn.model));
    body.insert("input".into(), Value::Array(input(turn, endpoint.wire)?));
    body.insert("max_output_tokens".into(), json!(turn.max_tokens));
    let mut tools: Vec<Value> = turn
        .tools
        .iter()
        .map(|t| {
            json!({"type": "function", "name": t.name, "description": t.description,
                   "parameters": t.input_schema})
        })
        .collect();
    if let Some(web) = turn.web_enabled() {
        tools.extend(web_tools(web));
    }
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    if turn.conversation == Conversation::Transcript {
        body.insert("store".into(), json!(false));
        body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    }
    if let Some(cache) = &turn.cache {
        body.insert("prompt_cache_key".into(), json!(cache.key));
    }
    if endpoint.stream {
        body.insert("stream".into(), json!(true));
    }
    request(endpoint, bearer_headers(endpoint), body)
}

/// The declaration as xAI's tools: `web_search` with the one domain list
/// `vendor_filter` leaves, `x_search` with the one handle list `x_filter` leaves
/// and the days.
fn web_tools(web: &WebAccess) -> Vec<Value> {
    let mut tools = Vec::new();
    if web.search {
        let mut tool = Map::new();
        tool.insert("type".into(), json!("web_search"));
        let (allowed, blocked) = web.vendor_filter();
        if !allowed.is_empty() {
            tool.insert("allowed_domains".into(), json!(allowed));
        }
        if !blocked.is_empty() {
            tool.insert("excluded_domains".into(), json!(blocked));
        }
        tools.push(Value::Object(tool));
    }
    if web.x_search {
        let mut tool = Map::new();
        tool.insert("type".into(), json!("x_search"));
        let (allowed, excluded) = web.x_filter();
        if !allowed.is_empty() {
            tool.insert("allowed_x_handles".into(), json!(allowed));
        }
        if !excluded.is_empty() {
            tool.insert("excluded_x_handles".into(), json!(excluded));
        }
        if let Some(d) = &web.x_dates {
            if let Some(from) = &d.from {
                tool.insert("from_date".into(), json!(from));
            }
            if let Some(to) = &d.to {
                tool.insert("to_date".into(), json!(to));
            }
        }
        tools.push(Value::Object(tool));
    }
    tools
}

/// What the operator should know about this wire.
pub fn cautions(web: &WebAccess) -> Vec<String> {
    let mut out = Vec::new();
    let (allowed, blocked) = web.vendor_filter();
    if !web.search && web.x_search && (!allowed.is_empty() || !blocked.is_empty()) {
        out.push(
            "caution: the domain lists apply to xAI's web_search, which this declaration does \
             not turn on; x_search takes X handles (x_handles), not domains"
                .to_string(),
        );
    }
    out
}

/// The `input`. Flattened: the one user message. Transcript: the opening
/// message, then per step the answer's reasoning items as received, its text as
/// an assistant message and its local calls, then each call's output and any
/// other observation as a user message.
fn input(turn: &Turn, wire: Wire) -> Result<Vec<Value>> {
    let Some((opening, history)) = turn.history_for(wire) else {
        return Ok(vec![
            json!({"role": "user", "content": turn.user_message()}),
        ]);
    };
    let mut input = vec![json!({"role": "user", "content": turn.opening(opening)})];
    for (i, exchange) in history.iter().enumerate() {
        for item in exchange.resend(i)? {
            input.extend(resent(item));
        }
        input.extend(returns(exchange));
    }
    Ok(input)
}

/// One output item as it goes back: reasoning and local calls as received, a
/// message as its text, xAI's own tool calls not at all.
fn resent(item: Value) -> Option<Value> {
    match item.get("type").and_then(Value::as_str) {
        Some("reasoning" | "function_call") => Some(item),
        Some("message") => {
            let text: String = parts(&item)
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            Some(json!({"role": "assistant", "content": text}))
        }
        _ => None,
    }
}

/// What goes back after an answer: each call's output, then the other notes.
fn returns(e: &Exchange) -> Vec<Value> {
    let outputs = e
        .results
        .iter()
        .map(|r| json!({"type": "function_call_output", "call_id": r.call_id, "output": r.output}));
    let notes = e
        .notes
        .iter()
        .map(|n| json!({"role": "user", "content": n}));
    outputs.chain(notes).collect()
}

/// A message item's content parts.
fn parts(item: &Value) -> impl Iterator<Item = &Value> {
    item.get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// Decode one response.
pub fn decode(response: &WireResponse) -> Result<Completion> {
    decode_with(PROVIDER, response, http_error, decode_value)
}

/// xAI's error body: its own `{"code": "<status text>", "error": "<message>"}`,
/// or OpenAI's `{"error": {message, type, code}}`.
pub(crate) fn http_error(provider: Vendor, response: &WireResponse) -> VendorError {
    let Ok(v) = serde_json::from_slice::<Value>(&response.body) else {
        return opaque_error(provider, response);
    };
    match v.get("error") {
        Some(err) if err.is_object() => chat_error_object(provider, response, err, response.status),
        Some(Value::String(message)) => VendorError {
            provider,
            status: response.status,
            error_type: None,
            code: super::json::code_string(v.get("code")),
            message: message.clone(),
            request_id: header_request_id(response),
            retry_after: retry_after(response),
        },
        _ => VendorError {
            message: snippet(&response.body),
            ..opaque_error(provider, response)
        },
    }
}

/// Decode a parsed 2xx body (a stream's final response object too).
pub(crate) fn decode_value(head: &WireResponse, v: &Value) -> Result<Completion> {
    if let Some(err) = v.get("error").filter(|e| e.is_object()) {
        let code = err.get("code").or_else(|| err.get("type"));
        let status = status_of(code.and_then(Value::as_str));
        return Err(Error::from(chat_error_object(PROVIDER, head, err, status)));
    }
    let items = v
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| missing(PROVIDER, head, "the response has no output array"))?;
    let mut parts = Completion::default();
    let mut claims = ClaimSet::new(MAX_CITATIONS);
    for item in items {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for part in self::parts(item) {
                    if part.get("type").and_then(Value::as_str) == Some("output_text") {
                        output_text(&mut parts, &mut claims, part);
                    }
                }
            }
            Some("function_call") => parts.tool_calls.extend(function_call(item)),
            Some(_) => parts.server_tools.extend(server_call(item)),
            None => {}
        }
    }
    (parts.claims, parts.cut.claim_links) = claims.finish();
    parts.stop = stop_reason(v, false, !parts.tool_calls.is_empty());
    parts.finish_reason = finish_reason(v);
    parts.usage = v.get("usage").filter(|u| u.is_object()).map(usage);
    parts.blocks = json_blocks(v.get("output"));
    Ok(finish(PROVIDER, head, v, parts))
}

/// One `output_text` part: its text appended, its citations, and the span each
/// is cited for.
fn output_text(parts: &mut Completion, claims: &mut ClaimSet, part: &Value) {
    let offset = parts.text.len();
    let own = part.get("text").and_then(Value::as_str).unwrap_or_default();
    parts.text.push_str(own);
    let index = CharIndex::new(own);
    let notes = part.get("annotations").and_then(Value::as_array);
    for a in notes.into_iter().flatten() {
        parts.citations.extend(citation(a, own, &index));
        annotation_claim(claims, a, &parts.text, offset, &index);
    }
}

/// A `url_citation` in `text` (its part): the span its indices give as the
/// cited text, where they give one (`at` the part's index: its characters found
/// without walking from its start each time); its title unless only a number or
/// the URL.
pub(crate) fn citation(a: &Value, text: &str, at: &CharIndex<'_>) -> Option<Citation> {
    if a.get("type").and_then(Value::as_str) != Some("url_citation") {
        return None;
    }
    let url = str_field(a, "url")?;
    let title = str_field(a, "title").filter(|t| {
        let t = t.trim();
        !t.is_empty()
            && t != url
            && !t
                .trim_matches(['[', ']'])
                .chars()
                .all(|c| c.is_ascii_digit())
    });
    let index = |k: &str| a.get(k).and_then(Value::as_u64).map(|n| n as usize);
    let cited_text = match (index("start_index"), index("end_index")) {
        (Some(s), Some(e)) if s < e => {
            let (start, end) = (at.byte(s), at.byte(e));
            text.get(start..end)
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string)
        }
        _ => None,
    };
    Some(Citation {
        url,
        title,
        cited_text,
    })
}

/// A server-side tool item as a row: a web search, an X search, or one of X
/// search's sub-tools, named as xAI names it; failed, with its status as the
/// code, when its status says so; `None` for an item that is no tool call.
pub(crate) fn server_call(item: &Value) -> Option<ServerToolCall> {
    let kind = item.get("type").and_then(Value::as_str)?;
    let tool = match kind {
        "web_search_call" => str_field(item, "name").unwrap_or_else(|| "web_search".into()),
        "x_search_call" => str_field(item, "name").unwrap_or_else(|| "x_search".into()),
        "custom_tool_call" => str_field(item, "name")?,
        _ => return None,
    };
    let status = str_field(item, "status").unwrap_or_else(|| "completed".into());
    let mut call = if matches!(status.as_str(), "completed" | "in_progress" | "searching") {
        ServerToolCall::ok(PROVIDER, tool)
    } else {
        ServerToolCall::failed(PROVIDER, tool, status)
    };
    call.input = call_input(item);
    Some(call)
}

/// What a server-side call was asked: its action's query (or URL), else its
/// JSON arguments' (or input's) query or URL; an empty query says nothing.
pub(crate) fn call_input(item: &Value) -> Option<String> {
    let from = |v: &Value| {
        ["query", "url", "video_url", "username", "post_id"]
            .iter()
            .find_map(|k| str_field(v, k))
            .filter(|q| !q.trim().is_empty())
    };
    if let Some(q) = item.get("action").and_then(from) {
        return Some(q);
    }
    let raw = str_field(item, "arguments").or_else(|| str_field(item, "input"))?;
    match arguments(raw) {
        Value::String(s) => Some(s).filter(|s| !s.trim().is_empty()),
        v => from(&v),
    }
}

/// xAI's usage: cached tokens inside `input_tokens`, reasoning inside
/// `output_tokens`; searches from the per-tool billing counters; its cost.
fn usage(u: &Value) -> Usage {
    let input = u64_field(u, "input_tokens");
    let cached = u
        .get("input_tokens_details")
        .map_or(0, |d| u64_field(d, "cached_tokens"))
        .min(input);
    let searches = match u.get("server_side_tool_usage_details") {
        Some(d) if d.is_object() => {
            u64_field(d, "web_search_calls").saturating_add(u64_field(d, "x_search_calls"))
        }
        _ => u64_field(u, "num_server_side_tools_used"),
    };
    let cost = u
        .get("cost_in_usd_ticks")
        .and_then(Value::as_u64)
        .map(|t| t.saturating_add(TICKS_PER_MICRO_USD / 2) / TICKS_PER_MICRO_USD);
    Usage {
        input_tokens: input - cached,
        output_tokens: u64_field(u, "output_tokens"),
        server_tool_requests: searches,
        cache_read_tokens: cached,
        reported_cost_micro_usd: cost,
        ..Usage::default()
    }
}
