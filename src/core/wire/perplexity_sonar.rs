//! Perplexity's Sonar on Chat Completions: `POST {base}/chat/completions` (base
//! `https://api.perplexity.ai`), `[providers.perplexity] api = "sonar"`. Perplexity
//! supported it until 2026-09-27 and recommends its Agent API since
//! (`perplexity_agent`, the default); it stays for the Sonar models people run.
//!
//! A Sonar model searches unless told not to: a declaration with search off (or
//! none) is sent as `disable_search: true` — Perplexity's request fee is charged
//! either way, which the preview says. With search on: `search_domain_filter`
//! (the allow-list, or the block-list each with a leading `-`, at most twenty),
//! `web_search_options.user_location` (no timezone: Perplexity's location has
//! none, which a caution says) and the vendor's own settings from its table
//! (`search_recency_filter`, `web_search_options.search_context_size`,
//! `enable_search_classifier`). Fetch and `max_uses` are refused, and Sonar takes
//! no function tools (the capability row): a run offers it none, and a turn that
//! carries some is refused here rather than sent without them.
//!
//! Decoding reads the first choice's message: its text without `<think>` blocks
//! (kept in the answer's blocks), its `citations` (URLs) and `search_results`
//! (title, url, date, snippet) as citations — every one kept, those the text's
//! `[n]` markers name with the sentence that cites them (`perplexity`) — one
//! search row a search the usage counts (one where it counts none but sources
//! came back), the finish reason, and `usage.cost.total_cost`, the vendor's own
//! cost. Errors are the Chat envelope `{"error": {message, type, code}}`.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::chat::{bearer_headers, chat_body, chat_completion, chat_error_object, chat_http_error};
use super::json::{decode_with, request, str_field, u64_field};
use super::perplexity::{
    SCANNED, Source, citations, claims, domain_filter, micro_usd, without_think,
};
use crate::core::capability::{MAX_CITATIONS, MAX_SERVER_TOOL_CALLS};
use crate::core::completion::{ClaimSet, Completion, ServerToolCall};
use crate::core::endpoint::Endpoint;
use crate::core::error::{Error, Result};
use crate::core::refusal::{Asked, Refusal};
use crate::core::turn::{Turn, WireRequest, WireResponse};
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;

const PROVIDER: Vendor = Vendor::Perplexity;

/// Encode one turn (the declaration has already passed `carries`).
pub fn encode(endpoint: &Endpoint, turn: &Turn) -> Result<WireRequest> {
    if !turn.tools.is_empty() {
        let why = Wire::PerplexitySonar
            .capabilities()
            .local_tools
            .unwrap_or_default();
        let names: Vec<&str> = turn.tools.iter().map(|t| t.name.as_str()).collect();
        let instead = "offer it no tools, or use `api = \"agent\"` in [providers.perplexity]";
        let text = format!(
            "provider \"perplexity\" with api = \"sonar\" cannot offer the model local tools \
             ({}) — {why}; {instead}. No request was sent.",
            names.join(", ")
        );
        return Err(
            Refusal::new(Wire::PerplexitySonar, Asked::LocalTools, why, instead, text).into(),
        );
    }
    let mut body = chat_body(endpoint, turn, "max_tokens")?;
    let settings = endpoint.search;
    match turn.web_enabled().filter(|w| w.search) {
        Some(web) => {
            let filter = domain_filter(web);
            if !filter.is_empty() {
                body.insert("search_domain_filter".into(), json!(filter));
            }
            if let Some(r) = settings.recency {
                body.insert("search_recency_filter".into(), json!(r.as_str()));
            }
            let mut options = Map::new();
            if let Some(size) = settings.context_size {
                options.insert("search_context_size".into(), json!(size.as_str()));
            }
            if let Some(l) = &web.location {
                options.insert("user_location".into(), Value::Object(location(l)));
            }
            if !options.is_empty() {
                body.insert("web_search_options".into(), Value::Object(options));
            }
            if settings.classifier {
                body.insert("enable_search_classifier".into(), json!(true));
            }
        }
        None => {
            body.insert("disable_search".into(), json!(true));
        }
    }
    if endpoint.stream {
        body.insert("stream".into(), json!(true));
    }
    request(endpoint, bearer_headers(endpoint), body)
}

/// Perplexity's `user_location`: city, region, country — no type, no timezone.
pub(crate) fn location(l: &crate::core::web::Location) -> Map<String, Value> {
    l.fields()
        .into_iter()
        .filter(|(k, _)| *k != "timezone")
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect()
}

/// What the operator should know about this wire; said even without a
/// declaration, since Sonar searches unless told not to.
pub fn cautions(web: Option<&WebAccess>) -> Vec<String> {
    let searching = web.is_some_and(|w| w.enabled() && w.search);
    let mut out = vec![if searching {
        "note: Sonar charges its per-request fee on every request, searched or not (Perplexity's \
         pricing page)"
            .to_string()
    } else {
        "note: Sonar searches unless told not to, so this declaration is sent as \
         disable_search: true; its per-request fee is charged either way (Perplexity's pricing \
         page)"
            .to_string()
    }];
    if let Some(caution) = web.and_then(timezone_caution) {
        out.push(caution);
    }
    out
}

