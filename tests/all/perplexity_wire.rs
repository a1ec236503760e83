//! Perplexity's two wires on their recorded answers (tests/fixtures/perplexity,
//! provenance in tests/fixtures/README.md): the Agent API's `search_results`
//! items and `[n]` markers, Sonar's `citations` and `search_results` (every
//! source kept, the cited ones carrying the sentence that cites them), the
//! vendor's own cost, the recorded streams (Sonar's running usage read once, at
//! the end; its 2025 bytes with CRLF and `message` beside `delta`; a `: ping`
//! comment), `<think>` kept apart, the error bodies; and the bodies each wire
//! is sent, with what each refuses.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::stream::{assemble_on, recorded, recorded_the_same_however_cut, text_of};
use io_harness::core::endpoint::{ContextSize, Endpoint, Recency, SearchSettings};
use io_harness::core::vendor::{Vendor, Wire};
use io_harness::core::web::{Location, WebAccess};
use io_harness::core::wire::{self, stream::Delta};
use io_harness::{Citation, Completion, Error, ServerToolCall, ToolSpec, Turn, WireResponse};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const AGENT: Wire = Wire::PerplexityAgent;
const SONAR: Wire = Wire::PerplexitySonar;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/perplexity/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn decoded(wire: Wire, name: &str) -> Completion {
    let head = common::stream::head();
    wire::decode_wire(
        wire,
        &WireResponse {
            body: fixture(name),
            ..head
        },
    )
    .unwrap()
}

fn endpoint(wire: Wire) -> Endpoint {
    Endpoint::public(Vendor::Perplexity).with_wire(wire)
}

fn turn(wire: Wire, web: Option<WebAccess>) -> Turn {
    Turn {
        model: wire.default_model().into(),
        max_tokens: 1024,
        goal: "Describe TypeScript.".into(),
        web,
        ..Turn::default()
    }
}

fn body(endpoint: &Endpoint, turn: &Turn) -> (String, Value) {
    let r = wire::encode(endpoint, turn).unwrap();
    (r.url, serde_json::from_slice(&r.body).unwrap())
}

fn refused(wire: Wire, web: WebAccess) -> String {
    wire::encode(&endpoint(wire), &turn(wire, Some(web)))
        .unwrap_err()
        .to_string()
}

#[test]
fn an_agent_answer_cites_its_search_results_by_their_markers() {
    let c = decoded(AGENT, "agent-web-search.json");
    assert!(
        c.text
            .ends_with("builds on JavaScript with syntax for types.[7]")
    );
    assert_eq!(
        c.server_tools,
        [ServerToolCall::ok(Vendor::Perplexity, "search_web").with_input(
            "Find the official TypeScript website and describe TypeScript in one sentence with a citation."
        )]
    );
    // Every result is a source; the one [7] names carries its sentence.
    assert_eq!(c.citations.len(), 10);
    let cited: Vec<&Citation> = c
        .citations
        .iter()
        .filter(|c| c.cited_text.is_some())
        .collect();
    assert_eq!(
        cited,
        [&Citation {
            url: "https://www.typescriptlang.org/".into(),
            title: Some("TypeScript: JavaScript With Syntax For Types.".into()),
            cited_text: Some("The official TypeScript website is **typescriptlang.org**; TypeScript is a strongly typed programming language that builds on JavaScript with syntax for types.".into()),
        }]
    );
    assert_eq!(c.claims.len(), 1);
    assert_eq!(c.claims[0].urls, ["https://www.typescriptlang.org/"]);
    let u = c.usage.unwrap();
    // 3007 input: 1224 written to the cache, 1780 read from it, 3 plain.
    assert_eq!(
        (
            u.input_tokens,
            u.cache_write_tokens,
            u.cache_read_tokens,
            u.output_tokens
        ),
        (3, 1224, 1780, 36)
    );
    assert_eq!(u.server_tool_requests, 1);
    // usage.cost.total_cost $0.00119: the cost of record.
    assert_eq!(u.reported_cost_micro_usd, Some(1_190));
    assert_eq!(c.model.as_deref(), Some("openai/gpt-6-luna"));
}

