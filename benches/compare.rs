//! What running one task on three vendors at once costs over the slowest of them
//! alone: on the loopback stub, each vendor scripted with its own delay per answer
//! (Anthropic 4 steps × 50 ms, OpenAI 3 × 40 ms, OpenRouter 2 × 60 ms), each run a
//! `list_dir` per step with its rows and checkpoint in SQLite; the group also
//! copies the workspace once per vendor. Target: the group ≤ 1.2× its slowest
//! single run.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use io_harness::run::group::{Copies, Entrant, Venue, run_group};
use io_harness::run::{NoObserver, RunOptions, run_with_options};
use io_harness::stub::{Script, ScriptedResponse, StubVendor};
use io_harness::{
    ApiKey, ApproveAll, Budget, Endpoint, HttpProvider, Policy, Store, TaskContract, Vendor,
    Verification, Wire,
};

const ANTHROPIC_TOOL: &str = r#"{"type":"message","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"list_dir","input":{"path":"."}}],"stop_reason":"tool_use","usage":{"input_tokens":120,"output_tokens":12}}"#;
const ANTHROPIC_DONE: &str = r#"{"type":"message","model":"m","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":120,"output_tokens":2}}"#;
const CHAT_DONE: &str = r#"{"id":"c2","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":120,"completion_tokens":2,"total_tokens":122}}"#;
const CHAT_TOOL: &str = r#"{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"list_dir","arguments":"{\"path\":\".\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":120,"completion_tokens":12,"total_tokens":132}}"#;

/// Per vendor: its steps and the stub's delay before each answer.
const PLAN: [(Vendor, u32, u64); 3] = [
    (Vendor::Anthropic, 4, 50),
    (Vendor::OpenAi, 3, 40),
    (Vendor::OpenRouter, 2, 60),
];

fn p<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn provider(base: &str, vendor: Vendor) -> HttpProvider {
    let endpoint = Endpoint {
        vendor,
        wire: Wire::spec(vendor),
        base_url: io_harness::stub::base_url(base, vendor),
        api_key_env: "UNUSED".into(),
        stream: false,
        responses_state: Default::default(),
        search: Default::default(),
    };
    HttpProvider::new(endpoint, "m", 1024).with_api_key(ApiKey::new("bench"))
}

fn compare(c: &mut Criterion) {
    let rt = p(tokio::runtime::Runtime::new());
    // Each vendor: a tool call a step, then its answer; the script is rewound
    // before every iteration.
    let responses = PLAN
        .iter()
        .flat_map(|&(vendor, steps, delay)| {
            let (tool, done) = match vendor {
                Vendor::Anthropic => (ANTHROPIC_TOOL, ANTHROPIC_DONE),
                _ => (CHAT_TOOL, CHAT_DONE),
            };
            (1..=steps).map(move |i| ScriptedResponse {
                vendor: Some(vendor),
                status: 200,
                body: if i == steps { done } else { tool }.as_bytes().to_vec(),
                delay_ms: Some(delay),
                ..ScriptedResponse::default()
            })
        })
        .collect();
    let script = Script {
        responses,
        repeat: false,
        emulate_usage: false,
    };
    let stub = p(rt.block_on(StubVendor::start(p("127.0.0.1:0".parse()), script)));
    let host = stub.addr().to_string();
    let rewinder = stub.rewinder();
    let dir = p(tempfile::tempdir());
    let ws = dir.path().join("ws");
    p(std::fs::create_dir(&ws));
    for i in 0..8 {
        p(std::fs::write(
            ws.join(format!("file-{i}.md")),
            "x".repeat(2_000),
        ));
    }
    let store_path = dir.path().join("data/runs.db");
    let store = p(Store::open(&store_path));
    let copies = Copies::beside(&store_path);
    let policy = Policy::workspace_default();
    let contract = TaskContract::workspace("list the workspace", &ws, Verification::None)
        .with_budget(Budget {
            steps: 10,
            ..Budget::default()
        });
    let alone = |vendor: Vendor, steps: u32| {
        rewinder.rewind();
        rt.block_on(async {
            let r = p(run_with_options(
                &contract,
                &provider(&host, vendor),
                &store,
                &policy,
                &ApproveAll,
                RunOptions::default(),
            )
            .await);
            assert_eq!(r.steps, steps);
            black_box(r)
        })
    };

    let mut g = c.benchmark_group("compare");
    g.sample_size(20);
    for (vendor, steps, delay) in PLAN {
        g.bench_function(
            format!("{vendor} alone, {steps} steps × {delay} ms"),
            |b| b.iter(|| alone(vendor, steps)),
        );
    }
    g.bench_function("three vendors at once (group, workspace copies)", |b| {
        b.iter(|| {
            rewinder.rewind();
            rt.block_on(async {
                let entrants = PLAN
                    .iter()
                    .map(|&(vendor, _, _)| Entrant {
                        vendor,
                        provider: Ok(provider(&host, vendor)),
                        observer: Arc::new(NoObserver),
                    })
                    .collect();
                let venue = Venue {
                    store: &store,
                    copies: &copies,
                    policy: &policy,
                    approver: &ApproveAll,
                };
                black_box(p(run_group(
                    &venue,
                    &contract,
                    entrants,
                    RunOptions::default(),
                    None,
                )
                .await))
            })
        })
    });
    g.finish();
}

criterion_group!(benches, compare);
criterion_main!(benches);
