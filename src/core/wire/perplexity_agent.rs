//! Perplexity's Agent API: `POST {base}/v1/agent` (≡ `/v1/responses`; base
//! `https://api.perplexity.ai`), `[providers.perplexity] api = "agent"`, the
//! default — Perplexity's documents call it the way forward and supported Sonar
//! on Chat Completions only until 2026-09-27.
//!
//! Its request schema is strict (an unknown field is a 400), so the body holds
//! only documented fields: `model` (provider-prefixed, `perplexity/sonar`),
//! `input` (the one user message as a string; a transcript as `message`,
//! `function_call` and `function_call_output` items), `max_output_tokens`,
//! `tools`, `max_tool_calls`, `stream`. A bare request does no search, so search
//! is the `web_search` tool — `filters.search_domain_filter` (at most twenty, a
//! blocked domain with a leading `-`), `filters.search_recency_filter`,
//! `user_location` (no timezone) and `search_context_size` from the vendor's
//! table — and fetch the `fetch_url` tool; `max_uses` is `max_tool_calls`, a cap
//! on every tool call of the response. Local tools are function tools.
//!
//! Decoding reads `output[]`: each `search_results` item a `search_web` row
//! (its first query as input) and its `results` the answer's sources, numbered
//! by `id`; each `fetch_url_results` item a `fetch_url` row and its `contents`
//! sources; `message` text (its `content` may be null) whose `[n]` markers name
//! those sources (`perplexity`; `annotations` were empty in every recording, and
//! any `url_citation` in them is read too); `function_call` items as local
//! calls (or, named `search_web` / `fetch_url`, as Perplexity's own). A `failed`
//! or `cancelled` response arrives as a 200 with an `error`: the vendor error of
//! its code. `usage` counts cache writes and reads inside `input_tokens`, tool
//! invocations in `tool_calls_details`, and `cost.total_cost` is the vendor's
//! own cost.

use serde_json::{Map, Value, json};

use super::chat::{bearer_headers, chat_error_object, chat_http_error};
use super::json::{decode_with, missing, request, str_field, u64_field};
use super::openai_responses::{finish_reason, function_call, stop_reason};
use super::perplexity::{Source, citations, claims, domain_filter, micro_usd};
use super::perplexity_sonar::{location, timezone_caution};
use crate::core::capability::MAX_CITATIONS;
use crate::core::completion::{ClaimSet, Completion, ServerToolCall, Usage, json_blocks};
use crate::core::endpoint::Endpoint;
use crate::core::error::{Error, Result};
use crate::core::transcript::Exchange;
use crate::core::turn::{Turn, WireRequest, WireResponse};
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;

const PROVIDER: Vendor = Vendor::Perplexity;

/// Perplexity's names for its own tools' calls (billing keys, `function_call` names).
const SEARCH: &str = "search_web";
const FETCH: &str = "fetch_url";

/// Encode one turn (the declaration has already passed `carries`).
pub fn encode(endpoint: &Endpoint, turn: &Turn) -> Result<WireRequest> {
    let mut body = Map::new();
    body.insert("model".into(), json!(turn.model));
    body.insert("input".into(), input(turn, endpoint.wire)?);
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
        if web.search {
            tools.push(web_search(endpoint, web));
        }
        if web.fetch {
            tools.push(json!({"type": FETCH}));
        }
        if let Some(n) = web.max_uses {
            body.insert("max_tool_calls".into(), json!(n));
        }
    }
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    if endpoint.stream {
        body.insert("stream".into(), json!(true));
    }
    request(endpoint, bearer_headers(endpoint), body)
}

/// The `web_search` tool with the declaration's filter and location and the
/// vendor's own settings.
fn web_search(endpoint: &Endpoint, web: &WebAccess) -> Value {
    let mut tool = Map::new();
    tool.insert("type".into(), json!("web_search"));
    let mut filters = Map::new();
    let domains = domain_filter(web);
    if !domains.is_empty() {
        filters.insert("search_domain_filter".into(), json!(domains));
    }
    if let Some(r) = endpoint.search.recency {
        filters.insert("search_recency_filter".into(), json!(r.as_str()));
    }
    if !filters.is_empty() {
        tool.insert("filters".into(), Value::Object(filters));
    }
    if let Some(l) = &web.location {
        tool.insert("user_location".into(), Value::Object(location(l)));
    }
    if let Some(size) = endpoint.search.context_size {
        tool.insert("search_context_size".into(), json!(size.as_str()));
    }
    Value::Object(tool)
}

