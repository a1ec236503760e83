//! Google's Gemini API (`generativelanguage.googleapis.com/v1beta`):
//! `POST {base}/models/{model}:generateContent`, or
//! `:streamGenerateContent?alt=sse` on a streaming endpoint (`stream::gemini`
//! assembles what comes back). The key goes in `x-goog-api-key`.
//!
//! Web search is the `google_search` tool, fetch the `url_context` tool; neither
//! takes a domain filter or a cap (the Gemini API documents none; Vertex AI's
//! `excludeDomains` is another API), so an allow-list, a block-list and
//! `max_uses` are refused before anything is sent — by the capability table's
//! row (`capability::CAPABILITIES`), which `wire::encode` checks first. Local tools are
//! `functionDeclarations` with their JSON Schema as `parametersJsonSchema`. A
//! transcript sends the model's `parts` back exactly as received, each
//! `thoughtSignature` with it, and each local tool's result as a
//! `functionResponse` part.
//!
//! Decoding reads `candidates[0]`: its text parts (thought summaries, `thought:
//! true`, are not the answer; they stay in `blocks`), `functionCall` parts, its
//! `finishReason` (kept in Google's words in `finish_reason`), `groundingMetadata`
//! (one search per `webSearchQueries` entry, one citation per grounding chunk and
//! supporting segment, the search suggestions — each held to the per-step caps
//! as it is read, in time linear in the body: `gemini_grounding`) and `urlContextMetadata` (one fetch
//! per URL); `promptFeedback.blockReason` without a candidate is a refusal; an
//! `{"error": {code, message, status}}` body is the vendor error.
//!
//! Pure: no I/O, no clock, no async.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::gemini_grounding::{citations, searches};
use super::json::{
    decode_with, header_request_id, missing, opaque_error, retry_after, snippet, str_field,
    u64_field,
};
use crate::core::completion::{
    Completion, ServerToolCall, StopReason, ToolCall, Usage, json_blocks,
};
use crate::core::endpoint::Endpoint;
use crate::core::error::{Error, Result, VendorError};
use crate::core::refusal::{Asked, Refusal};
use crate::core::transcript::{Exchange, ToolReturn};
use crate::core::turn::{HeaderValue, Turn, WireRequest, WireResponse};
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;

/// The provider name in completions, errors and the store.
pub(crate) const PROVIDER: Vendor = Vendor::Gemini;

/// The public API base (the `v1beta` surface carries both tools).
pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

/// What a fetched URL's status is when it was retrieved.
const RETRIEVED: &str = "URL_RETRIEVAL_STATUS_SUCCESS";

/// Encode one turn, or refuse what the Gemini API cannot carry.
pub fn encode(endpoint: &Endpoint, turn: &Turn) -> Result<WireRequest> {
    let model = model_segment(&turn.model)?;
    let mut body = Map::new();
    body.insert("contents".into(), Value::Array(contents(turn, endpoint)?));
    body.insert(
        "generationConfig".into(),
        json!({"maxOutputTokens": turn.max_tokens}),
    );
    let tools = tools(turn);
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    let method = if endpoint.stream {
        "streamGenerateContent?alt=sse"
    } else {
        "generateContent"
    };
    let base = endpoint.base_url.trim_end_matches('/');
    let bytes = serde_json::to_vec(&Value::Object(body))
        .map_err(|e| Error::config(format!("could not serialise the request body: {e}")))?;
    Ok(WireRequest {
        method: "POST".to_string(),
        url: format!("{base}/models/{model}:{method}"),
        headers: vec![
            (
                "x-goog-api-key".to_string(),
                HeaderValue::Secret {
                    prefix: String::new(),
                    env: endpoint.api_key_env.clone(),
                },
            ),
            (
                "content-type".to_string(),
                HeaderValue::Plain("application/json".to_string()),
            ),
        ],
        body: bytes,
    })
}

/// What the operator should know about this wire: nothing beyond the refusals.
pub fn cautions(_web: &WebAccess) -> Vec<String> {
    Vec::new()
}

