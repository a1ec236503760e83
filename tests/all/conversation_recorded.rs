//! Turn 2 of real recorded exchanges, rebuilt by this crate. Each fixture pair in
//! `tests/fixtures/conversation/` is a public VCR cassette's turn-1 response and
//! the turn-2 request its client really sent (provenance in the fixtures README).
//! Fed turn 1's recorded answer, the transcript's turn-2 request must carry the
//! assistant content as the recorded one did; the fields a recording's client left
//! out and this crate keeps (they are optional on the wire) are listed per case.

#![allow(clippy::unwrap_used)]

use io_harness::core::completion::StopReason;
use io_harness::core::endpoint::Endpoint;
use io_harness::core::transcript::{Conversation, Exchange, ToolReturn};
use io_harness::core::turn::{Turn, WireResponse};
use io_harness::core::vendor::{Vendor, Wire};
use io_harness::core::wire;
use serde_json::Value;

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/conversation/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Turn 1's recorded answer decoded on `wire`, as the exchange the loop keeps.
fn exchange(wire: Wire, name: &str, results: Vec<ToolReturn>) -> Exchange {
    let body = serde_json::to_vec(&fixture(&format!("{name}.turn1.response.json"))).unwrap();
    let c = wire::decode_wire(
        wire,
        &WireResponse {
            status: 200,
            headers: vec![],
            body,
        },
    )
    .unwrap();
    Exchange {
        wire,
        blocks: c.blocks,
        response_id: c.response_id,
        paused: c.stop == StopReason::PauseTurn,
        results,
        notes: vec![],
        observations_before: 0,
    }
}

/// This crate's turn-2 body after `exchange`, in transcript mode.
fn turn_two(wire: Wire, model: &str, exchange: Exchange) -> Value {
    let turn = Turn {
        model: model.into(),
        max_tokens: 1024,
        goal: "the recorded question".into(),
        conversation: Conversation::Transcript,
        history: vec![exchange],
        ..Turn::default()
    };
    let endpoint = Endpoint::public(wire.vendor()).with_wire(wire);
    serde_json::from_slice(&wire::encode(&endpoint, &turn).unwrap().body).unwrap()
}

/// `v` without the keys named (at any depth): the optional fields a recording's
/// client dropped.
fn without(v: &Value, keys: &[&str]) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !keys.contains(&k.as_str()))
                .map(|(k, x)| (k.clone(), without(x, keys)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| without(x, keys)).collect()),
        other => other.clone(),
    }
}

fn recorded_messages(name: &str) -> Vec<Value> {
    fixture(&format!("{name}.turn2.request.json"))["messages"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn anthropic_paused_search_is_continued_as_recorded() {
    // pydantic-ai's recorded continuation of a paused turn of 13 searches: the
    // paused content back unchanged, and no new user message.
    let name = "anthropic-pause-turn";
    let e = exchange(Wire::Anthropic2025, name, vec![]);
    assert!(e.paused);
    let ours = turn_two(Wire::Anthropic2025, "claude-sonnet-4-5", e);
    let ours = ours["messages"].as_array().unwrap();
    let recorded = recorded_messages(name);
    assert_eq!(ours.len(), recorded.len());
    assert_eq!(ours.last().unwrap()["role"], "assistant");
    assert_eq!(
        ours[1], recorded[1],
        "byte for byte, no optional field differs"
    );
}

#[test]
fn anthropic_thinking_and_tool_use_go_back_with_their_tool_result() {
    let name = "anthropic-tool-thinking";
    let recorded = recorded_messages(name);
    let result = &recorded[2]["content"][0];
    let e = exchange(
        Wire::Anthropic2025,
        name,
        vec![ToolReturn {
            call_id: result["tool_use_id"].as_str().unwrap().into(),
            output: result["content"].as_str().unwrap().into(),
            is_error: false,
        }],
    );
    let ours = turn_two(Wire::Anthropic2025, "claude-sonnet-4-5", e);
    let ours = ours["messages"].as_array().unwrap();
    assert_eq!(ours.len(), 3);
    // The thinking block with its signature, the text and the tool_use, as sent;
    // the tool result as recorded but for `is_error: false`, which the recording's
    // client states and this crate leaves to its default (it sends `true` only).
    assert_eq!(ours[1], recorded[1]);
    assert_eq!(ours[2], without(&recorded[2], &["is_error"]));
}

#[test]
fn anthropic_search_results_go_back_with_their_encrypted_content() {
    // The recording's client dropped the text blocks' `citations` (optional on a
    // request); this crate sends them back as the vendor sent them.
    let name = "anthropic-web-search";
    let ours = turn_two(
        Wire::Anthropic2025,
        "claude-sonnet-4-5",
        exchange(Wire::Anthropic2025, name, vec![]),
    );
    let recorded = recorded_messages(name);
    assert_eq!(
        without(&ours["messages"][1], &["citations"]),
        without(&recorded[1], &["citations"])
    );
    let results = ours["messages"][1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "web_search_tool_result")
        .count();
    assert_eq!(results, 1);
}

#[test]
fn responses_reasoning_and_search_items_go_back_verbatim() {
    // The recording's client sent its items back with their ids and
    // `encrypted_content` (asked for with `include`), dropping only the output
    // text's empty `logprobs`.
    let name = "openai-responses-web-search";
    let ours = turn_two(
        Wire::OpenAiResponses,
        "gpt-5",
        exchange(Wire::OpenAiResponses, name, vec![]),
    );
    let recorded = fixture(&format!("{name}.turn2.request.json"));
    assert_eq!(ours["include"], recorded["include"]);
    let ours_items = &ours["input"].as_array().unwrap()[1..];
    let recorded_items = &recorded["input"].as_array().unwrap()[1..5];
    assert_eq!(ours_items.len(), recorded_items.len());
    for (a, b) in ours_items.iter().zip(recorded_items) {
        assert_eq!(without(a, &["logprobs"]), without(b, &["logprobs"]));
    }
    assert_eq!(ours["store"], false);
}

#[test]
fn chat_tool_calls_go_back_with_one_tool_message_each() {
    // The recording's client left out the assistant's `content: null`.
    let name = "openai-chat-tool";
    let recorded = recorded_messages(name);
    let call = &recorded[2];
    let e = exchange(
        Wire::OpenAiChat,
        name,
        vec![ToolReturn {
            call_id: call["tool_call_id"].as_str().unwrap().into(),
            output: call["content"].as_str().unwrap().into(),
            is_error: false,
        }],
    );
    let ours = turn_two(Wire::OpenAiChat, "gpt-4o", e);
    let ours = ours["messages"].as_array().unwrap();
    assert_eq!(ours.len(), 3);
    assert_eq!(ours[1]["content"], Value::Null);
    assert_eq!(without(&ours[1], &["content"]), recorded[1]);
    assert_eq!(ours[2], recorded[2]);
    assert_eq!(Vendor::OpenAi, Wire::OpenAiChat.vendor());
}
