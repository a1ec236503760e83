//! Issue 34, items 5–7: a hostile vendor decides neither the memory, nor the
//! time, nor the rows of a step. A Gemini grounding naming one chunk a hundred
//! thousand times, a long segment naming thousands of chunks, a million
//! `webSearchQueries` (and as many searches on every other wire): what a step
//! keeps is held to the per-step caps every wire shares (64 server-tool calls,
//! 256 citations or 8 MiB of their text, 256 claim links), what is cut is
//! counted and said — in `run`'s output, `--json` and the store — and every
//! wire's worst shape decodes and assembles in time linear in its bytes.
//!
//! The linear-time cases run on a thread of their own with a deadline far
//! above what linear work takes (a hang guard, as tests/all/sources_check_boundary
//! has; the figures are benches/hostile.rs's): the code before took minutes.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common::cli::{at, run};
use crate::common::stream::head;

use std::time::Duration;

use io_harness::core::vendor::Wire;
use io_harness::core::wire::decode_wire;
use io_harness::core::wire::stream::render::render;
use io_harness::core::wire::stream::{Delta, assembler_for};
use io_harness::stub::ScriptedResponse;
use io_harness::{Completion, Vendor, WireResponse};
use serde_json::{Value, json};

fn ok(body: &[u8]) -> WireResponse {
    WireResponse {
        status: 200,
        headers: vec![],
        body: body.to_vec(),
    }
}

fn decode(wire: Wire, body: &Value) -> Completion {
    decode_wire(wire, &ok(body.to_string().as_bytes())).unwrap()
}

/// A stream of `body` on `wire` (as the stub renders it), assembled in 4 KB
/// pieces: the deltas reported and the completion.
fn assemble(wire: Wire, body: &Value) -> (Vec<Delta>, Completion) {
    let stream = render(wire, body.to_string().as_bytes()).unwrap().concat();
    let mut a = assembler_for(wire, head()).unwrap();
    let mut deltas = Vec::new();
    for piece in stream.as_bytes().chunks(4096) {
        a.feed(piece, &mut deltas).unwrap();
    }
    (deltas, a.finish().unwrap())
}

/// A grounded Gemini answer: `text`, `chunks` web chunks, one support over the
/// whole text naming the chunk indices `indices`, and `queries` searches.
fn gemini(text: &str, chunks: usize, indices: &[usize], queries: usize) -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
        "finishReason": "STOP",
        "groundingMetadata": {
            "webSearchQueries": (0..queries).map(|i| format!("q{i}")).collect::<Vec<_>>(),
            "groundingChunks": (0..chunks)
                .map(|i| json!({"web": {"uri": format!("https://s{i}.example/"), "title": "t"}}))
                .collect::<Vec<_>>(),
            "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": text.len(), "text": text},
                                   "groundingChunkIndices": indices}]}}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5}})
}

/// `n` searches on `wire`, in the shape its vendor reports them.
fn searches(wire: Wire, n: usize) -> Value {
    match wire {
        Wire::Gemini => gemini("done", 1, &[0], n),
        Wire::OpenAiResponses => {
            let mut output: Vec<Value> = (0..n)
                .map(|i| json!({"type": "web_search_call", "id": format!("ws_{i}"), "status": "completed",
                                "action": {"type": "search", "query": format!("q{i}")}}))
                .collect();
            output.push(
                json!({"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": "done", "annotations": []}]}),
            );
            json!({"id": "resp_1", "object": "response", "status": "completed", "model": "m",
                   "output": output, "usage": {"input_tokens": 10, "output_tokens": 5}})
        }
        Wire::OpenRouterPlugin => {
            json!({"choices": [{"message": {"content": "done"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                      "server_tool_use_details": {"web_search_requests": n}}})
        }
        _ => {
            let mut content = Vec::new();
            for i in 0..n {
                content.push(
                    json!({"type": "server_tool_use", "id": format!("srvtoolu_{i}"),
                                    "name": "web_search", "input": {"query": format!("q{i}")}}),
                );
                content.push(
                    json!({"type": "web_search_tool_result", "tool_use_id": format!("srvtoolu_{i}"),
                                    "content": []}),
                );
            }
            content.push(json!({"type": "text", "text": "done"}));
            json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": content,
                   "stop_reason": "end_turn",
                   "usage": {"input_tokens": 10, "output_tokens": 5, "server_tool_use": {"web_search_requests": n}}})
        }
    }
}

