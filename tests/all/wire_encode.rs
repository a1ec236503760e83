//! Golden request bodies and exact refusals: every declaration feature × every
//! vendor, compared byte for byte, plus the proof that a request declaring no web
//! access is the body it would be without the feature.

#![allow(clippy::unwrap_used)]

use io_harness::core::endpoint::Endpoint;
use io_harness::core::tools::local_tool_specs;
use io_harness::core::vendor::Vendor;
use io_harness::core::wire;
use io_harness::{Turn, WebAccess};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn turn(web: Option<WebAccess>) -> Turn {
    Turn {
        model: "m-1".into(),
        max_tokens: 1024,
        goal: "find the release".into(),
        observations: vec!["[step 1] read_file README.md: ok".into()],
        tools: vec![],
        web,
        ..Default::default()
    }
}

const PROMPT: &str = "find the release\n\nObservations so far:\n[step 1] read_file README.md: ok";

fn body(vendor: Vendor, web: Option<WebAccess>) -> Vec<u8> {
    wire::encode(&Endpoint::public(vendor), &turn(web))
        .unwrap()
        .body
}

fn refusal(vendor: Vendor, web: WebAccess) -> String {
    wire::encode(&Endpoint::public(vendor), &turn(Some(web)))
        .unwrap_err()
        .to_string()
}

/// The exact bytes `expected` serialises to, in its key order.
fn bytes(expected: Value) -> Vec<u8> {
    serde_json::to_vec(&expected).unwrap()
}

fn assert_body(vendor: Vendor, web: WebAccess, expected: Value) {
    let got = body(vendor, Some(web));
    assert_eq!(
        String::from_utf8(got).unwrap(),
        String::from_utf8(bytes(expected)).unwrap()
    );
}

fn anthropic(tools: Value) -> Value {
    json!({"model": "m-1", "max_tokens": 1024,
           "messages": [{"role": "user", "content": PROMPT}], "tools": tools})
}
fn openai(options: Value) -> Value {
    json!({"model": "m-1", "messages": [{"role": "user", "content": PROMPT}],
           "max_completion_tokens": 1024, "web_search_options": options})
}
fn openrouter(plugin: Value) -> Value {
    json!({"model": "m-1", "messages": [{"role": "user", "content": PROMPT}],
           "max_tokens": 1024, "plugins": [plugin]})
}

const OPENAI_BLOCK: &str = "provider \"openai\" cannot block individual domains — its web search filter is allow-list only; state the hosts to allow instead of the ones to block. No request was sent.";
const OPENAI_FETCH: &str = "provider \"openai\" cannot fetch pages — its Chat Completions API has no provider-executed fetch tool; turn fetch off, or use provider \"anthropic\" to fetch. No request was sent.";
// The spec's text on the spec's wire, then the wire of the same vendor that carries it.
const OPENROUTER_FETCH: &str = "provider \"openrouter\" cannot fetch pages — its web plugin runs searches only; turn fetch off, or use provider \"anthropic\" to fetch. OpenRouter's server tools can carry this declaration: use `api = \"server-tools\"` in [providers.openrouter]. No request was sent.";

// ---- no web: byte for byte the body without the feature -------------------------

#[test]
fn no_web_bodies_are_unchanged() {
    let expected = [
        (
            Vendor::Anthropic,
            json!({"model": "m-1", "max_tokens": 1024, "messages": [{"role": "user", "content": PROMPT}]}),
        ),
        (
            Vendor::OpenAi,
            json!({"model": "m-1", "messages": [{"role": "user", "content": PROMPT}], "max_completion_tokens": 1024}),
        ),
        (
            Vendor::OpenRouter,
            json!({"model": "m-1", "messages": [{"role": "user", "content": PROMPT}], "max_tokens": 1024}),
        ),
    ];
    for (vendor, want) in expected {
        let none = body(vendor, None);
        assert_eq!(none, bytes(want), "{vendor}");
        // A declaration that turns nothing on sends that same body, filters or not.
        assert_eq!(body(vendor, Some(WebAccess::default())), none, "{vendor}");
        let filters_only = WebAccess::default()
            .allow("docs.rs")
            .block("evil.test")
            .max_uses(3);
        assert_eq!(body(vendor, Some(filters_only)), none, "{vendor}");
        let text = String::from_utf8(none).unwrap();
        assert!(
            !text.contains("null") && !text.contains("[]"),
            "{vendor}: {text}"
        );
    }
}

#[test]
fn no_web_headers_carry_no_beta() {
    let req = wire::encode(&Endpoint::public(Vendor::Anthropic), &turn(None)).unwrap();
    let names: Vec<&str> = req.headers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["x-api-key", "anthropic-version", "content-type"]);
}

