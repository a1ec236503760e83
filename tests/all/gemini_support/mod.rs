//! What the Gemini wire tests share: the recorded bodies (tests/fixtures/gemini),
//! a 200 response around a body, a stand-in endpoint and a turn.

#![allow(dead_code, clippy::unwrap_used)]

use io_harness::core::endpoint::Endpoint;
use io_harness::core::vendor::{Vendor, Wire};
use io_harness::core::wire::gemini::{decode, encode};
use io_harness::{Citation, Completion, ServerToolCall, Turn, WebAccess, WireResponse};
use serde_json::Value;

pub const BASE: &str = "https://generativelanguage.googleapis.com/v1beta";

pub fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/gemini/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub fn json_of(name: &str) -> Value {
    serde_json::from_slice(&fixture(name)).unwrap()
}

pub fn ok(body: Vec<u8>) -> WireResponse {
    WireResponse {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        body,
    }
}

pub fn decoded(name: &str) -> Completion {
    decode(&ok(fixture(name))).unwrap()
}

/// Gemini's endpoint at the public base URL, streamed or not.
pub fn endpoint(stream: bool) -> Endpoint {
    Endpoint {
        vendor: Vendor::Gemini,
        wire: Wire::Gemini,
        base_url: BASE.to_string(),
        api_key_env: "GEMINI_API_KEY".to_string(),
        stream,
        responses_state: Default::default(),
        search: Default::default(),
    }
}

pub fn turn(web: Option<WebAccess>) -> Turn {
    Turn {
        model: "gemini-2.5-flash".into(),
        max_tokens: 1024,
        goal: "What is the weather in San Francisco today?".into(),
        web,
        ..Turn::default()
    }
}

pub fn body_of(turn: &Turn, stream: bool) -> Value {
    serde_json::from_slice(&encode(&endpoint(stream), turn).unwrap().body).unwrap()
}

pub fn search(q: &str) -> ServerToolCall {
    ServerToolCall::ok(Vendor::Gemini, "web_search").with_input(q)
}

pub fn cite(url: &str, title: &str, quote: Option<&str>) -> Citation {
    Citation {
        url: url.into(),
        title: Some(title.into()),
        cited_text: quote.map(str::to_string),
    }
}

pub fn parts_of(v: &Value) -> Vec<String> {
    json_blocks(&v["candidates"][0]["content"]["parts"])
}

pub fn json_blocks(parts: &Value) -> Vec<String> {
    parts
        .as_array()
        .map(|a| a.iter().map(Value::to_string).collect())
        .unwrap_or_default()
}