/// A location's timezone is not sent: Perplexity's `user_location` has none.
pub(crate) fn timezone_caution(web: &WebAccess) -> Option<String> {
    let l = web.location.as_ref().filter(|_| web.search)?;
    l.timezone.as_ref().map(|tz| {
        format!(
            "note: [web] location timezone = {tz:?} is not sent — Perplexity's user_location \
             takes city, region and country only"
        )
    })
}

/// Decode one response.
pub fn decode(response: &WireResponse) -> Result<Completion> {
    decode_with(PROVIDER, response, chat_http_error, decode_value)
}

/// Decode a parsed 2xx body (a stream's rebuilt body too).
pub(crate) fn decode_value(head: &WireResponse, v: &Value) -> Result<Completion> {
    if let Some(err) = v.get("error").filter(|e| e.is_object()) {
        let status = super::json::code_string(err.get("code"))
            .and_then(|c| c.parse::<u16>().ok())
            .filter(|s| *s >= 400)
            .unwrap_or(500);
        return Err(Error::from(chat_error_object(PROVIDER, head, err, status)));
    }
    let mut c = chat_completion(PROVIDER, head, v, 0)?;
    c.text = without_think(std::mem::take(&mut c.text));
    let sources = sources(v);
    let mut set = ClaimSet::new(MAX_CITATIONS);
    claims(&mut set, &c.text, &sources);
    (c.claims, c.cut.claim_links) = set.finish();
    c.citations = citations(&c.text, sources, &c.claims);
    let u = v.get("usage");
    let counted = u.map_or(0, |u| u64_field(u, "num_search_queries"));
    // One row per search counted, up to the per-step cap every wire has
    // (`capability::MAX_SERVER_TOOL_CALLS`), the rest counted as left out (as
    // OpenRouter's counter is); with no count but sources, a search ran.
    let ran = if counted > 0 {
        counted
    } else {
        u64::from(!c.citations.is_empty())
    };
    let rows = ran.min(MAX_SERVER_TOOL_CALLS as u64);
    for _ in 0..rows {
        c.server_tools
            .push(ServerToolCall::ok(PROVIDER, "web_search"));
    }
    c.cut.server_tool_calls = c.cut.server_tool_calls.saturating_add(ran - rows);
    c.cut.searches = c.cut.searches.saturating_add(ran - rows);
    if let Some(usage) = c.usage.as_mut() {
        usage.server_tool_requests = counted;
        usage.reported_cost_micro_usd = micro_usd(
            u.and_then(|u| u.get("cost"))
                .and_then(|c| c.get("total_cost")),
        );
    }
    Ok(c)
}

/// A search result's URL.
fn url(r: &Value) -> Option<&str> {
    r.get("url").and_then(Value::as_str)
}

/// The sources a Sonar answer came with: its `citations`, numbered from 1, each
/// titled from the `search_results` entry of the same URL; then the search
/// results no citation names. Markers number `citations`, or `search_results`
/// where there are no citations.
fn sources(v: &Value) -> Vec<Source> {
    let list = |k: &str| {
        v.get(k)
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
    };
    let results = list("search_results");
    // Past a few, each URL's title and the URLs already listed are found by a
    // map and a set: as many citations as results cost time in proportion to
    // them, not to their product.
    let many = results.len() > SCANNED;
    let mut titles: HashMap<&str, &Value> = HashMap::new();
    for r in results.iter().filter(|_| many) {
        if let Some(u) = url(r) {
            titles.entry(u).or_insert(r);
        }
    }
    let title = |u: &str| {
        let r = if many {
            titles.get(u).copied()
        } else {
            results.iter().find(|r| url(r) == Some(u))
        };
        r.and_then(|r| str_field(r, "title"))
    };
    let mut listed: HashSet<&str> = HashSet::new();
    let mut out: Vec<Source> = Vec::new();
    for u in list("citations").iter().filter_map(Value::as_str) {
        if many {
            listed.insert(u);
        }
        out.push(Source {
            n: out.len() as u64 + 1,
            url: u.to_string(),
            title: title(u),
        });
    }
    let numbered = out.is_empty();
    for (i, r) in results.iter().enumerate() {
        let Some(u) = url(r) else {
            continue;
        };
        let seen = if many {
            !listed.insert(u)
        } else {
            out.iter().any(|s| s.url == u)
        };
        if seen {
            continue;
        }
        out.push(Source {
            n: if numbered { i as u64 + 1 } else { u64::MAX },
            url: u.to_string(),
            title: str_field(r, "title"),
        });
    }
    out
}
