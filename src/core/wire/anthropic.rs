//! Anthropic Messages: `POST {base}/v1/messages`.
//!
//! Web access becomes dated server-tool entries in `tools` (`web_search_20250305`,
//! `web_fetch_20250910`), each with its own `max_uses` and whichever domain list
//! survived `vendor_filter`; fetch adds `anthropic-beta: web-fetch-2025-09-10`.
//! With `web_tools = "2026"` the entries are the newest documented versions
//! (`web_search_20260318`, `web_fetch_20260318`) with `allowed_callers: ["direct"]`
//! (from `_20260209` on the default is code execution, which a model without
//! programmatic tool calling answers with a 400) and no beta header: fetch is GA.
//! Calls made from code execution carry a `caller`; they are decoded like any other.
//! Decoding pairs each result with its `server_tool_use` by id, reads a search
//! result that is a list (possibly empty: it ran and found nothing) or an error
//! object, both spellings of fetch errors, and sums `usage.server_tool_use`. A
//! `server_tool_use` no block of the response answers (a paused turn ended
//! first) is a call `unanswered`, where it stood. A transcript carries a paused
//! turn's open calls on instead (run/step.rs): the next response answers them,
//! or `still_open` finds them unanswered at its end.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::anthropic_messages::{mark_cache, messages, previous_end};
use super::json::{
    code_string, decode_with, finish, header_request_id, missing, opaque_error, request,
    retry_after, str_field, u64_field,
};
use crate::core::capability::MAX_CITATIONS;
use crate::core::completion::{
    Citation, ClaimSet, Completion, Cut, ServerToolCall, StopReason, ToolCall, Usage, json_blocks,
};
use crate::core::endpoint::Endpoint;
use crate::core::error::{Error, Result, VendorError};
use crate::core::turn::{HeaderValue, Turn, WireRequest, WireResponse};
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;

const PROVIDER: Vendor = Vendor::Anthropic;
/// The API version every request names.
pub const API_VERSION: &str = "2023-06-01";
/// The beta a fetch-declaring request carries.
pub const FETCH_BETA: &str = "web-fetch-2025-09-10";
/// The tool versions of `web_tools = "2026"`: the newest the docs and the SDK name
/// (the Anthropic web-search and web-fetch tool docs; `anthropic-sdk-python` 2.16.0).
pub const SEARCH_2026: &str = "web_search_20260318";
/// See `SEARCH_2026`.
pub const FETCH_2026: &str = "web_fetch_20260318";

/// Encode one turn. Anthropic carries every part of a declaration, so nothing is
/// refused here beyond the declaration's own checks.
pub fn encode(endpoint: &Endpoint, turn: &Turn) -> Result<WireRequest> {
    let mut headers = vec![
        (
            "x-api-key".to_string(),
            HeaderValue::Secret {
                prefix: String::new(),
                env: endpoint.api_key_env.clone(),
            },
        ),
        (
            "anthropic-version".to_string(),
            HeaderValue::Plain(API_VERSION.to_string()),
        ),
        (
            "content-type".to_string(),
            HeaderValue::Plain("application/json".to_string()),
        ),
    ];
    let mut body = Map::new();
    body.insert("model".into(), json!(turn.model));
    body.insert("max_tokens".into(), json!(turn.max_tokens));
    let mut messages = messages(turn, endpoint.wire)?;
    body.insert("messages".into(), Value::Null);
    let mut tools: Vec<Value> = turn
        .tools
        .iter()
        .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
        .collect();
    let current = endpoint.wire == Wire::Anthropic2026;
    let (search, fetch) = if current {
        (SEARCH_2026, FETCH_2026)
    } else {
        ("web_search_20250305", "web_fetch_20250910")
    };
    if let Some(web) = turn.web_enabled() {
        if web.search {
            tools.push(server_tool(web, search, "web_search", current));
        }
        if web.fetch {
            tools.push(server_tool(web, fetch, "web_fetch", current));
            if !current {
                headers.push((
                    "anthropic-beta".to_string(),
                    HeaderValue::Plain(FETCH_BETA.to_string()),
                ));
            }
        }
    }
    if let Some(cache) = &turn.cache {
        let previous = previous_end(turn, endpoint.wire)?;
        mark_cache(cache, &mut tools, &mut messages, previous);
    }
    body.insert("messages".into(), Value::Array(messages));
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    // Messages has no `stream_options` (it answers unknown fields with a 400).
    if endpoint.stream {
        body.insert("stream".into(), json!(true));
    }
    request(endpoint, headers, body)
}

