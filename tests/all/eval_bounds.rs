//! `eval`'s bounds through the real binary (issue 34, items 8, 9, 10, 12): a
//! question file is read in bounded memory and refused, naming the line, when a
//! line, an id or a question is over its stated limit; what is not a regular
//! file (a FIFO, a directory, `/dev/zero`) is refused at once; a UTF-8 BOM is
//! accepted and a key given twice on one line is refused naming it; `--jobs`
//! and `--max-usd` say their limits.

#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::cli::{at, json, place, run};

/// `eval FILE --demo --providers anthropic` in `dir`: exit code, stdout, stderr.
fn eval_file(dir: &Path, file: &str, extra: &[&str]) -> (i32, String, String) {
    let mut c = at(dir);
    c.args(["eval", file, "--demo", "--providers", "anthropic"])
        .args(extra);
    run(&mut c)
}

/// `c` run to its end, or killed once `limit` has passed (a wait that never
/// ends is the defect): exit code (-1 when killed), stdout, stderr.
fn bounded(c: &mut Command, limit: Duration) -> (i32, String, String) {
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const Q1: &str =
    "{\"id\":\"q1\",\"question\":\"In which year was Rust 1.0 released?\",\"answers\":[\"2015\"]}";

#[test]
fn a_byte_order_mark_is_accepted_and_a_key_given_twice_is_refused() {
    let dir = place();
    std::fs::write(dir.path().join("bom.jsonl"), format!("\u{feff}{Q1}\n")).unwrap();
    let (code, out, err) = eval_file(dir.path(), "bom.jsonl", &["--json"]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["questions"][0]["id"], "q1");
    assert_eq!(report["questions"][0]["correct"], true);

    std::fs::write(
        dir.path().join("twice.jsonl"),
        format!("{Q1}\n{{\"id\":\"a\",\"question\":\"x?\",\"id\":\"b\"}}\n"),
    )
    .unwrap();
    let (code, out, err) = eval_file(dir.path(), "twice.jsonl", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("twice.jsonl:2: field `id` is given twice"),
        "{err}"
    );
    assert!(out.is_empty());
}

#[test]
fn ids_and_questions_over_their_limits_are_refused_naming_the_line() {
    let dir = place();
    let long_id = "i".repeat(65_536);
    std::fs::write(
        dir.path().join("id.jsonl"),
        format!("{Q1}\n{{\"id\":\"{long_id}\",\"question\":\"x?\"}}\n"),
    )
    .unwrap();
    let (code, _, err) = eval_file(dir.path(), "id.jsonl", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "id.jsonl:2: field `id` is 65536 characters long; an id is at most 200 characters"
        ),
        "{err}"
    );
    let long_q = "why ".repeat(10_000);
    std::fs::write(
        dir.path().join("q.jsonl"),
        format!("{{\"id\":\"q9\",\"question\":\"{long_q}\"}}\n"),
    )
    .unwrap();
    let (code, _, err) = eval_file(dir.path(), "q.jsonl", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("q.jsonl:1: field `question` is 40000 characters long; a question is at most 32768 characters"),
        "{err}"
    );
    // Nothing was recorded, nothing ran.
    assert_eq!(
        json(dir.path(), &["evals", "--json"]),
        serde_json::json!([])
    );
}

#[test]
fn a_line_over_the_limit_is_refused_naming_it_and_the_file_has_a_size_limit() {
    let dir = place();
    let huge = format!(
        "{Q1}\n{{\"id\":\"q2\",\"question\":\"{}\"}}\n",
        "a".repeat(2 << 20)
    );
    std::fs::write(dir.path().join("huge.jsonl"), huge).unwrap();
    let (code, _, err) = eval_file(dir.path(), "huge.jsonl", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("huge.jsonl:2: the line is longer than 1 MiB (1048576 bytes)"),
        "{err}"
    );
    // 65 MiB: over the file's limit, refused before a line is read.
    let line = format!("{}\n", "x".repeat((1 << 20) - 1));
    let big = line.repeat(65);
    std::fs::write(dir.path().join("big.jsonl"), big).unwrap();
    let (code, _, err) = eval_file(dir.path(), "big.jsonl", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "big.jsonl is 68157440 bytes; a question file is at most 64 MiB (67108864 bytes)"
        ),
        "{err}"
    );
    assert_eq!(
        json(dir.path(), &["evals", "--json"]),
        serde_json::json!([])
    );
}

#[test]
fn what_is_not_a_regular_file_is_refused_at_once() {
    let dir = place();
    let fifo = dir.path().join("pipe.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // A FIFO nobody writes to: today's read waits for ever.
    let mut c = at(dir.path());
    c.args(["eval", "pipe.jsonl", "--demo", "--providers", "anthropic"]);
    let (code, _, err) = bounded(&mut c, Duration::from_secs(30));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("pipe.jsonl is not a regular file (a FIFO)"),
        "{err}"
    );
    std::fs::create_dir(dir.path().join("folder")).unwrap();
    let (code, _, err) = eval_file(dir.path(), "folder", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("folder is not a regular file (a directory)"),
        "{err}"
    );
    let mut c = at(dir.path());
    c.args(["eval", "/dev/zero", "--demo", "--providers", "anthropic"]);
    let (code, _, err) = bounded(&mut c, Duration::from_secs(30));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("/dev/zero is not a regular file (a character device)"),
        "{err}"
    );
}

#[test]
fn jobs_and_max_usd_say_their_limits() {
    let dir = place();
    std::fs::write(dir.path().join("set.jsonl"), format!("{Q1}\n")).unwrap();
    let (code, _, err) = eval_file(dir.path(), "set.jsonl", &["--jobs", "100000"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--jobs 100000: at most 64 runs at once"),
        "{err}"
    );
    let (code, _, err) = eval_file(dir.path(), "set.jsonl", &["--max-usd", "1e-9"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--max-usd 0.000000001 is less than $0.000001"),
        "{err}"
    );
    let (code, _, err) = eval_file(dir.path(), "set.jsonl", &["--max-usd", "1e9"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--max-usd 1000000000 is too large: a cap is under $1000000000"),
        "{err}"
    );
    // Nothing ran.
    assert_eq!(
        json(dir.path(), &["evals", "--json"]),
        serde_json::json!([])
    );
    let (code, _, err) = eval_file(dir.path(), "set.jsonl", &["--jobs", "64"]);
    assert_eq!(code, 0, "{err}");
}
