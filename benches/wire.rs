//! Wire benchmarks, each beside its baseline in the same run: encoding a turn
//! against serialising an equivalent `serde_json::Value`, and decoding a fixture
//! against parsing it into a `Value`; and Gemini's, xAI's and Perplexity's
//! recorded answers, whole and streamed, each against parsing the same bytes
//! into `Value`s. Read the ratio, not the absolute time.

use criterion::{Criterion, criterion_group, criterion_main};
use io_harness::core::endpoint::Endpoint;
use io_harness::core::tools::local_tool_specs;
use io_harness::core::vendor::Vendor;
use io_harness::core::wire;
use io_harness::core::wire::stream::assembler_for;
use io_harness::{Turn, WebAccess, Wire, WireResponse};
use std::hint::black_box;

fn turn() -> Turn {
    Turn {
        model: "claude-sonnet-4-5".into(),
        max_tokens: 4096,
        goal: "update the README's install line to the current release".into(),
        observations: (1..=20)
            .map(|i| format!("[step {i}] read_file README.md: {}", "x".repeat(400)))
            .collect(),
        tools: local_tool_specs(),
        web: Some(
            WebAccess::search()
                .with_fetch()
                .max_uses(3)
                .allow("docs.rs")
                .allow("crates.io"),
        ),
        ..Default::default()
    }
}

fn encode(c: &mut Criterion) {
    let t = turn();
    let endpoint = Endpoint::public(Vendor::Anthropic);
    let body: serde_json::Value = serde_json::from_slice(
        &wire::encode(&endpoint, &t)
            .map(|r| r.body)
            .unwrap_or_default(),
    )
    .unwrap_or_default();
    let mut g = c.benchmark_group("encode");
    g.bench_function("baseline: serde_json::to_vec of the same body", |b| {
        b.iter(|| serde_json::to_vec(black_box(&body)))
    });
    g.bench_function("anthropic encode", |b| {
        b.iter(|| wire::encode(black_box(&endpoint), black_box(&t)))
    });
    g.finish();
}

fn decode(c: &mut Criterion) {
    let body = include_bytes!("../tests/fixtures/anthropic/search-error.json").to_vec();
    let response = WireResponse {
        status: 200,
        headers: vec![],
        body: body.clone(),
    };
    let mut g = c.benchmark_group("decode");
    g.bench_function("baseline: serde_json::from_slice to Value", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&body)))
    });
    g.bench_function("anthropic decode", |b| {
        b.iter(|| wire::decode(Vendor::Anthropic, black_box(&response)))
    });
    g.finish();
}

/// Gemini's recorded grounded search (tests/fixtures/gemini, provenance in its
/// README): the whole body decoded, and the recorded stream assembled in 4 KB
/// chunks; the baselines parse the same bytes into `Value`s (the stream's
/// `data:` payloads one by one, as little as reading it could do).
fn gemini(c: &mut Criterion) {
    let body = include_bytes!("../tests/fixtures/gemini/search_grounded.json").to_vec();
    let stream = include_bytes!("../tests/fixtures/gemini/search_stream.sse").to_vec();
    let response = WireResponse {
        status: 200,
        headers: vec![],
        body: body.clone(),
    };
    let head = WireResponse {
        status: 200,
        ..WireResponse::default()
    };
    let mut g = c.benchmark_group("gemini");
    g.bench_function("baseline: serde_json::from_slice the body to Value", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&body)))
    });
    g.bench_function("gemini decode", |b| {
        b.iter(|| wire::decode_wire(Wire::Gemini, black_box(&response)))
    });
    let text = String::from_utf8_lossy(&stream).into_owned();
    g.bench_function(
        "baseline: serde_json::from_str each stream event to Value",
        |b| {
            b.iter(|| {
                black_box(&text)
                    .lines()
                    .filter_map(|l| l.strip_prefix("data: "))
                    .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
                    .count()
            })
        },
    );
    g.bench_function("gemini assemble the stream in 4 KB chunks", |b| {
        b.iter(|| {
            let mut a = assembler_for(Wire::Gemini, head.clone())?;
            let mut deltas = Vec::new();
            for chunk in black_box(&stream).chunks(4096) {
                a.feed(chunk, &mut deltas).ok()?;
                deltas.clear();
            }
            a.finish().ok()
        })
    });
    g.finish();
}