fn server_tool(web: &WebAccess, kind: &str, name: &str, direct: bool) -> Value {
    let mut tool = Map::new();
    tool.insert("type".into(), json!(kind));
    tool.insert("name".into(), json!(name));
    if direct {
        tool.insert("allowed_callers".into(), json!(["direct"]));
    }
    if let Some(n) = web.max_uses {
        tool.insert("max_uses".into(), json!(n));
    }
    let (allowed, blocked) = web.vendor_filter();
    if !allowed.is_empty() {
        tool.insert("allowed_domains".into(), json!(allowed));
    } else if !blocked.is_empty() {
        tool.insert("blocked_domains".into(), json!(blocked));
    }
    // Search is localised; fetch takes no location.
    if let Some(l) = web.location.as_ref().filter(|_| name == "web_search") {
        tool.insert("user_location".into(), l.approximate());
    }
    Value::Object(tool)
}

/// Where Anthropic's documentation and this crate's behaviour differ.
pub fn cautions(wire: Wire, web: &WebAccess) -> Vec<String> {
    let mut out = Vec::new();
    let (allowed, blocked) = web.vendor_filter();
    let wild: Vec<&String> = allowed
        .iter()
        .chain(blocked.iter())
        .filter(|h| h.starts_with("*."))
        .collect();
    if !wild.is_empty() {
        out.push(format!(
            "caution: anthropic documents wildcard hosts such as {} as invalid (subdomains are \
             matched automatically); it may answer 400 — write the bare domain instead",
            wild.iter()
                .map(|h| h.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if web.fetch && wire == Wire::Anthropic2025 {
        out.push(format!(
            "note: anthropic now documents web fetch as generally available; the \
             `anthropic-beta: {FETCH_BETA}` header is sent as this crate specifies and is harmless; \
             `web_tools = \"2026\"` in [providers.anthropic] sends the current versions without it"
        ));
    }
    out
}

/// Decode one response: a 2xx message, or an error envelope.
pub fn decode(response: &WireResponse) -> Result<Completion> {
    decode_with(PROVIDER, response, http_error, decode_message)
}

/// Decode a parsed message (or error envelope). `response` supplies the headers
/// (request id) and, for error messages, the body snippet; the streamed assembler
/// calls this with the message it rebuilt, so both paths yield the same completion.
pub(crate) fn decode_message(response: &WireResponse, v: &Value) -> Result<Completion> {
    if v.get("type").and_then(Value::as_str) == Some("error") {
        return Err(Error::from(error_from(response, v)));
    }
    let blocks = v
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| missing(PROVIDER, response, "the message has no content array"))?;

    let (asked, documents) = asked_and_documents(blocks);
    let mut parts = read_blocks(blocks, &asked, &documents);
    parts.blocks = json_blocks(v.get("content"));
    let said = v.get("stop_reason").and_then(Value::as_str);
    parts.stop = match said {
        Some(s) => StopReason::parse(s),
        None => StopReason::Other("none".to_string()),
    };
    parts.finish_reason = said.map(str::to_string);
    parts.usage = v.get("usage").filter(|u| u.is_object()).map(usage);
    Ok(finish(PROVIDER, response, v, parts))
}

/// What each `server_tool_use` asked (tool and query or URL), by id, and the
/// fetched documents in order (a fetch citation names its document by index, not
/// by URL).
#[allow(clippy::type_complexity)]
fn asked_and_documents(blocks: &[Value]) -> (HashMap<&str, (&str, Option<String>)>, Vec<String>) {
    let mut asked: HashMap<&str, (&str, Option<String>)> = HashMap::new();
    let mut documents: Vec<String> = Vec::new();
    for b in blocks {
        match b.get("type").and_then(Value::as_str) {
            Some("server_tool_use") => {
                if let (Some(id), Some(name)) = (
                    b.get("id").and_then(Value::as_str),
                    b.get("name").and_then(Value::as_str),
                ) {
                    let input = b.get("input");
                    let said =
                        input.and_then(|i| str_field(i, "query").or_else(|| str_field(i, "url")));
                    asked.insert(id, (name, said));
                }
            }
            Some("web_fetch_tool_result") => {
                if let Some(url) = b.get("content").and_then(|c| str_field(c, "url")) {
                    documents.push(url);
                }
            }
            _ => {}
        }
    }
    (asked, documents)
}

/// The `server_tool_use` blocks of `carried` (a paused answer) that no block of
/// it or of `answer` (the continuation's) answers, as calls `unanswered`.
pub(crate) fn still_open(carried: &[Value], answer: &[Value]) -> Vec<ServerToolCall> {
    let (asked, _) = asked_and_documents(carried);
    let answered: Vec<&str> = carried
        .iter()
        .chain(answer)
        .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str))
        .collect();
    carried
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("server_tool_use"))
        .filter_map(|b| b.get("id").and_then(Value::as_str))
        .filter(|id| !answered.contains(id))
        .filter_map(|id| asked.get(id))
        .map(|(tool, input)| ServerToolCall {
            input: input.clone(),
            ..ServerToolCall::unanswered(PROVIDER, *tool)
        })
        .collect()
}

