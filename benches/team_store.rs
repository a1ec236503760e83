//! A team's store, PostgreSQL beside SQLite in the same run (the server is the
//! one `IO_HARNESS_TEST_PG` names: `eval "$(scripts/pg-test-server start)"`;
//! without it only the SQLite half runs, and says so):
//! - many operators at once: 8 processes, each recording 50 ten-step runs
//!   (a provider call, three citations and a checkpoint a step, the last with
//!   the outcome) into one fresh store; after each round every row is counted —
//!   lost or duplicated rows and failed runs are printed, and must be 0;
//! - `runs` (its default 50) and the console's Sources list (the newest 500,
//!   priced) over 100,000 runs;
//! - search over 1,000,000 citations, beside PostgreSQL's own time for the
//!   same query run bare (the floor);
//! - `store copy` of 10,000 runs (timed once, printed) and of 1,000 (measured).
//!
//! Read ratios between the rows of one run, not absolute times.
//! `IO_HARNESS_BENCH_PARTS=team,copy,scale` runs only the parts named.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use io_harness::core::vendor::Vendor;
use io_harness::store::search::SearchQuery;
use io_harness::store::{CHECKPOINT_FORMAT, Checkpoint, NewRun, ProviderCall, StepRecord, Store};
use io_harness::{Citation, PriceTable, RunOutcome, TaskContract, Usage, Verification};

const PROCESSES: u32 = 8;
const RUNS_EACH: u32 = 50;
const STEPS: u32 = 10;

fn die<E: std::fmt::Debug>(e: E) -> ! {
    panic!("{e:?}")
}

/// The test server's URL, if one is set.
fn server() -> Option<String> {
    std::env::var("IO_HARNESS_TEST_PG")
        .ok()
        .filter(|v| !v.is_empty())
}

/// A fresh database on the server, its URL.
fn database(admin: &str, name: &str) -> String {
    let mut c = postgres::Client::connect(admin, postgres::NoTls).unwrap_or_else(|e| die(e));
    c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .unwrap_or_else(|e| die(e));
    c.batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap_or_else(|e| die(e));
    let mut url = url::Url::parse(admin).unwrap_or_else(|e| die(e));
    url.set_path(&format!("/{name}"));
    url.to_string()
}

fn checkpoint(step: u32) -> Checkpoint {
    Checkpoint {
        format: CHECKPOINT_FORMAT,
        step,
        observations: vec![],
        tokens_used: 0,
        continuations: 0,
        contract: TaskContract::workspace("g", ".", Verification::None),
    }
}

/// One worker process: RUNS_EACH runs of STEPS steps each into `store`.
fn worker(store: &str, me: u32) {
    let store = Store::open(store).unwrap_or_else(|e| die(e));
    let call = ProviderCall {
        provider: Vendor::Anthropic,
        model: "claude-sonnet-4-5".into(),
        usage: Some(Usage {
            input_tokens: 1000,
            output_tokens: 100,
            ..Usage::default()
        }),
        stop_reason: "end_turn".into(),
        latency_ms: 1,
        ..ProviderCall::default()
    };
    for r in 0..RUNS_EACH {
        let run = store
            .start_run(
                &NewRun {
                    goal: format!("worker {me} run {r}"),
                    provider: Vendor::Anthropic,
                    model: "claude-sonnet-4-5".into(),
                    ..NewRun::default()
                },
                &checkpoint(0),
            )
            .unwrap_or_else(|e| die(e));
        for step in 1..=STEPS {
            let cites: Vec<Citation> = (0..3)
                .map(|i| Citation {
                    url: format!("https://docs.example/{me}/{r}/{step}/{i}"),
                    title: Some(format!("page {i}")),
                    cited_text: Some("a quoted passage about the release".into()),
                })
                .collect();
            let record = StepRecord {
                step,
                attempt: 1,
                call: &call,
                server_tools: &[],
                citations: &cites,
                claims: &[],
                text: "the step's answer",
                observations: &[],
                exchange: None,
                search_suggestions: None,
            };
            let outcome = (step == STEPS).then_some(RunOutcome::Passed);
            store
                .record_step_whole(run, &record, &checkpoint(step), outcome.as_ref())
                .unwrap_or_else(|e| die(e));
        }
    }
}

