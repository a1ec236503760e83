//! Issue 26: `check-sources` against pages that try to get past its boundary —
//! hosts written with a trailing dot, redirects on the same host to a port the
//! policy denies (in every number form of the address, with credentials), a page
//! nested deep enough to make a parser crawl, and pages in other charsets. Real
//! loopback servers, a real store; the verdicts are what is checked.

#![cfg(all(feature = "check", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use io_harness::check::{Limits, check_run};
use io_harness::core::policy::{Act, Policy};
use io_harness::core::vendor::Vendor;
use io_harness::core::verdict::Verdict;
use io_harness::store::NewRun;
use io_harness::store::verdicts::VerdictRow;
use io_harness::{Citation, RunId, Store};

fn cite(url: String, quote: Option<&str>) -> Citation {
    Citation {
        url,
        title: None,
        cited_text: quote.map(str::to_string),
    }
}

/// A store in a temp directory with one run citing `cites`.
fn one_run(cites: &[Citation]) -> (tempfile::TempDir, Store, RunId) {
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
    store.record_citations(run, 1, cites);
    (dir, store, run)
}

fn limits() -> Limits {
    Limits {
        max_bytes: 1 << 20,
        timeout: Duration::from_secs(2),
        parallel: 4,
    }
}

fn row<'a>(rows: &'a [VerdictRow], url: &str) -> &'a VerdictRow {
    rows.iter().find(|r| r.url == url).unwrap()
}

/// Item 2: `example.com.` and `a.example.org.` are the hosts the deny rules name;
/// they are refused before any lookup, not resolved.
#[tokio::test]
async fn a_trailing_dot_does_not_get_past_a_deny_rule() {
    let urls = [
        "http://example.com./page",
        "http://EXAMPLE.com./page",
        "https://a.example.org./page",
    ];
    let cites: Vec<Citation> = urls
        .iter()
        .map(|u| cite(u.to_string(), Some("x")))
        .collect();
    let (_dir, store, run) = one_run(&cites);
    let policy = Policy::workspace_default()
        .layer("project")
        .allow(Act::Net, "*")
        .deny(Act::Net, "example.com")
        .deny(Act::Net, "*.example.org");
    let rows = check_run(&store, run, &policy, limits()).await.unwrap();
    for (url, rule) in [
        (urls[0], "net:example.com"),
        (urls[1], "net:example.com"),
        (urls[2], "net:*.example.org"),
    ] {
        let r = row(&rows, url);
        assert_eq!(r.verdict.as_str(), "not_allowed", "{url}: {r:?}");
        assert_eq!(
            r.detail.as_deref(),
            Some(format!("denied by {rule}").as_str())
        );
    }
}

