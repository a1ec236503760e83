//! Loop throughput against the loopback stub vendor, beside a baseline in the same
//! run: a 20-step run (each step one HTTP request, a decoded `list_dir` tool call
//! executed in the workspace, its rows and a checkpoint written to a SQLite file)
//! against 20 bare HTTP POSTs of a request body to the same stub. Steps per second
//! = 20 / time; the ratio is what the loop costs on top of the round trips.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use io_harness::run::{RunOptions, run_with_options};
use io_harness::stub::{Script, ScriptedResponse, StubVendor};
use io_harness::{
    ApiKey, ApproveAll, Budget, Endpoint, HttpProvider, Policy, Store, TaskContract, Vendor,
    Verification,
};

const STEPS: u32 = 20;
const TOOL: &str = r#"{"type":"message","model":"m","content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"toolu_1","name":"list_dir","input":{"path":"."}}],"stop_reason":"tool_use","usage":{"input_tokens":120,"output_tokens":12}}"#;

fn loop_steps(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    let script = Script {
        responses: vec![ScriptedResponse {
            vendor: Some(Vendor::Anthropic),
            status: 200,
            body: TOOL.as_bytes().to_vec(),
            ..ScriptedResponse::default()
        }],
        repeat: true,
        emulate_usage: false,
    };
    let stub = rt
        .block_on(StubVendor::start(
            "127.0.0.1:0".parse().unwrap_or_else(|e| panic!("{e}")),
            script,
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    let endpoint = Endpoint {
        vendor: Vendor::Anthropic,
        wire: io_harness::Wire::Anthropic2025,
        base_url: stub.base_url(Vendor::Anthropic),
        api_key_env: "UNUSED".into(),
        stream: false,
        responses_state: Default::default(),
        search: Default::default(),
    };
    let provider = HttpProvider::new(endpoint.clone(), "claude-sonnet-4-5", 1024)
        .with_api_key(ApiKey::new("bench"));
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for i in 0..8 {
        std::fs::write(dir.path().join(format!("file-{i}.md")), "x")
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let store = Store::open(dir.path().join("runs.db")).unwrap_or_else(|e| panic!("{e}"));
    let contract = TaskContract::workspace("list the workspace", dir.path(), Verification::None)
        .with_budget(Budget {
            steps: STEPS,
            ..Budget::default()
        });
    let policy = Policy::workspace_default();
    io_harness::provider::tls::install();
    let client = reqwest::Client::new();
    let url = endpoint.url();
    let body = format!(
        r#"{{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{{"role":"user","content":"{}"}}]}}"#,
        "list the workspace ".repeat(20)
    );

    let mut g = c.benchmark_group("loop");
    g.throughput(Throughput::Elements(STEPS as u64));
    g.sample_size(20);
    g.bench_function("baseline: 20 bare POSTs to the stub", |b| {
        b.iter(|| {
            rt.block_on(async {
                for _ in 0..STEPS {
                    let r = client
                        .post(&url)
                        .header("x-api-key", "bench")
                        .body(body.clone())
                        .send()
                        .await
                        .unwrap_or_else(|e| panic!("{e}"));
                    black_box(r.bytes().await.unwrap_or_else(|e| panic!("{e}")));
                }
            })
        })
    });
    g.bench_function(
        "run_with_options: 20 steps, tool + rows + checkpoint each",
        |b| {
            b.iter(|| {
                rt.block_on(async {
                    let r = run_with_options(
                        &contract,
                        &provider,
                        &store,
                        &policy,
                        &ApproveAll,
                        RunOptions::default(),
                    )
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
                    assert_eq!(r.steps, STEPS);
                    black_box(r)
                })
            })
        },
    );
    g.finish();
}

criterion_group!(benches, loop_steps);
criterion_main!(benches);