/// PROCESSES workers at once into `store`; then every row counted.
fn round(store: &str) -> Duration {
    let exe = std::env::current_exe().unwrap_or_else(|e| die(e));
    let started = Instant::now();
    let children: Vec<_> = (0..PROCESSES)
        .map(|i| {
            std::process::Command::new(&exe)
                .env("IO_HARNESS_BENCH_WORKER", i.to_string())
                .env("IO_HARNESS_BENCH_STORE", store)
                .spawn()
                .unwrap_or_else(|e| die(e))
        })
        .collect();
    let failed = children
        .into_iter()
        .map(|mut c| c.wait().map(|s| s.success()).unwrap_or(false))
        .filter(|ok| !ok)
        .count();
    let took = started.elapsed();
    let s = Store::open(store).unwrap_or_else(|e| die(e));
    let runs = s.runs(None).unwrap_or_else(|e| die(e));
    let want_runs = (PROCESSES * RUNS_EACH) as usize;
    let passed = runs
        .iter()
        .filter(|r| r.outcome.map(|o| o.as_str()) == Some("passed"))
        .count();
    let mut steps = 0usize;
    let mut citations = 0usize;
    for r in &runs {
        steps += s.steps(r.run_id).unwrap_or_else(|e| die(e)).len();
        citations += s.citations(r.run_id).unwrap_or_else(|e| die(e)).len();
    }
    let want_steps = want_runs * STEPS as usize;
    println!(
        "  {store_kind}: {n} runs ({want_runs} expected), {steps} steps ({want_steps}), {citations} citations ({}), \
         lost or duplicated rows: {}, failed runs: {}",
        want_steps * 3,
        want_runs.abs_diff(runs.len())
            + want_steps.abs_diff(steps)
            + (want_steps * 3).abs_diff(citations),
        failed + want_runs.saturating_sub(passed),
        store_kind = if store.starts_with("postgres") {
            "PostgreSQL"
        } else {
            "SQLite"
        },
        n = runs.len(),
    );
    took
}

/// A fresh place for one round: a file, or a database.
fn fresh(kind: &str, dir: &Path, n: u32, admin: Option<&str>) -> String {
    match (kind, admin) {
        ("postgres", Some(admin)) => {
            database(admin, &format!("bench_team_{}_{n}", std::process::id()))
        }
        _ => dir.join(format!("team-{n}.db")).display().to_string(),
    }
}

fn concurrency(c: &mut Criterion, dir: &Path, admin: Option<&str>) {
    let mut g = c.benchmark_group("team store: 8 processes × 50 ten-step runs");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(1));
    g.measurement_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(u64::from(
        PROCESSES * RUNS_EACH * STEPS,
    )));
    for kind in ["sqlite", "postgres"] {
        if kind == "postgres" && admin.is_none() {
            continue;
        }
        let mut n = 0;
        g.bench_function(format!("{kind}: steps recorded"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    n += 1;
                    let place = fresh(kind, dir, n, admin);
                    drop(Store::open(&place).unwrap_or_else(|e| die(e)));
                    total += round(&place);
                }
                total
            })
        });
    }
    g.finish();
}