/// The model as a URL path segment: `models/` dropped where written, and a name
/// that would change the URL's meaning refused rather than sent elsewhere.
fn model_segment(model: &str) -> Result<&str> {
    let name = model.strip_prefix("models/").unwrap_or(model);
    let bad = |c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
    if name.is_empty() || name.contains(bad) {
        let why = "a model name is letters, digits, '-', '.' and '_'";
        let instead = "name the model as Google lists it";
        let text = format!(
            "provider \"{PROVIDER}\" cannot put the model \"{model}\" in its URL — {why}; \
             {instead}. No request was sent."
        );
        let asked = Asked::ModelName(model.to_string());
        return Err(Refusal::new(Wire::Gemini, asked, why, instead, text).into());
    }
    Ok(name)
}

/// `tools`: the local tools as one `functionDeclarations` entry, then
/// `google_search` and `url_context` as declared; none at all when empty.
fn tools(turn: &Turn) -> Vec<Value> {
    let mut tools = Vec::new();
    if !turn.tools.is_empty() {
        let declarations: Vec<Value> = turn
            .tools
            .iter()
            .map(|t| {
                // `parametersJsonSchema` takes JSON Schema as written; `parameters`
                // takes Google's OpenAPI subset, which rejects keys such as
                // `additionalProperties` that local tool schemas carry.
                json!({"name": t.name, "description": t.description,
                       "parametersJsonSchema": t.input_schema})
            })
            .collect();
        tools.push(json!({ "functionDeclarations": declarations }));
    }
    if let Some(web) = turn.web_enabled() {
        if web.search {
            tools.push(json!({"google_search": {}}));
        }
        if web.fetch {
            tools.push(json!({"url_context": {}}));
        }
    }
    tools
}

/// `contents`. Flattened: the one user message. Transcript: the opening user
/// message, then per step the model's parts exactly as received (role `model`),
/// and a `user` turn with one `functionResponse` per call and any other
/// observation as text. Consecutive turns of one role are merged, and a step
/// whose answer had no parts (a safety stop) adds no empty `model` turn, since
/// the API rejects both.
fn contents(turn: &Turn, endpoint: &Endpoint) -> Result<Vec<Value>> {
    let Some((opening, history)) = turn.history_for(endpoint.wire) else {
        return Ok(vec![
            json!({"role": "user", "parts": [{"text": turn.user_message()}]}),
        ]);
    };
    let mut out = vec![json!({"role": "user", "parts": [{"text": turn.opening(opening)}]})];
    for (i, exchange) in history.iter().enumerate() {
        let parts = exchange.resend(i)?;
        let replies = replies(exchange, &parts);
        push(&mut out, "model", parts);
        push(&mut out, "user", replies);
    }
    Ok(out)
}

/// What goes back after one answer: a `functionResponse` per result, then the
/// other observations as text.
fn replies(exchange: &Exchange, parts: &[Value]) -> Vec<Value> {
    let calls: Vec<&Value> = parts.iter().filter_map(|p| p.get("functionCall")).collect();
    let mut out: Vec<Value> = exchange
        .results
        .iter()
        .enumerate()
        .map(|(n, r)| function_response(&calls, n, r))
        .collect();
    out.extend(exchange.notes.iter().map(|n| json!({ "text": n })));
    out
}

/// One result as a `functionResponse`: the call it answers found by the id
/// `decode` gave it (else the call in the same position), whose `name` Google
/// requires and whose `id` it echoes where the call had one. The output goes
/// under `output`, a failure under `error`, the keys Google documents.
fn function_response(calls: &[&Value], n: usize, r: &ToolReturn) -> Value {
    let call = calls
        .iter()
        .enumerate()
        .find(|(i, c)| call_id(c, *i) == r.call_id)
        .map(|(_, c)| *c)
        .or_else(|| calls.get(n).copied());
    let name = call
        .and_then(|c| str_field(c, "name"))
        .unwrap_or_else(|| r.call_id.clone());
    let key = if r.is_error { "error" } else { "output" };
    let mut response = Map::new();
    if let Some(id) = call.and_then(|c| str_field(c, "id")) {
        response.insert("id".into(), json!(id));
    }
    response.insert("name".into(), json!(name));
    response.insert("response".into(), json!({ key: r.output }));
    json!({ "functionResponse": response })
}

