//! The Gemini wire streamed, on Google's recorded SSE bodies: each assembles to
//! the same deltas and completion however its bytes are cut (at every byte, and
//! byte by byte), and to the non-streamed decode of the body it adds up to;
//! every non-streamed recording, streamed as Google streams, decodes as it does
//! whole; a transcript's turn two sends the model's signed part back as received;
//! a stream cut short or failing is never a completion.

#![allow(clippy::unwrap_used)]

use crate::gemini_support;

use gemini_support::*;
use io_harness::core::transcript::{Conversation, Exchange, ToolReturn};
use io_harness::core::vendor::{Vendor, Wire};
use io_harness::core::wire::gemini::decode;
use io_harness::core::wire::stream::{Assembler, Delta, assembler_for};
use io_harness::{Citation, Completion, Error, ServerToolCall, StopReason, ToolCall};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// Feed `stream` to a Gemini assembler in the pieces `cuts` make.
fn assemble(stream: &[u8], cuts: &[usize]) -> (Vec<Delta>, io_harness::Result<Completion>) {
    let mut a: Assembler = assembler_for(Wire::Gemini, ok(Vec::new())).unwrap();
    let mut deltas = Vec::new();
    let mut at = 0;
    for &cut in cuts.iter().chain(std::iter::once(&stream.len())) {
        if let Err(e) = a.feed(&stream[at..cut], &mut deltas) {
            return (deltas, Err(e));
        }
        at = cut;
    }
    (deltas, a.finish())
}

/// A recorded stream assembled whole, then cut at every byte and byte by byte:
/// the same deltas and the same completion every time.
fn the_same_however_cut(name: &str) -> (Vec<Delta>, Completion) {
    let stream = fixture(name);
    let (deltas, whole) = assemble(&stream, &[]);
    let whole = whole.unwrap();
    for cut in 1..stream.len() {
        let (d, c) = assemble(&stream, &[cut]);
        assert_eq!((&d, &c.unwrap()), (&deltas, &whole), "{name} cut at {cut}");
    }
    let every: Vec<usize> = (1..stream.len()).collect();
    let (d, c) = assemble(&stream, &every);
    assert_eq!(
        (d, c.unwrap()),
        (deltas.clone(), whole.clone()),
        "{name} byte by byte"
    );
    (deltas, whole)
}

/// The events of a stream, parsed (the test's own reading, to build expectations).
fn events(name: &str) -> Vec<Value> {
    String::from_utf8(fixture(name))
        .unwrap()
        .split("data: ")
        .skip(1)
        .map(|e| serde_json::from_str(e.trim()).unwrap())
        .collect()
}

