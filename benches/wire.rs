//! Wire benchmarks, each beside its baseline in the same run: encoding a turn
//! against serialising an equivalent `serde_json::Value`, and decoding a fixture
//! against parsing it into a `Value`. Read the ratio, not the absolute time.

use criterion::{Criterion, criterion_group, criterion_main};
use io_harness::core::tools::local_tool_specs;
use io_harness::core::wire::{self, Endpoint, Vendor};
use io_harness::{Turn, WebAccess, WireResponse};
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

criterion_group!(benches, encode, decode);
criterion_main!(benches);
