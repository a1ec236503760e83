//! Store write throughput beside a bare-rusqlite baseline in the same run: ten
//! citations per transaction through `Store::record_citations` against the same
//! ten rows inserted by hand into an equivalent table of a fresh WAL file, and a
//! whole step's accounting (a provider call, ten citations, two server-tool calls),
//! both as three separate writes and as the loop records a step: one transaction
//! with the step row and the checkpoint (`Store::record_step_whole`). The baseline
//! file uses the store's own pragmas (WAL, synchronous NORMAL).
//! Rows per second = rows per iteration / time; read the ratio to the baseline.

use std::hint::black_box;
use std::sync::atomic::{AtomicU32, Ordering};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use io_harness::core::vendor::Vendor;
use io_harness::store::{CHECKPOINT_FORMAT, Checkpoint, NewRun, ProviderCall, StepRecord, Store};
use io_harness::{Citation, ServerToolCall, TaskContract, Usage, Verification};
use rusqlite::{Connection, params};

fn citations() -> Vec<Citation> {
    (0..10)
        .map(|i| Citation {
            url: format!("https://docs.rs/crate-{i}/latest/"),
            title: Some(format!("crate {i} - Rust")),
            cited_text: Some("x".repeat(160)),
        })
        .collect()
}

fn store_writes(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let cites = citations();

    let conn = Connection::open(dir.path().join("baseline.db")).unwrap_or_else(|e| panic!("{e}"));
    conn.pragma_update(None, "journal_mode", "WAL")
        .unwrap_or_else(|e| panic!("{e}"));
    conn.pragma_update(None, "synchronous", "NORMAL")
        .unwrap_or_else(|e| panic!("{e}"));
    conn.execute_batch(
        "CREATE TABLE citations (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, step INTEGER NOT NULL,
           url TEXT NOT NULL, title TEXT, cited_text TEXT, UNIQUE (run_id, step, url));",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut conn = conn;

    let store = Store::open(dir.path().join("runs.db")).unwrap_or_else(|e| panic!("{e}"));
    let run = store
        .begin_run(&NewRun {
            goal: "bench".into(),
            provider: Vendor::Anthropic,
            model: "claude-sonnet-4-5".into(),
            ..NewRun::default()
        })
        .unwrap_or_else(|e| panic!("{e}"));

    let step = AtomicU32::new(0);
    let mut g = c.benchmark_group("store");
    g.throughput(Throughput::Elements(cites.len() as u64));
    g.bench_function("baseline: 10 rows by hand in one transaction", |b| {
        b.iter(|| {
            let s = step.fetch_add(1, Ordering::Relaxed);
            let tx = conn.transaction().unwrap_or_else(|e| panic!("{e}"));
            {
                let mut stmt = tx
                    .prepare_cached("INSERT OR IGNORE INTO citations (run_id, step, url, title, cited_text) VALUES (?1, ?2, ?3, ?4, ?5)")
                    .unwrap_or_else(|e| panic!("{e}"));
                for c in &cites {
                    stmt.execute(params![1, s, c.url, c.title, c.cited_text])
                        .unwrap_or_else(|e| panic!("{e}"));
                }
            }
            tx.commit().unwrap_or_else(|e| panic!("{e}"));
        })
    });
    g.bench_function("Store::record_citations, 10 rows", |b| {
        b.iter(|| {
            let s = step.fetch_add(1, Ordering::Relaxed);
            black_box(store.record_citations(run, s, &cites))
        })
    });
    let calls = vec![
        ServerToolCall::ok(Vendor::Anthropic, "web_search"),
        ServerToolCall::failed(Vendor::Anthropic, "web_search", "max_uses_exceeded"),
    ];
    let call = ProviderCall {
        provider: Vendor::Anthropic,
        model: "claude-sonnet-4-5".into(),
        usage: Some(Usage {
            input_tokens: 2841,
            output_tokens: 212,
            server_tool_requests: 1,
            ..Default::default()
        }),
        stop_reason: "tool_use".into(),
        latency_ms: 900,
        request_id: Some("req_1".into()),
        ..ProviderCall::default()
    };
    g.throughput(Throughput::Elements(13));
    g.bench_function("one step's accounting, 13 rows", |b| {
        b.iter(|| {
            let s = step.fetch_add(1, Ordering::Relaxed);
            store.record_provider_call(run, s, &call);
            store.record_citations(run, s, &cites);
            store.record_server_tool_calls(run, s, &calls);
        })
    });
    let observations = vec!["[step 1] list_dir {\"path\":\".\"}: README.md".to_string(); 5];
    let checkpoint = Checkpoint {
        format: CHECKPOINT_FORMAT,
        step: 1,
        observations: observations.clone(),
        tokens_used: 3053,
        continuations: 0,
        contract: TaskContract::workspace("bench", ".", Verification::None),
    };
    g.bench_function(
        "one step whole, 13 rows + step + checkpoint, one transaction",
        |b| {
            b.iter(|| {
                let s = step.fetch_add(1, Ordering::Relaxed);
                let record = StepRecord {
                    step: s,
                    attempt: 1,
                    call: &call,
                    server_tools: &calls,
                    citations: &cites,
                    claims: &[],
                    text: "Checking the changelog.",
                    observations: &observations,
                    exchange: None,
                    search_suggestions: None,
                };
                store
                    .record_step_whole(run, &record, &checkpoint, None)
                    .unwrap_or_else(|e| panic!("{e}"));
            })
        },
    );
    g.finish();
}

criterion_group!(benches, store_writes);
criterion_main!(benches);
