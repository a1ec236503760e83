//! Every declaration × every wire: the golden request (URL, headers, body bytes) or
//! the exact refusal, as one reviewed snapshot; the refusal matrix derived from the
//! capability table; base URLs with and without `/v1`; the `io.toml` wire keys.

#![allow(clippy::unwrap_used)]

use io_harness::core::capability::{CAPABILITIES, Cap};
use io_harness::core::endpoint::Endpoint;
use io_harness::core::vendor::Wire;
use io_harness::core::web::Location;
use io_harness::core::wire::{self, portability};
use io_harness::{Config, ToolSpec, Turn, Vendor, WebAccess};
use pretty_assertions::assert_eq;
use serde_json::json;

fn turn(web: Option<WebAccess>, model: &str) -> Turn {
    Turn {
        model: model.into(),
        max_tokens: 1024,
        goal: "find the release".into(),
        observations: vec![],
        tools: vec![ToolSpec {
            name: "read_file".into(),
            description: "Read a file.".into(),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        }],
        web,
        ..Default::default()
    }
}

/// The declarations the matrix covers: every feature alone and the combinations
/// whose resolution matters.
pub fn declarations() -> Vec<(&'static str, Option<WebAccess>)> {
    vec![
        ("none", None),
        ("search", Some(WebAccess::search())),
        ("fetch only", Some(WebAccess::default().with_fetch())),
        ("search + fetch", Some(WebAccess::search().with_fetch())),
        ("search, max_uses 3", Some(WebAccess::search().max_uses(3))),
        (
            "search, allow",
            Some(WebAccess::search().allow("docs.rs").allow("crates.io")),
        ),
        (
            "search, block",
            Some(WebAccess::search().block("evil.test")),
        ),
        (
            "search, allow + block (allow wins, minus blocked)",
            Some(
                WebAccess::search()
                    .allow("docs.rs")
                    .allow("evil.test")
                    .block("evil.test"),
            ),
        ),
        (
            "search + fetch, max_uses 2, block",
            Some(
                WebAccess::search()
                    .with_fetch()
                    .max_uses(2)
                    .block("evil.test"),
            ),
        ),
        ("search, location", Some(WebAccess::search().near(london()))),
        (
            "search + x_search",
            Some(WebAccess::search().with_x_search()),
        ),
    ]
}

fn london() -> Location {
    Location {
        country: Some("GB".into()),
        region: Some("England".into()),
        city: Some("London".into()),
        timezone: Some("Europe/London".into()),
    }
}

fn endpoint(wire: Wire) -> Endpoint {
    Endpoint::public(wire.vendor()).with_wire(wire)
}

fn model(wire: Wire) -> &'static str {
    match wire.vendor() {
        Vendor::Anthropic => "claude-sonnet-4-5",
        Vendor::OpenAi => "gpt-5.2",
        Vendor::OpenRouter => "anthropic/claude-sonnet-4.5",
        Vendor::Gemini => "gemini-3.5-flash",
        Vendor::Xai => "grok-4.3",
        Vendor::Perplexity if wire == Wire::PerplexitySonar => "sonar",
        Vendor::Perplexity => "perplexity/sonar",
    }
}

#[test]
fn every_declaration_on_every_wire() {
    let mut out = String::new();
    for (name, web) in declarations() {
        out.push_str(&format!("=== {name}\n"));
        for wire in Wire::ALL {
            out.push_str(&format!("--- {}\n", wire.label()));
            // A wire that takes no function tools is offered none, as the run does.
            let mut t = turn(web.clone(), model(wire));
            if wire.capabilities().local_tools.is_some() {
                t.tools.clear();
            }
            match wire::encode(&endpoint(wire), &t) {
                Ok(r) => {
                    out.push_str(&format!("{} {}\n", r.method, r.url));
                    for (n, v) in &r.headers {
                        out.push_str(&format!("{n}: {}\n", v.redacted()));
                    }
                    out.push_str(&String::from_utf8(r.body).unwrap());
                    out.push('\n');
                }
                Err(e) => out.push_str(&format!("REFUSED {e}\n")),
            }
        }
    }
    insta::assert_snapshot!(out);
}

