//! OpenRouter server tools: `POST {base}/v1/chat/completions` with `tools` entries
//! `openrouter:web_search` and `openrouter:web_fetch` (`[providers.openrouter] api =
//! "server-tools"`), the replacement OpenRouter documents for its deprecated web plugin.
//!
//! Each entry carries `max_uses` (a real cap on requests, per tool) and whichever
//! domain list survived `vendor_filter`: the allow-list as `allowed_domains` on both,
//! the block-list as `excluded_domains` on search and `blocked_domains` on fetch (the
//! vendor names it two ways). What OpenRouter documents its search tool ignores for
//! some models (OpenAI's, Perplexity's) is refused before sending, from the table in
//! `limits`. Responses are the Chat Completions shape the plugin gets, decoded by
//! `openrouter::decode`.

use serde_json::{Map, Value, json};

use super::chat::{bearer_headers, chat_body};
use super::json::request;
use crate::core::endpoint::Endpoint;
use crate::core::error::Result;
use crate::core::turn::{Turn, WireRequest};
use crate::core::web::WebAccess;

/// Encode one turn (the declaration has already passed `carries`).
pub fn encode(endpoint: &Endpoint, turn: &Turn) -> Result<WireRequest> {
    let mut body = chat_body(endpoint, turn, "max_completion_tokens")?;
    if let Some(web) = turn.web_enabled() {
        let (allowed, blocked) = web.vendor_filter();
        let mut entries = Vec::new();
        if web.search {
            entries.push(entry(
                web,
                "openrouter:web_search",
                &allowed,
                &blocked,
                "excluded_domains",
            ));
        }
        if web.fetch {
            entries.push(entry(
                web,
                "openrouter:web_fetch",
                &allowed,
                &blocked,
                "blocked_domains",
            ));
        }
        let tools = body
            .entry("tools")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = tools {
            list.extend(entries);
        }
    }
    super::chat::chat_stream(endpoint, &mut body);
    request(endpoint, bearer_headers(endpoint), body)
}

fn entry(
    web: &WebAccess,
    kind: &str,
    allowed: &[String],
    blocked: &[String],
    block_key: &str,
) -> Value {
    let mut params = Map::new();
    if let Some(n) = web.max_uses {
        params.insert("max_uses".into(), json!(n));
    }
    if !allowed.is_empty() {
        params.insert("allowed_domains".into(), json!(allowed));
    } else if !blocked.is_empty() {
        params.insert(block_key.into(), json!(blocked));
    }
    // The search tool is localised; the fetch tool takes no location.
    if let Some(l) = web
        .location
        .as_ref()
        .filter(|_| kind == "openrouter:web_search")
    {
        params.insert("user_location".into(), l.approximate());
    }
    let mut tool = Map::new();
    tool.insert("type".into(), json!(kind));
    if !params.is_empty() {
        tool.insert("parameters".into(), Value::Object(params));
    }
    Value::Object(tool)
}

/// What the operator should know about this wire.
pub fn cautions(web: &WebAccess) -> Vec<String> {
    let mut out = Vec::new();
    if web.max_uses.is_some() {
        out.push(
            "note: OpenRouter forwards max_uses to a model's native search only for Anthropic \
             models; its own engines honour it"
                .to_string(),
        );
    }
    if web.fetch {
        out.push("note: OpenRouter documents openrouter:web_fetch as beta".to_string());
    }
    out
}