/// 100,000 runs of ten citations, their index beside them, in `store` (fresh).
fn generate(store: &str) {
    const RUNS: u32 = 100_000;
    drop(Store::open(store).unwrap_or_else(|e| die(e)));
    if store.starts_with("postgres") {
        let mut c = postgres::Client::connect(store, postgres::NoTls).unwrap_or_else(|e| die(e));
        c.batch_execute(&format!(
            "INSERT INTO runs (started_at, goal, provider, model, outcome, run_uid)
               SELECT timestamptz '2026-01-01' + make_interval(secs => i),
                      format('research topic %s about crate %s and its release %s', i, i % 997, i % 31),
                      'anthropic', 'claude-sonnet-4-5', 'passed', md5(i::text)
               FROM generate_series(1, {RUNS}) AS i;
             INSERT INTO citations (run_id, step, url, title, cited_text)
               SELECT 1 + i / 10, 1, format('https://docs.example/%s/%s', i % 5003, i),
                      format('Page %s of crate %s', i, i % 997),
                      format('the quoted passage %s mentions version %s.%s and feature %s', i, i % 7, i % 13, i % 101)
               FROM generate_series(0, {RUNS} * 10 - 1) AS i;
             INSERT INTO search_index (kind, run_id, step, url, body)
               SELECT kind, run_id, step, url, body FROM (
                 SELECT 'goal' AS kind, run_id, 0 AS step, NULL AS url, goal AS body, 0 AS k, 0::bigint AS id FROM runs
                 UNION ALL
                 SELECT 'citation', run_id, step, url, url || ' ' || title || ' ' || cited_text, 3, id FROM citations
               ) AS rows ORDER BY run_id, k, id;"
        ))
        .unwrap_or_else(|e| die(e));
        // On its own: VACUUM cannot run inside the one transaction a batch is.
        c.batch_execute("VACUUM ANALYZE").unwrap_or_else(|e| die(e));
    } else {
        let conn = rusqlite::Connection::open(store).unwrap_or_else(|e| die(e));
        conn.execute_batch(&format!(
            "BEGIN;
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {RUNS})
             INSERT INTO runs (run_id, started_at, goal, provider, model, outcome, run_uid)
               SELECT i, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || i || ' seconds'),
                      printf('research topic %d about crate %d and its release %d', i, i % 997, i % 31),
                      'anthropic', 'claude-sonnet-4-5', 'passed', printf('%032d', i) FROM n;
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
        .unwrap_or_else(|e| die(e));
    }
}