fn text_of(deltas: &[Delta]) -> String {
    deltas
        .iter()
        .filter_map(|d| match d {
            Delta::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_streamed_search_assembles_to_its_non_streamed_body() {
    let (deltas, c) = the_same_however_cut("search_stream.sse");
    let events = events("search_stream.sse");
    let pieces: String = events
        .iter()
        .map(|e| {
            e["candidates"][0]["content"]["parts"][0]["text"]
                .as_str()
                .unwrap()
        })
        .collect();
    // The body the chunks add up to, built here from the last chunk.
    let mut body = events.last().unwrap().clone();
    body["candidates"][0]["content"]["parts"] = json!([{"text": pieces}]);
    assert_eq!(c, decode(&ok(body.to_string().into_bytes())).unwrap());
    assert_eq!(
        (text_of(&deltas), c.citations.len(), c.server_tools.clone()),
        (pieces, 9, vec![search("weather in San Francisco today")])
    );
    let started = deltas
        .iter()
        .position(|d| matches!(d, Delta::ServerToolStarted { .. }))
        .unwrap();
    assert_eq!(
        deltas[started],
        Delta::ServerToolStarted {
            id: String::new(),
            tool: "web_search".into(),
            input: Some("weather in San Francisco today".into())
        }
    );
    let cited: Vec<Citation> = deltas
        .iter()
        .filter_map(|d| match d {
            Delta::Citation(c) => Some(c.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(cited, c.citations);
    assert_eq!(c.usage.unwrap().output_tokens, 241 + 412);
    assert!(
        c.search_suggestions
            .unwrap()
            .contains("weather in San Francisco today")
    );
}

#[test]
fn a_streamed_function_call_and_its_turn_two_request() {
    let (deltas, c) = the_same_however_cut("function_call_stream.sse");
    let first = &events("function_call_stream.sse")[0];
    let part = &first["candidates"][0]["content"]["parts"][0];
    let call = ToolCall {
        id: "get_country#0".into(),
        name: "get_country".into(),
        input: json!({}),
    };
    assert!(deltas.contains(&Delta::ToolCallRequested(call.clone())));
    assert_eq!(
        (c.tool_calls.clone(), c.stop.clone()),
        (vec![call], StopReason::ToolUse)
    );
    assert_eq!(
        c.blocks,
        vec![part.to_string()],
        "the signed part, unchanged; the empty text dropped"
    );
    // Turn two: the model's part back exactly as received, then the result.
    let mut t = turn(None);
    t.goal = "What is the capital of the user country? Call the tool".into();
    t.conversation = Conversation::Transcript;
    t.history = vec![Exchange {
        wire: Wire::Gemini,
        blocks: c.blocks.clone(),
        response_id: c.response_id.clone(),
        paused: false,
        results: vec![ToolReturn {
            call_id: "get_country#0".into(),
            output: "Mexico".into(),
            is_error: false,
        }],
        notes: vec!["[step 1] noted".into()],
        observations_before: 0,
    }];
    let body = body_of(&t, true);
    assert_eq!(
        body["contents"],
        json!([
        {"role": "user", "parts": [{"text": t.goal}]},
        {"role": "model", "parts": [part]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "get_country", "response": {"output": "Mexico"}}},
            {"text": "[step 1] noted"}]}])
    );
    // The shape the recorded turn-two request had (roles, the call, the response's name).
    let recorded = json_of("function_call_turn2_request.json");
    let roles = |v: &Value| {
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| c["role"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(roles(&body["contents"]), roles(&recorded["contents"]));
    assert_eq!(
        body["contents"][1]["parts"][0]["functionCall"]["name"],
        recorded["contents"][1]["parts"][0]["functionCall"]["name"]
    );
    assert_eq!(
        body["contents"][2]["parts"][0]["functionResponse"]["name"],
        recorded["contents"][2]["parts"][0]["functionResponse"]["name"]
    );
    let (deltas, c) = the_same_however_cut("function_call_turn2_stream.sse");
    assert_eq!(
        (text_of(&deltas), c.text, c.stop),
        (
            "The capital of Mexico is Mexico City.".into(),
            "The capital of Mexico is Mexico City.".into(),
            StopReason::EndTurn
        )
    );
}

#[test]
fn a_streamed_url_context_answer_reports_its_fetch() {
    let (deltas, c) = the_same_however_cut("url_context_stream.sse");
    let fetch =
        ServerToolCall::ok(Vendor::Gemini, "web_fetch").with_input("https://ai.pydantic.dev");
    assert_eq!(c.server_tools, vec![fetch.clone()]);
    assert!(deltas.contains(&Delta::ServerToolReturned {
        id: String::new(),
        call: fetch
    }));
    assert_eq!(c.text, "Pydantic AI Gateway is now available!");
    assert_eq!(
        c.citations,
        vec![cite(
            "https://ai.pydantic.dev",
            "Pydantic AI",
            Some("Pydantic AI Gateway is now available!")
        )]
    );
}

/// A non-streamed recording as the chunks Google would stream it in: its text
/// parts in pieces (a signature on the first piece), the rest on the last chunk.
fn render(v: &Value) -> Vec<u8> {
    let mut chunks = Vec::new();
    let parts = v["candidates"][0]["content"]["parts"].as_array().cloned();
    for part in parts.unwrap_or_default() {
        let Some(text) = part["text"].as_str() else {
            chunks.push(json!({"candidates": [{"content": {"parts": [part], "role": "model"}}]}));
            continue;
        };
        let chars: Vec<char> = text.chars().collect();
        for (i, piece) in chars.chunks(40).enumerate() {
            let mut p = part.clone();
            p["text"] = json!(piece.iter().collect::<String>());
            if i > 0 {
                p.as_object_mut().unwrap().remove("thoughtSignature");
            }
            chunks.push(json!({"candidates": [{"content": {"parts": [p], "role": "model"}}]}));
        }
    }
    let mut last = v.clone();
    last["candidates"][0]["content"]["parts"] = json!([{"text": ""}]);
    chunks.push(last);
    chunks
        .iter()
        .flat_map(|c| format!("data: {c}\r\n\r\n").into_bytes())
        .collect()
}

#[test]
fn recorded_bodies_streamed_decode_as_they_do_whole() {
    for name in [
        "search_grounded.json",
        "thought_and_text.json",
        "function_call_thought_signature.json",
        "url_context.json",
        "safety_no_content.json",
        "max_tokens.json",
        "cached_tokens.json",
    ] {
        let v = json_of(name);
        let (_, c) = assemble(&render(&v), &[]);
        assert_eq!(c.unwrap(), decoded(name), "{name}");
    }
}

#[test]
fn a_stream_cut_short_or_failing_is_never_a_completion() {
    let stream = fixture("search_stream.sse");
    let last = String::from_utf8(stream.clone())
        .unwrap()
        .rfind("data: ")
        .unwrap();
    for cut in [0, last, last + 40, stream.len() - 3] {
        let (_, c) = assemble(&stream[..cut], &[]);
        let e = c.unwrap_err();
        assert!(
            matches!(
                e,
                Error::Transport {
                    retryable: true,
                    ..
                }
            ),
            "cut at {cut}: {e}"
        );
        assert!(e.to_string().contains("before a finishReason"), "{e}");
    }
    // Written here, in the documented error shape: an error chunk mid-stream.
    let body = b"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"a\"}]}}]}\r\n\r\n\
data: {\"error\": {\"code\": 503, \"message\": \"The model is overloaded.\", \"status\": \"UNAVAILABLE\"}}\r\n\r\n";
    let (deltas, c) = assemble(body, &[]);
    let e = c.unwrap_err();
    assert_eq!(deltas, vec![Delta::Text("a".into())]);
    assert_eq!((e.vendor().unwrap().status, e.is_retryable()), (503, true));
    let (_, c) = assemble(b"data: {not json}\r\n\r\n", &[]);
    assert!(matches!(c.unwrap_err(), Error::Decode { .. }));
    let blocked = format!("data: {}\r\n\r\n", json_of("prompt_blocked.json"));
    let (_, c) = assemble(blocked.as_bytes(), &[]);
    assert_eq!(c.unwrap(), decoded("prompt_blocked.json"));
}
