//! Every body of every declaration on every wire validates against the vendor's
//! published schema: OpenAI's OpenAPI document (CreateChatCompletionRequest,
//! CreateResponse), OpenRouter's OpenAPI document (ChatRequest) and Anthropic's SDK
//! types (MessageCreateParams and the tool params). The pieces are kept under
//! tests/fixtures/schemas/ (provenance in tests/fixtures/README.md; `extract.py`
//! cuts them) with every object closed, so a key the vendor does not list fails.
//!
//! Gemini is not here: Google publishes its API as a discovery document, not a
//! JSON Schema, and none was cut from it yet; its bodies are held to golden
//! bodies and to the recorded turn-2 request instead (tests/gemini_wire.rs).
//!
//! One body is known not to validate, and the test says so rather than hiding it:
//! the spec's OpenAI Chat Completions allow-list (`web_search_options.filters`),
//! which OpenAI's schema lacks. It is still sent, as the spec says, with a caution
//! naming `api = "responses"`, where the same allow-list validates.

#![allow(clippy::unwrap_used)]

use io_harness::core::endpoint::Endpoint;
use io_harness::core::vendor::Wire;
use io_harness::core::wire;
use io_harness::{ToolSpec, Turn, Vendor, WebAccess};
use serde_json::{Value, json};