/// What the operator should know about this wire.
pub fn cautions(web: &WebAccess) -> Vec<String> {
    let mut out = Vec::new();
    if web.max_uses.is_some() {
        out.push(
            "note: max_uses is sent as max_tool_calls, which caps every tool call of a response \
             (searches, fetches and local tools together)"
                .to_string(),
        );
    }
    out.extend(timezone_caution(web));
    out
}

/// The `input`: the one user message as a string; a transcript as items — the
/// opening message, then per step the answer's text as an assistant message
/// and its local calls, each call's output and any other observation. The
/// search results Perplexity returned are not input items it takes back.
fn input(turn: &Turn, wire: Wire) -> Result<Value> {
    let Some((opening, history)) = turn.history_for(wire) else {
        return Ok(json!(turn.user_message()));
    };
    let message =
        |role: &str, text: &str| json!({"type": "message", "role": role, "content": text});
    let mut items = vec![message("user", &turn.opening(opening))];
    for (i, exchange) in history.iter().enumerate() {
        for item in exchange.resend(i)? {
            match item.get("type").and_then(Value::as_str) {
                Some("message") => {
                    let text: String = content(&item)
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        .collect();
                    items.push(message("assistant", &text));
                }
                Some("function_call") if !is_own(&item) => {
                    let mut call = Map::new();
                    for k in ["type", "call_id", "name", "arguments", "thought_signature"] {
                        if let Some(v) = item.get(k).filter(|v| !v.is_null()) {
                            call.insert(k.into(), v.clone());
                        }
                    }
                    items.push(Value::Object(call));
                }
                _ => {}
            }
        }
        items.extend(returns(exchange, &message));
    }
    Ok(Value::Array(items))
}

/// Each call's output, then the other observations.
fn returns(e: &Exchange, message: &dyn Fn(&str, &str) -> Value) -> Vec<Value> {
    let outputs = e
        .results
        .iter()
        .map(|r| json!({"type": "function_call_output", "call_id": r.call_id, "output": r.output}));
    let notes = e.notes.iter().map(|n| message("user", n));
    outputs.chain(notes).collect()
}

/// A message item's content parts (none where `content` is null).
fn content(item: &Value) -> impl Iterator<Item = &Value> {
    item.get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// Whether a `function_call` is Perplexity's own search or fetch.
fn is_own(item: &Value) -> bool {
    matches!(
        item.get("name").and_then(Value::as_str),
        Some(SEARCH | FETCH)
    )
}

/// Decode one response.
pub fn decode(response: &WireResponse) -> Result<Completion> {
    decode_with(PROVIDER, response, chat_http_error, decode_value)
}

/// Decode a parsed 2xx body (a stream's final response object too).
pub(crate) fn decode_value(head: &WireResponse, v: &Value) -> Result<Completion> {
    if let Some(err) = v.get("error").filter(|e| e.is_object()) {
        return Err(Error::from(chat_error_object(
            PROVIDER,
            head,
            err,
            status(err),
        )));
    }
    let items = v
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| missing(PROVIDER, head, "the response has no output array"))?;
    let mut parts = Completion::default();
    let mut sources = Vec::new();
    let mut annotations = Vec::new();
    for item in items {
        match item.get("type").and_then(Value::as_str) {
            Some("search_results") => {
                parts.server_tools.push(own_call(SEARCH, item, "queries"));
                sources.extend(listed(item, "results", true));
            }
            Some("fetch_url_results") => {
                let mut call = ServerToolCall::ok(PROVIDER, FETCH);
                call.input = first_of(item, "contents", "url");
                parts.server_tools.push(call);
                sources.extend(listed(item, "contents", false));
            }
            Some("message") => {
                for part in content(item) {
                    parts
                        .text
                        .push_str(part.get("text").and_then(Value::as_str).unwrap_or_default());
                    annotations.extend(
                        part.get("annotations")
                            .and_then(Value::as_array)
                            .cloned()
                            .unwrap_or_default(),
                    );
                }
            }
            Some("function_call") if is_own(item) => {
                let name = str_field(item, "name").unwrap_or_default();
                parts.server_tools.push(ServerToolCall::ok(PROVIDER, name));
            }
            Some("function_call") => parts.tool_calls.extend(function_call(item)),
            _ => {}
        }
    }
    let mut set = ClaimSet::new(MAX_CITATIONS);
    claims(&mut set, &parts.text, &sources);
    let index = super::json::CharIndex::new(&parts.text);
    for a in &annotations {
        super::json::annotation_claim(&mut set, a, &parts.text, 0, &index);
    }
    (parts.claims, parts.cut.claim_links) = set.finish();
    parts.citations = citations(&parts.text, sources, &parts.claims);
    let mut listed: std::collections::HashSet<String> =
        parts.citations.iter().map(|c| c.url.clone()).collect();
    for a in &annotations {
        if let Some(c) = super::chat::url_citation(a) {
            if listed.insert(c.url.clone()) {
                parts.citations.push(c);
            }
        }
    }
    parts.stop = stop_reason(v, false, !parts.tool_calls.is_empty());
    parts.finish_reason = finish_reason(v);
    parts.usage = v.get("usage").filter(|u| u.is_object()).map(usage);
    parts.blocks = json_blocks(v.get("output"));
    Ok(super::json::finish(PROVIDER, head, v, parts))
}

