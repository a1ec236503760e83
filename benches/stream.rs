//! Streaming benchmark, beside its baseline in the same run: assembling a 1 MB
//! server-sent event stream fed in 4 KB chunks (as a socket hands it over)
//! against decoding the equivalent non-streamed body in one piece. Both end in
//! the same `Completion`. Read the ratio, not the absolute time.
//!
//! And the console's share of showing a streamed event: the bytes of one
//! `server_tool_use` block (its start, its query, its stop) fed to the assembler,
//! the delta turned into the run event, folded into the console's state and the
//! 100×30 Run screen drawn into a `TestBackend`; beside it, drawing that screen
//! alone.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use io_harness::core::vendor::Vendor;
use io_harness::core::wire;
use io_harness::core::wire::stream::assembler_for;
use io_harness::core::wire::stream::render::render;
use io_harness::{Wire, WireResponse};
use serde_json::json;
use std::hint::black_box;

/// A search turn on `wire` whose rendered stream is about 1 MB: many text
/// blocks (each with a citation on Anthropic), prose with some multi-byte text.
fn body(wire: Wire) -> Vec<u8> {
    let sentence = "The current release is 0.22.0 — see the changelog for what changed. ";
    let mut n = 1;
    loop {
        let b = match wire.vendor() {
            Vendor::Xai => json!({"id":"xai_b","object":"response",
                "status":"completed","model":"grok-4.3","output":[
                    {"type":"web_search_call","id":"ws_b","status":"completed","action":{"type":"search","query":"io-harness release","sources":[{"type":"url","url":"https://crates.io/crates/io-harness"}]}},
                    {"type":"message","id":"msg_b","status":"completed","role":"assistant","content":[
                        {"type":"output_text","text": sentence.repeat(8 * n),"logprobs":[],
                         "annotations":[{"type":"url_citation","url":"https://crates.io/crates/io-harness","title":"https://crates.io/crates/io-harness","start_index":0,"end_index":0}]}]}],
                "usage":{"input_tokens":100,"output_tokens":200,"cost_in_usd_ticks":1000000,"server_side_tool_usage_details":{"web_search_calls":1}}}),
            Vendor::Perplexity if wire == Wire::PerplexityAgent => {
                json!({"id":"resp_b","object":"response",
                "status":"completed","model":"perplexity/sonar","output":[
                    {"type":"search_results","queries":["io-harness release"],"results":[{"id":1,"url":"https://crates.io/crates/io-harness","title":"io-harness","snippet":"0.22.0"}]},
                    {"type":"message","id":"msg_b","status":"completed","role":"assistant","content":[
                        {"type":"output_text","text": format!("{}[1]", sentence.repeat(8 * n)),"annotations":[]}]}],
                "usage":{"input_tokens":100,"output_tokens":200,"cost":{"total_cost":0.006},"tool_calls_details":{"search_web":{"invocation":1}}}})
            }
            Vendor::Perplexity => json!({"id":"sonar-b","object":"chat.completion","model":"sonar",
                "citations":["https://crates.io/crates/io-harness"],
                "search_results":[{"url":"https://crates.io/crates/io-harness","title":"io-harness"}],
                "choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content": format!("{}[1]", sentence.repeat(8 * n))}}],
                "usage":{"prompt_tokens":100,"completion_tokens":200,"total_tokens":300,"cost":{"total_cost":0.0053}}}),
            _ if wire == Wire::OpenAiResponses => json!({"id":"resp_b","object":"response",
                "status":"completed","model":"m","output":[
                    {"type":"web_search_call","id":"ws_b","status":"completed","action":{"type":"search","query":"io-harness release"}},
                    {"type":"message","id":"msg_b","status":"completed","role":"assistant","content":[
                        {"type":"output_text","text": sentence.repeat(8 * n),
                         "annotations":[{"type":"url_citation","url":"https://crates.io/crates/io-harness","title":"io-harness","start_index":0,"end_index":5}]}]}],
                "usage":{"input_tokens":100,"output_tokens":200}}),
            Vendor::Anthropic => {
                let mut content = vec![
                    json!({"type":"server_tool_use","id":"srvtoolu_b","name":"web_search","input":{"query":"io-harness release"}}),
                    json!({"type":"web_search_tool_result","tool_use_id":"srvtoolu_b","content":[{"type":"web_search_result","url":"https://crates.io/crates/io-harness","title":"io-harness"}]}),
                ];
                for i in 0..n {
                    content.push(json!({"type":"text","text": sentence.repeat(8),
                        "citations":[{"type":"web_search_result_location","url":format!("https://crates.io/{i}"),"title":"io-harness","cited_text":"0.22.0"}]}));
                }
                json!({"id":"msg_b","type":"message","role":"assistant","model":"m","content":content,
                       "stop_reason":"end_turn","usage":{"input_tokens":100,"output_tokens":200,"server_tool_use":{"web_search_requests":1}}})
            }
            _ => json!({"id":"chatcmpl-b","object":"chat.completion","model":"m",
                "choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content": sentence.repeat(8 * n),
                    "annotations":[{"type":"url_citation","url_citation":{"url":"https://crates.io/crates/io-harness","title":"io-harness"}}]}}],
                "usage":{"prompt_tokens":100,"completion_tokens":200}}),
        };
        let bytes = b.to_string().into_bytes();
        let stream: usize = render(wire, &bytes).map(|f| f.concat().len()).unwrap_or(0);
        if stream >= 1 << 20 {
            return bytes;
        }
        n += 1 + n / 4;
    }
}