/// Append `parts` as a turn of `role`, merged into the last turn when it has
/// the same role; nothing when there are no parts.
fn push(contents: &mut Vec<Value>, role: &str, parts: Vec<Value>) {
    if parts.is_empty() {
        return;
    }
    if let Some(last) = contents.last_mut().filter(|c| c["role"] == role) {
        if let Some(existing) = last.get_mut("parts").and_then(Value::as_array_mut) {
            existing.extend(parts);
            return;
        }
    }
    contents.push(json!({"role": role, "parts": parts}));
}

/// The id a `functionCall` is known by: Google's `id` where it sent one (it
/// often does not), else its name and its position among the answer's calls,
/// so the result can be matched back to it without a clock or a random source.
pub(crate) fn call_id(call: &Value, n: usize) -> String {
    str_field(call, "id").unwrap_or_else(|| {
        format!(
            "{}#{n}",
            str_field(call, "name").unwrap_or_else(|| "call".into())
        )
    })
}

/// Decode one response: an error body, or a `GenerateContentResponse`.
pub fn decode(response: &WireResponse) -> Result<Completion> {
    decode_with(PROVIDER, response, http_error, decode_value)
}

/// An HTTP error body: `{"error": {code, message, status}}` (a one-element
/// array of it on the non-SSE stream method), else the body's first bytes.
fn http_error(provider: Vendor, response: &WireResponse) -> VendorError {
    let Ok(v) = serde_json::from_slice::<Value>(&response.body) else {
        return opaque_error(provider, response);
    };
    let v = v.as_array().and_then(|a| a.first()).unwrap_or(&v);
    match v.get("error").filter(|e| e.is_object()) {
        Some(err) => error_object(response, err, response.status),
        None => opaque_error(provider, response),
    }
}

/// One Google error object. Its `status` (`RESOURCE_EXHAUSTED`,
/// `INVALID_ARGUMENT`) is the error type; its numeric `code` repeats the HTTP
/// status, so it is not kept twice. The wait comes from a `retry-after` header,
/// else from the `google.rpc.RetryInfo` detail Google sends with a 429.
fn error_object(response: &WireResponse, err: &Value, status: u16) -> VendorError {
    VendorError {
        provider: PROVIDER,
        status,
        error_type: str_field(err, "status"),
        code: None,
        message: str_field(err, "message").unwrap_or_else(|| snippet(&response.body)),
        request_id: header_request_id(response),
        retry_after: retry_after(response).or_else(|| retry_delay(err)),
    }
}

/// `details[].retryDelay` of a `RetryInfo` (`"58s"`, `"34.4s"`).
fn retry_delay(err: &Value) -> Option<Duration> {
    let info = err
        .get("details")?
        .as_array()?
        .iter()
        .find(|d| str_field(d, "@type").is_some_and(|t| t.ends_with("google.rpc.RetryInfo")))?;
    let secs: f64 = str_field(info, "retryDelay")?
        .strip_suffix('s')?
        .parse()
        .ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_millis((secs * 1000.0) as u64))
}

