//! The Gemini wire on Google's own recorded bodies (tests/fixtures/gemini, their
//! provenance in its README): every recording decoded to the whole expected
//! completion; the request bodies as golden JSON; the refusals' exact texts;
//! error bodies and bad input answered without a panic. The streamed half is
//! tests/gemini_stream.rs. Bodies written here rather than recorded say so where
//! they are built.

#![allow(clippy::unwrap_used)]

use crate::gemini_support;

use std::time::Duration;

use gemini_support::*;
use io_harness::core::vendor::Vendor;
use io_harness::core::wire::gemini::{decode, encode};
use io_harness::{
    Completion, Error, HeaderValue, ServerToolCall, StopReason, ToolCall, ToolSpec, Usage,
    WebAccess, WireResponse,
};
use pretty_assertions::assert_eq;
use serde_json::json;

#[test]
fn a_grounded_search_answer_decodes_whole() {
    let v = json_of("search_grounded.json");
    let g = &v["candidates"][0]["groundingMetadata"];
    let chunk = |i: usize, quote: &str| {
        let web = &g["groundingChunks"][i]["web"];
        cite(
            web["uri"].as_str().unwrap(),
            web["title"].as_str().unwrap(),
            Some(quote),
        )
    };
    let google = "https://www.google.com/search?q=weather+in+San Francisco, CA,+US";
    assert_eq!(
        g["groundingChunks"][0]["web"]["uri"], google,
        "the url as sent"
    );
    let expected = Completion {
        provider: Vendor::Gemini,
        text: v["candidates"][0]["content"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .into(),
        // In reading order: one per supporting segment and chunk.
        citations: vec![
            chunk(
                0,
                "**San Francisco, CA** - Residents and visitors in San Francisco are experiencing a mild Tuesday, with partly cloudy skies and temperatures hovering around 69°F.",
            ),
            chunk(0, "There is a very low chance of rain throughout the day."),
            chunk(
                1,
                "According to the latest weather reports, the forecast for the remainder of the day is expected to be sunny, with highs ranging from the mid-60s to the lower 80s.",
            ),
            chunk(
                2,
                "Winds are predicted to come from the west at 10 to 15 mph.",
            ),
            chunk(
                1,
                "As the evening approaches, the skies are expected to remain partly cloudy, with temperatures dropping to the upper 50s.",
            ),
            chunk(
                0,
                "There is a slight increase in the chance of rain overnight, but it remains low at 20%.",
            ),
        ],
        server_tools: vec![search("weather in San Francisco today")],
        stop: StopReason::EndTurn,
        finish_reason: Some("STOP".into()),
        // 17 prompt + 119 tool-use prompt; 201 answer + 213 thinking.
        usage: Some(Usage {
            input_tokens: 136,
            output_tokens: 414,
            ..Usage::default()
        }),
        model: Some("gemini-2.5-pro".into()),
        request_id: Some("btnJaOrqE4_6qtsP7bOboQs".into()),
        response_id: Some("btnJaOrqE4_6qtsP7bOboQs".into()),
        blocks: parts_of(&v),
        search_suggestions: g["searchEntryPoint"]["renderedContent"]
            .as_str()
            .map(Into::into),
        // What each source was cited for: each support's segment, by its byte
        // offsets, with the chunks it names.
        claims: g["groundingSupports"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| io_harness::Claim {
                start: s["segment"]["startIndex"].as_u64().unwrap_or(0) as usize,
                end: s["segment"]["endIndex"].as_u64().unwrap() as usize,
                urls: s["groundingChunkIndices"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| {
                        let i = i.as_u64().unwrap() as usize;
                        g["groundingChunks"][i]["web"]["uri"]
                            .as_str()
                            .unwrap()
                            .to_string()
                    })
                    .collect(),
            })
            .collect(),
        ..Completion::default()
    };
    assert_eq!(decoded("search_grounded.json"), expected);
}

#[test]
fn a_url_context_answer_is_one_fetch_per_url() {
    let c = decoded("url_context.json");
    assert_eq!(
        c.server_tools,
        vec![ServerToolCall::ok(Vendor::Gemini, "web_fetch").with_input("https://ai.pydantic.dev")]
    );
    // The support's segment has no startIndex (proto JSON omits a 0): still read.
    assert_eq!(
        c.citations,
        vec![cite(
            "https://ai.pydantic.dev",
            "Pydantic AI",
            Some(
                "Pydantic AI is a Python agent framework designed to make it less painful to build production grade applications with Generative AI."
            )
        )]
    );
    assert_eq!(
        (c.stop, c.finish_reason.as_deref()),
        (StopReason::EndTurn, Some("STOP"))
    );
    assert_eq!(c.usage.unwrap().input_tokens, 32 + 2395);
    assert_eq!(c.search_suggestions, None);
}

#[test]
fn a_failed_url_retrieval_is_a_failed_fetch() {
    // Written here: url_context.json with its status changed (no public recording
    // of a failed retrieval is known).
    let mut v = json_of("url_context.json");
    v["candidates"][0]["urlContextMetadata"]["urlMetadata"][0]["urlRetrievalStatus"] =
        json!("URL_RETRIEVAL_STATUS_PAYWALL");
    let c = decode(&ok(v.to_string().into_bytes())).unwrap();
    assert_eq!(
        c.server_tools,
        vec![
            ServerToolCall::failed(Vendor::Gemini, "web_fetch", "URL_RETRIEVAL_STATUS_PAYWALL")
                .with_input("https://ai.pydantic.dev")
        ]
    );
}

#[test]
fn a_function_call_keeps_its_signature_in_the_blocks() {
    let v = json_of("function_call_thought_signature.json");
    let expected = Completion {
        provider: Vendor::Gemini,
        tool_calls: vec![ToolCall {
            id: "weather#0".into(),
            name: "weather".into(),
            input: json!({"location": "San Francisco"}),
        }],
        stop: StopReason::ToolUse,
        finish_reason: Some("STOP".into()),
        usage: Some(Usage {
            input_tokens: 29,
            output_tokens: 15 + 1801,
            ..Usage::default()
        }),
        model: Some("gemini-3-pro-preview".into()),
        request_id: Some("JniLacKqGqH0xs0P0O776As".into()),
        response_id: Some("JniLacKqGqH0xs0P0O776As".into()),
        blocks: parts_of(&v),
        ..Completion::default()
    };
    assert_eq!(decoded("function_call_thought_signature.json"), expected);
    assert!(expected.blocks[0].contains("\"thoughtSignature\":\"Eqo+Cqc+"));
}

#[test]
fn thought_parts_are_not_the_answer_cached_tokens_are_cache_reads() {
    let v = json_of("thought_and_text.json");
    let c = decoded("thought_and_text.json");
    assert_eq!(
        c.text,
        v["candidates"][0]["content"]["parts"][1]["text"]
            .as_str()
            .unwrap()
    );
    assert!(!c.text.contains("My Thought Process"));
    assert_eq!(
        c.blocks.len(),
        2,
        "the thought stays in the blocks, for the transcript"
    );
    let u = decoded("cached_tokens.json").usage.unwrap();
    assert_eq!(
        (u.input_tokens, u.cache_read_tokens, u.output_tokens),
        (373 - 204, 204, 89 + 167)
    );
}

#[test]
fn the_finish_reasons_map_with_googles_word_kept() {
    let c = decoded("max_tokens.json");
    assert_eq!(
        (c.text.as_str(), c.stop, c.finish_reason.as_deref()),
        (
            "The capital of France is",
            StopReason::MaxTokens,
            Some("MAX_TOKENS")
        )
    );
    let c = decoded("safety_no_content.json");
    assert_eq!(
        (
            c.text.as_str(),
            c.stop,
            c.finish_reason.as_deref(),
            c.blocks.len()
        ),
        ("", StopReason::Refusal, Some("SAFETY"), 0)
    );
    let c = decoded("prompt_blocked.json");
    assert_eq!(
        (c.stop, c.finish_reason.as_deref(), c.model.as_deref()),
        (
            StopReason::Refusal,
            Some("PROHIBITED_CONTENT"),
            Some("gemini-3.7-flash")
        )
    );
    assert_eq!(c.usage.unwrap().input_tokens, 9);
    // Written here: the recorded MAX_TOKENS body with other reasons.
    for (reason, stop) in [
        ("RECITATION", StopReason::Refusal),
        ("SPII", StopReason::Refusal),
        ("BLOCKLIST", StopReason::Refusal),
        ("OTHER", StopReason::Other("OTHER".into())),
    ] {
        let mut v = json_of("max_tokens.json");
        v["candidates"][0]["finishReason"] = json!(reason);
        let c = decode(&ok(v.to_string().into_bytes())).unwrap();
        assert_eq!((c.stop, c.finish_reason.as_deref()), (stop, Some(reason)));
    }
}

#[test]
fn a_malformed_function_call_is_an_error_not_retried() {
    // Written here: no public recording of this finish is known.
    let body = json!({"candidates": [{"content": {}, "finishReason": "MALFORMED_FUNCTION_CALL",
        "finishMessage": "Malformed function call: print(x", "index": 0}]});
    let e = decode(&ok(body.to_string().into_bytes())).unwrap_err();
    let v = e.vendor().unwrap();
    assert_eq!(v.error_type.as_deref(), Some("MALFORMED_FUNCTION_CALL"));
    assert_eq!(
        v.message,
        "the model produced a function call that could not be parsed; no tool was run. Google said: Malformed function call: print(x"
    );
    assert!(!e.is_retryable());
}

fn error(status: u16, body: Vec<u8>) -> Error {
    decode(&WireResponse {
        status,
        headers: vec![],
        body,
    })
    .unwrap_err()
}

#[test]
fn error_bodies_are_vendor_errors_retried_as_the_other_wires_retry() {
    let e = error(429, fixture("error_429_resource_exhausted.json"));
    let v = e.vendor().unwrap();
    assert_eq!(
        (v.status, v.error_type.as_deref()),
        (429, Some("RESOURCE_EXHAUSTED"))
    );
    assert!(v.message.starts_with("You exceeded your current quota"));
    assert_eq!(v.retry_after, Some(Duration::from_secs(58)));
    assert!(e.is_retryable());
    let e = error(400, fixture("error_400_invalid_argument.json"));
    let v = e.vendor().unwrap();
    assert_eq!(
        (v.status, v.error_type.as_deref(), v.message.as_str()),
        (
            400,
            Some("INVALID_ARGUMENT"),
            "Thinking level MINIMAL is not supported for this model. Please retry with other thinking level."
        )
    );
    assert!(!e.is_retryable());
    // Written here, in the documented shape.
    for (status, name) in [
        (500, "INTERNAL"),
        (503, "UNAVAILABLE"),
        (403, "PERMISSION_DENIED"),
    ] {
        let body = json!({"error": {"code": status, "message": "m", "status": name}});
        let e = error(status, body.to_string().into_bytes());
        assert_eq!(e.vendor().unwrap().error_type.as_deref(), Some(name));
        assert_eq!(e.is_retryable(), status != 403, "{status}");
    }
    let e = error(502, b"<html>Bad Gateway</html>".to_vec());
    assert_eq!(e.vendor().unwrap().message, "<html>Bad Gateway</html>");
}

#[test]
fn odd_bodies_give_clear_outcomes() {
    // Written here: grounding with no text, and supports naming chunks that do not exist.
    let body = json!({"candidates": [{"finishReason": "STOP", "groundingMetadata": {
        "webSearchQueries": ["q"],
        "groundingChunks": [{"web": {"uri": "https://a.example/", "title": "a"}}, {"maps": {}}],
        "groundingSupports": [
            {"segment": {"endIndex": 3, "text": "abc"}, "groundingChunkIndices": [7, 0, 1]},
            {"segment": {"endIndex": 3}, "groundingChunkIndices": [0]},
            {"groundingChunkIndices": [18446744073709551615u64]}]}}]});
    let c = decode(&ok(body.to_string().into_bytes())).unwrap();
    assert_eq!(c.text, "");
    assert_eq!(
        c.citations,
        vec![cite("https://a.example/", "a", Some("abc"))]
    );
    assert_eq!(c.server_tools, vec![search("q")]);
    let e = decode(&ok(b"{\"usageMetadata\": {}}".to_vec())).unwrap_err();
    assert!(
        e.to_string().contains("the response has no candidates"),
        "{e}"
    );
    let e = decode(&ok(b"data: {".to_vec())).unwrap_err();
    assert!(matches!(e, Error::Decode { .. }), "{e}");
}

#[test]
fn a_flattened_request_is_the_golden_body() {
    let mut t = turn(Some(WebAccess::search().with_fetch()));
    t.observations = vec!["[step 1] looked".into()];
    t.tools = vec![ToolSpec {
        name: "read_file".into(),
        description: "Read a file".into(),
        input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}},
                             "additionalProperties": false}),
    }];
    let req = encode(&endpoint(false), &t).unwrap();
    assert_eq!(
        req.url,
        format!("{BASE}/models/gemini-2.5-flash:generateContent")
    );
    assert_eq!(
        req.headers[0],
        (
            "x-goog-api-key".into(),
            HeaderValue::Secret {
                prefix: String::new(),
                env: "GEMINI_API_KEY".into()
            }
        )
    );
    let body = String::from_utf8(req.body).unwrap();
    assert_eq!(body, json!({
        "contents": [{"role": "user", "parts": [{"text":
            "What is the weather in San Francisco today?\n\nObservations so far:\n[step 1] looked"}]}],
        "generationConfig": {"maxOutputTokens": 1024},
        "tools": [
            {"functionDeclarations": [{"name": "read_file", "description": "Read a file",
                "parametersJsonSchema": {"type": "object", "properties": {"path": {"type": "string"}},
                                         "additionalProperties": false}}]},
            {"google_search": {}},
            {"url_context": {}}]
    }).to_string());
    let mut t = turn(None);
    t.model = "models/gemini-3-pro-preview".into();
    let req = encode(&endpoint(true), &t).unwrap();
    assert_eq!(
        req.url,
        format!("{BASE}/models/gemini-3-pro-preview:streamGenerateContent?alt=sse")
    );
    assert_eq!(
        body_of(&t, true),
        json!({
        "contents": [{"role": "user", "parts": [{"text": t.goal}]}],
        "generationConfig": {"maxOutputTokens": 1024}})
    );
}