fn assemble(c: &mut Criterion) {
    for wire in [
        Wire::Anthropic2025,
        Wire::OpenAiChat,
        Wire::OpenAiResponses,
        Wire::Xai,
        Wire::PerplexityAgent,
        Wire::PerplexitySonar,
    ] {
        let body = body(wire);
        let stream = render(wire, &body)
            .unwrap_or_default()
            .concat()
            .into_bytes();
        let response = WireResponse {
            status: 200,
            headers: vec![],
            body: body.clone(),
        };
        let head = WireResponse {
            status: 200,
            ..WireResponse::default()
        };
        let mut g = c.benchmark_group(format!("stream {}", wire.name()));
        g.throughput(Throughput::Bytes(stream.len() as u64));
        g.bench_function(
            format!("baseline: decode the {} B body in one piece", body.len()),
            |b| b.iter(|| wire::decode_wire(wire, black_box(&response))),
        );
        g.bench_function(
            format!("assemble the {} B stream in 4 KB chunks", stream.len()),
            |b| {
                b.iter(|| {
                    let mut a = assembler_for(wire, head.clone())?;
                    let mut deltas = Vec::new();
                    for chunk in black_box(&stream).chunks(4096) {
                        if a.feed(chunk, &mut deltas).is_err() {
                            return None;
                        }
                        deltas.clear();
                    }
                    a.finish().ok()
                })
            },
        );
        g.finish();
    }
}

fn to_screen(c: &mut Criterion) {
    use io_harness::config::{Config, Loaded};
    use io_harness::console::testing as view;
    use io_harness::console::testing::initial_state;
    use io_harness::console::testing::update;
    use io_harness::console::testing::{Msg, Screen};
    use io_harness::provider::stream::event_of;
    use io_harness::{Event, EventKind, RunId};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    let loaded = Loaded {
        config: Config::default(),
        path: None,
    };
    let plan = std::sync::Arc::new(io_harness::launch::Plan::of(&loaded.config, false));
    let Ok(mut state) = initial_state(&loaded, &plan, "bench") else {
        return;
    };
    state.screen = Screen::Run;
    let start = |kind| {
        Msg::Run(Box::new(Event {
            run_id: RunId(1),
            step: 1,
            elapsed_ms: 0,
            kind,
        }))
    };
    update(
        &mut state,
        start(EventKind::RunStarted {
            goal: "g".into(),
            provider: Vendor::Anthropic,
            model: "m".into(),
            resumed: false,
            agent: None,
            web: None,
            no_local_tools: None,
        }),
    );
    update(&mut state, start(EventKind::RequestSent { attempt: 1 }));
    let opening = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n";
    let block = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":\"web_search\",\"input\":{}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"query\\\": \\\"io-harness release\\\"}\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n";
    let Ok(mut terminal) = Terminal::new(TestBackend::new(100, 30));
    let mut g = c.benchmark_group("event to screen");
    g.bench_function("baseline: draw the Run screen", |b| {
        b.iter(|| terminal.draw(|f| view::draw(f, black_box(&state))).is_ok())
    });
    g.bench_function(
        "a search's bytes → assembler → run event → state → drawn",
        |b| {
            b.iter(|| {
                let mut s = state.clone();
                let Some(mut a) =
                    assembler_for(Wire::spec(Vendor::Anthropic), WireResponse::default())
                else {
                    return false;
                };
                let mut deltas = Vec::new();
                let _ = a.feed(opening.as_bytes(), &mut deltas);
                let _ = a.feed(black_box(block.as_bytes()), &mut deltas);
                for d in deltas.drain(..) {
                    update(&mut s, start(event_of(Vendor::Anthropic, d)));
                }
                terminal.draw(|f| view::draw(f, &s)).is_ok()
            })
        },
    );
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(4));
    targets = assemble, to_screen
}
criterion_main!(benches);
