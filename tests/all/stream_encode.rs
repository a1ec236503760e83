//! What streaming changes in a request, on every wire: `"stream": true` last in every body (and
//! Chat Completions' `stream_options.include_usage`, which Anthropic's schema
//! lacks and would refuse), nothing else; the no-declaration body and the
//! `search = false` body stay byte-identical to each other when streamed; and
//! `io.toml` streams unless `[providers.NAME] stream = false`.

#![allow(clippy::unwrap_used)]

use io_harness::core::endpoint::Endpoint;
use io_harness::core::vendor::{Vendor, Wire};
use io_harness::core::wire;
use io_harness::{Config, Turn, WebAccess};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn turn(web: Option<WebAccess>) -> Turn {
    Turn {
        model: "m-1".into(),
        max_tokens: 1024,
        goal: "find the release".into(),
        observations: vec![],
        tools: vec![],
        web,
        ..Default::default()
    }
}

fn body(wire: Wire, stream: bool, web: Option<WebAccess>) -> String {
    let endpoint = Endpoint {
        wire,
        ..Endpoint::public(wire.vendor())
    }
    .streaming(stream);
    String::from_utf8(wire::encode(&endpoint, &turn(web)).unwrap().body).unwrap()
}

#[test]
fn a_streamed_body_is_the_plain_body_with_the_stream_fields_last() {
    for wire in Wire::ALL {
        // A cap where the wire takes one (Gemini, xAI and Sonar refuse it).
        let web = Some(match wire.capabilities().cap {
            io_harness::core::capability::Cap::Refused => WebAccess::search(),
            _ => WebAccess::search().max_uses(2),
        });
        let plain: Value = serde_json::from_str(&body(wire, false, web.clone())).unwrap();
        let mut want = plain.as_object().unwrap().clone();
        // Gemini asks for a stream in its URL (`:streamGenerateContent?alt=sse`):
        // its streamed body is its plain body.
        if wire == Wire::Gemini {
            assert_eq!(
                body(wire, true, web.clone()),
                body(wire, false, web.clone())
            );
            continue;
        }
        want.insert("stream".into(), json!(true));
        // Chat Completions sends usage only when asked; Messages and Responses
        // send it anyway (and Messages refuses the field), as xAI's Responses,
        // Perplexity's Agent API and Sonar (usage in every chunk) do.
        if matches!(
            wire,
            Wire::OpenAiChat | Wire::OpenRouterPlugin | Wire::OpenRouterServerTools
        ) {
            want.insert("stream_options".into(), json!({"include_usage": true}));
        }
        assert_eq!(
            body(wire, true, web.clone()),
            serde_json::to_string(&want).unwrap(),
            "{}",
            wire.label()
        );
    }
    assert!(!body(Wire::Anthropic2025, true, None).contains("stream_options"));
}

#[test]
fn streamed_no_declaration_and_search_off_bodies_are_byte_identical() {
    let off = WebAccess {
        search: false,
        ..WebAccess::search()
    };
    for wire in Wire::ALL {
        assert_eq!(
            body(wire, true, None),
            body(wire, true, Some(off.clone())),
            "{}",
            wire.label()
        );
    }
}

#[test]
fn io_toml_streams_unless_told_not_to() {
    let c = Config::parse(
        "[providers.openai]\nstream = false\n[providers.anthropic]\nidle_timeout_secs = 30\n",
        "io.toml",
    )
    .unwrap();
    assert!(c.endpoint(Vendor::Anthropic).stream);
    assert!(c.endpoint(Vendor::OpenRouter).stream);
    assert!(!c.endpoint(Vendor::OpenAi).stream);
    assert_eq!(c.idle_timeout(Vendor::Anthropic).as_secs(), 30);
    assert_eq!(
        c.idle_timeout(Vendor::OpenAi),
        io_harness::provider::DEFAULT_IDLE_TIMEOUT
    );
    // The spec's public endpoints (its golden bodies) are the non-streamed ones.
    assert!(!Endpoint::public(Vendor::Anthropic).stream);
}
