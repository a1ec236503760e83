//! Per-agent web narrowing (issue 38): the researcher searches, the writer does
//! not. A child's declaration is its parent's narrowed by its own `[[agent]]
//! web` table; widening is refused at load naming the agent, the key, the file
//! and line and what the root allows; `preview --agent` shows the bytes the
//! child sends.

#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

use crate::common::cli::{bin, run};
use crate::common::*;
use io_harness::run::RunOptions;
use io_harness::stub::ScriptedResponse;
use io_harness::{Config, RunOutcome, WebAccess};
use pretty_assertions::assert_eq;

const IO_TOML: &str = r#"provider = "anthropic"

[web]
search = true
max_uses = 4
allowed_domains = ["docs.rs", "crates.io"]

[[agent]]
name = "researcher"
instructions = "Research; answer in one line."
web = { search = true, max_uses = 2, allowed_domains = ["docs.rs"] }

[[agent]]
name = "writer"
instructions = "Write the note."
web = { search = false }
"#;

fn spawn(agent: &str, task: &str) -> String {
    format!(
        r#"{{"type":"message","model":"m","content":[{{"type":"tool_use","id":"toolu_{agent}","name":"spawn_agent","input":{{"agent":"{agent}","task":"{task}"}}}}],"stop_reason":"tool_use","usage":{{"input_tokens":30,"output_tokens":7}}}}"#
    )
}

const CHILD_ANSWER: &str = r#"{"type":"message","model":"m","content":[{"type":"text","text":"0.22.0"}],"stop_reason":"end_turn","usage":{"input_tokens":20,"output_tokens":3}}"#;

fn web_tools(body: &serde_json::Value) -> Vec<serde_json::Value> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"].as_str().is_some_and(|k| k.starts_with("web_")))
        .cloned()
        .collect()
}

/// A run of `IO_TOML`'s declaration and roster on the stub answering `script`:
/// the harness, the run's contract and its result.
async fn roster_run(
    script: Vec<ScriptedResponse>,
) -> (
    Config,
    Harness,
    io_harness::TaskContract,
    io_harness::RunResult,
) {
    let config = Config::parse(IO_TOML, "io.toml").unwrap();
    let h = Harness::new(script).await;
    let mut c = contract("release note");
    c.web = config.web.clone();
    let options = RunOptions {
        agents: config.agents.clone(),
        ..RunOptions::default()
    };
    let r = h.run_with(c.clone(), options).await;
    (config, h, c, r)
}

#[tokio::test]
async fn the_researcher_searches_and_the_writer_does_not() {
    let (_, h, _, r) = roster_run(vec![
        ok(&spawn("researcher", "find the release")),
        ok(CHILD_ANSWER),
        ok(&spawn("writer", "write it down")),
        ok(CHILD_ANSWER),
        ok(ANSWER),
    ])
    .await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let bodies = h.bodies();
    assert_eq!(bodies.len(), 5);
    // The root: its own declaration.
    let root = web_tools(&bodies[0]);
    assert_eq!(root.len(), 1);
    assert_eq!(root[0]["max_uses"], 4);
    // The researcher: search, narrowed to its own cap and host.
    let researcher = web_tools(&bodies[1]);
    assert_eq!(researcher.len(), 1, "{:#}", bodies[1]);
    assert_eq!(researcher[0]["max_uses"], 2);
    assert_eq!(
        researcher[0]["allowed_domains"],
        serde_json::json!(["docs.rs"])
    );
    // The writer: no web tool at all.
    assert_eq!(
        web_tools(&bodies[3]),
        Vec::<serde_json::Value>::new(),
        "{:#}",
        bodies[3]
    );
    // Each child's row records its own declaration, not the root's.
    let children = h.store.children(r.run_id).unwrap();
    assert_eq!(children.len(), 2);
    let web_of = |id: io_harness::RunId| -> Option<WebAccess> {
        let conn = rusqlite::Connection::open(h.db.path().join("runs.db")).unwrap();
        let json: Option<String> = conn
            .query_row("SELECT web_json FROM runs WHERE run_id = ?1", [id.0], |r| {
                r.get(0)
            })
            .unwrap();
        json.map(|j| serde_json::from_str(&j).unwrap())
    };
    let researcher = web_of(children[0].run_id).unwrap();
    assert_eq!((researcher.search, researcher.max_uses), (true, Some(2)));
    let writer = web_of(children[1].run_id).unwrap();
    assert!(!writer.enabled(), "{writer:?}");
    assert_eq!(
        children.iter().map(|c| c.agent.clone()).collect::<Vec<_>>(),
        [Some("researcher".to_string()), Some("writer".to_string())]
    );
    // Each child's start says which agent it is and what it may do (traces and
    // `run --json` read it there); the Run pane marks which agent searched.
    let events = h.events.0.lock().unwrap().clone();
    let starts: Vec<(Option<String>, bool)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            io_harness::EventKind::RunStarted { agent, web, .. } => {
                Some((agent.clone(), web.as_ref().is_some_and(|w| w.search)))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        starts,
        [
            (None, true),
            (Some("researcher".into()), true),
            (Some("writer".into()), false)
        ]
    );
    let mut state = crate::common::console::state();
    for e in events {
        io_harness::console::testing::update(
            &mut state,
            io_harness::console::testing::Msg::Run(Box::new(e)),
        );
    }
    let log: Vec<&str> = state.run.log.iter().map(|(_, l, _)| l.as_str()).collect();
    assert!(
        log.iter().any(|l| l.contains("child 2 (researcher)")),
        "{log:#?}"
    );
    assert!(
        log.iter().any(|l| l.contains("child 3 (writer)")),
        "{log:#?}"
    );
}

