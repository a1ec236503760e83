//! Issue 34, item 1: an IPv6 address that embeds an IPv4 one — IPv4-mapped
//! (`::ffff:a.b.c.d`, also written `::ffff:5db8:d822`), IPv4-compatible
//! (`::a.b.c.d`) and NAT64 (`64:ff9b::/96`) — is decided as that IPv4 address:
//! a deny rule naming the IPv4 address holds against every spelling, in
//! `check-sources` (a cited URL and a redirect's Location) and in `http_get`,
//! and the loopback check sees the IPv4 address. Real loopback servers, a real
//! store; what is checked is the verdict or the tool's answer.

#![cfg(all(feature = "check", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use io_harness::check::{Limits, check_run};
use io_harness::core::policy::{Act, Policy};
use io_harness::core::vendor::Vendor;
use io_harness::run::tools::{ToolEnv, execute};
use io_harness::store::NewRun;
use io_harness::{ApproveAll, Citation, EventKind, RunId, Store, ToolCall};

/// 93.184.216.34 in each IPv6 spelling that embeds it, on port 8080.
const SPELLINGS: [&str; 4] = [
    "http://[::ffff:93.184.216.34]:8080/x",
    "http://[::ffff:5db8:d822]:8080/x",
    "http://[::93.184.216.34]:8080/x",
    "http://[64:ff9b::5db8:d822]:8080/x",
];

fn one_run(urls: &[String]) -> (tempfile::TempDir, Store, RunId) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("runs.db")).unwrap();
    let run = store
        .begin_run(&NewRun {
            goal: "g".into(),
            provider: Vendor::Gemini,
            model: "m".into(),
            ..NewRun::default()
        })
        .unwrap();
    let cites: Vec<Citation> = urls
        .iter()
        .map(|u| Citation {
            url: u.clone(),
            title: None,
            cited_text: Some("secret text".into()),
        })
        .collect();
    store.record_citations(run, 1, &cites);
    (dir, store, run)
}

fn limits() -> Limits {
    Limits {
        max_bytes: 1 << 20,
        timeout: Duration::from_secs(2),
        parallel: 4,
    }
}

/// Allow everything, deny the one IPv4 address.
fn deny_v4() -> Policy {
    Policy::workspace_default()
        .layer("project")
        .allow(Act::Net, "*")
        .deny(Act::Net, "93.184.216.34")
}

#[tokio::test]
async fn check_sources_denies_every_ipv6_spelling_of_a_denied_ipv4_address() {
    let urls: Vec<String> = SPELLINGS.iter().map(|s| s.to_string()).collect();
    let (_dir, store, run) = one_run(&urls);
    let rows = check_run(&store, run, &deny_v4(), limits()).await.unwrap();
    for url in &urls {
        let r = rows.iter().find(|r| &r.url == url).unwrap();
        assert_eq!(
            (r.verdict.as_str(), r.detail.as_deref()),
            ("not_allowed", Some("denied by net:93.184.216.34")),
            "{url}"
        );
    }
}

