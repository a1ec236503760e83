//! OpenAI Chat Completions: `POST {base}/v1/chat/completions`.
//!
//! Web search becomes `web_search_options`, with the allow-list as
//! `filters.allowed_domains` and nothing else. Fetch and a block-list are refused
//! (the capability table in `wire`);
//! `max_uses` has no field in this body and is not sent. Citations are the nested
//! `url_citation` annotations, with no quote (`cited_text` stays `None`).

use serde_json::{Map, Value, json};

use super::chat::{bearer_headers, chat_body, chat_completion, chat_http_error};
use super::json::{decode_with, request};
use crate::core::completion::{Completion, ServerToolCall};
use crate::core::endpoint::Endpoint;
use crate::core::error::{Error, Result};
use crate::core::turn::{Turn, WireRequest, WireResponse};
use crate::core::vendor::Vendor;
use crate::core::web::WebAccess;

const PROVIDER: Vendor = Vendor::OpenAi;

/// Encode one turn (the declaration has already passed `check`).
pub fn encode(endpoint: &Endpoint, turn: &Turn) -> Result<WireRequest> {
    let mut body = chat_body(endpoint, turn, "max_completion_tokens")?;
    if let Some(web) = turn.web_enabled() {
        let mut options = Map::new();
        let (allowed, _) = web.vendor_filter();
        if !allowed.is_empty() {
            options.insert("filters".into(), json!({"allowed_domains": allowed}));
        }
        // Chat Completions nests the fields under `approximate` (Responses does not).
        if let Some(l) = &web.location {
            options.insert(
                "user_location".into(),
                json!({"type": "approximate", "approximate": l.object()}),
            );
        }
        body.insert("web_search_options".into(), Value::Object(options));
    }
    super::chat::chat_stream(endpoint, &mut body);
    request(endpoint, bearer_headers(endpoint), body)
}

/// Where OpenAI's documentation and this crate's behaviour differ.
pub fn cautions(web: &WebAccess) -> Vec<String> {
    let mut out = Vec::new();
    if !web.vendor_filter().0.is_empty() {
        out.push(
            "caution: OpenAI documents domain filters for its Responses API only; Chat \
             Completions may reject or ignore web_search_options.filters — `api = \"responses\"` \
             in [providers.openai] sends the allow-list where OpenAI documents it"
                .to_string(),
        );
    }
    if web.max_uses.is_some() {
        out.push(
            "note: max_uses is not sent to openai — its Chat Completions body has no cap field"
                .to_string(),
        );
    }
    out
}

/// Decode one response. Chat Completions reports no search counter, so the meter
/// reads what `usage.server_tool_use` says (zero today); a response carrying
/// `url_citation` annotations is evidence a search ran and is recorded as one.
pub fn decode(response: &WireResponse) -> Result<Completion> {
    decode_with(PROVIDER, response, chat_http_error, decode_value)
}

/// Decode a parsed 2xx body; the streamed assembler calls this with the body it
/// rebuilt, so both paths yield the same completion.
pub(crate) fn decode_value(response: &WireResponse, v: &Value) -> Result<Completion> {
    if let Some(err) = v.get("error").filter(|e| e.is_object()) {
        return Err(Error::from(super::chat::chat_error_object(
            PROVIDER,
            response,
            err,
            response.status,
        )));
    }
    let counter = v
        .get("usage")
        .and_then(|u| u.get("server_tool_use"))
        .map_or(0, |s| super::json::u64_field(s, "web_search_requests"));
    let mut completion = chat_completion(PROVIDER, response, v, counter)?;
    if !completion.citations.is_empty() {
        completion
            .server_tools
            .push(ServerToolCall::ok(PROVIDER, "web_search"));
    }
    Ok(completion)
}