/// Text, citations, local tool calls and server-tool results, in order.
fn read_blocks(
    blocks: &[Value],
    asked: &HashMap<&str, (&str, Option<String>)>,
    documents: &[String],
) -> Completion {
    let mut text = String::new();
    let mut citations = Vec::new();
    let mut claims = ClaimSet::new(MAX_CITATIONS);
    let mut tool_calls = Vec::new();
    let mut server_tools = Vec::new();
    let answered: Vec<&str> = blocks
        .iter()
        .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str))
        .collect();
    // Text blocks split only by citations are one run of prose, joined exactly as
    // sent; a tool or search block between two text blocks ends a paragraph.
    let mut broken = false;
    for b in blocks {
        let kind = b.get("type").and_then(Value::as_str);
        if kind != Some("text") {
            broken = !text.is_empty();
        }
        match kind {
            Some("text") => {
                if std::mem::take(&mut broken) {
                    text.push_str("\n\n");
                }
                // A block with citations is the claim they support.
                let start = text.len();
                text.push_str(b.get("text").and_then(Value::as_str).unwrap_or_default());
                for c in b
                    .get("citations")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(c) = citation(c, documents) {
                        claims.add(&text, start, text.len(), &c.url);
                        citations.push(c);
                    }
                }
            }
            Some("tool_use") => {
                if let Some(name) = str_field(b, "name") {
                    tool_calls.push(ToolCall {
                        id: str_field(b, "id").unwrap_or_default(),
                        name,
                        input: b.get("input").cloned().unwrap_or_else(|| json!({})),
                    });
                }
            }
            Some("server_tool_use") => {
                let id = b.get("id").and_then(Value::as_str).unwrap_or_default();
                if let Some((tool, input)) = asked.get(id).filter(|_| !answered.contains(&id)) {
                    let mut call = ServerToolCall::unanswered(PROVIDER, *tool);
                    call.input.clone_from(input);
                    server_tools.push(call);
                }
            }
            Some(kind @ ("web_search_tool_result" | "web_fetch_tool_result")) => {
                let id = b
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                // The result may arrive in a later response than its server_tool_use,
                // so the block type names the tool when the id is not in this one.
                let fallback = kind.trim_end_matches("_tool_result");
                let (tool, input) = asked
                    .get(id)
                    .map(|(n, i)| (n.to_string(), i.clone()))
                    .unwrap_or_else(|| (fallback.to_string(), None));
                let mut call = match result_error(b.get("content")) {
                    Some(code) => ServerToolCall::failed(PROVIDER, tool, code),
                    None => ServerToolCall::ok(PROVIDER, tool),
                };
                call.input = input;
                server_tools.push(call);
            }
            _ => {} // unknown block types are tolerated
        }
    }
    let (claims, claim_links) = claims.finish();
    Completion {
        text,
        tool_calls,
        citations,
        claims,
        server_tools,
        cut: Cut {
            claim_links,
            ..Cut::default()
        },
        ..Completion::default()
    }
}