/// Item 5: `groundingChunkIndices: [0, 0, …]` made one citation (and one copy
/// of the segment) per index: one segment naming one chunk is one citation.
#[test]
fn a_chunk_named_again_and_again_is_one_citation() {
    let text = "x".repeat(2_000);
    let body = gemini(&text, 1, &vec![0; 20_000], 1);
    let c = decode(Wire::Gemini, &body);
    assert_eq!(c.citations.len(), 1);
    assert_eq!(c.claims.len(), 1);
    assert_eq!(c.claims[0].urls.len(), 1);
    let (deltas, streamed) = assemble(Wire::Gemini, &body);
    assert_eq!(streamed.citations.len(), 1);
    let cited = deltas
        .iter()
        .filter(|d| matches!(d, Delta::Citation(_)))
        .count();
    assert_eq!(cited, 1);
}

/// Item 5: a 16 KB segment naming 2,000 chunks made 2,000 copies of it: a step
/// keeps at most 256 citations (and 8 MiB of their text), whole or streamed.
#[test]
fn a_long_segment_naming_many_chunks_is_held_to_the_cap() {
    let text = "y".repeat(16_000);
    let indices: Vec<usize> = (0..2_000).collect();
    let body = gemini(&text, 2_000, &indices, 1);
    let bytes = |c: &Completion| -> usize {
        c.citations
            .iter()
            .map(|x| x.url.len() + x.cited_text.as_ref().map_or(0, String::len))
            .sum()
    };
    let whole = decode(Wire::Gemini, &body);
    let (deltas, streamed) = assemble(Wire::Gemini, &body);
    for c in [&whole, &streamed] {
        assert_eq!(c.citations.len(), 256);
        assert!(bytes(c) <= 8 << 20);
        assert_eq!(c.claims[0].urls.len(), 256);
    }
    let cited = deltas
        .iter()
        .filter(|d| matches!(d, Delta::Citation(_)))
        .count();
    assert_eq!(cited, 256);
}

/// Item 7: every wire records at most 64 server-tool calls a step, whole and
/// streamed (OpenRouter's counter stopped at 32, the others not at all), and
/// a stream reports no more than that as it arrives.
#[test]
fn every_wire_records_the_same_number_of_searches_at_most() {
    for wire in [
        Wire::Anthropic2025,
        Wire::OpenAiResponses,
        Wire::OpenRouterPlugin,
        Wire::Gemini,
    ] {
        let body = searches(wire, 1_000);
        let whole = decode(wire, &body);
        assert_eq!(whole.server_tools.len(), 64, "{wire}");
        let (deltas, streamed) = assemble(wire, &body);
        assert_eq!(streamed.server_tools.len(), 64, "{wire} streamed");
        let started = deltas
            .iter()
            .filter(|d| matches!(d, Delta::ServerToolStarted { .. }))
            .count();
        assert!(started <= 64, "{wire}: {started} started");
    }
}

