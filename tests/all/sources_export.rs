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

use crate::common;

use common::cli::{bin, run};
use common::*;
use io_harness::core::vendor::Vendor;

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

/// A store holding one run whose citations carry what a hostile page could put in
/// a title or a quote, and a URL that is not a web link.
fn hostile() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let store = io_harness::store::Store::open(&db).unwrap();
    let run = store
        .begin_run(&io_harness::store::NewRun {
            goal: "find sources".into(),
            provider: Vendor::Anthropic,
            model: "m".into(),
            web_json: None,
            mcp_declared_json: None,
            parent_run_id: None,
            session_id: None,
            group_id: None,
            plan: None,
            agent: None,
        })
        .unwrap();
    let cite = |url: &str, title: &str, quote: &str| io_harness::core::completion::Citation {
        url: url.into(),
        title: Some(title.into()),
        cited_text: Some(quote.into()),
    };
    store.record_citations(
        run,
        1,
        &[
            cite(
                "javascript:alert(1)",
                "=HYPERLINK(\"http://evil.test\",\"x\")",
                "+1+cmd|' /C calc'!A0",
            ),
            cite(
                "https://docs.rs/a",
                "@SUM(1,1) ![x](https://evil.test/p.png)",
                "-2 <script>alert(1)</script>\u{0}\u{1b}[31m red [y](javascript:z)",
            ),
            cite("https://docs.rs/b", "\tTab", "\rCR"),
        ],
    );
    (dir, db.display().to_string())
}

#[test]
fn csv_cells_that_a_spreadsheet_would_run_are_prefixed_with_a_quote() {
    let (_dir, db) = hostile();
    let (code, csv, err) = cite(&db, &["1", "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 3, "{csv}");
    assert_eq!(&rows[0][4], "'=HYPERLINK(\"http://evil.test\",\"x\")");
    assert_eq!(&rows[0][5], "'+1+cmd|' /C calc'!A0");
    assert_eq!(&rows[1][4], "'@SUM(1,1) ![x](https://evil.test/p.png)");
    assert!(rows[1][5].starts_with("'-2 <script>"), "{csv}");
    assert_eq!(&rows[2][4], "'\tTab");
    assert_eq!(&rows[2][5], "'\rCR");
    // A cell that starts harmlessly is exactly as stored.
    assert_eq!(&rows[1][3], "https://docs.rs/a");
    for row in &rows {
        for cell in row {
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "{cell:?}"
            );
        }
    }
}

#[test]
fn markdown_links_web_urls_only_and_leaves_html_images_and_controls_inert() {
    let (_dir, db) = hostile();
    let (code, md, err) = cite(&db, &["1", "--format", "markdown"]);
    assert_eq!(code, 0, "{err}");
    // No link to anything but http(s): the javascript: URL is plain text.
    assert!(!md.contains("](<javascript"), "{md}");
    assert!(!md.contains("](javascript"), "{md}");
    assert!(
        md.contains("javascript:alert\\(1\\) (not linked) — step 1"),
        "{md}"
    );
    // No raw HTML, no image, no link made from a quote.
    assert!(!md.contains("<script"), "{md}");
    assert!(md.contains("&lt;script&gt;"), "{md}");
    assert!(!md.contains("![x]("), "{md}");
    assert!(md.contains("\\!\\[x\\]\\(https"), "{md}");
    assert!(!md.contains("[y](javascript"), "{md}");
    // No control bytes at all.
    assert!(!md.chars().any(|c| c.is_control() && c != '\n'), "{md:?}");
    // The web links still are links.
    assert!(md.contains("](<https://docs.rs/a>) — step 1"), "{md}");
}

#[test]
fn json_carries_the_stored_text_exactly() {
    let (_dir, db) = hostile();
    let (code, json, err) = cite(&db, &["1", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v[0]["url"], "javascript:alert(1)");
    assert_eq!(v[0]["title"], "=HYPERLINK(\"http://evil.test\",\"x\")");
    assert_eq!(
        v[1]["cited_text"],
        "-2 <script>alert(1)</script>\u{0}\u{1b}[31m red [y](javascript:z)"
    );
}