fn schema(file: &str, root: &str) -> jsonschema::Validator {
    let path = format!(
        "{}/tests/fixtures/schemas/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    doc["$ref"] = json!(format!("#/$defs/{root}"));
    jsonschema::validator_for(&doc).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn validator(wire: Wire) -> Option<jsonschema::Validator> {
    Some(match wire {
        Wire::Anthropic2025 | Wire::Anthropic2026 => {
            schema("anthropic.json", "MessageCreateParams")
        }
        Wire::OpenAiChat => schema("openai.json", "CreateChatCompletionRequest"),
        Wire::OpenAiResponses => schema("openai.json", "CreateResponse"),
        Wire::OpenRouterPlugin | Wire::OpenRouterServerTools => {
            schema("openrouter.json", "ChatRequest")
        }
        // Google publishes no JSON Schema for generateContent; xAI's and
        // Perplexity's bodies are held to their recorded requests and their
        // API references in tests/all/xai_wire.rs and perplexity_wire.rs.
        Wire::Gemini | Wire::Xai | Wire::PerplexityAgent | Wire::PerplexitySonar => return None,
    })
}

fn declarations() -> Vec<Option<WebAccess>> {
    vec![
        None,
        Some(WebAccess::search()),
        Some(WebAccess::default().with_fetch()),
        Some(WebAccess::search().with_fetch()),
        Some(WebAccess::search().max_uses(3)),
        Some(WebAccess::search().allow("docs.rs").allow("crates.io")),
        Some(WebAccess::search().block("evil.test")),
        Some(
            WebAccess::search()
                .allow("docs.rs")
                .allow("evil.test")
                .block("evil.test"),
        ),
        Some(
            WebAccess::search()
                .with_fetch()
                .max_uses(2)
                .block("evil.test"),
        ),
    ]
}

fn body(wire: Wire, web: Option<WebAccess>, stream: bool) -> Option<Value> {
    let model = match wire.vendor() {
        Vendor::Anthropic => "claude-sonnet-4-5",
        Vendor::OpenAi => "gpt-5.2",
        Vendor::OpenRouter => "anthropic/claude-sonnet-4.5",
        Vendor::Gemini => "gemini-3.5-flash",
        Vendor::Xai => "grok-4.3",
        Vendor::Perplexity => "perplexity/sonar",
    };
    let turn = Turn {
        model: model.into(),
        max_tokens: 1024,
        goal: "find the release".into(),
        observations: vec!["[step 1] read_file README.md: ok".into()],
        tools: io_harness::core::tools::local_tool_specs()
            .into_iter()
            .chain([ToolSpec {
                name: "echo".into(),
                description: "Echo.".into(),
                input_schema: json!({"type": "object", "properties": {}}),
            }])
            .collect(),
        web,
        ..Default::default()
    };
    let endpoint = Endpoint::public(wire.vendor())
        .with_wire(wire)
        .streaming(stream);
    let request = wire::encode(&endpoint, &turn).ok()?;
    Some(serde_json::from_slice(&request.body).unwrap())
}

fn errors(v: &jsonschema::Validator, body: &Value) -> Vec<String> {
    v.iter_errors(body)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn every_body_on_every_wire_validates_against_the_vendor_schema() {
    let mut checked = 0;
    for wire in Wire::ALL {
        let Some(v) = validator(wire) else { continue };
        for (web, stream) in declarations()
            .into_iter()
            .flat_map(|w| [(w.clone(), false), (w, true)])
        {
            let Some(body) = body(wire, web.clone(), stream) else {
                continue; // refused: nothing is sent, nothing to validate
            };
            let known_gap = wire == Wire::OpenAiChat
                && web
                    .as_ref()
                    .is_some_and(|w| !w.vendor_filter().0.is_empty());
            let errs = errors(&v, &body);
            if known_gap {
                assert!(
                    errs.iter()
                        .any(|e| e.contains("filters") && e.contains("/web_search_options")),
                    "{wire}: expected the schema to reject web_search_options.filters, got {errs:?}"
                );
                let cautions = wire::cautions_wire(wire, web.as_ref());
                assert!(cautions.iter().any(|c| c.contains("api = \"responses\"")));
            } else {
                assert!(errs.is_empty(), "{wire} {web:?}: {errs:#?}\n{body}");
            }
            checked += 1;
        }
    }
    // 6 wires × 9 declarations, less the refusals in the matrix snapshot, each
    // streamed and not.
    assert_eq!(checked, 80);
}

#[test]
fn the_schemas_reject_keys_the_vendor_does_not_list() {
    for wire in Wire::ALL {
        let Some(v) = validator(wire) else { continue };
        let mut sent = body(wire, Some(WebAccess::search()), false).unwrap();
        assert!(v.is_valid(&sent), "{wire}");
        sent["bogus"] = json!(1);
        assert!(!v.is_valid(&sent), "{wire}: top-level key not rejected");
        sent.as_object_mut().unwrap().remove("bogus");
        // Inside the web entry too.
        match wire {
            Wire::OpenAiChat => sent["web_search_options"]["max_uses"] = json!(3),
            Wire::OpenRouterPlugin => sent["plugins"][0]["bogus"] = json!(3),
            _ => {
                let tools = sent["tools"].as_array_mut().unwrap();
                let last = tools.last_mut().unwrap();
                last["bogus"] = json!(3);
            }
        }
        assert!(
            !v.is_valid(&sent),
            "{wire}: key inside the web entry not rejected"
        );
    }
    // The names the vendors use and the ones they do not: OpenRouter's search tool
    // calls its block-list excluded_domains, its fetch tool blocked_domains.
    let v = validator(Wire::OpenRouterServerTools).unwrap();
    let mut sent = body(
        Wire::OpenRouterServerTools,
        Some(WebAccess::search().block("x.test")),
        false,
    )
    .unwrap();
    assert!(v.is_valid(&sent));
    let tools = sent["tools"].as_array_mut().unwrap();
    tools.last_mut().unwrap()["parameters"] = json!({"blocked_domains": ["x.test"]});
    assert!(!v.is_valid(&sent));
    // And OpenAI's Responses filter lists allowed_domains only.
    let v = validator(Wire::OpenAiResponses).unwrap();
    let mut sent = body(
        Wire::OpenAiResponses,
        Some(WebAccess::search().allow("docs.rs")),
        false,
    )
    .unwrap();
    assert!(v.is_valid(&sent));
    let tools = sent["tools"].as_array_mut().unwrap();
    tools.last_mut().unwrap()["filters"] = json!({"blocked_domains": ["x.test"]});
    assert!(!v.is_valid(&sent));
}