#[test]
fn the_agent_stream_assembles_to_its_final_response() {
    let (deltas, c) = recorded_the_same_however_cut(AGENT, "agent-web-search.chunks.jsonl");
    let text = String::from_utf8(fixture("agent-web-search.chunks.jsonl")).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let whole = wire::decode_wire(
        AGENT,
        &WireResponse {
            body: serde_json::to_vec(&last["response"]).unwrap(),
            ..common::stream::head()
        },
    )
    .unwrap();
    assert_eq!(c, whole);
    assert_eq!(text_of(&deltas), c.text);
    // The search shows as its function_call opens and returns as the
    // search_results item it closes as, under the same id.
    let search: Vec<_> = deltas
        .iter()
        .filter_map(|d| match d {
            Delta::ServerToolStarted { id, tool, .. } => Some(format!("start {tool} {id}")),
            Delta::ServerToolReturned { id, call } => Some(format!("return {} {id}", call.tool)),
            _ => None,
        })
        .collect();
    let id = "call_20a572ff-9a87-4df3-9fb1-ea54e5688352";
    assert_eq!(
        search,
        [
            format!("start search_web {id}"),
            format!("return search_web {id}")
        ]
    );
    assert_eq!(c.server_tools.len(), 1);
    // Cut before `response.completed`: no completion.
    let stream = recorded(AGENT, "agent-web-search.chunks.jsonl");
    let s = String::from_utf8(stream).unwrap();
    let at = s.rfind("data: ").unwrap();
    let (_, cut) = assemble_on(AGENT, &s.as_bytes()[..at], &[]);
    assert!(matches!(
        cut,
        Err(Error::Transport {
            retryable: true,
            ..
        })
    ));
}

#[test]
fn a_sonar_answer_keeps_every_source_and_says_which_were_cited() {
    let c = decoded(SONAR, "sonar-citations.json");
    assert_eq!(c.citations.len(), 7);
    let cited: Vec<&str> = c
        .citations
        .iter()
        .filter(|c| c.cited_text.is_some())
        .map(|c| c.url.as_str())
        .collect();
    // [4] (california-demographics? no: wfin.com) is cited by no marker.
    assert_eq!(cited.len(), 6, "{cited:?}");
    assert!(!cited.contains(&"https://wfin.com/fox-sports/pat-mcafee-says-san-francisco-wasnt-the-s-hole-he-thought-it-may-be-during-super-bowl-week/"));
    let first = &c.claims[0];
    assert_eq!(
        first.text(&c.text).trim_end_matches("[2][3][5][7]"),
        "The most recent estimates for San Francisco's city population (as of 2024-2026) range from **803,000 to 893,000**, with a consensus around **827,000-844,000** from authoritative U.S. data sources."
    );
    assert_eq!(
        first.urls,
        [
            "https://en.wikipedia.org/wiki/San_Francisco",
            "https://www.california-demographics.com/cities_by_population",
            "https://fred.stlouisfed.org/series/CASANF0POP",
            "https://worldpopulationreview.com/us-counties/california/san-francisco-county"
        ]
    );
    assert_eq!(
        c.server_tools,
        [ServerToolCall::ok(Vendor::Perplexity, "web_search")]
    );
    // This recording had its cost trimmed: none reported.
    assert_eq!(c.usage.unwrap().reported_cost_micro_usd, None);
    // Sonar's whole cost: tokens and its request fee ($0.00001 + $0.005).
    let c = decoded(SONAR, "sonar-usage-cost.json");
    assert_eq!(c.text, "OK");
    assert!(c.citations.is_empty() && c.server_tools.is_empty());
    assert_eq!(c.usage.unwrap().reported_cost_micro_usd, Some(5_010));
}