/// A recorded stream kept as one JSON event a line, framed as its vendor sends
/// it: `data:` lines, with a final `data: [DONE]` where the vendor sends one.
fn framed(lines: &[u8], done: bool) -> Vec<u8> {
    let mut out = String::new();
    for line in String::from_utf8_lossy(lines)
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        out.push_str("data: ");
        out.push_str(line);
        out.push_str("\n\n");
    }
    if done {
        out.push_str("data: [DONE]\n\n");
    }
    out.into_bytes()
}

/// One vendor's recorded answer decoded and its recorded stream assembled in
/// 4 KB chunks, each beside parsing the same bytes into `Value`s.
fn recorded(c: &mut Criterion, group: &str, wire: Wire, body: &[u8], stream: &[u8]) {
    let response = WireResponse {
        status: 200,
        headers: vec![],
        body: body.to_vec(),
    };
    let head = WireResponse {
        status: 200,
        ..WireResponse::default()
    };
    let mut g = c.benchmark_group(group);
    g.bench_function(
        format!(
            "baseline: serde_json::from_slice the {} B body to Value",
            body.len()
        ),
        |b| b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(body))),
    );
    g.bench_function(format!("{group} decode"), |b| {
        b.iter(|| wire::decode_wire(wire, black_box(&response)))
    });
    let text = String::from_utf8_lossy(stream).into_owned();
    g.bench_function(
        format!(
            "baseline: serde_json::from_str each event of the {} B stream to Value",
            stream.len()
        ),
        |b| {
            b.iter(|| {
                black_box(&text)
                    .lines()
                    .filter_map(|l| l.strip_prefix("data: "))
                    .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
                    .count()
            })
        },
    );
    g.bench_function(format!("{group} assemble the stream in 4 KB chunks"), |b| {
        b.iter(|| {
            let mut a = assembler_for(wire, head.clone())?;
            let mut deltas = Vec::new();
            for chunk in black_box(stream).chunks(4096) {
                a.feed(chunk, &mut deltas).ok()?;
                deltas.clear();
            }
            a.finish().ok()
        })
    });
    g.finish();
}

/// xAI's recorded answers (tests/fixtures/xai, provenance in its README): the
/// 2025 X search answer, and the 2026 web search stream with its sources.
fn xai(c: &mut Criterion) {
    let body = include_bytes!("../tests/fixtures/xai/x-search.json");
    let stream = framed(
        include_bytes!("../tests/fixtures/xai/web-search-sources.chunks.jsonl"),
        true,
    );
    recorded(c, "xai", Wire::Xai, body, &stream);
}

/// Perplexity's recorded answers: the Agent API's search answer and its stream,
/// Sonar's cited answer and its stream.
fn perplexity(c: &mut Criterion) {
    let body = include_bytes!("../tests/fixtures/perplexity/agent-web-search.json");
    let stream = framed(
        include_bytes!("../tests/fixtures/perplexity/agent-web-search.chunks.jsonl"),
        false,
    );
    recorded(c, "perplexity agent", Wire::PerplexityAgent, body, &stream);
    let body = include_bytes!("../tests/fixtures/perplexity/sonar-citations.json");
    let stream = framed(
        include_bytes!("../tests/fixtures/perplexity/sonar-citations.chunks.jsonl"),
        false,
    );
    recorded(c, "perplexity sonar", Wire::PerplexitySonar, body, &stream);
}

criterion_group!(benches, encode, decode, gemini, xai, perplexity);
criterion_main!(benches);
