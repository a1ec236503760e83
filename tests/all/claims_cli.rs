//! Claims through the real binary (issue 29, items 1–3): `claims --json` on the
//! demo's run; `check-sources --json` giving a claim without a quote its lexical
//! overlap with a page served on loopback (null beside a quote); `compare --json`
//! with the verified share and unsupported count null until `compare --check`.

#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

use crate::common;

use axum::Router;
use axum::response::Html;
use axum::routing::get;
use common::cli::{at, json, run};
use io_harness::core::vendor::Vendor;
use io_harness::store::{CHECKPOINT_FORMAT, Checkpoint, NewRun, ProviderCall, StepRecord, Store};
use io_harness::{Citation, Claim, TaskContract, Verification};
use pretty_assertions::assert_eq;
use serde_json::Value;

#[test]
fn claims_json_on_the_demo_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("io.toml"), "").unwrap();
    let (code, _, err) = run(at(dir.path()).args(["run", "--demo"]));
    assert_eq!(code, 0, "{err}");
    let v = json(dir.path(), &["claims", "1", "--json"]);
    assert_eq!(v["run_id"], 1);
    let claims = v["claims"].as_array().unwrap();
    assert!(!claims.is_empty(), "{v:#}");
    for c in claims {
        let keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["step", "start", "end", "text", "citations"]);
        assert!(c["start"].as_u64().unwrap() < c["end"].as_u64().unwrap());
        for s in c["citations"].as_array().unwrap() {
            assert!(s["url"].as_str().unwrap().starts_with("https://"));
            assert_eq!(s["verdict"], Value::Null, "not checked yet");
        }
    }
    // The demo's final answer cites crates.io for its one sentence.
    assert_eq!(v["cited_share"], 1.0);
    assert_eq!(v["verified_share"], Value::Null);
    assert_eq!(v["unsupported"], Value::Null);
    // For people: the figures, then each sentence with its sources.
    let (code, out, _) = run(at(dir.path()).args(["claims", "1"]));
    assert_eq!(code, 0);
    assert!(
        out.contains("cited share 100% · verified share not checked"),
        "{out}"
    );
    assert!(out.contains("io-harness check-sources 1"), "{out}");
    // An unknown run is refused.
    let (code, _, err) = run(at(dir.path()).args(["claims", "9", "--json"]));
    assert_eq!(code, 2);
    assert!(err.contains("there is no run 9"), "{err}");
}

fn recorded(store: &Store, text: &str, cites: &[Citation], claims: &[Claim]) -> i64 {
    let run = store
        .begin_run(&NewRun {
            goal: "g".into(),
            provider: Vendor::OpenAi,
            model: "m".into(),
            ..NewRun::default()
        })
        .unwrap();
    let record = StepRecord {
        step: 1,
        attempt: 1,
        call: &ProviderCall::default(),
        server_tools: &[],
        citations: cites,
        claims,
        text,
        observations: &[],
        exchange: None,
        search_suggestions: None,
    };
    let checkpoint = Checkpoint {
        format: CHECKPOINT_FORMAT,
        step: 1,
        observations: Vec::new(),
        tokens_used: 0,
        continuations: 0,
        contract: TaskContract::workspace("g", ".", Verification::None),
    };
    store
        .record_step_whole(run, &record, &checkpoint, None)
        .unwrap();
    run.0
}