/// The binary against the stub answering `body` on Gemini (stream as said): the
/// run's JSON events, its plain output, and the store's folder.
async fn run_gemini(body: &Value, stream: bool) -> (Vec<Value>, String, tempfile::TempDir) {
    let stub = crate::common::repeating(ScriptedResponse {
        vendor: Some(Vendor::Gemini),
        body: body.to_string().into_bytes(),
        ..ScriptedResponse::default()
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("io.toml"),
        format!(
            "provider = \"gemini\"\n[providers.gemini]\nbase_url = \"{}\"\napi_key_env = \"IO_HARNESS_HOSTILE_KEY\"\nstream = {stream}\n[task]\ngoal = \"g\"\nworkspace = \".\"\n[web]\nsearch = true\n",
            stub.base_url(Vendor::Gemini)
        ),
    )
    .unwrap();
    let path = dir.path().to_path_buf();
    let (json, plain) = tokio::task::spawn_blocking(move || {
        let go = |args: &[&str]| {
            let (code, out, err) = run(at(&path)
                .args(args)
                .env("IO_HARNESS_HOSTILE_KEY", "k-hostile-1"));
            assert_eq!(code, 0, "{args:?}: {err}");
            (out, err)
        };
        (go(&["run", "--json"]).0, go(&["run"]))
    })
    .await
    .unwrap();
    let events = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (events, format!("{}{}", plain.0, plain.1), dir)
}

/// Item 7 (and 5) through the run: 100,000 queries and a segment naming 1,000
/// chunks make at most 64 `server_tool_calls` rows, 256 citations and as many
/// printed lines; what was cut is in the run's JSON, its output and the store,
/// and the fees count every search the vendor said it ran.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_step_leaves_out_is_counted_said_and_stored() {
    let indices: Vec<usize> = (0..1_000).collect();
    let body = gemini(&"z".repeat(100), 1_000, &indices, 100_000);
    for stream in [false, true] {
        let (events, plain, dir) = run_gemini(&body, stream).await;
        let cut = events
            .iter()
            .find(|e| e["kind"]["event"] == "not_recorded")
            .unwrap_or_else(|| panic!("no not_recorded event (stream {stream})"));
        assert_eq!(cut["kind"]["server_tool_calls"], 100_000 - 64);
        assert_eq!(cut["kind"]["searches"], 100_000 - 64);
        assert_eq!(cut["kind"]["citations"], 1_000 - 256);
        assert_eq!(cut["kind"]["claim_links"], 1_000 - 256);
        assert_eq!(cut["kind"]["max_server_tool_calls"], 64);
        let called = events
            .iter()
            .find(|e| e["kind"]["event"] == "provider_called")
            .unwrap();
        assert_eq!(called["kind"]["cost"]["fee_requests"], 100_000);
        let used = |kind: &str| events.iter().filter(|e| e["kind"]["event"] == kind).count();
        assert!(used("server_tool_used") <= 64);
        assert!(used("server_tool_started") <= 64);
        assert!(used("citation_received") <= 256);
        assert!(
            plain.contains(
                "not recorded (a step records at most so many): 99936 server-tool calls over the \
                 cap of 64 (99936 searches and 0 fetches among them; their fees are counted); 744 \
                 citations over the cap of 256 (or 8 MiB of their text); 744 claim links over the \
                 cap of 256"
            ),
            "{plain}"
        );
        assert!(plain.matches("web_search ok").count() <= 64);
        let conn = rusqlite::Connection::open(dir.path().join("data/runs.db")).unwrap();
        let one = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(one("SELECT COUNT(*) FROM server_tool_calls"), 2 * 64);
        assert_eq!(one("SELECT COUNT(*) FROM citations"), 2 * 256);
        assert_eq!(
            one("SELECT SUM(server_tool_calls_cut) FROM provider_calls"),
            2 * (100_000 - 64)
        );
        assert_eq!(
            one("SELECT SUM(citations_cut) FROM provider_calls"),
            2 * (1_000 - 256)
        );
        // `runs` prices the stored steps as the run did: every search's fee.
        let (code, runs, err) = run(at(dir.path()).args(["runs", "--json"]));
        assert_eq!(code, 0, "{err}");
        let runs: Value = serde_json::from_str(&runs).unwrap();
        assert_eq!(
            (&runs[0]["searches"], &runs[0]["cost_micro_usd"]),
            (&json!(100_000), &called["kind"]["cost"]["total_micro_usd"])
        );
    }
}

/// Run `work` on a thread of its own; a failure if it has not finished within
/// `limit` (far above what linear work takes), not a hung test.
fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    match rx.recv_timeout(limit) {
        Ok(done) => done,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what} took more than {} s", limit.as_secs())
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("{what} failed (above)"),
    }
}

