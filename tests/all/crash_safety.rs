//! Crash safety of the real binary: `run --json` is killed with SIGKILL inside each
//! step's request and at each step's boundaries (as its answer arrives, as its
//! observations are recorded), shown as `interrupted` by `runs`, then resumed with
//! `--resume`. After every kill and every resume the store passes
//! `PRAGMA integrity_check`; after the resume each step has exactly one step row and
//! one accounting row (a re-sent step's row marked as its second sending), the
//! server-tool and citation rows are exactly the script's, and the run `passed`.
//!
//! Two resumes of one interrupted run started together: exactly one proceeds, the
//! other is refused before any request, naming the process that holds the run.
//!
//! Every scripted answer is delayed, so a kill "inside a request" lands while the
//! request is in flight. The resume talks to a second stub holding the answers for
//! the steps the first process did not commit.

// The binary is built with every default feature, and these tests run it.
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
use std::process::{Command, Stdio};

use io_harness::core::vendor::Vendor;
use io_harness::stub::{Script, ScriptedResponse, StubHandle, StubVendor};
use pretty_assertions::assert_eq;

/// How long the stub holds each answer in the killed run.
const DELAY_MS: u64 = 300;

const STEP1: &str = r#"{"type":"message","model":"m","content":[
 {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"io-harness release"}},
 {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://crates.io/crates/io-harness","title":"io-harness","encrypted_content":"x"}]},
 {"type":"text","text":"0.22.0","citations":[{"type":"web_search_result_location","url":"https://crates.io/crates/io-harness","title":"io-harness","cited_text":"0.22.0","encrypted_index":"i"}]},
 {"type":"tool_use","id":"toolu_1","name":"list_dir","input":{"path":"."}}],
 "stop_reason":"tool_use","usage":{"input_tokens":100,"output_tokens":20,"server_tool_use":{"web_search_requests":1}}}"#;
const STEP2: &str = r#"{"type":"message","model":"m","content":[{"type":"tool_use","id":"toolu_2","name":"write_file","input":{"path":"notes.md","content":"release 0.22.0"}}],"stop_reason":"tool_use","usage":{"input_tokens":120,"output_tokens":10}}"#;
const STEP3: &str = r#"{"type":"message","model":"m","content":[{"type":"text","text":"Written."}],"stop_reason":"end_turn","usage":{"input_tokens":130,"output_tokens":3}}"#;
const STEPS: [&str; 3] = [STEP1, STEP2, STEP3];

/// Where in a step the process is killed: the event seen just before the kill.
#[derive(Debug, Clone, Copy)]
enum Point {
    /// `request_sent`: the step's request is in flight.
    InRequest,
    /// `provider_called`: the answer arrived; its rows may not be written yet.
    Answered,
    /// `observation`: the step's tools ran; its rows are being committed.
    Observed,
}

impl Point {
    fn event(self) -> &'static str {
        match self {
            Point::InRequest => "request_sent",
            Point::Answered => "provider_called",
            Point::Observed => "observation",
        }
    }
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_io-harness"));
    c.env_remove("ANTHROPIC_API_KEY")
        .env_remove("RUST_LOG")
        .env("IO_HARNESS_CRASH_TEST_KEY", "sk-test-SECRET")
        // Never the real user config directory.
        .env(io_harness::USER_CONFIG_ENV, "");
    c
}

async fn stub(bodies: &[&str], delay_ms: Option<u64>) -> StubHandle {
    let responses = bodies
        .iter()
        .map(|b| ScriptedResponse {
            body: b.as_bytes().to_vec(),
            delay_ms,
            ..ScriptedResponse::default()
        })
        .collect();
    let script = Script {
        responses,
        repeat: false,
        emulate_usage: false,
    };
    StubVendor::start("127.0.0.1:0".parse().unwrap(), script)
        .await
        .unwrap()
}

fn config(dir: &Path, name: &str, stub: &StubHandle) -> std::path::PathBuf {
    let cfg = dir.join(name);
    std::fs::write(
        &cfg,
        format!(
            "[providers.anthropic]\nbase_url = \"{}\"\napi_key_env = \"IO_HARNESS_CRASH_TEST_KEY\"\n[task]\ngoal = \"write the release to notes.md\"\nworkspace = \"{}\"\nverify_file = \"notes.md\"\nverify_contains = \"0.22.0\"\n",
            stub.base_url(Vendor::Anthropic),
            dir.join("ws").display()
        ),
    )
    .unwrap();
    cfg
}