fn at_scale(c: &mut Criterion, dir: &Path, admin: Option<&str>) {
    let mut places = vec![("sqlite", dir.join("big.db").display().to_string())];
    if let Some(admin) = admin {
        places.push((
            "postgres",
            database(admin, &format!("bench_big_{}", std::process::id())),
        ));
    }
    let prices = PriceTable::builtin();
    let mut g = c.benchmark_group("team store: 100,000 runs, 1,000,000 citations");
    g.sample_size(10);
    for (kind, place) in &places {
        let started = Instant::now();
        generate(place);
        println!(
            "  {kind}: generated in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        let store = Store::open(place).unwrap_or_else(|e| die(e));
        g.bench_function(format!("{kind}: runs (the newest 50)"), |b| {
            b.iter(|| black_box(store.priced_runs(Some(50), &prices).unwrap_or_default()))
        });
        g.bench_function(
            format!("{kind}: Sources opens (the newest 500, priced)"),
            |b| b.iter(|| black_box(store.priced_runs(Some(500), &prices).unwrap_or_default())),
        );
        let q = SearchQuery {
            text: "version".into(),
            limit: 20,
            run: None,
            rank: false,
        };
        g.bench_function(
            format!("{kind}: search, newest first: a word in 1 in 7 quotes"),
            |b| b.iter(|| black_box(store.search(&q).unwrap_or_default())),
        );
        if *kind == "postgres" {
            // The floor: the same query, bare, on a connection of its own.
            let mut bare =
                postgres::Client::connect(place, postgres::NoTls).unwrap_or_else(|e| die(e));
            let stmt = bare
                .prepare(
                    "SELECT run_id, step, kind, url, body FROM search_index
                     WHERE words @@ to_tsquery('simple', unaccent('unaccent'::regdictionary, $1))
                     ORDER BY id DESC LIMIT 20",
                )
                .unwrap_or_else(|e| die(e));
            g.bench_function("postgres: baseline: the same search, bare SQL", |b| {
                b.iter(|| black_box(bare.query(&stmt, &[&"('version')"]).unwrap_or_default()))
            });
        }
    }
    g.finish();
}

/// A SQLite store of `runs` runs, each of three steps (a call, three citations
/// and a verdict a step), as the loop records them.
fn source(path: &Path, runs: u32) {
    let store = Store::open(path).unwrap_or_else(|e| die(e));
    let call = ProviderCall {
        provider: Vendor::Anthropic,
        model: "claude-sonnet-4-5".into(),
        usage: Some(Usage::default()),
        stop_reason: "end_turn".into(),
        ..ProviderCall::default()
    };
    for r in 0..runs {
        let run = store
            .start_run(
                &NewRun {
                    goal: format!("copied run {r}"),
                    provider: Vendor::Anthropic,
                    model: "claude-sonnet-4-5".into(),
                    ..NewRun::default()
                },
                &checkpoint(0),
            )
            .unwrap_or_else(|e| die(e));
        for step in 1..=3 {
            let cites: Vec<Citation> = (0..3)
                .map(|i| Citation {
                    url: format!("https://docs.example/{r}/{step}/{i}"),
                    title: Some("a page".into()),
                    cited_text: Some("a quote".into()),
                })
                .collect();
            let record = StepRecord {
                step,
                attempt: 1,
                call: &call,
                server_tools: &[],
                citations: &cites,
                claims: &[],
                text: "an answer",
                observations: &[],
                exchange: None,
                search_suggestions: None,
            };
            let outcome = (step == 3).then_some(RunOutcome::Passed);
            store
                .record_step_whole(run, &record, &checkpoint(step), outcome.as_ref())
                .unwrap_or_else(|e| die(e));
        }
    }
}

fn copies(c: &mut Criterion, dir: &Path, admin: Option<&str>) {
    let ten_k = dir.join("copy-10k.db");
    let one_k = dir.join("copy-1k.db");
    source(&ten_k, 10_000);
    source(&one_k, 1_000);
    let mut n = 0u32;
    let mut target = |kind: &str| -> PathBuf {
        n += 1;
        PathBuf::from(fresh(kind, dir, 1000 + n, admin))
    };
    for kind in ["sqlite", "postgres"] {
        if kind == "postgres" && admin.is_none() {
            continue;
        }
        let to = Store::open(target(kind)).unwrap_or_else(|e| die(e));
        let from = Store::open(&ten_k).unwrap_or_else(|e| die(e));
        let started = Instant::now();
        let sum = from.copy_into(&to, |_, _| {}).unwrap_or_else(|e| die(e));
        println!(
            "  store copy of 10,000 runs, SQLite into {kind}: {:.1} s ({} runs, {} steps, {} citations copied)",
            started.elapsed().as_secs_f64(),
            sum.runs,
            sum.steps,
            sum.citations
        );
    }
    let mut g = c.benchmark_group("team store: store copy of 1,000 runs");
    g.sample_size(10);
    g.throughput(Throughput::Elements(1_000));
    for kind in ["sqlite", "postgres"] {
        if kind == "postgres" && admin.is_none() {
            continue;
        }
        g.bench_function(format!("SQLite into {kind}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let to = Store::open(target(kind)).unwrap_or_else(|e| die(e));
                    let from = Store::open(&one_k).unwrap_or_else(|e| die(e));
                    let started = Instant::now();
                    black_box(from.copy_into(&to, |_, _| {}).unwrap_or_else(|e| die(e)));
                    total += started.elapsed();
                }
                total
            })
        });
    }
    g.finish();
}

fn main() {
    if let (Ok(me), Ok(store)) = (
        std::env::var("IO_HARNESS_BENCH_WORKER"),
        std::env::var("IO_HARNESS_BENCH_STORE"),
    ) {
        worker(&store, me.parse().unwrap_or(0));
        return;
    }
    let admin = server();
    if admin.is_none() {
        eprintln!(
            "IO_HARNESS_TEST_PG is not set: the PostgreSQL half does NOT run \
             (eval \"$(scripts/pg-test-server start)\" first)"
        );
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| die(e));
    let mut c = Criterion::default().configure_from_args();
    // IO_HARNESS_BENCH_PARTS=team,copy,scale (all unless set) picks the parts.
    let parts = std::env::var("IO_HARNESS_BENCH_PARTS").unwrap_or_default();
    let part = |p: &str| parts.is_empty() || parts.split(',').any(|x| x.trim() == p);
    if part("team") {
        concurrency(&mut c, dir.path(), admin.as_deref());
    }
    if part("copy") {
        copies(&mut c, dir.path(), admin.as_deref());
    }
    if part("scale") {
        at_scale(&mut c, dir.path(), admin.as_deref());
    }
    c.final_summary();
}
