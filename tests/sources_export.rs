//! A run's sources handed on: `citations RUN --format markdown|csv|json` from a
//! real run recorded against the stub (loopback HTTP, a temp SQLite file), and the
//! errors an operator can make.

// The binary is built with every default feature, and these tests run it.
#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

mod common;

use common::cli::{bin, run};
use common::*;

async fn recorded() -> (Harness, String) {
    let h = Harness::new(vec![ok(SEARCH_OK_DUPLICATES)]).await;
    let r = h.run(contract("find sources")).await;
    assert_eq!(r.run_id, io_harness::RunId(1));
    let db = h.db.path().join("runs.db").display().to_string();
    (h, db)
}

fn cite(db: &str, args: &[&str]) -> (i32, String, String) {
    let empty = tempfile::tempdir().unwrap();
    let cfg = empty.path().join("io.toml");
    std::fs::write(&cfg, "").unwrap();
    let mut c = bin();
    c.args(["citations"])
        .args(args)
        .args(["--store", db, "--config", cfg.to_str().unwrap()]);
    run(&mut c)
}

#[tokio::test]
async fn markdown_numbers_each_distinct_source_with_its_quote_and_day() {
    let (_h, db) = recorded().await;
    let (code, out, err) = cite(&db, &["1", "--format", "markdown"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "# Sources of run 1");
    assert!(
        lines[2].starts_with("1. [A](<https://docs.rs/a>) — step 1, recorded 20"),
        "{out}"
    );
    assert_eq!(lines[3], "   > a");
    assert!(
        lines[4].starts_with("2. [https://docs.rs/b](<https://docs.rs/b>) — step 1"),
        "{out}"
    );
}

#[tokio::test]
async fn csv_and_json_carry_the_same_rows() {
    let (_h, db) = recorded().await;
    let (code, csv, _) = cite(&db, &["1", "--format", "csv"]);
    assert_eq!(code, 0);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("n,run_id,step,url,title,cited_text,recorded_at")
    );
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("1,1,1,https://docs.rs/a,A,a,20")
    );
    let (code, json, _) = cite(&db, &["1", "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
    assert_eq!(v[1]["url"], "https://docs.rs/b");
    assert_eq!(v[1]["title"], serde_json::Value::Null);
}

#[tokio::test]
async fn a_wrong_format_or_run_is_named_and_exits_2() {
    let (_h, db) = recorded().await;
    let (code, out, err) = cite(&db, &["1", "--format", "xml"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err.trim(),
        "unknown export format \"xml\"; use one of: markdown, csv, json"
    );
    let (code, _, err) = cite(&db, &["9", "--format", "csv"]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "there is no run 9 in this store; `io-harness runs` lists them"
    );
}
