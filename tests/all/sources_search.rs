//! Full-text search across runs: what a real run recorded against the stub is
//! found by its goal, the model's text, a search's query and a citation's quote;
//! newest first or best first; one run's only; everyday words (`io-harness`,
//! `0.22.0`, `C++`) searched as written and Chinese found inside longer words;
//! and a query using FTS5's syntax that it cannot parse, an empty one or an
//! unknown run is a clear refusal, exit 2.

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
use io_harness::store::search::SearchQuery;

fn q(text: &str) -> SearchQuery {
    SearchQuery {
        text: text.into(),
        limit: 20,
        ..SearchQuery::default()
    }
}

#[tokio::test]
async fn goals_text_queries_and_quotes_are_found_newest_first() {
    let h = Harness::new(vec![ok(SEARCH_OK_DUPLICATES), ok(SEARCH_OK_DUPLICATES)]).await;
    h.run(contract("find the crate docs")).await;
    h.run(contract("compare release notes")).await;
    let kinds = |text: &str| {
        h.store
            .search(&q(text))
            .unwrap()
            .into_iter()
            .map(|x| (x.run_id.0, x.step, x.kind))
            .collect::<Vec<_>>()
    };
    assert_eq!(kinds("release"), [(2, 0, "goal".to_string())]);
    // The quoted passage "a again" of run 2 and run 1, newest run first.
    let again = kinds("again");
    assert_eq!(
        again,
        [
            (2, 1, "citation".to_string()),
            (1, 1, "citation".to_string())
        ]
    );
    let hit = &h.store.search(&q("again")).unwrap()[0];
    assert_eq!(hit.url.as_deref(), Some("https://docs.rs/a"));
    assert!(hit.snippet.contains("[again]"), "{}", hit.snippet);
    // The model's text, and the search's query.
    // ("one" and "two" are text blocks split only by citations: one run of prose.)
    assert!(kinds("onetwo").contains(&(1, 1, "text".to_string())));
    assert!(kinds("q").contains(&(1, 1, "query".to_string())));
    // One run's only.
    let only = h
        .store
        .search(&SearchQuery {
            run: Some(io_harness::RunId(1)),
            ..q("again")
        })
        .unwrap();
    assert_eq!(only.len(), 1);
}

