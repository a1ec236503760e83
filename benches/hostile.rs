//! Decoding and assembly stay linear on each wire's worst shape (issue 34, item
//! 6): the same shape at 1 MB and at the 32 MiB response cap, in the same run,
//! each reported as throughput — read the ratio of the two (time per MB), which
//! is flat (within 2×) when the work is linear in the bytes. The shapes are the
//! ones that were quadratic: one Gemini support naming every chunk, a Gemini
//! stream resending a piece of its grounding with every chunk, an answer
//! carrying thousands of annotations over a long text (Chat, Responses), an
//! Anthropic answer of thousands of cited text blocks, and Google's search
//! suggestions as tens of thousands of chips. Streams are sized by what is fed
//! (the stub's rendering of the body, or Gemini's hand-made events), fed in
//! 4 KB pieces as a socket hands them over.
//!
//! `cargo bench --bench hostile`; `-- gemini` for one shape. The figures are in
//! docs/performance.md.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use io_harness::WireResponse;
use io_harness::core::vendor::Wire;
use io_harness::core::wire;
use io_harness::core::wire::stream::assembler_for;
use io_harness::core::wire::stream::render::render;
use serde_json::{Value, json};
use std::hint::black_box;

const MB: usize = 1 << 20;

/// The sizes compared, in MiB: a megabyte and the default `max_response_bytes`,
/// unless `IO_HARNESS_BENCH_MB` names others (`1,4`: what code that is not
/// linear can still finish).
fn sizes() -> Vec<(String, usize)> {
    let said = std::env::var("IO_HARNESS_BENCH_MB").unwrap_or_else(|_| "1,32".into());
    said.split(',')
        .filter_map(|n| n.trim().parse::<usize>().ok())
        .map(|n| (format!("{n} MiB"), n * MB))
        .collect()
}

/// One Gemini support over the answer naming each of `n` chunks.
fn gemini_support(n: usize) -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "w"}]}, "finishReason": "STOP",
        "groundingMetadata": {"webSearchQueries": ["q"],
            "groundingChunks": (0..n).map(|i| json!({"web": {"uri": format!("https://s{i}.example/"), "title": "t"}})).collect::<Vec<_>>(),
            "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 1, "text": "w"},
                                   "groundingChunkIndices": (0..n).collect::<Vec<_>>()}]}}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1}})
}

/// `n` Anthropic text blocks, each citing a source of its own.
fn anthropic_blocks(n: usize) -> Value {
    let blocks: Vec<Value> = (0..n)
        .map(|i| json!({"type": "text", "text": "b",
            "citations": [{"type": "web_search_result_location", "url": format!("https://b{i}.example/"),
                           "title": "t", "cited_text": "b", "encrypted_index": "i"}]}))
        .collect();
    json!({"id": "m", "type": "message", "role": "assistant", "model": "m", "content": blocks,
           "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}})
}

/// A text of about 90·`n` characters and `n` annotations near its end.
fn annotated(n: usize) -> (String, Vec<Value>) {
    let len = 90 * n;
    let notes = (0..n)
        .map(|i| json!({"url": format!("https://n{i}.example/"), "start_index": len - 1 - i % 64, "end_index": len}))
        .collect();
    ("a".repeat(len), notes)
}

/// A Chat Completions answer with `n` annotations over a long text.
fn chat_annotations(n: usize) -> Value {
    let (text, notes) = annotated(n);
    let notes: Vec<Value> = notes
        .into_iter()
        .map(|c| json!({"type": "url_citation", "url_citation": c}))
        .collect();
    json!({"id": "c", "object": "chat.completion", "model": "m",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "annotations": notes},
                        "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}})
}

/// A Responses answer with `n` annotations over a long text.
fn responses_annotations(n: usize) -> Value {
    let (text, notes) = annotated(n);
    let notes: Vec<Value> = notes
        .into_iter()
        .map(|mut c| {
            c["type"] = json!("url_citation");
            c
        })
        .collect();
    json!({"id": "r", "object": "response", "status": "completed", "model": "m",
        "output": [{"type": "message", "id": "msg", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": notes}]}],
        "usage": {"input_tokens": 1, "output_tokens": 1}})
}

/// A Gemini stream: a grounding of `n` chunks, then `n / 2` chunks each
/// resending a query and a support, then the finish.
fn gemini_resent(n: usize) -> Vec<u8> {
    let frame = |v: &Value| format!("data: {v}\r\n\r\n");
    let mut first = gemini_support(n);
    first["candidates"][0]
        .as_object_mut()
        .map(|c| c.remove("finishReason"));
    let mut out = frame(&first);
    for i in 0..n / 2 {
        out.push_str(&frame(
            &json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "."}]},
            "groundingMetadata": {"webSearchQueries": [format!("again {i}")],
                "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 1, "text": "w"},
                                       "groundingChunkIndices": [i]}]}}]}),
        ));
    }
    out.push_str(&frame(&json!({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]},
        "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1}})));
    out.into_bytes()
}

/// `n` suggestion chips, as Google renders them.
fn chips(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!("<a class=\"chip\" href=\"https://www.google.com/search?q=q{i}\">q{i}</a>")
        })
        .collect()
}