fn integrity(db: &Path) -> String {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

fn query(db: &Path, sql: &str) -> Vec<(i64, i64)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Start `run --json`, send it `signal` once it reports `point` in `step`;
/// the run's id.
fn run_and_kill(cfg: &Path, db: &Path, step: u32, point: Point, signal: &str) -> i64 {
    let mut child = bin()
        .args(["run", "--json", "--approve-all", "--config"])
        .arg(cfg)
        .arg("--store")
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (mut run_id, mut killed) = (None, false);
    for line in lines {
        let event: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        run_id = event["run_id"].as_i64();
        if event["kind"]["event"] == point.event() && event["step"] == step {
            let sent = Command::new("kill")
                .args(["-s", signal, &child.id().to_string()])
                .status()
                .unwrap();
            assert!(sent.success());
            killed = true;
            break;
        }
        if event["kind"]["event"] == "finished" {
            break;
        }
    }
    let status = child.wait().unwrap();
    assert!(
        killed,
        "{point:?} {step}: the run ended ({status}) without reporting it (run {run_id:?})"
    );
    run_id.unwrap()
}

fn outcome_listed(cfg: &Path, db: &Path, run_id: i64) -> String {
    let out = bin()
        .args(["runs", "--json", "--config"])
        .arg(cfg)
        .arg("--store")
        .arg(db)
        .output()
        .unwrap();
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["run_id"] == run_id)
        .unwrap();
    row["outcome"].as_str().unwrap_or("null").to_string()
}

async fn kill_then_resume(step: u32, point: Point) {
    signal_then_resume(step, point, "KILL").await;
}