/// Anthropic usage: cache writes and reads are reported beside `input_tokens`, not
/// inside it; searches and fetches under `server_tool_use`.
fn usage(u: &Value) -> Usage {
    let server = u.get("server_tool_use");
    let fetches = server.map_or(0, |s| u64_field(s, "web_fetch_requests"));
    Usage {
        input_tokens: u64_field(u, "input_tokens"),
        output_tokens: u64_field(u, "output_tokens"),
        server_tool_requests: server
            .map_or(0, |s| u64_field(s, "web_search_requests"))
            .saturating_add(fetches)
            .min(Usage::MAX_COUNT),
        cache_write_tokens: u64_field(u, "cache_creation_input_tokens"),
        cache_read_tokens: u64_field(u, "cache_read_input_tokens"),
        cache_write_1h_tokens: u
            .get("cache_creation")
            .map_or(0, |c| u64_field(c, "ephemeral_1h_input_tokens")),
        web_fetch_requests: fetches,
        reported_cost_micro_usd: None,
    }
}

/// The error code of a result whose content is an error object: a search's content
/// is a list on success (empty when nothing matched); a fetch's is an object whose
/// type is `web_fetch_result` on success. Both `*_tool_result_error` and the launch
/// docs' `web_fetch_tool_error` spellings are errors; an error without a code is
/// recorded as `unknown`.
pub(crate) fn result_error(content: Option<&Value>) -> Option<String> {
    let obj = content?.as_object()?;
    let kind = obj.get("type").and_then(Value::as_str).unwrap_or_default();
    if !kind.ends_with("_error") {
        return None;
    }
    Some(code_string(obj.get("error_code")).unwrap_or_else(|| "unknown".to_string()))
}

pub(crate) fn citation(c: &Value, documents: &[String]) -> Option<Citation> {
    match c.get("type").and_then(Value::as_str) {
        Some("web_search_result_location") => Some(Citation {
            url: str_field(c, "url")?,
            title: str_field(c, "title"),
            cited_text: str_field(c, "cited_text"),
        }),
        // Fetch citations point into a fetched document by index.
        Some("char_location" | "page_location" | "content_block_location") => {
            let index = c.get("document_index").and_then(Value::as_u64)? as usize;
            Some(Citation {
                url: documents.get(index)?.clone(),
                title: str_field(c, "document_title"),
                cited_text: str_field(c, "cited_text"),
            })
        }
        _ => None,
    }
}

/// The error envelope of a non-2xx; a body that is not one is an opaque error.
fn http_error(provider: Vendor, response: &WireResponse) -> VendorError {
    match serde_json::from_slice::<Value>(&response.body) {
        Ok(v) if v.get("error").is_some() => error_from(response, &v),
        _ => opaque_error(provider, response),
    }
}

pub(crate) fn error_from(response: &WireResponse, v: &Value) -> VendorError {
    let err = v.get("error").cloned().unwrap_or(Value::Null);
    VendorError {
        provider: PROVIDER,
        status: response.status,
        error_type: str_field(&err, "type"),
        code: err
            .get("details")
            .and_then(|d| code_string(d.get("error_code"))),
        message: str_field(&err, "message").unwrap_or_else(|| super::json::snippet(&response.body)),
        request_id: header_request_id(response).or_else(|| str_field(v, "request_id")),
        retry_after: retry_after(response),
    }
}