#[tokio::test]
async fn the_command_line_refuses_what_it_cannot_search() {
    let h = Harness::new(vec![ok(SEARCH_OK_DUPLICATES)]).await;
    h.run(contract("find the crate docs")).await;
    let db = h.db.path().join("runs.db");
    let cfg = h.db.path().join("io.toml");
    std::fs::write(&cfg, "").unwrap();
    let search = |args: &[&str]| {
        run(bin().arg("search").args(args).args([
            "--store",
            db.to_str().unwrap(),
            "--config",
            cfg.to_str().unwrap(),
        ]))
    };
    let (code, out, err) = search(&["crate", "--json"]);
    assert_eq!(code, 0, "{err}");
    let hits: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(hits[0]["kind"], "goal");
    // Words are searched as written: `docs.rs/b` is no FTS5 syntax error.
    let (code, out, err) = search(&["docs.rs/b"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("citation  https://docs.rs/b"), "{out}");
    let (code, out, err) = search(&["\"unclosed"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with("cannot search for \"\\\"unclosed\": "),
        "{err}"
    );
    assert!(err.contains("put them in double quotes"), "{err}");
    let (code, _, err) = search(&["  "]);
    assert_eq!(code, 2);
    assert!(err.starts_with("nothing to search for"), "{err}");
    let (code, _, err) = search(&["crate", "--run", "9"]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "there is no run 9 in this store; `io-harness runs` lists them"
    );
    let (code, _, err) = search(&["crate", "--limit", "0"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("--limit 0 would show no hits"), "{err}");
    // `goal:x` is a word, not a column, unless the query syntax is used on
    // purpose; then FTS5's reading is said in words, with the quoting.
    let (code, out, err) = search(&["goal:crate"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("nothing matches"), "{out}");
    let (code, _, err) = search(&["goal:crate OR docs"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("FTS5 reads \"goal:\" as the name of a column")
            && err.contains("'\"goal:crate OR docs\"'"),
        "{err}"
    );
    // A single quote in the query: the advice is still one shell word.
    let (code, _, err) = search(&["it's \"odd"]);
    assert_eq!(code, 2);
    assert!(err.trim_end().ends_with("'\"it'\\''s \"\"odd\"'"), "{err}");
    let (code, out, _) = search(&["\"docs.rs/b\""]);
    assert_eq!(code, 0);
    assert!(
        out.contains("run 1 step 1  citation  https://docs.rs/b"),
        "{out}"
    );
}

#[test]
fn an_older_store_is_indexed_by_the_migration() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    {
        io_harness::Store::open_at_schema(&path, 6).unwrap();
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute(
                "INSERT INTO runs (started_at, goal, provider, model) VALUES ('2026-12-01T00:00:00Z', 'an older goal about lighthouses', 'anthropic', 'm')",
                [],
            )
            .unwrap();
    }
    let store = io_harness::Store::open(&path).unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        io_harness::store::SCHEMA_VERSION as i64
    );
    let hits = store.search(&q("lighthouses")).unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
}

/// Rows written through the store's piecewise writers are indexed with them,
/// once: a citation recorded twice, a server-side fetch (its URL on the hit) and
/// a step's text, replaced when the step is recorded again.
#[test]
fn every_writer_indexes_what_it_writes_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = io_harness::Store::open(dir.path().join("runs.db")).unwrap();
    let run = store
        .begin_run(&io_harness::store::NewRun {
            goal: "g".into(),
            provider: Vendor::Anthropic,
            model: "m".into(),
            ..Default::default()
        })
        .unwrap();
    let cite = io_harness::Citation {
        url: "https://lighthouse.test/a".into(),
        title: Some("Lighthouses".into()),
        cited_text: None,
    };
    store.record_citations(run, 1, &[cite.clone(), cite.clone()]);
    store.record_citations(run, 1, &[cite]);
    assert_eq!(store.search(&q("lighthouses")).unwrap().len(), 1);
    let mut fetch = io_harness::ServerToolCall::ok(Vendor::Anthropic, "web_fetch");
    fetch.input = Some("https://keepers.test/log".into());
    store.record_server_tool_calls(run, 1, &[fetch]);
    let hits = store.search(&q("keepers")).unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(
        (hits[0].kind.as_str(), hits[0].url.as_deref()),
        ("query", Some("https://keepers.test/log"))
    );
    store.record_step(run, 2, "the lamp was lit", &[]).unwrap();
    store.record_step(run, 2, "the fog came in", &[]).unwrap();
    assert!(store.search(&q("lamp")).unwrap().is_empty());
    assert_eq!(store.search(&q("fog")).unwrap().len(), 1);
}

/// Issue 27: words as written — a hyphen, a version, `C++` — are found, not
/// refused as FTS5 syntax; the syntax used on purpose still works; a word of a
/// script without spaces is found inside a longer one. Failed before the fix:
/// `io-harness` and `0.22.0` were FTS5 errors (exit 2) and `版本` found nothing.
#[test]
fn everyday_words_are_searched_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let store = io_harness::Store::open(dir.path().join("runs.db")).unwrap();
    for goal in [
        "check io-harness 0.22.0 for C++ users",
        "查找 io-harness 的最新版本号",
        "harness racing results",
    ] {
        store
            .begin_run(&io_harness::store::NewRun {
                goal: goal.into(),
                provider: Vendor::Anthropic,
                model: "m".into(),
                ..Default::default()
            })
            .unwrap();
    }
    let runs = |text: &str| -> Vec<i64> {
        store
            .search(&q(text))
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .iter()
            .map(|h| h.run_id.0)
            .collect()
    };
    assert_eq!(runs("io-harness"), [2, 1]);
    assert_eq!(runs("0.22.0"), [1]);
    assert_eq!(runs("C++ users"), [1]);
    assert_eq!(runs("版本"), [2]);
    assert_eq!(runs("版本 io-harness"), [2]);
    assert_eq!(runs("バージョン"), Vec::<i64>::new());
    // The syntax on purpose: a phrase, OR, a prefix.
    assert_eq!(runs("\"harness racing\""), [3]);
    assert_eq!(runs("racing OR users"), [3, 1]);
    assert_eq!(runs("rac*"), [3]);
    let hit = &store.search(&q("版本")).unwrap()[0];
    assert!(hit.snippet.contains("[版本]号"), "{}", hit.snippet);
}
