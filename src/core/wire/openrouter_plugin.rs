//! OpenRouter Chat Completions: `POST {base}/v1/chat/completions` (base ends `/api`).
//!
//! Web search becomes a `plugins` entry `{"id": "web", "max_results": n}`; the
//! plugin takes no domain filter and no fetch, so both are refused (the capability
//! table in `wire`; `api = "server-tools"` carries them, in `openrouter_tools`). `max_uses`
//! lands on `max_results`, a cap on results rather than requests. Responses copy
//! OpenAI's shapes, add the quoted passage as `url_citation.content`, may carry an
//! `error` inside a 200, and report searches under `usage.server_tool_use_details`
//! or `usage.server_tool_use`.

use serde_json::{Map, Value, json};

use super::chat::{bearer_headers, chat_body, chat_completion, chat_error_object, chat_http_error};
use super::json::{code_string, decode_with, request, u64_field};
use crate::core::capability::MAX_SERVER_TOOL_CALLS;
use crate::core::completion::{Completion, ServerToolCall};
use crate::core::endpoint::Endpoint;
use crate::core::error::{Error, Result};
use crate::core::turn::{Turn, WireRequest, WireResponse};
use crate::core::vendor::Vendor;
use crate::core::web::WebAccess;

const PROVIDER: Vendor = Vendor::OpenRouter;

/// Encode one turn (the declaration has already passed `check`).
pub fn encode(endpoint: &Endpoint, turn: &Turn) -> Result<WireRequest> {
    let mut body = chat_body(endpoint, turn, "max_tokens")?;
    if turn.web_enabled().is_some() {
        let mut plugin = Map::new();
        plugin.insert("id".into(), json!("web"));
        if let Some(n) = turn.web.as_ref().and_then(|w| w.max_uses) {
            plugin.insert("max_results".into(), json!(n));
        }
        if let Some(l) = turn.web.as_ref().and_then(|w| w.location.as_ref()) {
            plugin.insert("user_location".into(), l.approximate());
        }
        body.insert("plugins".into(), json!([Value::Object(plugin)]));
    }
    super::chat::chat_stream(endpoint, &mut body);
    request(endpoint, bearer_headers(endpoint), body)
}

/// Where OpenRouter's documentation and this crate's behaviour differ.
pub fn cautions(web: &WebAccess) -> Vec<String> {
    let mut out = vec![
        "note: OpenRouter documents the web plugin as deprecated in favour of the \
         openrouter:web_search server tool; this crate sends the plugin, which still works"
            .to_string(),
    ];
    if web.max_uses.is_some() {
        out.push(
            "note: max_uses is sent as max_results, which caps results returned, not searches made"
                .to_string(),
        );
    }
    out
}

/// Decode one response, an `error` inside a 200 included.
pub fn decode(response: &WireResponse) -> Result<Completion> {
    decode_with(PROVIDER, response, chat_http_error, decode_value)
}

/// Decode a parsed 2xx body (an `error` inside it included); the streamed
/// assembler calls this with the body it rebuilt, and with an error chunk.
pub(crate) fn decode_value(response: &WireResponse, v: &Value) -> Result<Completion> {
    let in_body = v.get("error").filter(|e| e.is_object()).or_else(|| {
        v.get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
            .and_then(|c| c.get("error"))
            .filter(|e| e.is_object())
    });
    if let Some(err) = in_body {
        let status = code_string(err.get("code"))
            .or_else(|| code_string(err.get("http_status")))
            .and_then(|c| c.parse::<u16>().ok())
            .unwrap_or(response.status);
        return Err(Error::from(chat_error_object(
            PROVIDER, response, err, status,
        )));
    }
    let usage = v.get("usage");
    let counter = usage
        .and_then(|u| u.get("server_tool_use_details"))
        .or_else(|| usage.and_then(|u| u.get("server_tool_use")))
        .map_or(0, |s| u64_field(s, "web_search_requests"));
    let mut completion = chat_completion(PROVIDER, response, v, counter)?;
    // One row per reported request, up to the per-step cap every wire has
    // (`capability::MAX_SERVER_TOOL_CALLS`), the rest counted as left out: the
    // counter is the vendor's claim and is recorded whole in the usage (its fees
    // come from it), but it never decides how much this process allocates or
    // writes. Where nothing was counted but sources came back, a search
    // evidently ran.
    let ran = if counter > 0 {
        counter
    } else {
        u64::from(!completion.citations.is_empty())
    };
    let search = ServerToolCall::ok(PROVIDER, "web_search");
    let rows = ran.min(MAX_SERVER_TOOL_CALLS as u64);
    for _ in 0..rows {
        completion.server_tools.push(search.clone());
    }
    let left = ran - rows;
    completion.cut.server_tool_calls = completion.cut.server_tool_calls.saturating_add(left);
    completion.cut.searches = completion.cut.searches.saturating_add(left);
    Ok(completion)
}