#[test]
fn local_tools_in_each_vendor_format_and_web_after_them() {
    let mut t = turn(Some(WebAccess::search()));
    t.tools = local_tool_specs()[..1].to_vec();
    let schema =
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
    let a: Value = serde_json::from_slice(
        &wire::encode(&Endpoint::public(Vendor::Anthropic), &t)
            .unwrap()
            .body,
    )
    .unwrap();
    assert_eq!(
        a["tools"],
        json!([
        {"name": "read_file", "description": "Read a UTF-8 text file in the workspace.", "input_schema": schema},
        {"type": "web_search_20250305", "name": "web_search"}])
    );
    let o: Value = serde_json::from_slice(
        &wire::encode(&Endpoint::public(Vendor::OpenAi), &t)
            .unwrap()
            .body,
    )
    .unwrap();
    assert_eq!(
        o["tools"],
        json!([{"type": "function", "function": {
        "name": "read_file", "description": "Read a UTF-8 text file in the workspace.", "parameters": schema}}])
    );
    assert_eq!(o["web_search_options"], json!({}));
}

// ---- the matrix -------------------------------------------------------------------

#[test]
fn search() {
    assert_body(
        Vendor::Anthropic,
        WebAccess::search(),
        anthropic(json!([{"type": "web_search_20250305", "name": "web_search"}])),
    );
    assert_body(Vendor::OpenAi, WebAccess::search(), openai(json!({})));
    assert_body(
        Vendor::OpenRouter,
        WebAccess::search(),
        openrouter(json!({"id": "web"})),
    );
}

#[test]
fn fetch() {
    let web = WebAccess::search().with_fetch();
    assert_body(
        Vendor::Anthropic,
        web.clone(),
        anthropic(json!([
        {"type": "web_search_20250305", "name": "web_search"},
        {"type": "web_fetch_20250910", "name": "web_fetch"}])),
    );
    assert_eq!(refusal(Vendor::OpenAi, web.clone()), OPENAI_FETCH);
    assert_eq!(refusal(Vendor::OpenRouter, web), OPENROUTER_FETCH);
    // Fetch alone is a declaration too.
    assert_body(
        Vendor::Anthropic,
        WebAccess::default().with_fetch(),
        anthropic(json!([
        {"type": "web_fetch_20250910", "name": "web_fetch"}])),
    );
}

#[test]
fn fetch_adds_the_beta_header_and_search_alone_does_not() {
    let headers = |web: WebAccess| {
        wire::encode(&Endpoint::public(Vendor::Anthropic), &turn(Some(web)))
            .unwrap()
            .headers
            .into_iter()
            .filter(|(n, _)| n == "anthropic-beta")
            .map(|(_, v)| v.redacted())
            .collect::<Vec<_>>()
    };
    assert_eq!(headers(WebAccess::search()), Vec::<String>::new());
    assert_eq!(
        headers(WebAccess::search().with_fetch()),
        ["web-fetch-2025-09-10"]
    );
}

#[test]
fn max_uses() {
    let web = WebAccess::search().with_fetch().max_uses(3);
    assert_body(
        Vendor::Anthropic,
        web,
        anthropic(json!([
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
        {"type": "web_fetch_20250910", "name": "web_fetch", "max_uses": 3}])),
    );
    // OpenAI's body has no cap field: not sent at all.
    assert_body(
        Vendor::OpenAi,
        WebAccess::search().max_uses(3),
        openai(json!({})),
    );
    assert_body(
        Vendor::OpenRouter,
        WebAccess::search().max_uses(3),
        openrouter(json!({"id": "web", "max_results": 3})),
    );
}

#[test]
fn allow() {
    let web = WebAccess::search().allow("docs.rs").allow("crates.io");
    assert_body(
        Vendor::Anthropic,
        web.clone(),
        anthropic(json!([
        {"type": "web_search_20250305", "name": "web_search", "allowed_domains": ["docs.rs", "crates.io"]}])),
    );
    assert_body(
        Vendor::OpenAi,
        web.clone(),
        openai(json!({"filters": {"allowed_domains": ["docs.rs", "crates.io"]}})),
    );
    assert_eq!(
        refusal(Vendor::OpenRouter, web),
        "provider \"openrouter\" cannot restrict search to individual domains — its web plugin takes no domain filter; remove the allowed domains (docs.rs, crates.io) or use provider \"anthropic\". OpenRouter's server tools can carry this declaration: use `api = \"server-tools\"` in [providers.openrouter]. No request was sent."
    );
}

#[test]
fn block() {
    let web = WebAccess::search().block("evil.test");
    assert_body(
        Vendor::Anthropic,
        web.clone(),
        anthropic(json!([
        {"type": "web_search_20250305", "name": "web_search", "blocked_domains": ["evil.test"]}])),
    );
    assert_eq!(refusal(Vendor::OpenAi, web.clone()), OPENAI_BLOCK);
    assert_eq!(
        refusal(Vendor::OpenRouter, web),
        "provider \"openrouter\" cannot block individual domains — its web plugin takes no domain filter; remove the blocked domains (evil.test) or use provider \"anthropic\". OpenRouter's server tools can carry this declaration: use `api = \"server-tools\"` in [providers.openrouter]. No request was sent."
    );
}

