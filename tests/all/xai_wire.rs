//! xAI's Responses wire on its recorded answers (tests/fixtures/xai, provenance
//! in tests/fixtures/README.md): each recorded shape of a search decodes to its
//! rows and citations, the vendor's cost in ticks is the cost of record, the
//! recorded streams assemble the same however they are cut and to what the
//! final response decodes to, a transcript's second turn sends the encrypted
//! reasoning back as received, and the declaration's limits are refused before
//! anything is sent.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::stream::{assemble_on, recorded, recorded_the_same_however_cut, text_of};
use io_harness::core::capability::carries;
use io_harness::core::endpoint::Endpoint;
use io_harness::core::transcript::{Conversation, Exchange, ToolReturn};
use io_harness::core::vendor::{Vendor, Wire};
use io_harness::core::web::{DateRange, WebAccess};
use io_harness::core::wire::{self, stream::Delta};
use io_harness::{Citation, Completion, Error, ServerToolCall, StopReason, Turn, WireResponse};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const WIRE: Wire = Wire::Xai;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/xai/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn response(status: u16, body: Vec<u8>) -> WireResponse {
    WireResponse {
        status,
        headers: vec![("x-request-id".into(), "req-1".into())],
        body,
    }
}

fn decoded(name: &str) -> Completion {
    wire::decode_wire(WIRE, &response(200, fixture(name))).unwrap()
}

/// The final response a recorded stream ends with, decoded whole.
fn final_of(name: &str) -> Completion {
    let text = String::from_utf8(fixture(name)).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let body = serde_json::to_vec(&last["response"]).unwrap();
    let head = common::stream::head();
    wire::decode_wire(WIRE, &WireResponse { body, ..head }).unwrap()
}

fn turn(web: Option<WebAccess>) -> Turn {
    Turn {
        model: "grok-4.3".into(),
        max_tokens: 1024,
        goal: "What is xAI?".into(),
        web,
        ..Turn::default()
    }
}

fn body(turn: &Turn) -> Value {
    let r = wire::encode(&Endpoint::public(Vendor::Xai), turn).unwrap();
    assert_eq!(r.url, "https://api.x.ai/v1/responses");
    serde_json::from_slice(&r.body).unwrap()
}

fn refused(web: WebAccess) -> String {
    wire::encode(&Endpoint::public(Vendor::Xai), &turn(Some(web)))
        .unwrap_err()
        .to_string()
}

#[test]
fn a_function_shaped_search_of_2025_is_a_row_with_its_query_and_five_citations() {
    let c = decoded("web-search.json");
    assert!(
        c.text
            .starts_with("xAI is an American artificial intelligence company")
    );
    assert_eq!(
        c.server_tools,
        [ServerToolCall::ok(Vendor::Xai, "web_search").with_input("what is xAI")]
    );
    // Annotations without indices or titles: URL only, the whole text claimed.
    assert_eq!(c.citations.len(), 5);
    assert_eq!(
        c.citations[1],
        Citation {
            url: "https://x.ai/company".into(),
            title: None,
            cited_text: None
        }
    );
    let usage = c.usage.unwrap();
    // 1941 input, 947 of them cached; 583 output, reasoning included.
    assert_eq!(
        (
            usage.input_tokens,
            usage.cache_read_tokens,
            usage.output_tokens
        ),
        (994, 947, 583)
    );
    // No per-tool counters in 2025: the vendor's item count stands in.
    assert_eq!(usage.server_tool_requests, 1);
    assert_eq!(usage.reported_cost_micro_usd, None);
    assert_eq!(c.stop, StopReason::EndTurn);
    assert_eq!(c.finish_reason.as_deref(), Some("completed"));
    assert_eq!(c.request_id.as_deref(), Some("req-1"));
}

