//! The paths operators walk, generated (issue 33): each case draws a wire (every
//! one the project speaks), whether it streams, what the vendor does (answer,
//! an HTTP error, a declaration it must refuse) and what happens to the run
//! (nothing, killed after its first answer and resumed, cancelled, replayed on
//! another wire) — runs it with the real binary on the built-in stub (or on a
//! loopback stub answering errors), and checks what must hold on every path:
//!
//! - a run keeps its vendor, wire and model, resumed or not: every request of
//!   it was sent to its vendor and recorded as its vendor's;
//! - `runs --json`, `compare --json`, `claims --json` and the console's Run
//!   pane give the same figures for the same run;
//! - every total is the sum of its parts: a run's tokens and cost are the sum
//!   of its requests' (`run --json`'s `provider_called` events);
//! - a refusal sends nothing and records nothing; a step is recorded once.
//!
//! The cases are drawn from a seed, printed first; `IO_HARNESS_PATHS_SEED=N`
//! reruns the cases of seed N, `IO_HARNESS_PATHS_CASES=N` draws N of them
//! (default 12, about a minute and a half on two cores).

#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;

use io_harness::core::capability::CAPABILITIES;
use io_harness::core::refusal::Feature;
use io_harness::stub::{Script, ScriptedResponse, StubVendor};
use io_harness::{Vendor, Wire};
use serde_json::Value;

use crate::common::cli::{at, run};

/// What happens to a run after it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Interruption {
    None,
    /// SIGKILL after its first answer, then `run --resume`.
    KillThenResume,
    /// SIGINT after its first answer: it ends cancelled.
    Cancel,
    /// Once it has finished, `run --replay` on another vendor.
    Replay,
}

/// What the vendor does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Vendoring {
    /// The demo's answers.
    Answer,
    /// HTTP 500 to every request.
    Error,
    /// A declaration the wire cannot carry (or, on a wire that carries every
    /// feature, one it can: the run must then go through).
    Refusal,
}

#[derive(Debug, Clone, Copy)]
struct Case {
    wire: Wire,
    stream: bool,
    vendoring: Vendoring,
    interruption: Interruption,
}

/// The seed (`IO_HARNESS_PATHS_SEED`, else the clock) and how many cases to
/// draw (`cases_var`, else `default`).
pub(crate) fn seed_and_cases(cases_var: &str, default: usize) -> (u64, usize) {
    let seed: u64 = std::env::var("IO_HARNESS_PATHS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    let cases = std::env::var(cases_var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    (seed, cases)
}

/// splitmix64: a small, stable generator, so a seed names its cases forever.
pub(crate) struct Draw(pub(crate) u64);

impl Draw {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub(crate) fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[(self.next() % from.len() as u64) as usize]
    }

    fn case(&mut self) -> Case {
        let vendoring = self.pick(&[
            Vendoring::Answer,
            Vendoring::Answer,
            Vendoring::Error,
            Vendoring::Refusal,
        ]);
        let interruption = match vendoring {
            Vendoring::Answer => self.pick(&[
                Interruption::None,
                Interruption::KillThenResume,
                Interruption::KillThenResume,
                Interruption::Cancel,
                Interruption::Replay,
            ]),
            _ => Interruption::None,
        };
        Case {
            wire: self.pick(&Wire::ALL),
            stream: self.next() % 2 == 0,
            vendoring,
            interruption,
        }
    }
}

/// io.toml for the case: the wire chosen, streaming or not, a search; for a
/// refusal, the first feature the wire cannot carry (`None` when it carries all).
fn io_toml(case: &Case, base_url: Option<&str>) -> (String, Option<Feature>) {
    let v = case.wire.vendor();
    let mut t = format!(
        "provider = \"{v}\"\n\n[providers.{v}]\n{}\nstream = {}\n",
        case.wire.choice(),
        case.stream
    );
    if let Some(url) = base_url {
        t.push_str(&format!("base_url = \"{url}\"\napi_key_env = \"IO_HARNESS_PATHS_KEY\"\nrequest_timeout_secs = 5\n"));
    }
    t.push_str("\n[task]\ngoal = \"Find the current io-harness release on crates.io and say which version it is.\"\n");
    let mut refused = None;
    t.push_str("\n[web]\nsearch = true\n");
    if case.vendoring == Vendoring::Refusal {
        let row = CAPABILITIES.iter().find(|r| r.wire == case.wire).unwrap();
        refused = [Feature::Fetch, Feature::BlockList, Feature::AllowList]
            .into_iter()
            .find(|f| row.reason(*f).is_some());
        match refused {
            Some(Feature::Fetch) => t.push_str("fetch = true\n"),
            Some(Feature::BlockList) => t.push_str("blocked_domains = [\"evil.test\"]\n"),
            Some(_) => t.push_str("allowed_domains = [\"docs.rs\"]\n"),
            None => t.push_str("fetch = true\n"),
        }
    }
    (t, refused)
}

fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

fn kind(e: &Value) -> &str {
    e["kind"]["event"].as_str().unwrap_or("")
}

/// `run --json` spawned, read until its first answer, then signalled.
fn interrupted(dir: &Path, demo: bool, signal: &str) -> (Vec<Value>, i32) {
    let mut cmd = at(dir);
    cmd.args(["run", "--json", "--approve-all"]);
    if demo {
        cmd.arg("--demo");
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut signalled = false;
    for line in BufReader::new(out).lines() {
        let line = line.unwrap();
        if let Ok(v) = serde_json::from_str::<Value>(&line) {
            let answered = kind(&v) == "provider_called";
            seen.push(v);
            if answered && !signalled {
                std::process::Command::new("kill")
                    .args([&format!("-{signal}"), &child.id().to_string()])
                    .status()
                    .unwrap();
                signalled = true;
            }
        }
    }
    let status = child.wait().unwrap();
    (seen, status.code().unwrap_or(-1))
}

/// The events of run `id` from the last process that ran it (a resume starts
/// with its own `run_started`): what the console shows of it then.
fn last_process(sent: &[Value], id: i64) -> Vec<&Value> {
    let mine: Vec<&Value> = sent.iter().filter(|e| e["run_id"] == id).collect();
    let from = mine
        .iter()
        .rposition(|e| kind(e) == "run_started")
        .unwrap_or(0);
    mine[from..].to_vec()
}

fn json(dir: &Path, args: &[&str]) -> Value {
    let (code, out, err) = run(at(dir).args(args));
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// What must hold of every recorded run: its rows are its vendor's; its
/// figures are the same in `runs`, `claims` and the console's Run pane; its
/// totals are its requests' sums; each step once.
fn check_run(dir: &Path, run: &Value, vendor: Vendor, sent: &[Value], case: &Case) {
    let id = run["run_id"].as_i64().unwrap();
    assert_eq!(run["provider"], vendor.as_str(), "{case:?}");
    let conn = rusqlite::Connection::open(dir.join("data/runs.db")).unwrap();
    let vendors: Vec<String> = conn
        .prepare("SELECT DISTINCT provider FROM provider_calls WHERE run_id = ?1")
        .unwrap()
        .query_map([id], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(
        vendors.iter().all(|v| v == vendor.as_str()),
        "{case:?}: {vendors:?}"
    );
    let plan: Option<String> = conn
        .query_row("SELECT plan_json FROM runs WHERE run_id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap();
    let plan: Value = serde_json::from_str(&plan.unwrap()).unwrap();
    assert_eq!(plan["endpoint"]["vendor"], vendor.as_str(), "{case:?}");
    let steps: Vec<(i64, i64)> = conn
        .prepare("SELECT step, COUNT(*) FROM steps WHERE run_id = ?1 GROUP BY step")
        .unwrap()
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(steps.iter().all(|(_, n)| *n == 1), "{case:?}: {steps:?}");
    // The totals are their parts: every request this run's events reported —
    // a step answered in a killed process and sent again on resume counts once,
    // as the answer recorded (the last).
    let mut by_step: std::collections::BTreeMap<u64, &Value> = std::collections::BTreeMap::new();
    for e in sent
        .iter()
        .filter(|e| e["run_id"] == id && kind(e) == "provider_called")
    {
        by_step.insert(e["step"].as_u64().unwrap(), e);
    }
    let calls: Vec<&Value> = by_step.into_values().collect();
    let sum = |f: &dyn Fn(&Value) -> u64| calls.iter().map(|c| f(&c["kind"])).sum::<u64>();
    assert_eq!(
        run["requests"].as_u64().unwrap(),
        calls.len() as u64,
        "{case:?}"
    );
    assert_eq!(
        run["output_tokens"].as_u64().unwrap(),
        sum(&|k| k["usage"]["output_tokens"].as_u64().unwrap_or(0)),
        "{case:?}"
    );
    if let Some(cost) = run["cost_micro_usd"].as_u64() {
        assert_eq!(
            cost,
            sum(&|k| k["cost"]["total_micro_usd"].as_u64().unwrap_or(0)),
            "{case:?}"
        );
    }
    // `claims --json` reads the same claim figures.
    let claims = json(dir, &["claims", &id.to_string(), "--json"]);
    for f in ["cited_share", "verified_share", "unsupported"] {
        assert_eq!(claims[f], run[f], "{case:?}: {f}");
    }
    // The console's Run pane totals the same: live, fed the events of the
    // process that ran it to its end (a run never killed), and opened later
    // from the store.
    let resumed = sent
        .iter()
        .filter(|e| e["run_id"] == id && kind(e) == "run_started")
        .count()
        > 1;
    if !resumed {
        let mut live = crate::common::console::state();
        for e in last_process(sent, id) {
            let event: io_harness::Event = serde_json::from_value(e.clone()).unwrap();
            io_harness::console::testing::update(
                &mut live,
                io_harness::console::testing::Msg::Run(Box::new(event)),
            );
        }
        assert_eq!(
            live.run.calls.len() as u64,
            run["requests"].as_u64().unwrap(),
            "{case:?}"
        );
        if let Some(cost) = run["cost_micro_usd"].as_u64() {
            assert_eq!(live.run.total_cost(), Some(cost), "{case:?}: live");
        }
    }
    let store = io_harness::Store::open(dir.join("data/runs.db")).unwrap();
    let prices = io_harness::PriceTable::builtin();
    let opened =
        io_harness::console::testing::past_run(&store, io_harness::RunId(id), &prices).unwrap();
    let mut past = crate::common::console::state();
    io_harness::console::testing::update(&mut past, opened);
    assert_eq!(
        past.run.calls.len() as u64,
        run["requests"].as_u64().unwrap(),
        "{case:?}"
    );
    if let Some(cost) = run["cost_micro_usd"].as_u64() {
        assert_eq!(
            past.run.total_cost(),
            Some(cost),
            "{case:?}: opened from the store"
        );
    }
}

async fn walk(case: Case) {
    let dir = tempfile::tempdir().unwrap();
    let vendor = case.wire.vendor();
    // A vendor error: a loopback stub answering 500 to everything.
    let failing = match case.vendoring {
        Vendoring::Error => {
            let body = br#"{"error":{"type":"api_error","message":"scripted failure"}}"#;
            let script = Script {
                responses: vec![ScriptedResponse {
                    status: 500,
                    body: body.to_vec(),
                    ..ScriptedResponse::default()
                }],
                repeat: true,
                emulate_usage: false,
            };
            Some(
                StubVendor::start("127.0.0.1:0".parse().unwrap(), script)
                    .await
                    .unwrap(),
            )
        }
        _ => None,
    };
    let base = failing.as_ref().map(|s| s.base_url(vendor));
    let (toml, refused) = io_toml(&case, base.as_deref());
    std::fs::write(dir.path().join("io.toml"), toml).unwrap();
    let demo = failing.is_none();
    let mut args = vec!["run", "--json", "--approve-all"];
    if demo {
        args.push("--demo");
    }
    let mut sent = Vec::new();
    match (case.vendoring, case.interruption, refused) {
        (Vendoring::Refusal, _, Some(_)) => {
            let (code, out, err) = run(at(dir.path()).args(&args));
            assert_eq!(code, 2, "{case:?}: {err}");
            assert!(
                out.is_empty(),
                "{case:?}: a refusal prints nothing on stdout"
            );
            assert!(err.contains("No request was sent."), "{case:?}: {err}");
            let runs = json(dir.path(), &["runs", "--json"]);
            assert_eq!(runs, serde_json::json!([]), "{case:?}: nothing recorded");
            return;
        }
        (Vendoring::Error, _, _) => {
            let (code, out, _) = run(at(dir.path()).args(&args).env("IO_HARNESS_PATHS_KEY", "k"));
            assert_eq!(code, 1, "{case:?}");
            sent = events(&out);
        }
        (_, Interruption::KillThenResume, _) => {
            let (seen, _) = interrupted(dir.path(), demo, "KILL");
            sent.extend(seen);
            let id = sent.first().map(|e| e["run_id"].as_i64().unwrap()).unwrap();
            let runs = json(dir.path(), &["runs", "--json"]);
            // Killed after its first answer: unless it had already finished.
            if runs[0]["outcome"] != "passed" {
                let (code, out, err) = run(at(dir.path()).args([
                    "run",
                    "--resume",
                    &id.to_string(),
                    "--json",
                    "--approve-all",
                    "--demo",
                ]));
                assert_eq!(code, 0, "{case:?}: {err}");
                let resumed = events(&out);
                assert_eq!(resumed[0]["kind"]["provider"], vendor.as_str(), "{case:?}");
                sent.extend(resumed);
            }
        }
        (_, Interruption::Cancel, _) => {
            let (seen, code) = interrupted(dir.path(), demo, "INT");
            assert!(code == 1 || code == 0, "{case:?}: {code}");
            sent.extend(seen);
        }
        _ => {
            let (code, out, err) = run(at(dir.path()).args(&args));
            assert_eq!(code, 0, "{case:?}: {err}");
            sent.extend(events(&out));
        }
    }
    let runs = json(dir.path(), &["runs", "--json"]);
    let run = runs
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["parent_run_id"].is_null())
        .unwrap()
        .clone();
    check_run(dir.path(), &run, vendor, &sent, &case);
    if case.interruption == Interruption::Replay {
        // The next vendor along (the last's is the first), so replays land on
        // every vendor, not always on one.
        let at = Vendor::ALL.iter().position(|v| *v == vendor).unwrap();
        let other = Vendor::ALL[(at + 1) % Vendor::ALL.len()];
        let id = run["run_id"].as_i64().unwrap().to_string();
        let (code, out, err) = run_replay(dir.path(), &id, other);
        assert_eq!(code, 0, "{case:?}: {err}");
        let replayed = events(&out);
        let runs = json(dir.path(), &["runs", "--json"]);
        let copy = runs
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["run_id"] != run["run_id"])
            .unwrap()
            .clone();
        check_run(dir.path(), &copy, other, &replayed, &case);
        // The group's comparison reads each run's figures as `runs` does.
        let group = copy["group_id"].as_i64().unwrap().to_string();
        let compared = json(dir.path(), &["compare", &group, "--json"]);
        for column in compared["runs"].as_array().unwrap() {
            let listed = runs
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["run_id"] == column["run_id"])
                .unwrap();
            for f in [
                "requests",
                "input_tokens",
                "output_tokens",
                "searches",
                "failed_searches",
                "cost_micro_usd",
                "cited_share",
            ] {
                assert_eq!(column[f], listed[f], "{case:?}: compare's {f}");
            }
        }
    }
}

fn run_replay(dir: &Path, id: &str, other: Vendor) -> (i32, String, String) {
    run(at(dir).args([
        "run",
        "--replay",
        id,
        "--provider",
        other.as_str(),
        "--json",
        "--demo",
        "--approve-all",
    ]))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_path_tells_the_truth() {
    let (seed, cases) = seed_and_cases("IO_HARNESS_PATHS_CASES", 12);
    eprintln!("paths: seed {seed} (IO_HARNESS_PATHS_SEED={seed} reruns these {cases} cases)");
    let mut draw = Draw(seed);
    for n in 0..cases {
        let case = draw.case();
        eprintln!("paths: case {n}: {case:?}");
        walk(case).await;
    }
}

/// xAI's and Perplexity's wires (issue 37) on every path at least once, not left
/// to the draw: killed after the first answer (their demo answers in one step,
/// so the run has ended and is checked as recorded; a resume on each one's own
/// wire is `resume_plan::xai_and_perplexity_runs_resume_on_their_own_wire`),
/// cancelled, replayed (onto the next vendor, and Gemini's onto xAI), a vendor
/// error, a refusal (fetch on xAI and Sonar; the Agent API carries every
/// feature, so its run goes through), streamed and whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xai_and_perplexity_walk_every_path() {
    use Interruption::{Cancel, KillThenResume, Replay};
    use Vendoring::{Answer, Error, Refusal};
    let cases = [
        (Wire::Xai, true, Answer, KillThenResume),
        (Wire::PerplexityAgent, false, Answer, KillThenResume),
        (Wire::PerplexitySonar, true, Answer, KillThenResume),
        (Wire::Xai, false, Answer, Cancel),
        (Wire::PerplexitySonar, false, Answer, Cancel),
        (Wire::PerplexityAgent, true, Answer, Replay),
        (Wire::Gemini, false, Answer, Replay),
        (Wire::Xai, true, Error, Interruption::None),
        (Wire::PerplexitySonar, true, Error, Interruption::None),
        (Wire::Xai, false, Refusal, Interruption::None),
        (Wire::PerplexityAgent, true, Refusal, Interruption::None),
        (Wire::PerplexitySonar, false, Refusal, Interruption::None),
    ];
    for (wire, stream, vendoring, interruption) in cases {
        let case = Case {
            wire,
            stream,
            vendoring,
            interruption,
        };
        eprintln!("paths: {case:?}");
        walk(case).await;
    }
}