#[test]
fn allow_and_block() {
    let web = WebAccess::search()
        .allow("docs.rs")
        .allow("evil.test")
        .block("evil.test");
    assert_body(
        Vendor::Anthropic,
        web.clone(),
        anthropic(json!([
        {"type": "web_search_20250305", "name": "web_search", "allowed_domains": ["docs.rs"]}])),
    );
    // The allow-list wins, so the block-list never reaches OpenAI: carried.
    assert_body(
        Vendor::OpenAi,
        web.clone(),
        openai(json!({"filters": {"allowed_domains": ["docs.rs"]}})),
    );
    assert_eq!(
        refusal(Vendor::OpenRouter, web),
        "provider \"openrouter\" cannot restrict search to individual domains — its web plugin takes no domain filter; remove the allowed domains (docs.rs) or use provider \"anthropic\". OpenRouter's server tools can carry this declaration: use `api = \"server-tools\"` in [providers.openrouter]. No request was sent."
    );
}

#[test]
fn emptied_allow_list_is_refused_everywhere() {
    let web = WebAccess::search().allow("evil.test").block("evil.test");
    let want = "the web declaration allows no host: every allowed domain (evil.test) is also blocked, and sending no filter would let the provider reach any host; allow at least one host that is not blocked, or remove the allow-list. No request was sent.";
    for vendor in Vendor::ALL {
        assert_eq!(refusal(vendor, web.clone()), want, "{vendor}");
    }
}

#[test]
fn every_refusal_is_a_config_error_ending_no_request_was_sent() {
    let cases = [
        (Vendor::OpenAi, WebAccess::search().with_fetch()),
        (Vendor::OpenAi, WebAccess::search().block("a.test")),
        (Vendor::OpenRouter, WebAccess::search().with_fetch()),
        (Vendor::OpenRouter, WebAccess::search().allow("a.test")),
        (Vendor::OpenRouter, WebAccess::search().block("a.test")),
    ];
    for (vendor, web) in cases {
        let err = wire::encode(&Endpoint::public(vendor), &turn(Some(web.clone()))).unwrap_err();
        assert!(err.is_config(), "{vendor}");
        assert!(err.to_string().ends_with("No request was sent."), "{err}");
        assert!(
            err.to_string()
                .starts_with(&format!("provider \"{vendor}\"")),
            "{err}"
        );
        assert!(wire::carries_spec(vendor, Some(&web)).is_err());
    }
}

#[test]
fn urls_follow_the_base_url() {
    let mut e = Endpoint::public(Vendor::OpenRouter);
    assert_eq!(
        wire::encode(&e, &turn(None)).unwrap().url,
        "https://openrouter.ai/api/v1/chat/completions"
    );
    e.base_url = "http://127.0.0.1:9/api/".into();
    assert_eq!(
        wire::encode(&e, &turn(None)).unwrap().url,
        "http://127.0.0.1:9/api/v1/chat/completions"
    );
    assert_eq!(
        wire::encode(&Endpoint::public(Vendor::Anthropic), &turn(None))
            .unwrap()
            .url,
        "https://api.anthropic.com/v1/messages"
    );
    assert_eq!(
        wire::encode(&Endpoint::public(Vendor::OpenAi), &turn(None))
            .unwrap()
            .url,
        "https://api.openai.com/v1/chat/completions"
    );
}

#[test]
fn secrets_are_named_never_valued() {
    for vendor in Vendor::ALL {
        let req = wire::encode(&Endpoint::public(vendor), &turn(None)).unwrap();
        let envs: Vec<&str> = req.secret_envs().collect();
        assert_eq!(envs, [vendor.default_api_key_env()]);
    }
}

#[test]
fn cautions_where_docs_and_spec_disagree() {
    let openai = wire::cautions(Vendor::OpenAi, Some(&WebAccess::search().allow("docs.rs")));
    assert_eq!(
        openai,
        [
            "caution: OpenAI documents domain filters for its Responses API only; Chat Completions may reject or ignore web_search_options.filters — `api = \"responses\"` in [providers.openai] sends the allow-list where OpenAI documents it"
        ]
    );
    assert!(wire::cautions(Vendor::OpenAi, Some(&WebAccess::search())).is_empty());
    assert!(wire::cautions(Vendor::Anthropic, Some(&WebAccess::search())).is_empty());
    assert!(wire::cautions(Vendor::Anthropic, None).is_empty());
    let wild = wire::cautions(
        Vendor::Anthropic,
        Some(&WebAccess::search().block("*.example.com")),
    );
    assert!(wild[0].contains("*.example.com"), "{wild:?}");
}