#[test]
fn an_x_search_call_is_a_row_named_as_xai_names_it() {
    let c = decoded("x-search.json");
    assert_eq!(
        c.server_tools,
        [ServerToolCall::ok(Vendor::Xai, "x_semantic_search")
            .with_input("AI artificial intelligence")]
    );
    assert!(
        c.citations
            .iter()
            .all(|c| c.url.starts_with("https://x.com/i/status/"))
    );
    assert_eq!(c.citations.len(), 20);
}

#[test]
fn the_vendors_cost_in_ticks_is_the_cost_of_record() {
    // 3,893,500 ticks at 10^10 a dollar: $0.00038935, 389 millionths.
    let c = decoded("grok-4.3-reasoning-cost.json");
    assert_eq!(c.text, "hello");
    let u = c.usage.unwrap();
    assert_eq!(u.reported_cost_micro_usd, Some(389));
    assert_eq!((u.input_tokens, u.cache_read_tokens), (69, 128));
    // The reasoning item stays in the answer's blocks, for the transcript.
    assert!(c.blocks[0].contains("\"type\":\"reasoning\""));
    // The per-tool counters, where sent, are the searches (web and X).
    let u = decoded("usage-grok-4.6-sanitized.json").usage.unwrap();
    assert_eq!(
        (u.server_tool_requests, u.reported_cost_micro_usd),
        (1, Some(18_948))
    );
    let priced = io_harness::PriceTable::builtin().cost(
        "grok-4.3",
        Some(&u),
        io_harness::price::Recorded::default(),
    );
    assert_eq!(priced.total_micro_usd, Some(18_948));
    assert_eq!(priced.vendor_micro_usd, Some(18_948));
}

#[test]
fn xais_error_bodies_are_the_vendor_error_in_its_words() {
    for (name, message) in [
        (
            "error-400-max-domains.json",
            "A maximum of 5 domains can be allowed, but 6 were provided.",
        ),
        (
            "error-400-prompt-too-long.json",
            "This model's maximum prompt length is 131072 but the request contains 179111 tokens.",
        ),
    ] {
        let Err(Error::Vendor(e)) = wire::decode_wire(WIRE, &response(400, fixture(name))) else {
            panic!("{name}");
        };
        assert_eq!(e.status, 400);
        assert_eq!(
            e.code.as_deref(),
            Some("Client specified an invalid argument")
        );
        assert_eq!(e.message, message);
        assert_eq!(e.request_id.as_deref(), Some("req-1"));
    }
}