/// Decode a parsed 2xx body (`head` gives the request id): what the stream
/// assembler's rebuilt body is read with, too. An `error` object inside a 2xx
/// (a stream's error chunk) is the vendor error of the status its code names.
pub(crate) fn decode_value(head: &WireResponse, v: &Value) -> Result<Completion> {
    if let Some(err) = v.get("error").filter(|e| e.is_object()) {
        let status = err
            .get("code")
            .and_then(Value::as_u64)
            .filter(|c| (400..600).contains(c))
            .map_or(500, |c| c as u16);
        return Err(Error::from(error_object(head, err, status)));
    }
    let candidate = v
        .get("candidates")
        .and_then(Value::as_array)
        .and_then(|c| c.first());
    let mut c = match candidate {
        Some(candidate) => read_candidate(head, candidate)?,
        None => blocked_prompt(head, v)?,
    };
    c.usage = v.get("usageMetadata").filter(|u| u.is_object()).map(usage);
    Ok(Completion {
        provider: PROVIDER,
        model: str_field(v, "modelVersion"),
        request_id: header_request_id(head).or_else(|| str_field(v, "responseId")),
        response_id: str_field(v, "responseId"),
        ..c
    })
}

/// No candidate: a prompt Google blocked (`promptFeedback.blockReason`, a
/// refusal in Google's words), else a body this crate cannot read.
fn blocked_prompt(head: &WireResponse, v: &Value) -> Result<Completion> {
    let reason = v
        .get("promptFeedback")
        .and_then(|f| str_field(f, "blockReason"))
        .ok_or_else(|| missing(PROVIDER, head, "the response has no candidates"))?;
    Ok(Completion {
        stop: StopReason::Refusal,
        finish_reason: Some(reason),
        ..Completion::default()
    })
}

/// The first candidate: its parts, stop reason, grounding and fetched URLs.
fn read_candidate(head: &WireResponse, candidate: &Value) -> Result<Completion> {
    let content = candidate.get("content").and_then(|c| c.get("parts"));
    let mut c = Completion::default();
    // Where each part begins in the text (a segment's offsets are its part's).
    let mut offsets = Vec::new();
    for part in content.and_then(Value::as_array).into_iter().flatten() {
        offsets.push(c.text.len());
        if let Some(call) = part.get("functionCall") {
            c.tool_calls.extend(function_call(call, c.tool_calls.len()));
        } else if part.get("thought").and_then(Value::as_bool) != Some(true) {
            c.text
                .push_str(part.get("text").and_then(Value::as_str).unwrap_or_default());
        }
    }
    let reason = str_field(candidate, "finishReason");
    if reason.as_deref() == Some("MALFORMED_FUNCTION_CALL") {
        return Err(Error::from(malformed_call(head, candidate)));
    }
    c.stop = stop_reason(reason.as_deref(), !c.tool_calls.is_empty());
    c.finish_reason = reason;
    if let Some(g) = candidate.get("groundingMetadata").filter(|g| g.is_object()) {
        let (searched, left) = searches(g);
        c.server_tools.extend(searched);
        c.cut.server_tool_calls += left;
        c.cut.searches += left;
        (c.citations, c.cut.citations) = citations(g);
        (c.claims, c.cut.claim_links) = super::gemini_claims::claims(g, &c.text, &offsets);
        c.search_suggestions = g
            .get("searchEntryPoint")
            .and_then(|e| str_field(e, "renderedContent"));
    }
    if let Some(u) = candidate.get("urlContextMetadata") {
        c.server_tools.extend(fetches(u));
    }
    c.blocks = json_blocks(content);
    Ok(c)
}

/// `MALFORMED_FUNCTION_CALL`: the model's call could not be parsed, so there is
/// nothing to run and no answer. An error, not a refusal (the model did not
/// decline), under the 2xx status it came with, so it is not retried blindly:
/// each attempt is billed, and a schema the model cannot follow fails again.
fn malformed_call(head: &WireResponse, candidate: &Value) -> VendorError {
    let said = str_field(candidate, "finishMessage")
        .map(|m| format!(" Google said: {m}"))
        .unwrap_or_default();
    VendorError {
        provider: PROVIDER,
        status: head.status,
        error_type: Some("MALFORMED_FUNCTION_CALL".to_string()),
        code: None,
        message: format!(
            "the model produced a function call that could not be parsed; no tool was run.{said}"
        ),
        request_id: header_request_id(head),
        retry_after: None,
    }
}