#[tokio::test(flavor = "multi_thread")]
async fn check_sources_json_gives_an_unquoted_claim_its_overlap() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().route(
        "/page",
        get(|| async {
            Html("<html><body><p>Intro.</p><p>io-harness records each citation in a SQLite store.</p></body></html>")
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("io.toml"),
        format!("[policy]\nallow = [\"net:{addr}\"]\n"),
    )
    .unwrap();
    let page = format!("http://{addr}/page");
    let quoted = format!("http://{addr}/page?quoted");
    let text =
        "The harness records every citation in SQLite ([x.test](https://x.test/)). Unrelated.";
    let run_id = {
        let store = Store::open(dir.path().join("data/runs.db")).unwrap();
        let cites = [
            Citation {
                url: page.clone(),
                title: None,
                cited_text: None,
            },
            Citation {
                url: quoted.clone(),
                title: None,
                cited_text: Some("records each citation".into()),
            },
        ];
        // OpenAI's span: the link it put after the claim.
        let link = "([x.test](https://x.test/))";
        let start = text.find(link).unwrap();
        let claims = [Claim {
            start,
            end: start + link.len(),
            urls: vec![page.clone(), quoted.clone()],
        }];
        recorded(&store, text, &cites, &claims)
    };
    let dir_path = dir.path().to_path_buf();
    let id = run_id.to_string();
    let rows =
        tokio::task::spawn_blocking(move || json(&dir_path, &["check-sources", &id, "--json"]))
            .await
            .unwrap();
    let row = |url: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["url"] == url)
            .unwrap()
            .clone()
    };
    let unquoted = row(&page);
    assert_eq!(unquoted["verdict"], "no_quote");
    // harness, records, every, citation, sqlite: four of five on the page (the
    // link the vendor put in is not the claim's wording).
    assert_eq!(unquoted["overlap"], 0.8);
    let detail = unquoted["detail"].as_str().unwrap();
    assert!(
        detail.contains("80% of the claim's content words"),
        "{detail}"
    );
    assert!(
        detail.contains("lexical overlap: a hint, not proof"),
        "{detail}"
    );
    let with_quote = row(&quoted);
    assert_eq!(with_quote["verdict"], "found");
    assert_eq!(with_quote["overlap"], Value::Null);
    // Stored with the verdict: `claims` reads it back.
    let dir_path = dir.path().to_path_buf();
    let id = run_id.to_string();
    let claims = tokio::task::spawn_blocking(move || json(&dir_path, &["claims", &id, "--json"]))
        .await
        .unwrap();
    let sources = &claims["claims"][0]["citations"];
    assert_eq!(sources[0]["overlap"], 0.8, "{claims:#}");
    assert_eq!(claims["claims"][1]["citations"], serde_json::json!([]));
    assert_eq!(claims["cited_share"], 0.5);
    assert_eq!(claims["verified_share"], 0.5);
    assert_eq!(claims["unsupported"], 0);
}

#[test]
fn compare_json_figures_are_null_until_compare_check() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("io.toml"), "").unwrap();
    let (code, out, err) =
        run(at(dir.path()).args(["run", "--demo", "--json", "--providers", "anthropic,openai"]));
    assert_eq!(code, 0, "{err}");
    let last: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let group = last["group_id"].as_i64().unwrap().to_string();
    let before = json(dir.path(), &["compare", &group, "--json"]);
    for r in before["runs"].as_array().unwrap() {
        assert!(r["cited_share"].as_f64().unwrap() > 0.0, "{r:#}");
        assert_eq!(r["verified_share"], Value::Null, "{r:#}");
        assert_eq!(r["unsupported"], Value::Null, "{r:#}");
    }
    let (code, table, _) = run(at(dir.path()).args(["compare", &group]));
    assert_eq!(code, 0);
    assert!(table.contains("verified share"), "{table}");
    assert!(table.contains("not checked"), "{table}");
    assert!(
        table.contains(&format!("`io-harness compare {group} --check`")),
        "{table}"
    );
    // No [policy] rule names a host: every source is looked at and not allowed
    // — nothing is fetched, so nothing is known of any source: the figures stay
    // unchecked, and the table says why (issue 33, item 7).
    let after = json(dir.path(), &["compare", &group, "--json", "--check"]);
    for r in after["runs"].as_array().unwrap() {
        assert_eq!(r["verified_share"], Value::Null, "{r:#}");
        assert_eq!(r["unsupported"], Value::Null, "{r:#}");
        assert!(r["sources_not_allowed"].as_u64().unwrap() >= 1, "{r:#}");
    }
    let (code, table, _) = run(at(dir.path()).args(["compare", &group]));
    assert_eq!(code, 0);
    assert!(table.contains("not allowed by [policy]"), "{table}");
    let run_id = after["runs"][0]["run_id"].as_i64().unwrap().to_string();
    let claims = json(dir.path(), &["claims", &run_id, "--json"]);
    assert_eq!(claims["verified_share"], after["runs"][0]["verified_share"]);
    assert_eq!(claims["unsupported"], after["runs"][0]["unsupported"]);
}
