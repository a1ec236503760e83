//! Checking a run's sources against pages a local server serves on loopback: a
//! quote found (HTML read as text), a quote not on the page, no quote, a 404, a
//! redirect to another host, a slow page, a huge page, a URL that is not http(s),
//! a page that is not text, at most four at once, and the loopback address refused
//! unless a `[policy]` rule names it. The verdicts are recorded; the run is
//! untouched.

#![cfg(all(feature = "check", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::response::{Html, IntoResponse, Redirect};
use axum::routing::get;
use io_harness::check::{Limits, check_run};
use io_harness::core::policy::{Act, Policy};
use io_harness::core::vendor::Vendor;
use io_harness::core::verdict::Verdict;
use io_harness::store::NewRun;
use io_harness::{Citation, RunId, Store};

async fn pages() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let other = format!("http://localhost:{}/found", addr.port());
    let app = Router::new()
        .route(
            "/found",
            get(|| async {
                Html("<html><head><script>var x = 'hidden';</script></head><body><p>The release is\n <b>0.22.0</b>   today.</p></body></html>")
            }),
        )
        .route("/other", get(|| async { Html("<p>Nothing about releases.</p>") }))
        .route(
            "/redirect",
            get(move || {
                let to = other.clone();
                async move { Redirect::temporary(&to) }
            }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                Html("late")
            }),
        )
        .route(
            "/huge",
            get(|| async { "x".repeat(300_000).into_response() }),
        )
        .route(
            "/pdf",
            get(|| async { ([("content-type", "application/pdf")], "%PDF-1.7 0.22.0").into_response() }),
        )
        .route(
            "/binary",
            get(|| async { ([("content-type", "text/html")], b"0.22.0\0\x01\x02".to_vec()).into_response() }),
        )
        .route(
            "/json",
            get(|| async { ([("content-type", "application/json")], "{\"release\": \"0.22.0\"}").into_response() }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

fn cite(url: String, quote: Option<&str>) -> Citation {
    Citation {
        url,
        title: None,
        cited_text: quote.map(str::to_string),
    }
}

/// A store in a temp directory with one run in it.
fn one_run() -> (tempfile::TempDir, Store, RunId) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("runs.db")).unwrap();
    let run = store
        .begin_run(&NewRun {
            goal: "g".into(),
            provider: Vendor::Anthropic,
            model: "m".into(),
            ..NewRun::default()
        })
        .unwrap();
    (dir, store, run)
}

fn limits() -> Limits {
    Limits {
        max_bytes: 100_000,
        timeout: Duration::from_secs(1),
        parallel: 4,
    }
}