#[test]
fn sonars_running_usage_is_read_once_at_the_end() {
    // Every chunk carries the usage so far; the first priced the request at zero.
    let (deltas, c) = recorded_the_same_however_cut(SONAR, "sonar-usage-cost.chunks.jsonl");
    assert_eq!(c.usage.unwrap().reported_cost_micro_usd, Some(5_010));
    // The same as the recorded whole answer of the same request, but its id.
    let whole = decoded(SONAR, "sonar-usage-cost.json");
    assert_eq!(
        (c.text.as_str(), c.usage),
        (whole.text.as_str(), whole.usage)
    );
    let counts: Vec<u64> = deltas
        .iter()
        .filter_map(|d| match d {
            Delta::OutputTokens(n) => Some(*n),
            _ => None,
        })
        .collect();
    assert_eq!(counts, [1], "said once, with the final chunk");
    let (_, c) = recorded_the_same_however_cut(SONAR, "sonar-citations.chunks.jsonl");
    assert_eq!(c.citations.len(), 7);
    assert_eq!(c.usage.unwrap().output_tokens, 336);
    assert_eq!(c.finish_reason.as_deref(), Some("stop"));
}

#[test]
fn a_ping_comment_and_crlf_are_framing_not_events() {
    let stream = String::from_utf8(recorded(SONAR, "sonar-citations.chunks.jsonl")).unwrap();
    let (_, plain) = assemble_on(SONAR, stream.as_bytes(), &[]);
    let pinged = stream
        .replacen("\n\n", "\n\n: ping\n\n", 3)
        .replace("\n", "\r\n");
    let (_, c) = assemble_on(SONAR, pinged.as_bytes(), &[]);
    assert_eq!(c.unwrap(), plain.unwrap());
    // The 2025 bytes as sent: CRLF, `message` beside `delta`, one event, no end.
    let raw = fixture("sonar-stream-2025-04-first-event.sse");
    let (deltas, c) = assemble_on(SONAR, &raw, &[]);
    assert_eq!(deltas, [Delta::Text("The".into())]);
    assert!(
        matches!(
            c,
            Err(Error::Transport {
                retryable: true,
                ..
            })
        ),
        "{c:?}"
    );
}

#[test]
fn think_blocks_are_kept_apart_from_the_answer() {
    let body = json!({"id": "t", "model": "sonar-reasoning-pro", "object": "chat.completion",
        "citations": ["https://a.test/"],
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
            "content": "<think>\nThe user asks X; source 1 says so.\n</think>\n\nIt is so.[1]"}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14}});
    let head = common::stream::head();
    let c = wire::decode_wire(
        SONAR,
        &WireResponse {
            body: body.to_string().into_bytes(),
            ..head
        },
    )
    .unwrap();
    assert_eq!(c.text, "It is so.[1]");
    assert_eq!(c.claims[0].text(&c.text), "It is so.[1]");
    assert!(
        c.blocks[0].contains("<think>"),
        "the thought stays in the blocks"
    );
}

#[test]
fn perplexitys_error_bodies_are_the_vendor_error() {
    for (wire, name, status, kind) in [
        (SONAR, "error-400-invalid-model.json", 400, "invalid_model"),
        (
            SONAR,
            "error-403-sonar-retired.RECONSTRUCTED.json",
            403,
            "chat_completions_not_available",
        ),
        (
            AGENT,
            "agent-error-400-unknown-field.docs-example.json",
            400,
            "invalid_request",
        ),
    ] {
        let r = WireResponse {
            status,
            headers: vec![],
            body: fixture(name),
        };
        let Err(Error::Vendor(e)) = wire::decode_wire(wire, &r) else {
            panic!("{name}")
        };
        assert_eq!(
            (e.status, e.error_type.as_deref()),
            (status, Some(kind)),
            "{name}"
        );
        assert_eq!(
            e.code.as_deref(),
            Some(status.to_string().as_str()),
            "{name}"
        );
    }
}