/// The same bytes: `preview --agent researcher` (through the plan) and the
/// request the researcher sent when the run spawned it.
#[tokio::test]
async fn preview_agent_is_the_body_the_child_sends() {
    let (config, h, c, _) = roster_run(vec![
        ok(&spawn("researcher", "find the release")),
        ok(CHILD_ANSWER),
        ok(ANSWER),
    ])
    .await;
    let vendor = h.provider.endpoint().vendor;
    let mut plan = io_harness::launch::Plan::of(&config, false);
    let setup = plan.vendors.get_mut(&vendor).unwrap();
    setup.endpoint = h.provider.endpoint().clone();
    setup.model = "m".into();
    setup.max_tokens = 256;
    let preview = plan
        .preview_agent(&c, vendor, None, "researcher", "find the release")
        .unwrap();
    let shown: serde_json::Value = serde_json::from_slice(&preview.request.unwrap().body).unwrap();
    let sent: serde_json::Value = serde_json::from_slice(&h.stub.requests()[1].body).unwrap();
    assert_eq!(shown, sent);
}

/// Each way of widening is a configuration error at load (exit 2, before any
/// request), naming the agent, the key, the file and line, and what the root allows.
#[test]
fn widening_is_refused_at_load_naming_the_agent_and_the_line() {
    let root = "[web]\nsearch = true\nmax_uses = 3\nallowed_domains = [\"docs.rs\"]\n";
    let cases = [
        (
            "web = { search = true, fetch = true }",
            "`fetch` in [[agent.web]] #1: agent \"writer\" asks for fetch = true, but the root's [web] does not fetch (fetch = false)",
        ),
        (
            "web = { search = true, max_uses = 9 }",
            "`max_uses` in [[agent.web]] #1: agent \"writer\" asks for max_uses = 9, but the root's [web] caps web tool use at max_uses = 3",
        ),
        (
            "web = { search = true, allowed_domains = [\"evil.test\"] }",
            "`allowed_domains` in [[agent.web]] #1: agent \"writer\" asks for the host evil.test, but the root's [web] allows only docs.rs (not evil.test)",
        ),
    ];
    for (table, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        let toml = format!("{root}\n[[agent]]\nname = \"writer\"\n{table}\n");
        std::fs::write(dir.path().join("io.toml"), &toml).unwrap();
        let (code, out, err) = run(bin()
            .current_dir(dir.path())
            .args(["preview", "--config", "io.toml"]));
        assert_eq!(code, 2, "{table}: {out}{err}");
        assert!(
            err.contains(&format!("io.toml:8: {want}")),
            "{table}:\n{err}"
        );
        assert!(err.contains("never widens it"), "{err}");
    }
    // Search asked of a root that declares no web access at all.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("io.toml"),
        "[[agent]]\nname = \"researcher\"\nweb = { search = true }\n",
    )
    .unwrap();
    let (code, _, err) = run(bin()
        .current_dir(dir.path())
        .args(["config", "--config", "io.toml"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("io.toml:3: `search` in [[agent.web]] #1: agent \"researcher\" asks for search = true, but the root's [web] does not search"),
        "{err}"
    );
}