/// The `make(n)` of about `target` bytes (its size scales with `n`).
fn sized<T>(target: usize, make: impl Fn(usize) -> T, len: impl Fn(&T) -> usize) -> T {
    let probe = 1_000;
    let per = len(&make(probe)).max(1) as f64 / probe as f64;
    make(((target as f64 / per) as usize).max(1))
}

fn body(v: &Value) -> Vec<u8> {
    v.to_string().into_bytes()
}

fn stream_of(wire: Wire, v: &Value) -> Vec<u8> {
    render(wire, &body(v))
        .unwrap_or_default()
        .concat()
        .into_bytes()
}

fn decode(c: &mut Criterion, name: &str, wire: Wire, make: fn(usize) -> Value) {
    let mut g = c.benchmark_group(format!("{name}, whole"));
    for (label, target) in sizes() {
        let bytes = sized(target, |n| body(&make(n)), Vec::len);
        let response = WireResponse {
            status: 200,
            headers: vec![],
            body: bytes,
        };
        g.throughput(Throughput::Bytes(response.body.len() as u64));
        g.bench_function(format!("{label} ({} B)", response.body.len()), |b| {
            b.iter(|| wire::decode_wire(wire, black_box(&response)).is_ok())
        });
    }
    g.finish();
}

fn assemble(c: &mut Criterion, name: &str, wire: Wire, make: &dyn Fn(usize) -> Vec<u8>) {
    let head = WireResponse {
        status: 200,
        ..WireResponse::default()
    };
    let mut g = c.benchmark_group(format!("{name}, streamed"));
    for (label, target) in sizes() {
        let stream = sized(target, make, Vec::len);
        g.throughput(Throughput::Bytes(stream.len() as u64));
        g.bench_function(format!("{label} ({} B)", stream.len()), |b| {
            b.iter(|| {
                let mut a = assembler_for(wire, head.clone())?;
                let mut deltas = Vec::new();
                for piece in black_box(&stream).chunks(4096) {
                    a.feed(piece, &mut deltas).ok()?;
                    deltas.clear();
                }
                a.finish().ok()
            })
        });
    }
    g.finish();
}

fn gemini(c: &mut Criterion) {
    decode(
        c,
        "gemini: one support naming every chunk",
        Wire::Gemini,
        gemini_support,
    );
    assemble(
        c,
        "gemini: the grounding resent with every chunk",
        Wire::Gemini,
        &gemini_resent,
    );
}

fn anthropic(c: &mut Criterion) {
    let wire = Wire::Anthropic2025;
    decode(
        c,
        "anthropic: a cited text block each",
        wire,
        anthropic_blocks,
    );
    assemble(c, "anthropic: a cited text block each", wire, &|n| {
        stream_of(wire, &anthropic_blocks(n))
    });
}

fn chat(c: &mut Criterion) {
    let wire = Wire::OpenAiChat;
    decode(
        c,
        "openai chat: annotations over a long text",
        wire,
        chat_annotations,
    );
    assemble(c, "openai chat: annotations over a long text", wire, &|n| {
        stream_of(wire, &chat_annotations(n))
    });
}

fn responses(c: &mut Criterion) {
    let wire = Wire::OpenAiResponses;
    decode(
        c,
        "openai responses: annotations over a long text",
        wire,
        responses_annotations,
    );
    assemble(
        c,
        "openai responses: annotations over a long text",
        wire,
        &|n| stream_of(wire, &responses_annotations(n)),
    );
}

fn suggestions(c: &mut Criterion) {
    let mut g = c.benchmark_group("search suggestions: chips");
    for (label, target) in sizes() {
        let html = sized(target, chips, String::len);
        g.throughput(Throughput::Bytes(html.len() as u64));
        g.bench_function(format!("{label} ({} B)", html.len()), |b| {
            b.iter(|| io_harness::core::suggestions::suggestions(black_box(&html)).len())
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(5));
    targets = gemini, anthropic, chat, responses, suggestions
}
criterion_main!(benches);
