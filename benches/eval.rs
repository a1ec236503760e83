//! What an eval's scheduling costs over perfect packing: 100 questions × 3
//! vendors on the loopback stub, each answer after a per-request delay
//! (Anthropic 30 ms, OpenAI 20 ms, OpenRouter 25 ms), each run in its own
//! workspace copy with its rows in SQLite, at most 4 runs at once across
//! questions (`Launch::eval`, as `io-harness eval --jobs 4` runs it); then the
//! same at `--jobs 8` with a judge (Gemini, 15 ms) grading every answer, its
//! judging runs under the same gate (`eval --judge gemini`). Target: the eval's
//! wall time ≤ 1.2 × (the sum of its runs' wall times, judging included ÷ the
//! jobs), printed as `packing` before criterion's figures.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use io_harness::core::eval::{JudgeSpec, Question};
use io_harness::launch::{EvalCall, Quiet};
use io_harness::run::group::Copies;
use io_harness::store::NewEval;
use io_harness::stub::{Script, ScriptedResponse, StubVendor};
use io_harness::{ApproveAll, Config, Launch, Store, Vendor};
use tokio_util::sync::CancellationToken;

const ANTHROPIC: &str = r#"{"type":"message","model":"m","content":[{"type":"text","text":"It is 42."}],"stop_reason":"end_turn","usage":{"input_tokens":120,"output_tokens":4}}"#;
const CHAT: &str = r#"{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"It is 42."},"finish_reason":"stop"}],"usage":{"prompt_tokens":120,"completion_tokens":4,"total_tokens":124}}"#;

const GRADE: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"It matches.\nGRADE: CORRECT"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":300,"candidatesTokenCount":8,"totalTokenCount":308},"modelVersion":"m"}"#;

const VENDORS: [(Vendor, u64); 3] = [
    (Vendor::Anthropic, 30),
    (Vendor::OpenAi, 20),
    (Vendor::OpenRouter, 25),
];
const QUESTIONS: usize = 100;
const JOBS: u32 = 4;

fn p<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn eval(c: &mut Criterion) {
    let rt = p(tokio::runtime::Runtime::new());
    let dir = p(tempfile::tempdir());
    let ws = dir.path().join("ws");
    p(std::fs::create_dir(&ws));
    p(std::fs::write(ws.join("notes.md"), "x".repeat(2_000)));
    let config = dir.path().join("io.toml");
    p(std::fs::write(
        &config,
        format!("[task]\nworkspace = {:?}\n", ws.display().to_string()),
    ));
    let mut responses: Vec<ScriptedResponse> = VENDORS
        .iter()
        .map(|&(vendor, delay)| ScriptedResponse {
            vendor: Some(vendor),
            body: match vendor {
                Vendor::Anthropic => ANTHROPIC,
                _ => CHAT,
            }
            .as_bytes()
            .to_vec(),
            delay_ms: Some(delay),
            ..ScriptedResponse::default()
        })
        .collect();
    responses.push(ScriptedResponse {
        vendor: Some(Vendor::Gemini),
        body: GRADE.as_bytes().to_vec(),
        delay_ms: Some(15),
        ..ScriptedResponse::default()
    });
    let script = Script {
        responses,
        repeat: true,
        emulate_usage: false,
    };
    let loaded = p(Config::discover(Some(&config)));
    let mut launch = Launch::resolve(&loaded, true);
    launch.serve_with(p(
        rt.block_on(StubVendor::start(p("127.0.0.1:0".parse()), script))
    ));
    let store_path = dir.path().join("data/runs.db");
    let store = p(Store::open(&store_path));
    let copies = Copies::beside(&store_path);
    let vendors: Vec<Vendor> = VENDORS.iter().map(|v| v.0).collect();
    let questions: Vec<Question> = (0..QUESTIONS)
        .map(|i| Question {
            id: format!("q{i}"),
            question: format!("Question {i}: what is it?"),
            answers: vec!["42".into()],
            urls: Vec::new(),
            ..Question::default()
        })
        .collect();
    // One eval, start to end: its wall time, and the sum of its runs' (its
    // judgings' included).
    let once = |jobs: u32, judge: Option<JudgeSpec>| {
        let judged = judge.is_some();
        let id = p(store.create_eval(&NewEval {
            file: "bench".into(),
            vendors: vendors.to_vec(),
            jobs,
            questions: questions.clone(),
            judge,
            ..NewEval::default()
        }));
        let call = EvalCall {
            store: &store,
            copies: &copies,
            approver: &ApproveAll,
            cancel: CancellationToken::new(),
            progress: &Quiet,
        };
        let start = Instant::now();
        p(rt.block_on(launch.eval(id, &vendors, jobs, None, call)));
        let took = start.elapsed().as_secs_f64();
        let prices = &launch.plan().prices;
        let records = p(store.eval_questions(id, prices));
        let runs: Vec<u64> = records
            .iter()
            .flat_map(|q| q.runs.iter().chain(q.judgings.iter().flat_map(|j| &j.runs)))
            .map(|r| r.figures.wall_ms.unwrap_or(0))
            .collect();
        let per_question = VENDORS.len() * if judged { 2 } else { 1 };
        assert_eq!(runs.len(), QUESTIONS * per_question);
        let sum = runs.iter().sum::<u64>() as f64 / 1000.0;
        (took, sum)
    };
    let judge = || {
        Some(JudgeSpec {
            vendor: Vendor::Gemini,
            model: None,
        })
    };
    for (jobs, judge) in [(JOBS, None), (8, judge())] {
        let (took, sum) = once(jobs, judge.clone());
        let packed = sum / f64::from(jobs);
        println!(
            "packing (--jobs {jobs}{}): the eval took {took:.2} s; its runs' wall times sum to {sum:.2} s, ÷ {jobs} = {packed:.2} s; ratio {:.2} (target ≤ 1.20)",
            if judge.is_some() { ", judged" } else { "" },
            took / packed
        );
    }
    let mut g = c.benchmark_group("eval");
    g.sample_size(10);
    g.bench_function(
        format!("{QUESTIONS} questions × 3 vendors, --jobs {JOBS}"),
        |b| b.iter(|| black_box(once(JOBS, None))),
    );
    g.bench_function(
        format!("{QUESTIONS} questions × 3 vendors judged, --jobs 8"),
        |b| b.iter(|| black_box(once(8, judge()))),
    );
    g.finish();
}

criterion_group!(benches, eval);
criterion_main!(benches);
