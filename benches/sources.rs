//! Sources at scale, on a generated store of 100,000 runs and 1,000,000 citations
//! (ten a run, each with a title and a quote, all in the full-text index): the
//! first page of a search across every run, newest first and best first; the
//! Sources screen's opening read (the newest 500 runs, priced); and one step
//! recorded whole with the index beside the same step recorded into a store whose
//! index table is a plain table (the baseline: what the index adds). Read ratios.

use std::hint::black_box;
use std::sync::atomic::{AtomicU32, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};
use io_harness::core::vendor::Vendor;
use io_harness::store::search::SearchQuery;
use io_harness::store::{CHECKPOINT_FORMAT, Checkpoint, NewRun, ProviderCall, StepRecord, Store};
use io_harness::{Citation, PriceTable, ServerToolCall, TaskContract, Usage, Verification};

const RUNS: u32 = 100_000;

/// Fill `path` (a fresh store) with RUNS runs of ten citations each, in one
/// transaction of generated rows, the index written as the store writes it.
fn generate(path: &std::path::Path) {
    Store::open(path).unwrap_or_else(|e| panic!("{e}"));
    let conn = rusqlite::Connection::open(path).unwrap_or_else(|e| panic!("{e}"));
    conn.execute_batch(&format!(
        "BEGIN;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {RUNS})
         INSERT INTO runs (run_id, started_at, finished_at, goal, provider, model, outcome)
           SELECT i, printf('2026-%02d-%02dT00:00:00Z', 1 + i % 12, 1 + i % 28), NULL,
                  printf('research topic %d about crate %d and its release %d', i, i % 997, i % 31),
                  'anthropic', 'claude-sonnet-4-5', 'passed' FROM n;
         WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {RUNS} * 10 - 1)
         INSERT INTO citations (run_id, step, url, title, cited_text)
           SELECT 1 + i / 10, 1, printf('https://docs.example/%d/%d', i % 5003, i),
                  printf('Page %d of crate %d', i, i % 997),
                  printf('the quoted passage %d mentions version %d.%d and feature %d', i, i % 7, i % 13, i % 101)
           FROM n;
         INSERT INTO search_index (kind, run_id, step, url, body)
           SELECT kind, run_id, step, url, body FROM (
             SELECT 'goal' AS kind, run_id, 0 AS step, NULL AS url, goal AS body, 0 AS k, 0 AS id FROM runs
             UNION ALL
             SELECT 'citation', run_id, step, url, url || ' ' || title || ' ' || cited_text, 3, id FROM citations
           ) ORDER BY run_id, k, id;
         COMMIT;"
    ))
    .unwrap_or_else(|e| panic!("{e}"));
}

fn step_record<'a>(
    call: &'a ProviderCall,
    cites: &'a [Citation],
    tools: &'a [ServerToolCall],
    step: u32,
) -> StepRecord<'a> {
    StepRecord {
        step,
        attempt: 1,
        call,
        server_tools: tools,
        citations: cites,
        claims: &[],
        text: "The release notes say the crate now ships version 0.22.0 with streaming.",
        observations: &[],
        exchange: None,
        search_suggestions: None,
    }
}

fn sources(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("big.db");
    let started = std::time::Instant::now();
    generate(&path);
    eprintln!(
        "generated {RUNS} runs, {} citations and their index in {:.1} s",
        RUNS * 10,
        started.elapsed().as_secs_f64()
    );
    let store = Store::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let prices = PriceTable::builtin();
    let mut g = c.benchmark_group("sources");
    g.sample_size(20);
    for (name, text, rank) in [
        (
            "search, newest first: a word in 1 in 7 quotes",
            "version",
            false,
        ),
        ("search, best first: a phrase", "\"feature 42\"", true),
    ] {
        let q = SearchQuery {
            text: text.into(),
            limit: 20,
            run: None,
            rank,
        };
        g.bench_function(name, |b| {
            b.iter(|| black_box(store.search(&q).unwrap_or_default()))
        });
    }
    g.bench_function("Sources opens: the newest 500 runs, priced", |b| {
        b.iter(|| black_box(store.priced_runs(Some(500), &prices).unwrap_or_default()))
    });

    // One step recorded whole: with the index, and into a store whose index is a
    // plain table (what the store writes without FTS5's work).
    let cites: Vec<Citation> = (0..10)
        .map(|i| Citation {
            url: format!("https://docs.rs/crate-{i}/latest/"),
            title: Some(format!("crate {i} - Rust")),
            cited_text: Some("x".repeat(160)),
        })
        .collect();
    let tools =
        vec![ServerToolCall::ok(Vendor::Anthropic, "web_search").with_input("crate release")];
    let call = ProviderCall {
        provider: Vendor::Anthropic,
        model: "claude-sonnet-4-5".into(),
        usage: Some(Usage::default()),
        stop_reason: "tool_use".into(),
        latency_ms: 1,
        request_id: None,
        ..ProviderCall::default()
    };
    let plain = dir.path().join("plain.db");
    Store::open(&plain).unwrap_or_else(|e| panic!("{e}"));
    rusqlite::Connection::open(&plain)
        .and_then(|c| {
            c.execute_batch(
                "DROP TABLE search_index;
                 CREATE TABLE search_index (kind, run_id, step, url, body);",
            )
        })
        .unwrap_or_else(|e| panic!("{e}"));
    for (label, file) in [
        (
            "baseline: a step recorded whole, index as a plain table",
            plain,
        ),
        (
            "a step recorded whole with the full-text index",
            dir.path().join("indexed.db"),
        ),
    ] {
        let store = Store::open(&file).unwrap_or_else(|e| panic!("{e}"));
        let contract = TaskContract::workspace("g", ".", Verification::None);
        let checkpoint = Checkpoint {
            format: CHECKPOINT_FORMAT,
            step: 0,
            observations: vec![],
            tokens_used: 0,
            continuations: 0,
            contract,
        };
        let run = store
            .start_run(
                &NewRun {
                    goal: "g".into(),
                    provider: Vendor::Anthropic,
                    model: "m".into(),
                    ..NewRun::default()
                },
                &checkpoint,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let step = AtomicU32::new(0);
        g.bench_function(label, |b| {
            b.iter(|| {
                let n = step.fetch_add(1, Ordering::Relaxed) + 1;
                let record = step_record(&call, &cites, &tools, n);
                store
                    .record_step_whole(run, &record, &checkpoint, None)
                    .unwrap_or_else(|e| panic!("{e}"));
            })
        });
    }
    g.finish();
}

criterion_group!(benches, sources);
criterion_main!(benches);