/// A loopback server on its own port; `hits` counts the requests it answered
/// and `auth` the ones that carried an Authorization header.
struct Server {
    port: u16,
    hits: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    auth: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

/// Every path answers with the quote `secret text` and says whether credentials
/// came with the request.
async fn target_server() -> Server {
    use axum::http::HeaderMap;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (hits, auth) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (h, a) = (hits.clone(), auth.clone());
    let app = axum::Router::new().fallback(move |headers: HeaderMap| {
        let (h, a) = (h.clone(), a.clone());
        async move {
            h.fetch_add(1, Ordering::SeqCst);
            let creds = headers.contains_key("authorization");
            if creds {
                a.fetch_add(1, Ordering::SeqCst);
            }
            axum::response::Html(format!(
                "<p>secret text; credentials: {}</p>",
                if creds { "sent" } else { "none" }
            ))
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Server { port, hits, auth }
}

/// `/go?to=LOCATION` answers 302 with that Location, `/loop` redirects to itself.
async fn redirector() -> u16 {
    let app = axum::Router::new()
        .route(
            "/go",
            axum::routing::get(|uri: axum::http::Uri| async move {
                let to = url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
                    .find(|(k, _)| k == "to")
                    .map(|(_, v)| v.into_owned())
                    .unwrap_or_default();
                (axum::http::StatusCode::FOUND, [("location", to)])
            }),
        )
        .route(
            "/loop",
            axum::routing::get(|| async {
                (axum::http::StatusCode::FOUND, [("location", "/loop")])
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    port
}

fn encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// Item 1: a redirect on the same host to a port the policy denies is a new
/// request, decided on its own — in every number form of the address, without
/// a scheme, with credentials — and refused; the denied server is never reached.
#[tokio::test]
async fn a_redirect_to_a_denied_port_on_the_same_host_is_refused() {
    use std::sync::atomic::Ordering;
    let from = redirector().await;
    let denied = target_server().await;
    let b = denied.port;
    let locations = [
        format!("http://127.0.0.1:{b}/secret"),
        format!("http://2130706433:{b}/"),
        format!("http://0x7f000001:{b}/"),
        format!("http://0177.0.0.1:{b}/"),
        format!("//127.0.0.1:{b}/"),
        format!("http://allowed@127.0.0.1:{b}/"),
        format!("http://127.0.0.1.:{b}/"),
    ];
    let urls: Vec<String> = locations
        .iter()
        .map(|l| format!("http://127.0.0.1:{from}/go?to={}", encode(l)))
        .collect();
    let cites: Vec<Citation> = urls
        .iter()
        .map(|u| cite(u.clone(), Some("secret text")))
        .collect();
    let (_dir, store, run) = one_run(&cites);
    let policy = Policy::workspace_default()
        .layer("project")
        .allow(Act::Net, format!("127.0.0.1:{from}"))
        .deny(Act::Net, format!("127.0.0.1:{b}"));
    let rows = check_run(&store, run, &policy, limits()).await.unwrap();
    for url in &urls {
        let r = row(&rows, url);
        assert_eq!(r.verdict.as_str(), "not_allowed", "{url}: {r:?}");
        let d = r.detail.as_deref().unwrap();
        assert!(
            d.starts_with(&format!("denied by net:127.0.0.1:{b}")),
            "{url}: {d}"
        );
        assert!(
            d.contains(&format!("redirected: {url} -> http://127.0.0.1:{b}/")),
            "{url}: {d}"
        );
        assert!(!d.contains("allowed@"), "{d}");
    }
    assert_eq!(denied.hits.load(Ordering::SeqCst), 0);
}

/// Item 1: a redirect the policy allows is followed, the hops recorded in the
/// detail, and credentials (userinfo) are never sent, on the first request or
/// on a hop; a redirect loop ends at the hop limit.
#[tokio::test]
async fn allowed_redirects_are_followed_without_credentials_and_recorded() {
    use std::sync::atomic::Ordering;
    let from = redirector().await;
    let to = target_server().await;
    let c = to.port;
    let hop = format!(
        "http://127.0.0.1:{from}/go?to={}",
        encode(&format!("http://allowed:pw@127.0.0.1:{c}/page"))
    );
    let direct = format!("http://user:pw@127.0.0.1:{c}/direct");
    let looping = format!("http://127.0.0.1:{from}/loop");
    let cites = [
        cite(hop.clone(), Some("secret text; credentials: none")),
        cite(direct.clone(), Some("secret text; credentials: none")),
        cite(looping.clone(), Some("x")),
    ];
    let (_dir, store, run) = one_run(&cites);
    let policy = Policy::workspace_default()
        .layer("project")
        .allow(Act::Net, format!("127.0.0.1:{from}"))
        .allow(Act::Net, format!("127.0.0.1:{c}"));
    let rows = check_run(&store, run, &policy, limits()).await.unwrap();
    let r = row(&rows, &hop);
    assert_eq!(r.verdict.as_str(), "found", "{r:?}");
    assert_eq!(
        r.detail.as_deref(),
        Some(format!("redirected: {hop} -> http://127.0.0.1:{c}/page").as_str())
    );
    // Where it led is kept beside the link as cited, in the store too.
    let page = format!("http://127.0.0.1:{c}/page");
    assert_eq!(r.resolved_url.as_deref(), Some(page.as_str()));
    let stored = store.verdicts(run).unwrap();
    let kept = stored.iter().find(|k| k.url == hop).unwrap();
    assert_eq!(kept.resolved_url.as_deref(), Some(page.as_str()));
    let r = row(&rows, &direct);
    assert_eq!(
        (r.verdict.as_str(), r.detail.as_deref()),
        ("found", None),
        "{r:?}"
    );
    assert_eq!(to.hits.load(Ordering::SeqCst), 2);
    assert_eq!(to.auth.load(Ordering::SeqCst), 0);
    let r = row(&rows, &looping);
    assert_eq!(r.verdict.as_str(), "unreachable", "{r:?}");
    assert!(
        r.detail
            .as_deref()
            .unwrap()
            .starts_with("more than 5 redirects"),
        "{r:?}"
    );
}

/// Serve `body` with `content_type` at `/` on a port of its own.
async fn serve(body: Vec<u8>, content_type: &'static str) -> u16 {
    let app = axum::Router::new().route(
        "/",
        axum::routing::get(move || {
            let body = body.clone();
            async move { ([("content-type", content_type)], body) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    port
}

/// Item 3: `<div>x` nested 80,000 times (480 KB) made the parser crawl for over a
/// minute after a fetch the 2 s limit had let through. The check runs on its own
/// thread here, so that a crawl is a failure after 10 s and not a hung test: the
/// text is read in bounded time and the quote past the nesting is found.
#[test]
fn a_deeply_nested_page_is_read_within_the_limit() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let rows = rt.block_on(async {
            let mut page = "<div>x".repeat(80_000);
            page.push_str("<p>The deep   end.</p>");
            let port = serve(page.into_bytes(), "text/html").await;
            let url = format!("http://127.0.0.1:{port}/");
            let (_dir, store, run) = one_run(&[
                cite(url.clone(), Some("the deep end.")),
                cite(format!("{url}?again"), Some("x x x")),
            ]);
            let policy = Policy::workspace_default()
                .layer("project")
                .allow(Act::Net, format!("127.0.0.1:{port}"));
            check_run(&store, run, &policy, limits()).await.unwrap()
        });
        let _ = tx.send(rows);
    });
    let started = std::time::Instant::now();
    let rows = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the check of one 480 KB page took more than 10 s");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r.verdict == Verdict::Found), "{rows:?}");
}

/// Item 4: a page in another charset is decoded by the one it declares — the
/// Content-Type header's, else the page's `<meta charset>` or `<meta
/// http-equiv>` — so a quote it contains is `found`.
#[tokio::test]
async fn a_page_is_decoded_by_its_declared_charset() {
    // "Café über alles" in ISO-8859-1; "日本語の文章" in Shift_JIS.
    let latin1 = b"<p>Caf\xe9 \xfcber alles</p>".to_vec();
    let mut sjis = b"<html><head><meta charset=\"Shift_JIS\"></head><body><p>".to_vec();
    sjis.extend_from_slice(&[
        0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x82, 0xcc, 0x95, 0xb6, 0x8f, 0xcd,
    ]);
    sjis.extend_from_slice(b"</p></body></html>");
    let mut equiv = b"<head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"></head>".to_vec();
    equiv.extend_from_slice(b"<p>\x93quoted\x94 na\xefve</p>");
    let pages = [
        (
            latin1.clone(),
            "text/html; charset=ISO-8859-1",
            "café über alles",
        ),
        (
            latin1[3..].to_vec(),
            "text/plain; charset=\"iso-8859-1\"",
            "café über alles",
        ),
        (sjis, "text/html", "日本語の文章"),
        (equiv, "text/html", "\u{201c}quoted\u{201d} naïve"),
    ];
    let mut cites = Vec::new();
    let mut policy = Policy::workspace_default().layer("project");
    for (body, kind, quote) in pages {
        let port = serve(body, kind).await;
        cites.push(cite(format!("http://127.0.0.1:{port}/"), Some(quote)));
        policy = policy.allow(Act::Net, format!("127.0.0.1:{port}"));
    }
    let (_dir, store, run) = one_run(&cites);
    let rows = check_run(&store, run, &policy, limits()).await.unwrap();
    for r in &rows {
        assert_eq!(
            (r.verdict.as_str(), r.detail.as_deref()),
            ("found", None),
            "{r:?}"
        );
    }
}

/// A Gemini citation is a Google grounding redirect: it is fetched (and, unlike
/// another link, followed to another host) only where the policy allows the
/// redirect's host — decided before any lookup — and every hop after it.
#[tokio::test]
async fn a_google_redirect_is_decided_against_the_policy_first() {
    let redirect = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ1";
    let cites = [cite(redirect.to_string(), None)];
    let (_dir, store, run) = one_run(&cites);
    let policy = Policy::workspace_default()
        .layer("project")
        .deny(Act::Net, "vertexaisearch.cloud.google.com");
    let rows = check_run(&store, run, &policy, limits()).await.unwrap();
    let r = row(&rows, redirect);
    assert_eq!(r.verdict.as_str(), "not_allowed", "{r:?}");
    assert!(
        r.detail
            .as_deref()
            .unwrap()
            .contains("net:vertexaisearch.cloud.google.com"),
        "{r:?}"
    );
    assert_eq!(r.resolved_url, None, "nothing was followed");
}