#[tokio::test]
async fn each_citation_gets_one_verdict_and_it_is_recorded() {
    let addr = pages().await;
    let base = format!("http://{addr}");
    let (_dir, store, run) = one_run();
    store.record_citations(
        run,
        1,
        &[
            cite(format!("{base}/found"), Some("the RELEASE is 0.22.0 today")),
            cite(format!("{base}/other"), Some("release is 0.22.0")),
            cite(format!("{base}/found?no-quote"), None),
            cite(format!("{base}/missing"), Some("x")),
            cite(format!("{base}/redirect"), Some("x")),
            cite(format!("{base}/slow"), Some("x")),
            cite(format!("{base}/huge"), Some("x")),
            cite("ftp://example.com/file".into(), Some("x")),
            cite(format!("{base}/pdf"), Some("0.22.0")),
            cite(format!("{base}/pdf?no-quote"), None),
            cite(format!("{base}/binary"), Some("0.22.0")),
            cite(format!("{base}/json"), Some("\"release\": \"0.22.0\"")),
        ],
    );
    let before = store.run(run).unwrap();
    let policy = Policy::workspace_default()
        .layer("project")
        .allow(Act::Net, addr.to_string());
    let rows = check_run(&store, run, &policy, limits()).await.unwrap();
    let by_path = |p: &str| {
        let r = rows.iter().find(|r| r.url.ends_with(p)).unwrap();
        (r.verdict, r.detail.clone().unwrap_or_default())
    };
    assert_eq!(by_path("/found").0.as_str(), "found");
    assert_eq!(by_path("/other").0.as_str(), "not_found");
    assert_eq!(by_path("?no-quote").0.as_str(), "no_quote");
    assert_eq!(
        by_path("/missing"),
        (Verdict::Unreachable, "HTTP 404".into())
    );
    let (v, d) = by_path("/redirect");
    assert_eq!(v, Verdict::Unreachable);
    assert!(
        d.contains("redirect to another host (http://localhost:"),
        "{d}"
    );
    let (v, d) = by_path("/slow");
    assert_eq!(
        (v.as_str(), d.as_str()),
        ("unreachable", "no whole answer within 1 s")
    );
    let (v, d) = by_path("/huge");
    assert_eq!(v, Verdict::Unreachable);
    assert!(d.contains("larger than 100000 bytes"), "{d}");
    let (v, d) = by_path("/file");
    assert_eq!(v, Verdict::Unreachable);
    assert!(d.starts_with("not an http(s) URL (ftp)"), "{d}");
    // Reached but not text: no verdict on the quote, and said why.
    assert_eq!(
        by_path("/pdf"),
        (
            Verdict::Unreachable,
            "reached, but the page is application/pdf, not text or HTML: the quote could not be looked for".into()
        )
    );
    assert_eq!(by_path("/pdf?no-quote").0.as_str(), "no_quote");
    let (v, d) = by_path("/binary");
    assert_eq!(v, Verdict::Unreachable);
    assert!(d.contains("NUL bytes"), "{d}");
    assert_eq!(by_path("/json").0.as_str(), "found");
    // Recorded with the time checked, the rows returned carrying it too; a
    // second check replaces them.
    assert!(rows.iter().all(|c| c.checked_at.len() == 24), "{rows:?}");
    let stored = store.verdicts(run).unwrap();
    assert_eq!(stored.len(), 12);
    assert!(stored.iter().all(|c| c.checked_at == rows[0].checked_at));
    check_run(&store, run, &policy, limits()).await.unwrap();
    assert_eq!(store.verdicts(run).unwrap().len(), 12);
    // Nothing else in the store moved: the run, its citations.
    assert_eq!(store.run(run).unwrap(), before);
    assert_eq!(store.citations(run).unwrap().len(), 12);
}

/// At most `parallel` pages are fetched at once (the server counts them).
#[tokio::test]
async fn at_most_four_pages_are_fetched_at_once() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (now, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (n, m) = (now.clone(), most.clone());
    let app = Router::new().route(
        "/{page}",
        get(move || {
            let (n, m) = (n.clone(), m.clone());
            async move {
                let at = n.fetch_add(1, Ordering::SeqCst) + 1;
                m.fetch_max(at, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(150)).await;
                n.fetch_sub(1, Ordering::SeqCst);
                Html("page")
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let (_dir, store, run) = one_run();
    let cites: Vec<Citation> = (0..10)
        .map(|i| cite(format!("http://{addr}/p{i}"), Some("page")))
        .collect();
    store.record_citations(run, 1, &cites);
    let policy = Policy::workspace_default()
        .layer("project")
        .allow(Act::Net, addr.to_string());
    let rows = check_run(&store, run, &policy, limits()).await.unwrap();
    assert!(rows.iter().all(|r| r.verdict == Verdict::Found), "{rows:?}");
    assert_eq!(most.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn loopback_is_not_allowed_unless_a_rule_names_it() {
    let addr = pages().await;
    let (_dir, store, run) = one_run();
    store.record_citations(
        run,
        1,
        &[cite(format!("http://{addr}/found"), Some("0.22.0"))],
    );
    // The default policy asks for every host: nobody can answer a check.
    let rows = check_run(&store, run, &Policy::workspace_default(), limits())
        .await
        .unwrap();
    assert_eq!(rows[0].verdict.as_str(), "not_allowed");
    assert!(
        rows[0]
            .detail
            .as_deref()
            .unwrap()
            .contains("a check has nobody to ask: add \"net:127.0.0.1:"),
        "{:?}",
        rows[0].detail
    );
    // `net:*` allows hosts, but not this machine's own addresses.
    let any = Policy::workspace_default()
        .layer("project")
        .allow(Act::Net, "*");
    let rows = check_run(&store, run, &any, limits()).await.unwrap();
    assert_eq!(rows[0].verdict.as_str(), "not_allowed");
    assert!(
        rows[0]
            .detail
            .as_deref()
            .unwrap()
            .starts_with("refused: 127.0.0.1:"),
        "{:?}",
        rows[0].detail
    );
    // An unknown run: an error naming it, and nothing recorded.
    let err = check_run(&store, RunId(9), &any, limits())
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "there is no run 9 in this store; `io-harness runs` lists them"
    );
}