async fn signal_then_resume(step: u32, point: Point, signal: &'static str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("ws")).unwrap();
    let db = dir.path().join("runs.db");
    let first = stub(&STEPS, Some(DELAY_MS)).await;
    let cfg = config(dir.path(), "first.toml", &first);
    let case = format!("SIG{signal} {point:?} in step {step}");
    let run_id = {
        let (cfg, db) = (cfg.clone(), db.clone());
        tokio::task::spawn_blocking(move || run_and_kill(&cfg, &db, step, point, signal))
            .await
            .unwrap()
    };
    assert_eq!(integrity(&db), "ok", "{case}: after the kill");
    let (committed, sent) = query(&db, "SELECT step, sent FROM checkpoints")
        .first()
        .copied()
        .unwrap();
    if outcome_listed(&cfg, &db, run_id) == "passed" {
        // The kill landed after the last step was recorded: nothing to resume.
        assert_eq!(committed, 3, "{case}");
        eprintln!("{case}: the run had finished before the kill landed");
        check_rows(&db, &[1, 1, 1], &case);
        return;
    }
    assert_eq!(outcome_listed(&cfg, &db, run_id), "interrupted", "{case}");
    assert!(committed < 3, "{case}: the run had not finished");
    if let Point::InRequest = point {
        assert_eq!((committed, sent), (step as i64 - 1, 1), "{case}");
    }

    let rest: Vec<&str> = STEPS[committed as usize..].to_vec();
    let second = stub(&rest, None).await;
    let cfg2 = config(dir.path(), "second.toml", &second);
    let out = {
        let (cfg2, db) = (cfg2.clone(), db.clone());
        tokio::task::spawn_blocking(move || {
            bin()
                .args(["run", "--json", "--approve-all", "--resume"])
                .arg(run_id.to_string())
                .arg("--config")
                .arg(&cfg2)
                .arg("--store")
                .arg(&db)
                .output()
                .unwrap()
        })
        .await
        .unwrap()
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{case}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"]["outcome"]["outcome"], "passed", "{case}");
    assert_eq!(integrity(&db), "ok", "{case}: after the resume");
    assert_eq!(outcome_listed(&cfg, &db, run_id), "passed", "{case}");

    // The step the killed process had counted as sent but not recorded is marked
    // as sent once more; every other step was sent once.
    let attempts: Vec<i64> = (1..=3)
        .map(|s| if s == committed + 1 { sent + 1 } else { 1 })
        .collect();
    check_rows(&db, &attempts, &case);
    let notes = std::fs::read_to_string(dir.path().join("ws/notes.md")).unwrap();
    assert_eq!(notes, "release 0.22.0");
}

/// One step row and one accounting row per step (with the given attempt), the
/// script's one server-tool row and one citation, nothing more.
fn check_rows(db: &Path, attempts: &[i64], case: &str) {
    let steps = query(db, "SELECT step, 0 FROM steps ORDER BY step");
    assert_eq!(steps, vec![(1, 0), (2, 0), (3, 0)], "{case}");
    let calls = query(
        db,
        "SELECT step, step_attempt FROM provider_calls ORDER BY step, id",
    );
    let expected: Vec<(i64, i64)> = (1..=3).zip(attempts.iter().copied()).collect();
    assert_eq!(calls, expected, "{case}");
    let server = query(db, "SELECT step, error IS NULL FROM server_tool_calls");
    assert_eq!(server, vec![(1, 1)], "{case}");
    let cites = query(db, "SELECT step, COUNT(*) FROM citations GROUP BY step");
    assert_eq!(cites, vec![(1, 1)], "{case}");
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_inside_each_request_the_run_resumes_to_a_pass() {
    for step in 1..=3 {
        kill_then_resume(step, Point::InRequest).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_at_each_step_boundary_the_run_resumes_to_a_pass() {
    for step in 1..=3 {
        kill_then_resume(step, Point::Answered).await;
    }
    for step in 1..=2 {
        kill_then_resume(step, Point::Observed).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn terminated_inside_a_request_the_run_reads_interrupted_and_resumes() {
    signal_then_resume(2, Point::InRequest, "TERM").await;
}

/// `run --resume RUN` on `cfg`, spawned (not waited for).
fn resume(cfg: &Path, db: &Path, run_id: i64) -> std::process::Child {
    bin()
        .args(["run", "--json", "--approve-all", "--resume"])
        .arg(run_id.to_string())
        .arg("--config")
        .arg(cfg)
        .arg("--store")
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Two `run --resume` of one interrupted run started together: exactly one
/// proceeds; the other is refused before any request, naming the process (pid and
/// host) that holds the run. Three rounds: the race was lost in two of three.
#[tokio::test(flavor = "multi_thread")]
async fn two_resumes_of_one_run_at_once_exactly_one_proceeds() {
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    for round in 1..=3 {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("ws")).unwrap();
        let db = dir.path().join("runs.db");
        let first = stub(&STEPS, Some(DELAY_MS)).await;
        let cfg = config(dir.path(), "first.toml", &first);
        let run_id = {
            let (cfg, db) = (cfg.clone(), db.clone());
            tokio::task::spawn_blocking(move || {
                run_and_kill(&cfg, &db, 2, Point::InRequest, "KILL")
            })
            .await
            .unwrap()
        };
        // Each resume has its own stub holding steps 2 and 3, so a second one that
        // proceeded would pass too (as it did) rather than fail for want of answers.
        let (a, b) = (
            stub(&STEPS[1..], Some(DELAY_MS)).await,
            stub(&STEPS[1..], Some(DELAY_MS)).await,
        );
        let (cfg_a, cfg_b) = (
            config(dir.path(), "a.toml", &a),
            config(dir.path(), "b.toml", &b),
        );
        let outs = {
            let db = db.clone();
            tokio::task::spawn_blocking(move || {
                let children = [resume(&cfg_a, &db, run_id), resume(&cfg_b, &db, run_id)];
                children.map(|c| {
                    let pid = c.id();
                    (pid, c.wait_with_output().unwrap())
                })
            })
            .await
            .unwrap()
        };
        let case = format!("round {round}");
        let codes: Vec<Option<i32>> = outs.iter().map(|(_, o)| o.status.code()).collect();
        let winner = codes.iter().position(|c| *c == Some(0));
        let loser = codes.iter().position(|c| *c == Some(2));
        let show = || {
            outs.iter()
                .map(|(_, o)| {
                    format!(
                        "{}{}",
                        String::from_utf8_lossy(&o.stdout),
                        String::from_utf8_lossy(&o.stderr)
                    )
                })
                .collect::<Vec<_>>()
                .join("\n---\n")
        };
        let (Some(w), Some(l)) = (winner, loser) else {
            panic!(
                "{case}: exit codes {codes:?}, not one 0 and one 2:\n{}",
                show()
            );
        };
        let err = String::from_utf8_lossy(&outs[l].1.stderr);
        let holder = outs[w].0;
        assert!(
            err.contains(&format!(
                "run {run_id} is being run by process {holder} on {host}"
            )),
            "{case}: {err}"
        );
        assert!(err.contains("nothing was sent"), "{case}: {err}");
        let stubs = [&a, &b];
        assert_eq!(
            stubs[l].requests().len(),
            0,
            "{case}: the refused resume sent a request"
        );
        assert_eq!(stubs[w].requests().len(), 2, "{case}");
        assert_eq!(outcome_listed(&cfg, &db, run_id), "passed", "{case}");
        check_rows(&db, &[1, 2, 1], &case);
    }
}