#[test]
fn the_refusal_matrix_follows_the_capability_table() {
    // For every refusable feature alone, a wire refuses exactly when its row says so.
    let features = [
        ("fetch", WebAccess::search().with_fetch()),
        ("allow", WebAccess::search().allow("docs.rs")),
        ("block", WebAccess::search().block("evil.test")),
        ("cap", WebAccess::search().max_uses(2)),
        ("location", WebAccess::search().near(london())),
    ];
    let mut got = Vec::new();
    for row in CAPABILITIES {
        for (name, web) in &features {
            let refused = io_harness::core::capability::carries(row.wire, Some(web)).is_err();
            got.push((row.wire.label(), *name, refused));
        }
    }
    let refused = |w: Wire, f: &str| {
        let row = w.capabilities();
        match f {
            "fetch" => row.fetch.is_some(),
            "allow" => row.allow_list.is_some(),
            "block" => row.block_list.is_some(),
            "location" => row.location.is_some(),
            _ => row.cap == Cap::Refused,
        }
    };
    let want: Vec<_> = Wire::ALL
        .iter()
        .flat_map(|w| {
            ["fetch", "allow", "block", "cap", "location"]
                .into_iter()
                .map(move |f| (w.label(), f, refused(*w, f)))
        })
        .collect();
    assert_eq!(got, want);
    // And the table itself, as docs/vendors.md states it.
    let table: Vec<(Wire, bool, bool, bool)> = CAPABILITIES
        .iter()
        .map(|c| {
            (
                c.wire,
                c.fetch.is_none(),
                c.allow_list.is_none(),
                c.block_list.is_none(),
            )
        })
        .collect();
    assert_eq!(
        table,
        [
            (Wire::Anthropic2025, true, true, true),
            (Wire::Anthropic2026, true, true, true),
            (Wire::OpenAiChat, false, true, false),
            (Wire::OpenAiResponses, false, true, false),
            (Wire::OpenRouterPlugin, false, false, false),
            (Wire::OpenRouterServerTools, true, true, true),
            (Wire::Gemini, true, false, false),
            (Wire::Xai, false, true, true),
            (Wire::PerplexityAgent, true, true, true),
            (Wire::PerplexitySonar, false, true, true),
        ]
    );
}

#[test]
fn the_spec_refusal_example_is_byte_for_byte() {
    let err = io_harness::core::capability::carries(
        Wire::OpenAiChat,
        Some(&WebAccess::search().block("evil.test")),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        "provider \"openai\" cannot block individual domains — its web search filter is allow-list only; state the hosts to allow instead of the ones to block. No request was sent."
    );
}

#[test]
fn new_wire_refusals_take_the_spec_form() {
    let refusal = |wire, web: WebAccess| {
        io_harness::core::capability::carries(wire, Some(&web))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        refusal(Wire::OpenAiResponses, WebAccess::search().with_fetch()),
        "provider \"openai\" with api = \"responses\" cannot fetch pages — its Responses API has no provider-executed fetch tool; turn fetch off, or use provider \"anthropic\" to fetch. No request was sent."
    );
    assert_eq!(
        refusal(
            Wire::OpenAiResponses,
            WebAccess::search().block("evil.test")
        ),
        "provider \"openai\" with api = \"responses\" cannot block individual domains — its web_search filter is allow-list only; state the hosts to allow instead of the ones to block (evil.test), or use provider \"anthropic\". No request was sent."
    );
    // OpenRouter's documented restriction, checked before sending: OpenAI's native
    // search ignores excluded_domains.
    let err = wire::encode(
        &endpoint(Wire::OpenRouterServerTools),
        &turn(
            Some(WebAccess::search().block("evil.test")),
            "openai/gpt-5.2",
        ),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        "provider \"openrouter\" with api = \"server-tools\" cannot block individual domains for model \"openai/gpt-5.2\" — OpenRouter documents excluded_domains as silently ignored with OpenAI's native search; state the hosts to allow instead of the ones to block (evil.test), or use provider \"anthropic\". No request was sent."
    );
    let err = wire::encode(
        &endpoint(Wire::OpenRouterServerTools),
        &turn(
            Some(WebAccess::search().allow("docs.rs")),
            "perplexity/sonar",
        ),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("Perplexity") && err.ends_with("No request was sent."),
        "{err}"
    );
}

#[test]
fn the_portability_view_is_the_check() {
    let web = WebAccess::search().allow("docs.rs");
    let verdicts = portability(Some(&web), |v| v.default_model().to_string());
    assert_eq!(verdicts.len(), Wire::ALL.len());
    let refused: Vec<Wire> = verdicts
        .iter()
        .filter(|v| v.refusal.is_some())
        .map(|v| v.wire)
        .collect();
    assert_eq!(refused, [Wire::OpenRouterPlugin, Wire::Gemini]);
    // Every verdict is what `encode` says for that wire and model, the limits
    // that depend on the model included.
    let declarations = [
        WebAccess::search().allow("docs.rs"),
        WebAccess::search().block("evil.test"),
        WebAccess::search().with_fetch(),
        WebAccess::search().max_uses(2),
    ];
    let mut model_refusals = 0;
    for web in &declarations {
        for openrouter in [
            "openai/gpt-5.2",
            "perplexity/sonar",
            "anthropic/claude-sonnet-4.5",
        ] {
            let model = |v: Vendor| match v {
                Vendor::OpenRouter => openrouter.to_string(),
                _ => v.default_model().to_string(),
            };
            for v in portability(Some(web), model) {
                let mut t = turn(Some(web.clone()), &model(v.wire.vendor()));
                if v.wire.capabilities().local_tools.is_some() {
                    t.tools.clear();
                }
                let sent = wire::encode(&endpoint(v.wire), &t);
                assert_eq!(
                    v.refusal,
                    sent.err().map(|e| e.to_string()),
                    "{} {web:?} {openrouter}",
                    v.wire.label()
                );
                if v.refusal
                    .as_deref()
                    .is_some_and(|r| r.contains("for model"))
                {
                    model_refusals += 1;
                    assert!(v.reason.as_deref().unwrap().contains(openrouter));
                }
            }
        }
    }
    // openai/ with a block-list, perplexity/ with either list.
    assert_eq!(model_refusals, 3);
}

