//! Local tools against a real temp workspace: confinement, policy gates, approvals.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use std::sync::Mutex;

use io_harness::core::policy::{Act, Policy};
use io_harness::run::tools::{ToolEnv, execute};
use io_harness::{ApproveAll, Approver, DenyAll, EventKind, ToolCall};
use serde_json::json;

fn call(name: &str, input: serde_json::Value) -> ToolCall {
    ToolCall {
        id: "t1".into(),
        name: name.into(),
        input,
    }
}

async fn run(
    dir: &std::path::Path,
    policy: &Policy,
    approver: &dyn Approver,
    c: ToolCall,
) -> (io_harness::run::tools::ToolResult, Vec<EventKind>) {
    let events = Mutex::new(Vec::new());
    let emit = |e: EventKind| events.lock().unwrap().push(e);
    let env = ToolEnv {
        workspace: dir,
        policy,
        approver,
        emit: &emit,
    };
    let r = execute(&env, &c).await;
    (r, events.into_inner().unwrap())
}

#[tokio::test]
async fn read_write_list_search_inside_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let policy = Policy::default()
        .layer("t")
        .allow(Act::Read, "**")
        .allow(Act::Write, "**");
    let (r, _) = run(
        dir.path(),
        &policy,
        &DenyAll,
        call(
            "write_file",
            json!({"path": "docs/a.md", "content": "install it\n"}),
        ),
    )
    .await;
    assert!(r.ok, "{}", r.output);
    assert_eq!(r.output, "wrote 11 bytes to docs/a.md");
    let (r, _) = run(
        dir.path(),
        &policy,
        &DenyAll,
        call("read_file", json!({"path": "docs/a.md"})),
    )
    .await;
    assert_eq!(r.output, "install it\n");
    let (r, _) = run(
        dir.path(),
        &policy,
        &DenyAll,
        call("list_dir", json!({"path": "."})),
    )
    .await;
    assert_eq!(r.output, "docs/");
    let (r, _) = run(
        dir.path(),
        &policy,
        &DenyAll,
        call("search_text", json!({"pattern": "inst+all"})),
    )
    .await;
    assert_eq!(r.output, "docs/a.md:1: install it");
}

#[tokio::test]
async fn escapes_bad_arguments_and_unknown_tools_are_results_not_crashes() {
    let dir = tempfile::tempdir().unwrap();
    let policy = Policy::default().layer("t").allow(Act::Read, "**");
    for (c, want) in [
        (
            call("read_file", json!({"path": "../../etc/passwd"})),
            "workspace",
        ),
        (
            call("read_file", json!({})),
            "needs a string argument \"path\"",
        ),
        (call("search_text", json!({"pattern": "("})), "bad pattern"),
        (
            call("teleport", json!({})),
            "no local tool named \"teleport\"",
        ),
        (
            call("http_get", json!({"url": "file:///etc/passwd"})),
            "http and https URLs only",
        ),
    ] {
        let (r, _) = run(dir.path(), &policy, &ApproveAll, c).await;
        assert!(!r.ok);
        assert!(r.output.contains(want), "{}", r.output);
    }
}

#[tokio::test]
async fn a_write_denied_by_policy_names_the_rule_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let policy = Policy::default()
        .layer("defaults")
        .allow(Act::Write, "**")
        .layer("project")
        .deny(Act::Write, "secrets/**");
    let (r, events) = run(
        dir.path(),
        &policy,
        &ApproveAll,
        call("write_file", json!({"path": "secrets/k", "content": "x"})),
    )
    .await;
    assert!(!r.ok);
    assert_eq!(
        r.output,
        "refused: write secrets/k is denied by rule deny(\"secrets/**\") in layer \"project\""
    );
    assert!(events.is_empty());
    assert!(!dir.path().join("secrets").exists());
}

#[tokio::test]
async fn ask_goes_to_the_approver_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let policy = Policy::workspace_default();
    let (r, events) = run(
        dir.path(),
        &policy,
        &ApproveAll,
        call("write_file", json!({"path": "a.txt", "content": "x"})),
    )
    .await;
    assert!(r.ok);
    assert!(
        matches!(&events[0], EventKind::ApprovalAsked { act: Act::Write, target, tool, .. } if target == "a.txt" && tool == "write_file")
    );
    assert_eq!(events[1], EventKind::ApprovalAnswered { approved: true });
    let (r, events) = run(
        dir.path(),
        &policy,
        &DenyAll,
        call("write_file", json!({"path": "b.txt", "content": "x"})),
    )
    .await;
    assert!(!r.ok);
    assert_eq!(r.output, "refused: the approver said no to write b.txt");
    assert_eq!(events[1], EventKind::ApprovalAnswered { approved: false });
    assert!(!dir.path().join("b.txt").exists());
}

