//! Stdio MCP through `rmcp` against a real third-party server
//! (`@modelcontextprotocol/server-everything` from the npm registry, installed into
//! the target directory on first use — `.ci/run` installs it up front): its tools
//! are offered as `mcp__everything__<tool>`, a call's result is the next
//! observation, a server killed mid-run ends the run cleanly, and a server that
//! cannot start or speaks garbage is an error naming it, never a hang.

#![cfg(all(feature = "mcp", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use common::*;
use io_harness::RunOutcome;
use io_harness::mcp::McpDef;
use io_harness::mcp::McpServers;
use io_harness::run::RunOptions;

/// The pinned server, installed once per target directory. Without npm (or
/// the npm registry) every test here fails with the same one message saying so;
/// the install is tried once, not once per test.
fn everything() -> PathBuf {
    static INSTALL: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match INSTALL.get_or_init(install) {
        Ok(bin) => bin.clone(),
        Err(why) => panic!("{why}"),
    }
}

fn install() -> Result<PathBuf, String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mcp-everything");
    let bin = dir.join("node_modules/.bin/mcp-server-everything");
    if bin.exists() {
        return Ok(bin);
    }
    let need = "the MCP tests need Node.js with npm on PATH and the npm registry reachable, to install @modelcontextprotocol/server-everything into target/tmp";
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("{need}: cannot create {}: {e}", dir.display()))?;
    let status = std::process::Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
        .arg("@modelcontextprotocol/server-everything@2026.8.31")
        .status()
        .map_err(|e| format!("{need}; running `npm` failed: {e}"))?;
    if !status.success() || !bin.exists() {
        return Err(format!("{need}; `npm install` ended with {status}"));
    }
    Ok(bin)
}

fn def() -> McpDef {
    McpDef {
        name: "everything".into(),
        command: everything().display().to_string(),
        net: vec!["example.com".into()],
        ..McpDef::default()
    }
}

const ECHO: &str = r#"{"type":"message","model":"m","content":[{"type":"tool_use","id":"toolu_e","name":"mcp__everything__echo","input":{"message":"hello from io-harness"}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":3}}"#;

async fn run(h: &Harness, mcp: Arc<McpServers>) -> io_harness::RunResult {
    let options = RunOptions {
        mcp: Some(mcp),
        ..RunOptions::default()
    };
    let run = h.run_with(contract("echo something"), options);
    tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the run hung")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_server_s_tool_is_offered_called_and_observed() {
    let mcp = Arc::new(
        McpServers::start(&[def()], Duration::from_secs(30))
            .await
            .unwrap(),
    );
    let names: Vec<String> = mcp.specs().into_iter().map(|s| s.name).collect();
    assert!(
        names.contains(&"mcp__everything__echo".to_string()),
        "{names:?}"
    );
    let h = Harness::new(vec![ok(ECHO), ok(ANSWER)]).await;
    let r = run(&h, mcp).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let bodies = h.bodies();
    let offered = serde_json::to_string(&bodies[0]["tools"]).unwrap();
    assert!(
        offered.contains("\"name\":\"mcp__everything__echo\""),
        "{offered}"
    );
    let next = user_text(&bodies[1]);
    assert!(
        next.contains("mcp__everything__echo") && next.contains("hello from io-harness"),
        "{next}"
    );
    // What the server stated it may reach is recorded with the run, as stated.
    let db = rusqlite::Connection::open(h.db.path().join("runs.db")).unwrap();
    let declared: String = db
        .query_row(
            "SELECT mcp_declared_json FROM runs WHERE run_id = ?1",
            [r.run_id.0],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(declared, r#"{"everything":["example.com"]}"#);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_run_is_an_observation_and_the_run_ends() {
    let mcp = Arc::new(
        McpServers::start(&[def()], Duration::from_secs(5))
            .await
            .unwrap(),
    );
    let pid = mcp.pid("everything").unwrap();
    let h = Harness::new(vec![delayed(ECHO, 800), ok(ANSWER)]).await;
    let killer = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap();
    });
    let r = run(&h, mcp).await;
    killer.await.unwrap();
    assert_eq!(
        r.outcome,
        RunOutcome::Passed,
        "the run went on to its answer"
    );
    let next = user_text(&h.bodies()[1]);
    assert!(next.contains("MCP server \"everything\""), "{next}");
}

#[tokio::test]
async fn a_server_that_cannot_start_or_speaks_garbage_is_named() {
    let missing = McpDef {
        name: "ghost".into(),
        command: "/nonexistent/mcp-server".into(),
        ..McpDef::default()
    };
    let e = McpServers::start(&[missing], Duration::from_secs(2))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("MCP server \"ghost\" (/nonexistent/mcp-server): cannot start it"),
        "{e}"
    );
    let garbage = McpDef {
        name: "noise".into(),
        command: "sh".into(),
        args: vec!["-c".into(), "echo 'this is not json-rpc'; sleep 30".into()],
        ..McpDef::default()
    };
    let started = std::time::Instant::now();
    let e = McpServers::start(&[garbage], Duration::from_secs(2))
        .await
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("MCP server \"noise\" (sh): "), "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
}