#[test]
fn an_allow_list_on_chat_is_sent_with_a_caution_naming_responses() {
    let web = WebAccess::search().allow("docs.rs");
    let body = wire::encode(
        &endpoint(Wire::OpenAiChat),
        &turn(Some(web.clone()), "gpt-5-search-api"),
    )
    .unwrap()
    .body;
    assert!(
        String::from_utf8(body)
            .unwrap()
            .contains("\"filters\":{\"allowed_domains\":[\"docs.rs\"]}")
    );
    let cautions = wire::cautions_wire(Wire::OpenAiChat, Some(&web));
    assert!(
        cautions[0].contains("`api = \"responses\"`"),
        "{cautions:?}"
    );
    let note = wire::cautions_wire(Wire::OpenAiResponses, Some(&web.max_uses(2)));
    assert_eq!(
        note,
        [
            "note: max_uses is sent as max_tool_calls, which caps all built-in tool calls of a response, not searches alone"
        ]
    );
}

#[test]
fn base_urls_ending_in_v1_reach_the_same_url() {
    let url = |wire: Wire, base: &str| {
        Endpoint {
            base_url: base.into(),
            ..endpoint(wire)
        }
        .url()
    };
    for (wire, bases, want) in [
        (
            Wire::OpenAiChat,
            [
                "https://api.openai.com",
                "https://api.openai.com/v1",
                "https://api.openai.com/v1/",
            ],
            "https://api.openai.com/v1/chat/completions",
        ),
        (
            Wire::OpenAiResponses,
            [
                "https://api.openai.com",
                "https://api.openai.com/v1",
                "https://api.openai.com/v1/",
            ],
            "https://api.openai.com/v1/responses",
        ),
        (
            Wire::OpenRouterServerTools,
            [
                "https://openrouter.ai/api",
                "https://openrouter.ai/api/v1",
                "https://openrouter.ai/api/",
            ],
            "https://openrouter.ai/api/v1/chat/completions",
        ),
        (
            Wire::Anthropic2026,
            [
                "https://api.anthropic.com",
                "https://api.anthropic.com/v1",
                "https://api.anthropic.com/",
            ],
            "https://api.anthropic.com/v1/messages",
        ),
    ] {
        for base in bases {
            assert_eq!(url(wire, base), want, "{base}");
        }
    }
    // A /v1 elsewhere in the path is left alone.
    assert_eq!(
        url(Wire::OpenAiChat, "http://127.0.0.1:9/v1/proxy"),
        "http://127.0.0.1:9/v1/proxy/v1/chat/completions"
    );
}

#[test]
fn io_toml_picks_the_wire_and_names_the_accepted_values() {
    let config = Config::parse(
        "[providers.openai]\napi = \"responses\"\n[providers.openrouter]\napi = \"server-tools\"\n[providers.anthropic]\nweb_tools = \"2026\"\n",
        "io.toml",
    )
    .unwrap();
    assert_eq!(config.endpoint(Vendor::OpenAi).wire, Wire::OpenAiResponses);
    assert_eq!(
        config.endpoint(Vendor::OpenRouter).wire,
        Wire::OpenRouterServerTools
    );
    assert_eq!(config.endpoint(Vendor::Anthropic).wire, Wire::Anthropic2026);
    let defaults = Config::parse("", "io.toml").unwrap();
    for v in Vendor::ALL {
        assert_eq!(defaults.endpoint(v).wire, Wire::spec(v));
    }
    let err = Config::parse("[providers.openai]\napi = \"respones\"\n", "io.toml")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "io.toml:2: `api` in [providers.openai]: api = \"respones\" is not a wire this crate speaks; accepted values: \"chat\", \"responses\" (default \"chat\")"
    );
    let err = Config::parse("[providers.openrouter]\napi = \"responses\"\n", "io.toml")
        .unwrap_err()
        .to_string();
    assert!(err.contains("\"plugin\", \"server-tools\""), "{err}");
    let err = Config::parse("[providers.anthropic]\napi = \"chat\"\n", "io.toml")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "io.toml:2: `api` in [providers.anthropic]: has no key api (it belongs in [providers.openai] and [providers.openrouter]); this table picks its wire with web_tools"
    );
}
