//! What tracing costs a run: the same 20-step run on the loopback stub (each step
//! a request, a `list_dir` call, its rows and checkpoint in SQLite) with export
//! off, with export on to an OTLP/HTTP receiver on loopback (it reads each body
//! and answers 200), and with export on to a collector that is down (a port
//! nobody listens on): first with the exporter started once (what each run pays
//! in a long-lived process), then with the exporter started and finished inside
//! each iteration (a whole `io-harness run` command: the last batch's delivery is
//! inside the time measured). Target: on ≤ 1.1× off, down ≈ off.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use io_harness::run::{NoObserver, Observer, RunOptions, run_with_options};
use io_harness::stub::{Script, ScriptedResponse, StubVendor};
use io_harness::telemetry::Telemetry;
use io_harness::telemetry::settings::{Stated, resolve};
use io_harness::{
    ApiKey, ApproveAll, Budget, Endpoint, HttpProvider, Policy, Store, TaskContract, Vendor,
    Verification,
};

const STEPS: u32 = 20;
const TOOL: &str = r#"{"type":"message","model":"m","content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"toolu_1","name":"list_dir","input":{"path":"."}}],"stop_reason":"tool_use","usage":{"input_tokens":120,"output_tokens":12}}"#;

fn p<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A receiver that takes every export and answers 200 (decoding is the
/// collector's cost, not ours).
async fn receiver() -> String {
    let listener = p(tokio::net::TcpListener::bind("127.0.0.1:0").await);
    let url = format!("http://{}", p(listener.local_addr()));
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(|body: axum::body::Bytes| async move {
            black_box(body.len());
            ""
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// A loopback port with nothing listening on it.
fn down() -> String {
    let l = p(std::net::TcpListener::bind("127.0.0.1:0"));
    let url = format!("http://{}", p(l.local_addr()));
    drop(l);
    url
}

fn telemetry(url: &str) -> Telemetry {
    let table = Stated {
        otlp_endpoint: Some(url.to_string()),
        ..Stated::default()
    };
    let settings = p(resolve(Some(&table), &|_| None));
    p(Telemetry::start(&settings, Vec::new())).unwrap_or_else(|| panic!("no endpoint"))
}

fn traced(c: &mut Criterion) {
    let rt = p(tokio::runtime::Runtime::new());
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
    let stub = p(rt.block_on(StubVendor::start(p("127.0.0.1:0".parse()), script)));
    let endpoint = Endpoint {
        vendor: Vendor::Anthropic,
        wire: io_harness::Wire::Anthropic2025,
        base_url: stub.base_url(Vendor::Anthropic),
        api_key_env: "UNUSED".into(),
        stream: false,
        responses_state: Default::default(),
        search: Default::default(),
    };
    let base_url = endpoint.base_url.clone();
    let provider =
        HttpProvider::new(endpoint, "claude-sonnet-4-5", 1024).with_api_key(ApiKey::new("bench"));
    let dir = p(tempfile::tempdir());
    for i in 0..8 {
        p(std::fs::write(dir.path().join(format!("file-{i}.md")), "x"));
    }
    let store = p(Store::open(dir.path().join("runs.db")));
    let contract = TaskContract::workspace("list the workspace", dir.path(), Verification::None)
        .with_budget(Budget {
            steps: STEPS,
            ..Budget::default()
        });
    let policy = Policy::workspace_default();
    let on = rt.block_on(receiver());
    let off_url = down();
    let run = |observer: std::sync::Arc<dyn Observer>| {
        rt.block_on(async {
            let options = RunOptions {
                observer,
                ..RunOptions::default()
            };
            let r =
                p(
                    run_with_options(&contract, &provider, &store, &policy, &ApproveAll, options)
                        .await,
                );
            assert_eq!(r.steps, STEPS);
            black_box(r)
        })
    };

    let mut g = c.benchmark_group("telemetry");
    g.sample_size(20);
    g.bench_function("20 steps, export off", |b| {
        b.iter(|| run(std::sync::Arc::new(NoObserver)))
    });
    // The exporter started once, as a long-lived process has it: what a run pays.
    for (name, url) in [
        ("20 steps, export on to a loopback receiver", &on),
        ("20 steps, export on, collector down", &off_url),
    ] {
        let t = telemetry(url);
        g.bench_function(name, |b| {
            b.iter(|| run(t.observer(&base_url, std::sync::Arc::new(NoObserver))))
        });
        black_box(t.finish());
    }
    // The whole command: the exporter started, the run, the last batch sent.
    for (name, url) in [
        ("20 steps + exporter start and final flush, receiver", &on),
        (
            "20 steps + exporter start and final flush, collector down",
            &off_url,
        ),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let t = telemetry(url);
                run(t.observer(&base_url, std::sync::Arc::new(NoObserver)));
                black_box(t.finish())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, traced);
criterion_main!(benches);