#[tokio::test]
async fn http_get_is_gated_by_net_rules_for_the_exact_host_and_port() {
    let dir = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app =
        axum::Router::new().route("/", axum::routing::get(|| async { "hello from loopback" }));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let url = format!("http://127.0.0.1:{port}/");
    let denied = Policy::default().layer("t").deny_net("127.0.0.1");
    let (r, _) = run(
        dir.path(),
        &denied,
        &ApproveAll,
        call("http_get", json!({"url": url})),
    )
    .await;
    assert!(
        r.output.starts_with("refused: net 127.0.0.1:"),
        "{}",
        r.output
    );
    let allowed = Policy::default()
        .layer("t")
        .allow_net(format!("127.0.0.1:{port}"));
    let (r, _) = run(
        dir.path(),
        &allowed,
        &DenyAll,
        call("http_get", json!({"url": url})),
    )
    .await;
    assert_eq!(r.output, "HTTP 200\nhello from loopback");
}

/// Issue 9, defect 16: with every ask approved, `http_get` reached loopback and
/// private ranges. Only a rule that names the host opens them.
#[tokio::test]
async fn http_get_refuses_loopback_private_and_link_local_unless_a_rule_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = axum::Router::new().route("/", axum::routing::get(|| async { "internal" }));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let policy = Policy::workspace_default();
    for url in [
        format!("http://127.0.0.1:{port}/"),
        // The name is not the address: localhost resolves to loopback.
        format!("http://localhost:{port}/"),
        "http://[::1]/".to_string(),
        "http://[::ffff:127.0.0.1]/".to_string(),
        "http://10.1.2.3/".to_string(),
        "http://192.168.0.1/".to_string(),
        "http://172.16.0.1/".to_string(),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://[fe80::1]/".to_string(),
        "http://[fd00::1]/".to_string(),
        "http://0.0.0.0/".to_string(),
    ] {
        let (r, _) = run(
            dir.path(),
            &policy,
            &ApproveAll,
            call("http_get", json!({"url": url})),
        )
        .await;
        assert!(!r.ok, "{url}: {}", r.output);
        assert!(
            r.output.contains("loopback, private or link-local")
                && r.output.contains("[policy] allow"),
            "{url}: {}",
            r.output
        );
    }
    // A rule that names the host (not `*`) opens it, by name or by address.
    for (rule, url) in [
        (
            format!("localhost:{port}"),
            format!("http://localhost:{port}/"),
        ),
        ("127.0.0.1".to_string(), format!("http://127.0.0.1:{port}/")),
    ] {
        let named = Policy::workspace_default().layer("project").allow_net(rule);
        let (r, _) = run(
            dir.path(),
            &named,
            &DenyAll,
            call("http_get", json!({"url": url})),
        )
        .await;
        assert_eq!(r.output, "HTTP 200\ninternal", "{url}");
    }
    // `*` names no host: an operator's allow-everything still does not open loopback.
    let everything = Policy::workspace_default().layer("project").allow_net("*");
    let (r, _) = run(
        dir.path(),
        &everything,
        &DenyAll,
        call(
            "http_get",
            json!({"url": format!("http://127.0.0.1:{port}/")}),
        ),
    )
    .await;
    assert!(!r.ok, "{}", r.output);
}

/// A redirect is never followed: a public page cannot bounce the fetch onto a
/// private address. The hop is reported for the model to ask for, gated again.
#[tokio::test]
async fn http_get_does_not_follow_a_redirect_to_a_private_address() {
    let dir = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = axum::Router::new().route(
        "/",
        axum::routing::get(|| async {
            (
                axum::http::StatusCode::FOUND,
                [("location", "http://169.254.169.254/latest/meta-data/")],
            )
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let policy = Policy::default()
        .layer("project")
        .allow_net(format!("127.0.0.1:{port}"));
    let (r, _) = run(
        dir.path(),
        &policy,
        &ApproveAll,
        call(
            "http_get",
            json!({"url": format!("http://127.0.0.1:{port}/")}),
        ),
    )
    .await;
    assert_eq!(
        r.output,
        "HTTP 302 redirect to http://169.254.169.254/latest/meta-data/ (not followed; ask for it to fetch it)"
    );
}