/// `/go?to=LOCATION` answers 302 with that Location.
async fn redirector() -> u16 {
    let app = axum::Router::new().route(
        "/go",
        axum::routing::get(|uri: axum::http::Uri| async move {
            let to = url::form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
                .find(|(k, _)| k == "to")
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            (axum::http::StatusCode::FOUND, [("location", to)])
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    port
}

/// A page that counts the requests it answered.
async fn page() -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let app = axum::Router::new().fallback(move || {
        let h = h.clone();
        async move {
            h.fetch_add(1, Ordering::SeqCst);
            axum::response::Html("<p>secret text</p>")
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (port, hits)
}

/// A redirect on the same host, its Location spelled as a mapped, compatible or
/// NAT64 IPv6 address of 127.0.0.1, is the same host: followed, and decided
/// against the deny rule on the redirect's port; the denied page is never reached.
#[tokio::test]
async fn a_redirect_to_an_ipv6_spelling_of_the_same_host_meets_its_deny_rule() {
    use std::sync::atomic::Ordering;
    let from = redirector().await;
    let (b, hits) = page().await;
    let urls: Vec<String> = [
        format!("http://[::ffff:127.0.0.1]:{b}/"),
        format!("http://[::ffff:7f00:1]:{b}/"),
        format!("http://[::127.0.0.1]:{b}/"),
        format!("http://[64:ff9b::7f00:1]:{b}/"),
    ]
    .iter()
    .map(|l| {
        let to: String = url::form_urlencoded::byte_serialize(l.as_bytes()).collect();
        format!("http://127.0.0.1:{from}/go?to={to}")
    })
    .collect();
    let (_dir, store, run) = one_run(&urls);
    let policy = Policy::workspace_default()
        .layer("project")
        .allow(Act::Net, format!("127.0.0.1:{from}"))
        .deny(Act::Net, format!("127.0.0.1:{b}"));
    let rows = check_run(&store, run, &policy, limits()).await.unwrap();
    for url in &urls {
        let r = rows.iter().find(|r| &r.url == url).unwrap();
        assert_eq!(r.verdict.as_str(), "not_allowed", "{url}: {r:?}");
        let d = r.detail.as_deref().unwrap();
        assert!(
            d.starts_with(&format!("denied by net:127.0.0.1:{b}")),
            "{url}: {d}"
        );
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0);
}

/// Under "allow everything", a NAT64 spelling of loopback is loopback: refused
/// as this machine's own network, like the mapped and compatible ones.
#[tokio::test]
async fn check_sources_sees_loopback_through_every_ipv6_spelling() {
    let (b, hits) = page().await;
    let urls: Vec<String> = [
        format!("http://[::ffff:127.0.0.1]:{b}/"),
        format!("http://[::127.0.0.1]:{b}/"),
        format!("http://[64:ff9b::7f00:1]:{b}/"),
    ]
    .to_vec();
    let (_dir, store, run) = one_run(&urls);
    let policy = Policy::workspace_default()
        .layer("project")
        .allow(Act::Net, "*");
    let rows = check_run(&store, run, &policy, limits()).await.unwrap();
    for url in &urls {
        let r = rows.iter().find(|r| &r.url == url).unwrap();
        assert_eq!(r.verdict.as_str(), "not_allowed", "{url}: {r:?}");
        let d = r.detail.as_deref().unwrap();
        assert!(
            d.contains("a loopback, private or link-local address"),
            "{url}: {d}"
        );
    }
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 0);
}

async fn http_get(policy: &Policy, url: &str) -> io_harness::run::tools::ToolResult {
    let dir = tempfile::tempdir().unwrap();
    let emit = |_: EventKind| {};
    let env = ToolEnv {
        workspace: dir.path(),
        policy,
        approver: &ApproveAll,
        emit: &emit,
    };
    let call = ToolCall {
        id: "t".into(),
        name: "http_get".into(),
        input: serde_json::json!({ "url": url }),
    };
    execute(&env, &call).await
}

#[tokio::test]
async fn http_get_denies_every_ipv6_spelling_of_a_denied_ipv4_address() {
    let policy = deny_v4();
    for url in SPELLINGS {
        let r = http_get(&policy, url).await;
        assert!(!r.ok, "{url}");
        assert_eq!(
            r.output,
            "refused: net 93.184.216.34:8080 is denied by rule deny(\"93.184.216.34\") in layer \"project\"",
            "{url}"
        );
    }
}

#[tokio::test]
async fn http_get_sees_loopback_through_a_nat64_spelling() {
    let (b, hits) = page().await;
    let policy = Policy::workspace_default()
        .layer("project")
        .allow(Act::Net, "*");
    for url in [
        format!("http://[64:ff9b::7f00:1]:{b}/"),
        format!("http://[64:ff9b::127.0.0.1]:{b}/"),
    ] {
        let r = http_get(&policy, &url).await;
        assert!(!r.ok, "{url}");
        assert!(
            r.output
                .contains("a loopback, private or link-local address"),
            "{url}: {}",
            r.output
        );
    }
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 0);
}