#[test]
fn what_gemini_cannot_carry_is_refused_before_sending() {
    // Through the dispatch, which checks the capability table first.
    let refused = |web: WebAccess| {
        io_harness::core::wire::encode(&endpoint(false), &turn(Some(web))).unwrap_err()
    };
    let e = refused(WebAccess::search().allow("docs.rs").allow("crates.io"));
    assert!(e.is_config());
    assert_eq!(
        e.to_string(),
        "provider \"gemini\" cannot restrict search to individual domains — its google_search tool takes no domain filter; remove the allowed domains (docs.rs, crates.io) or use provider \"anthropic\". No request was sent."
    );
    assert_eq!(
        refused(WebAccess::search().block("pinterest.com")).to_string(),
        "provider \"gemini\" cannot block individual domains — its google_search tool takes no domain filter (Vertex AI's excludeDomains is not the Gemini API); remove the blocked domains (pinterest.com) or use provider \"anthropic\". No request was sent."
    );
    assert_eq!(
        refused(WebAccess::search().with_fetch().max_uses(3)).to_string(),
        "provider \"gemini\" cannot cap web tool use (max_uses = 3) — its google_search and url_context tools take no cap; remove max_uses or use provider \"anthropic\". No request was sent."
    );
    let mut t = turn(None);
    t.model = "gemini-2.5-flash:generateContent?key=x".into();
    assert_eq!(
        encode(&endpoint(false), &t).unwrap_err().to_string(),
        "provider \"gemini\" cannot put the model \"gemini-2.5-flash:generateContent?key=x\" in its URL — a model name is letters, digits, '-', '.' and '_'; name the model as Google lists it. No request was sent."
    );
}