/// Each recorded stream, cut anywhere, assembles to what its final response
/// decodes to; its searches show as they start and return.
#[test]
fn the_recorded_streams_assemble_to_their_final_response() {
    for name in [
        "web-search.chunks.jsonl",
        "web-search-sources.chunks.jsonl",
        "reasoning-encrypted.chunks.jsonl",
        "usage-grok-4.6-sanitized.chunks.jsonl",
    ] {
        let (deltas, c) = recorded_the_same_however_cut(WIRE, name);
        assert_eq!(c, final_of(name), "{name}");
        assert_eq!(text_of(&deltas), c.text, "{name}");
    }
    // 2026-07: two searches, each shown when added and returned with the query
    // xAI fills in only at done; nine sources, every title the URL (no title).
    let (deltas, c) = recorded_the_same_however_cut(WIRE, "web-search-sources.chunks.jsonl");
    let started: Vec<_> = deltas
        .iter()
        .filter_map(|d| match d {
            Delta::ServerToolStarted { tool, input, .. } => Some((tool.clone(), input.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        started,
        [
            ("web_search".to_string(), None),
            ("web_search".to_string(), None)
        ]
    );
    let queries: Vec<_> = c.server_tools.iter().map(|s| s.input.clone()).collect();
    assert_eq!(
        queries,
        [
            Some("current title of https://x.ai site:x.ai".to_string()),
            Some("https://x.ai".to_string())
        ]
    );
    assert_eq!(c.citations.len(), 9);
    assert!(c.citations.iter().all(|c| c.title.is_none()));
    let u = c.usage.unwrap();
    assert_eq!(
        (u.server_tool_requests, u.reported_cost_micro_usd),
        (2, Some(13_287))
    );
}

#[test]
fn the_x_search_stream_has_its_sub_tools_live() {
    let stream = recorded(WIRE, "x-search.chunks.jsonl");
    let (deltas, c) = assemble_on(WIRE, &stream, &[]);
    let c = c.unwrap();
    let mut r = common::stream::Rng(7);
    let (_, cut) = assemble_on(WIRE, &stream, &r.cuts(stream.len(), 4096));
    assert_eq!(cut.unwrap(), c);
    assert_eq!(c, final_of("x-search.chunks.jsonl"));
    let tools: Vec<_> = c.server_tools.iter().map(|s| s.tool.as_str()).collect();
    assert_eq!(
        tools,
        [
            "x_keyword_search",
            "view_x_video",
            "web_search",
            "web_search",
            "web_search",
            "web_search"
        ]
    );
    assert_eq!(
        c.server_tools[0].input.as_deref(),
        Some("from:xai filter:media")
    );
    // Four web searches whose query xAI left empty: no input, not a blank one.
    assert!(c.server_tools[2..].iter().all(|s| s.input.is_none()));
    assert_eq!(c.citations.len(), 20);
    let started = deltas
        .iter()
        .filter(|d| matches!(d, Delta::ServerToolStarted { .. }))
        .count();
    assert_eq!(started, 6);
    // The billing counters, not the item count: one X search.
    assert_eq!(c.usage.unwrap().server_tool_requests, 1);
}

#[test]
fn a_stream_without_its_terminal_event_is_no_completion() {
    let stream = recorded(WIRE, "web-search-sources.chunks.jsonl");
    let text = String::from_utf8(stream).unwrap();
    let cut = text.find("response.completed").unwrap();
    let head = text[..cut].rfind("data: ").unwrap();
    let (_, c) = assemble_on(WIRE, &text.as_bytes()[..head], &[]);
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

/// Turn two of a transcript sends the reasoning item back exactly as received,
/// its encrypted content included; xAI's own searches are not sent back.
#[test]
fn a_second_turn_replays_the_encrypted_reasoning_as_received() {
    let (_, c) = recorded_the_same_however_cut(WIRE, "reasoning-encrypted.chunks.jsonl");
    let reasoning: Value = serde_json::from_str(&c.blocks[0]).unwrap();
    assert_eq!(reasoning["type"], "reasoning");
    assert!(reasoning["encrypted_content"].as_str().unwrap().len() > 1000);
    let searched = decoded("web-search.json");
    let mut blocks = c.blocks.clone();
    blocks.extend(searched.blocks.iter().cloned());
    blocks.push(
        json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read_file",
               "arguments": "{\"path\":\"README.md\"}", "status": "completed"})
        .to_string(),
    );
    let exchange = Exchange {
        wire: WIRE,
        blocks,
        response_id: c.response_id.clone(),
        paused: false,
        results: vec![ToolReturn {
            call_id: "call_1".into(),
            output: "# README".into(),
            is_error: false,
        }],
        notes: vec![],
        observations_before: 0,
    };
    let t = Turn {
        conversation: Conversation::Transcript,
        history: vec![exchange],
        observations: vec!["[step 1] read_file README.md: # README".into()],
        ..turn(Some(WebAccess::search()))
    };
    let b = body(&t);
    assert_eq!(b["store"], false);
    assert_eq!(b["include"], json!(["reasoning.encrypted_content"]));
    let input = b["input"].as_array().unwrap();
    assert_eq!(input[1], reasoning, "the reasoning item, byte for byte");
    let kinds: Vec<String> = input
        .iter()
        .map(|i| {
            i["type"].as_str().map_or_else(
                || format!("role {}", i["role"].as_str().unwrap()),
                str::to_string,
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "role user",
            "reasoning",
            "role assistant",
            "role assistant",
            "function_call",
            "function_call_output"
        ]
    );
    assert_eq!(input[3]["content"].as_str().unwrap(), searched.text);
}

#[test]
fn the_declaration_becomes_xais_tools() {
    let b = body(&turn(Some(WebAccess::search().block("evil.test"))));
    assert_eq!(
        b["tools"],
        json!([{"type": "web_search", "excluded_domains": ["evil.test"]}])
    );
    let mut web = WebAccess::search().allow("docs.rs").with_x_search();
    web.x_handles.allow = vec!["@xai".into(), "Grok".into()];
    web.x_dates = Some(DateRange {
        from: Some("2025-10-01".into()),
        to: Some("2025-10-10".into()),
    });
    let b = body(&turn(Some(web)));
    assert_eq!(
        b["tools"],
        json!([{"type": "web_search", "allowed_domains": ["docs.rs"]},
               {"type": "x_search", "allowed_x_handles": ["xai", "grok"],
                "from_date": "2025-10-01", "to_date": "2025-10-10"}])
    );
    // No declaration: nothing web-related, byte for byte.
    let plain = body(&turn(None));
    assert_eq!(
        plain,
        json!({"model": "grok-4.3", "input": [{"role": "user", "content": "What is xAI?"}],
               "max_output_tokens": 1024})
    );
}

#[test]
fn what_xai_cannot_carry_is_refused_naming_why() {
    assert_eq!(
        refused(WebAccess::search().with_fetch()),
        "provider \"xai\" cannot fetch pages — its Responses API has no provider-executed fetch tool; turn fetch off, or use provider \"anthropic\" to fetch. No request was sent."
    );
    assert_eq!(
        refused(WebAccess::search().max_uses(3)),
        "provider \"xai\" cannot cap web tool use (max_uses = 3) — its Responses API has no cap on tool calls (max_turns caps agentic turns, each of which may run several searches); remove max_uses or use provider \"anthropic\". No request was sent."
    );
    let mut six = WebAccess::search();
    for h in ["a.test", "b.test", "c.test", "d.test", "e.test", "f.test"] {
        six = six.allow(h);
    }
    assert_eq!(
        refused(six.clone()),
        "provider \"xai\" cannot send 6 allowed_domains — xAI's Responses API takes at most 5; name at most 5, or use provider \"anthropic\". No request was sent."
    );
    // Five are carried; a block-list of six is refused too.
    let five = WebAccess {
        allowed_domains: six.allowed_domains[..5].to_vec(),
        ..six.clone()
    };
    assert!(carries(WIRE, Some(&five)).is_ok());
    let blocked = WebAccess {
        allowed_domains: vec![],
        blocked_domains: six.allowed_domains.clone(),
        ..six
    };
    assert!(refused(blocked).contains("6 blocked_domains"));
    let mut handles = WebAccess::default().with_x_search();
    handles.x_handles.exclude = (0..11).map(|i| format!("h{i}")).collect();
    assert_eq!(
        refused(handles),
        "provider \"xai\" cannot send 11 x_handles.exclude — xAI's Responses API takes at most 10; name at most 10. No request was sent."
    );
    let located = WebAccess::search().near(io_harness::core::web::Location {
        country: Some("GB".into()),
        ..Default::default()
    });
    assert!(refused(located).contains("takes no user_location"));
}

#[test]
fn x_search_is_refused_on_every_other_wire_in_the_spec_form() {
    let web = WebAccess::search().with_x_search();
    for w in Wire::ALL.into_iter().filter(|w| *w != WIRE) {
        let err = carries(w, Some(&web)).unwrap_err().to_string();
        assert!(
            err.contains("cannot search X posts (x_search) — it has no X search tool (x_search is xAI's); remove [web] x_search or use provider \"xai\". No request was sent."),
            "{}: {err}",
            w.label()
        );
        assert!(
            err.starts_with(&format!("provider \"{}\"", w.vendor())),
            "{err}"
        );
    }
    assert!(carries(WIRE, Some(&web)).is_ok());
}