/// Item 6: each wire's worst shape, about 4 MB, decodes whole and assembles
/// streamed in linear time — one support naming 100,000 chunks (Gemini),
/// 30,000 annotations over one answer (Chat, Responses), 30,000 cited text
/// blocks (Anthropic), a grounding resent with every chunk of a Gemini stream,
/// 50,000 search-suggestion chips. The code before: minutes each.
#[test]
fn every_wires_worst_shape_is_read_in_linear_time() {
    let limit = Duration::from_secs(120);
    within(limit, "the worst shapes", || {
        let indices: Vec<usize> = (0..100_000).collect();
        let c = decode(Wire::Gemini, &gemini("w", 100_000, &indices, 0));
        assert_eq!(c.citations.len(), 256);
        let text = "a".repeat(200_000);
        let notes: Vec<Value> = (0..30_000)
            .map(|i| json!({"type": "url_citation", "url_citation": {"url": format!("https://n{i}.example/"),
                            "start_index": 199_000 + i % 1000, "end_index": 200_000}}))
            .collect();
        let chat = json!({"choices": [{"message": {"role": "assistant", "content": text, "annotations": notes},
                                       "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}});
        let c = decode(Wire::OpenAiChat, &chat);
        assert!(c.claims.iter().map(|c| c.urls.len()).sum::<usize>() <= 256);
        let flat: Vec<Value> = (0..30_000)
            .map(|i| {
                json!({"type": "url_citation", "url": format!("https://n{i}.example/"),
                            "start_index": 199_000 + i % 1000, "end_index": 200_000})
            })
            .collect();
        let responses = json!({"id": "r", "object": "response", "status": "completed", "model": "m",
            "output": [{"type": "message", "id": "m", "status": "completed", "role": "assistant",
                        "content": [{"type": "output_text", "text": text, "annotations": flat}]}],
            "usage": {"input_tokens": 1, "output_tokens": 1}});
        let (_, c) = assemble(Wire::OpenAiResponses, &responses);
        assert_eq!(c.citations.len(), 256);
        let blocks: Vec<Value> = (0..30_000)
            .map(|i| json!({"type": "text", "text": "b",
                            "citations": [{"type": "web_search_result_location", "url": format!("https://b{i}.example/"),
                                           "title": "t", "cited_text": "b", "encrypted_index": "i"}]}))
            .collect();
        let anthropic = json!({"id": "m", "type": "message", "role": "assistant", "model": "m", "content": blocks,
                               "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}});
        assert_eq!(decode(Wire::Anthropic2025, &anthropic).claims.len(), 256);
        let (_, c) = assemble(Wire::Anthropic2025, &anthropic);
        assert_eq!(c.citations.len(), 256);
        let c = gemini_stream_resending_its_grounding(20_000);
        assert_eq!(c.citations.len(), 256);
        let chips: String = (0..50_000)
            .map(|i| {
                format!("<a class=\"chip\" href=\"https://www.google.com/search?q={i}\">q{i}</a>")
            })
            .collect();
        assert_eq!(
            io_harness::core::suggestions::suggestions(&chips).len(),
            50_000
        );
    });
}

/// A Gemini stream whose first chunk carries a grounding of `n` chunks and
/// supports, and whose every later chunk resends a query (the code before
/// derived every citation again on each).
fn gemini_stream_resending_its_grounding(n: usize) -> Completion {
    let indices: Vec<usize> = (0..n).collect();
    let first = gemini("v", n, &indices, 1);
    let mut a = assembler_for(Wire::Gemini, head()).unwrap();
    let mut deltas = Vec::new();
    let frame = |v: &Value| format!("data: {v}\r\n\r\n");
    a.feed(frame(&first).as_bytes(), &mut deltas).unwrap();
    for i in 0..n {
        let chunk = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "."}]},
            "groundingMetadata": {"webSearchQueries": [format!("again {i}")],
                                  "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 1, "text": "v"},
                                                         "groundingChunkIndices": [i]}]}}]});
        a.feed(frame(&chunk).as_bytes(), &mut deltas).unwrap();
        deltas.clear();
    }
    let last = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP",
                      "groundingMetadata": {"groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 1, "text": "v"},
                                                                   "groundingChunkIndices": indices}]}}]});
    a.feed(frame(&last).as_bytes(), &mut deltas).unwrap();
    a.finish().unwrap()
}