/// `finishReason` as the crate's stop reason. Gemini says `STOP` after a
/// function call too, so calls make it `ToolUse`; every reason that means
/// "blocked" is a refusal; the rest keep Google's word.
fn stop_reason(reason: Option<&str>, calls: bool) -> StopReason {
    match reason {
        None | Some("STOP") if calls => StopReason::ToolUse,
        None | Some("STOP") => StopReason::EndTurn,
        Some("MAX_TOKENS") => StopReason::MaxTokens,
        Some(
            "SAFETY"
            | "RECITATION"
            | "PROHIBITED_CONTENT"
            | "BLOCKLIST"
            | "SPII"
            | "IMAGE_SAFETY"
            | "IMAGE_PROHIBITED_CONTENT"
            | "IMAGE_RECITATION",
        ) => StopReason::Refusal,
        Some(other) => StopReason::Other(other.to_string()),
    }
}

/// A `functionCall` part as a local tool call (`n`: its position among the
/// answer's calls); `args` is already JSON.
pub(crate) fn function_call(call: &Value, n: usize) -> Option<ToolCall> {
    Some(ToolCall {
        id: call_id(call, n),
        name: str_field(call, "name")?,
        input: call
            .get("args")
            .filter(|a| !a.is_null())
            .cloned()
            .unwrap_or_else(|| Value::Object(Map::new())),
    })
}

/// One fetch per `urlMetadata` entry, failed with Google's status when the URL
/// was not retrieved (`web_fetch`, the crate's name for a fetch).
pub(crate) fn fetches(u: &Value) -> Vec<ServerToolCall> {
    u.get("urlMetadata")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|m| {
            let status = str_field(m, "urlRetrievalStatus")
                .unwrap_or_else(|| "URL_RETRIEVAL_STATUS_UNSPECIFIED".to_string());
            let call = if status == RETRIEVED {
                ServerToolCall::ok(PROVIDER, "web_fetch")
            } else {
                ServerToolCall::failed(PROVIDER, "web_fetch", status)
            };
            match str_field(m, "retrievedUrl") {
                Some(url) => call.with_input(url),
                None => call,
            }
        })
        .collect()
}

/// Gemini usage. `promptTokenCount` includes the cached part
/// (`cachedContentTokenCount`, priced at its own rate); the search results and
/// pages the tools put in the prompt (`toolUsePromptTokenCount`) are beside it
/// and billed as input; thinking (`thoughtsTokenCount`) is beside
/// `candidatesTokenCount` and billed as output. Gemini reports no count of
/// searches or fetches: the recorded calls are what fees are counted from.
fn usage(u: &Value) -> Usage {
    let prompt =
        u64_field(u, "promptTokenCount").saturating_add(u64_field(u, "toolUsePromptTokenCount"));
    let cached = u64_field(u, "cachedContentTokenCount").min(prompt);
    Usage {
        input_tokens: prompt - cached,
        output_tokens: u64_field(u, "candidatesTokenCount")
            .saturating_add(u64_field(u, "thoughtsTokenCount"))
            .min(Usage::MAX_COUNT),
        cache_read_tokens: cached,
        ..Usage::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_retry_delay_is_read_from_retry_info_only() {
        let err = |d: Value| json!({"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": d}]});
        assert_eq!(
            retry_delay(&err(json!("34.4s"))),
            Some(Duration::from_millis(34_400))
        );
        for bad in [json!("58"), json!("-1s"), json!("NaNs"), json!(58)] {
            assert_eq!(retry_delay(&err(bad.clone())), None, "{bad}");
        }
    }

    #[test]
    fn stop_after_a_call_is_tool_use() {
        assert_eq!(stop_reason(Some("STOP"), true), StopReason::ToolUse);
        assert_eq!(stop_reason(None, false), StopReason::EndTurn);
        assert_eq!(
            stop_reason(Some("IMAGE_SAFETY"), false),
            StopReason::Refusal
        );
        assert_eq!(
            stop_reason(Some("UNEXPECTED_TOOL_CALL"), false),
            StopReason::Other("UNEXPECTED_TOOL_CALL".into())
        );
    }
}