/// The HTTP status an error inside a 200 has: its numeric `code`, else what its
/// type says (a rate limit 429), else the vendor's own fault (500, retried).
fn status(err: &Value) -> u16 {
    if let Some(code) = err.get("code").and_then(Value::as_u64) {
        if (400..600).contains(&code) {
            return code as u16;
        }
    }
    match err.get("type").and_then(Value::as_str) {
        Some(t) if t.contains("rate_limit") => 429,
        Some(t) if t.starts_with("invalid") => 400,
        _ => 500,
    }
}

/// A `search_results` item as a `search_web` row asked its first query.
fn own_call(tool: &str, item: &Value, key: &str) -> ServerToolCall {
    let mut call = ServerToolCall::ok(PROVIDER, tool);
    call.input = item
        .get(key)
        .and_then(Value::as_array)
        .and_then(|q| q.first())
        .and_then(Value::as_str)
        .map(str::to_string);
    call
}

/// A field of the first entry of a list (`contents[0].url`).
fn first_of(item: &Value, list: &str, key: &str) -> Option<String> {
    item.get(list)
        .and_then(Value::as_array)
        .and_then(|l| l.first())
        .and_then(|e| str_field(e, key))
}

/// A list's entries as sources; `numbered` ones by their `id` (what `[n]` names),
/// the others by none.
fn listed(item: &Value, list: &str, numbered: bool) -> Vec<Source> {
    item.get(list)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| {
            Some(Source {
                n: r.get("id")
                    .and_then(Value::as_u64)
                    .filter(|_| numbered)
                    .unwrap_or(u64::MAX),
                url: str_field(r, "url")?,
                title: str_field(r, "title"),
            })
        })
        .collect()
}

/// Agent API usage: cache writes and reads inside `input_tokens`; searches and
/// fetches from `tool_calls_details`' invocations; the vendor's own cost.
fn usage(u: &Value) -> Usage {
    let input = u64_field(u, "input_tokens");
    let details = u.get("input_tokens_details");
    let write = details
        .map_or(0, |d| u64_field(d, "cache_creation_input_tokens"))
        .min(input);
    let read = details
        .map_or(0, |d| {
            u64_field(d, "cache_read_input_tokens").max(u64_field(d, "cached_tokens"))
        })
        .min(input - write);
    let calls = |k: &str| {
        u.get("tool_calls_details")
            .and_then(|d| d.get(k))
            .map_or(0, |c| u64_field(c, "invocation"))
    };
    let fetches = calls(FETCH);
    Usage {
        input_tokens: input - write - read,
        output_tokens: u64_field(u, "output_tokens"),
        server_tool_requests: calls(SEARCH).saturating_add(fetches),
        web_fetch_requests: fetches,
        cache_write_tokens: write,
        cache_read_tokens: read,
        reported_cost_micro_usd: micro_usd(u.get("cost").and_then(|c| c.get("total_cost"))),
        ..Usage::default()
    }
}
