//! Issue 26: `check-sources` against pages that try to get past its boundary —
//! hosts written with a trailing dot, redirects on the same host to a port the
//! policy denies (in every number form of the address, with credentials), a page
//! nested deep enough to make a parser crawl, and pages in other charsets. Real
//! loopback servers, a real store; the verdicts are what is checked.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use io_harness::check::{Limits, check_run};
use io_harness::core::policy::{Act, Policy};
use io_harness::store::NewRun;
use io_harness::store::checks::CheckRow;
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
            provider: "anthropic".into(),
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

fn row<'a>(rows: &'a [CheckRow], url: &str) -> &'a CheckRow {
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
        assert_eq!(r.verdict, "not_allowed", "{url}: {r:?}");
        assert_eq!(
            r.detail.as_deref(),
            Some(format!("denied by {rule}").as_str())
        );
    }
}