#[test]
fn sonar_searches_unless_told_not_to() {
    let e = endpoint(SONAR);
    for web in [
        None,
        Some(WebAccess::default()),
        Some(WebAccess::default().allow("docs.rs")),
    ] {
        let (url, b) = body(&e, &turn(SONAR, web.clone()));
        assert_eq!(url, "https://api.perplexity.ai/chat/completions");
        assert_eq!(b["disable_search"], true, "{web:?}");
        let cautions = wire::cautions_wire(SONAR, web.as_ref());
        assert!(
            cautions[0].contains("per-request fee is charged either way"),
            "{cautions:?}"
        );
    }
    let tuned = Endpoint {
        search: SearchSettings {
            classifier: true,
            recency: Some(Recency::Week),
            context_size: Some(ContextSize::High),
        },
        ..e
    };
    let london = Location {
        country: Some("GB".into()),
        city: Some("London".into()),
        timezone: Some("Europe/London".into()),
        ..Location::default()
    };
    let web = WebAccess::search().block("reddit.com").near(london);
    let (_, b) = body(&tuned, &turn(SONAR, Some(web.clone())));
    assert_eq!(
        b,
        json!({"model": "sonar", "messages": [{"role": "user", "content": "Describe TypeScript."}],
               "max_tokens": 1024, "search_domain_filter": ["-reddit.com"],
               "search_recency_filter": "week",
               "web_search_options": {"search_context_size": "high",
                                      "user_location": {"city": "London", "country": "GB"}},
               "enable_search_classifier": true})
    );
    let cautions = wire::cautions_wire(SONAR, Some(&web));
    assert!(
        cautions
            .iter()
            .any(|c| c.contains("timezone = \"Europe/London\" is not sent"))
    );
}

#[test]
fn what_sonar_cannot_carry_is_refused_naming_the_agent_api() {
    assert_eq!(
        refused(SONAR, WebAccess::search().with_fetch()),
        "provider \"perplexity\" with api = \"sonar\" cannot fetch pages — Sonar has no provider-executed fetch of a named page; turn fetch off, or use provider \"anthropic\" to fetch. Perplexity's Agent API can carry this declaration: use `api = \"agent\"` in [providers.perplexity]. No request was sent."
    );
    assert!(
        refused(SONAR, WebAccess::search().max_uses(2))
            .contains("Sonar takes no cap on its searches")
    );
    let many: Vec<String> = (0..21).map(|i| format!("h{i}.test")).collect();
    let web = WebAccess {
        blocked_domains: many,
        ..WebAccess::search()
    };
    assert_eq!(
        refused(SONAR, web.clone()),
        "provider \"perplexity\" with api = \"sonar\" cannot send 21 blocked_domains — Perplexity's Sonar (Chat Completions) takes at most 20; name at most 20, or use provider \"anthropic\". No request was sent."
    );
    assert!(
        refused(AGENT, web).starts_with("provider \"perplexity\" cannot send 21 blocked_domains")
    );
    // A turn that carries local tools is refused, never sent without them.
    let t = Turn {
        tools: vec![ToolSpec {
            name: "read_file".into(),
            description: "Read.".into(),
            input_schema: json!({"type": "object"}),
        }],
        ..turn(SONAR, None)
    };
    let err = wire::encode(&endpoint(SONAR), &t).unwrap_err().to_string();
    assert_eq!(
        err,
        "provider \"perplexity\" with api = \"sonar\" cannot offer the model local tools (read_file) — Sonar takes no function tools; offer it no tools, or use `api = \"agent\"` in [providers.perplexity]. No request was sent."
    );
}

#[test]
fn the_agent_api_gets_only_documented_fields() {
    let e = Endpoint {
        search: SearchSettings {
            classifier: false,
            recency: Some(Recency::Month),
            context_size: None,
        },
        ..endpoint(AGENT)
    };
    // No declaration: no tools, no search (a bare request does none).
    let (url, b) = body(&e, &turn(AGENT, None));
    assert_eq!(url, "https://api.perplexity.ai/v1/agent");
    assert_eq!(
        b,
        json!({"model": "perplexity/sonar", "input": "Describe TypeScript.", "max_output_tokens": 1024})
    );
    let web = WebAccess::search()
        .with_fetch()
        .max_uses(4)
        .allow("typescriptlang.org");
    let (_, b) = body(&e, &turn(AGENT, Some(web.clone())));
    assert_eq!(
        b["tools"],
        json!([{"type": "web_search", "filters": {"search_domain_filter": ["typescriptlang.org"],
                                                  "search_recency_filter": "month"}},
               {"type": "fetch_url"}])
    );
    assert_eq!(b["max_tool_calls"], 4);
    let cautions = wire::cautions_wire(AGENT, Some(&web));
    assert!(cautions[0].contains("max_tool_calls"), "{cautions:?}");
}
