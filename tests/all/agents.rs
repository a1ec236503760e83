//! Sub-agents, sessions and fallback chains against the loopback stub: a spawned
//! child carries the root's web declaration byte for byte whatever the spawn
//! arguments say; a root without web spawns a child without; `Session::turn` never
//! carries web; a chain that one member would refuse sends nothing; a failing
//! member hands over and the rows say who answered.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use io_harness::run::AgentDef;
use io_harness::run::{RunOptions, Session, run_with_options};
use io_harness::{
    ApiKey, ApproveAll, Config, Endpoint, Fallback, HttpProvider, Policy, Provider, RetryPolicy,
    RunOutcome, Vendor, WebAccess,
};
use pretty_assertions::assert_eq;

/// A spawn whose arguments try to widen the child's web access.
const SPAWN_GREEDY: &str = r#"{"type":"message","model":"m","content":[{"type":"tool_use","id":"toolu_s","name":"spawn_agent","input":{"agent":"researcher","task":"find the release","web":{"search":true,"fetch":true,"allowed_domains":["evil.example"]},"allowed_domains":["evil.example"],"blocked_domains":["docs.rs"]}}],"stop_reason":"tool_use","usage":{"input_tokens":30,"output_tokens":7}}"#;
const CHILD_ANSWER: &str = r#"{"type":"message","model":"m","content":[{"type":"text","text":"0.22.0"}],"stop_reason":"end_turn","usage":{"input_tokens":20,"output_tokens":3}}"#;

fn roster() -> Vec<AgentDef> {
    vec![AgentDef {
        name: "researcher".into(),
        description: "looks things up".into(),
        instructions: "You research; answer in one line.".into(),
        ..AgentDef::default()
    }]
}

fn web_entries(body: &serde_json::Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter(|t| t["type"].as_str().is_some_and(|k| k.starts_with("web_")))
                .map(|t| serde_json::to_string(t).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

async fn spawn_run(h: &Harness, web: Option<WebAccess>) -> io_harness::RunResult {
    let mut c = contract("get the release via the researcher");
    c.web = web;
    let options = RunOptions {
        agents: roster(),
        ..RunOptions::default()
    };
    h.run_with(c, options).await
}

#[tokio::test]
async fn a_child_carries_the_roots_declaration_whatever_the_spawn_asks() {
    let h = Harness::new(vec![ok(SPAWN_GREEDY), ok(CHILD_ANSWER), ok(ANSWER)]).await;
    let web = WebAccess::search().max_uses(2).allow("crates.io");
    let r = spawn_run(&h, Some(web)).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let bodies = h.bodies();
    assert_eq!(bodies.len(), 3);
    let root = web_entries(&bodies[0]);
    assert_eq!(root.len(), 1);
    assert_eq!(
        web_entries(&bodies[1]),
        root,
        "the child's web entry, byte for byte"
    );
    assert!(
        !h.stub.requests()[1]
            .body
            .windows(12)
            .any(|w| w == b"evil.example")
    );
    // The child's goal is its instructions and task; the root hears its answer.
    assert!(
        user_text(&bodies[1])
            .starts_with("You research; answer in one line.\n\nTask: find the release")
    );
    assert!(
        user_text(&bodies[2]).contains("child run 2 (researcher) passed: 0.22.0"),
        "{}",
        user_text(&bodies[2])
    );
    // Linked, own rows, cost charged to the root.
    let children = h.store.children(r.run_id).unwrap();
    assert_eq!(children.len(), 1);
    assert_eq!(children[0].parent_run_id, Some(r.run_id));
    assert_eq!(h.store.provider_calls(children[0].run_id).unwrap().len(), 1);
    assert_eq!(h.store.provider_calls(r.run_id).unwrap().len(), 2);
    assert_eq!(r.usage.input_tokens, 30 + 20 + 10);
}

#[tokio::test]
async fn a_root_without_web_spawns_a_child_without() {
    let h = Harness::new(vec![ok(SPAWN_GREEDY), ok(CHILD_ANSWER), ok(ANSWER)]).await;
    let r = spawn_run(&h, None).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let bodies = h.bodies();
    assert_eq!(web_entries(&bodies[0]), Vec::<String>::new());
    assert_eq!(web_entries(&bodies[1]), Vec::<String>::new());
    assert!(
        !serde_json::to_string(&bodies[1])
            .unwrap()
            .contains("evil.example")
    );
}

#[tokio::test]
async fn nesting_is_bounded() {
    // Root spawns, the child spawns, the grandchild would be depth 2: refused.
    let h = Harness::new(vec![
        ok(SPAWN_GREEDY),
        ok(SPAWN_GREEDY),
        ok(CHILD_ANSWER),
        ok(ANSWER),
    ])
    .await;
    let options = RunOptions {
        agents: roster(),
        max_depth: 1,
        ..RunOptions::default()
    };
    let r = h.run_with(contract("nest"), options).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let bodies = h.bodies();
    // The child (depth 1) is not offered spawn_agent, and its call is refused.
    let names = |b: &serde_json::Value| {
        b["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap_or("").to_string())
            .collect::<Vec<_>>()
    };
    assert!(names(&bodies[0]).contains(&"spawn_agent".to_string()));
    assert!(!names(&bodies[1]).contains(&"spawn_agent".to_string()));
    assert!(
        user_text(&bodies[2])
            .contains("spawn_agent refused: agents may nest 1 deep and this run is at depth 1"),
        "{}",
        user_text(&bodies[2])
    );
}

#[tokio::test]
async fn a_session_turn_never_carries_web_and_a_bounded_turn_does() {
    let h = Harness::new(vec![ok(ANSWER), ok(ANSWER)]).await;
    let config = Config::parse(
        "[web]\nsearch = true\nallowed_domains = [\"docs.rs\"]\n",
        "io.toml",
    )
    .unwrap();
    let declared = config.task_contract();
    assert!(declared.web.is_some());
    let policy = Policy::workspace_default();
    let session = Session::new(
        &h.provider,
        &h.store,
        &policy,
        &ApproveAll,
        h.workspace.path(),
        "chat",
    )
    .unwrap();
    assert_eq!(
        session.turn("hello").await.unwrap().outcome,
        RunOutcome::Passed
    );
    let mut bounded = declared.clone();
    bounded.workspace = h.workspace.path().to_path_buf();
    session.turn_bounded("now search", &bounded).await.unwrap();
    let bodies = h.bodies();
    assert_eq!(
        web_entries(&bodies[0]),
        Vec::<String>::new(),
        "a plain turn has no web access"
    );
    assert_eq!(web_entries(&bodies[1]).len(), 1);
    assert_eq!(user_text(&bodies[1]), "now search");
    let runs = session.runs().unwrap();
    assert_eq!(
        runs.iter().map(|r| r.goal.as_str()).collect::<Vec<_>>(),
        ["hello", "now search"]
    );
    assert!(runs.iter().all(|r| r.session_id == Some(session.id())));
}

fn member(h: &Harness, vendor: Vendor, model: &str) -> Box<dyn Provider> {
    let endpoint = Endpoint {
        vendor,
        wire: io_harness::Wire::spec(vendor),
        base_url: h.stub.base_url(vendor),
        api_key_env: "IO_HARNESS_TEST_KEY".into(),
        stream: false,
        responses_state: Default::default(),
        search: Default::default(),
    };
    Box::new(
        HttpProvider::new(endpoint, model, 256)
            .with_api_key(ApiKey::new("sk-test"))
            .with_retry(RetryPolicy {
                base_delay: std::time::Duration::from_millis(5),
                ..RetryPolicy::default()
            }),
    )
}

/// A "find it" run of `chain` in the harness workspace, declaring `web`.
async fn run_chain(
    h: &Harness,
    chain: &Fallback,
    web: Option<WebAccess>,
) -> io_harness::Result<io_harness::RunResult> {
    let mut c = contract("find it");
    c.web = web;
    c.workspace = h.workspace.path().to_path_buf();
    let policy = Policy::workspace_default();
    run_with_options(
        &c,
        chain,
        &h.store,
        &policy,
        &ApproveAll,
        RunOptions::default(),
    )
    .await
}

#[tokio::test]
async fn a_chain_with_openrouter_refuses_an_allow_list_before_sending() {
    let h = Harness::new(vec![ok(ANSWER)]).await;
    let chain = Fallback::new(vec![
        member(&h, Vendor::Anthropic, "m"),
        member(&h, Vendor::OpenRouter, "openai/gpt-5.2"),
    ])
    .unwrap();
    let e = run_chain(&h, &chain, Some(WebAccess::search().allow("docs.rs")))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("provider \"openrouter\" cannot restrict search to individual domains"),
        "{e}"
    );
    assert!(e.ends_with("No request was sent."), "{e}");
    assert_eq!(h.stub.requests().len(), 0);
    assert_eq!(h.store.runs(None).unwrap().len(), 0, "no run was started");
}

const OPENAI_ANSWER: &str = r#"{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-5-search-api","choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":2,"total_tokens":13}}"#;

#[tokio::test]
async fn a_failing_member_hands_over_and_the_rows_say_who_answered() {
    let down = |v| io_harness::stub::ScriptedResponse {
        vendor: Some(v),
        ..status(
            500,
            r#"{"type":"error","error":{"type":"api_error","message":"down"}}"#,
            &[],
        )
    };
    let answer = io_harness::stub::ScriptedResponse {
        vendor: Some(Vendor::OpenAi),
        ..ok(OPENAI_ANSWER)
    };
    let h = Harness::new(vec![
        down(Vendor::Anthropic),
        down(Vendor::Anthropic),
        down(Vendor::Anthropic),
        answer,
    ])
    .await;
    let chain = Fallback::new(vec![
        member(&h, Vendor::Anthropic, "m"),
        member(&h, Vendor::OpenAi, "gpt-5-search-api"),
    ])
    .unwrap();
    let r = run_chain(&h, &chain, Some(WebAccess::search()))
        .await
        .unwrap();
    assert_eq!(r.outcome, RunOutcome::Passed);
    let paths: Vec<String> = h.stub.requests().iter().map(|q| q.path.clone()).collect();
    assert_eq!(
        paths,
        [
            "/v1/messages",
            "/v1/messages",
            "/v1/messages",
            "/v1/chat/completions"
        ]
    );
    let calls = h.store.provider_calls(r.run_id).unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        (calls[0].provider.as_str(), calls[0].model.as_str()),
        ("openai", "gpt-5-search-api")
    );
}

#[tokio::test]
async fn a_4xx_the_next_member_would_also_get_does_not_hand_over() {
    let bad = io_harness::stub::ScriptedResponse {
        vendor: Some(Vendor::Anthropic),
        ..status(
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}"#,
            &[],
        )
    };
    let h = Harness::new(vec![bad]).await;
    let chain = Fallback::new(vec![
        member(&h, Vendor::Anthropic, "m"),
        member(&h, Vendor::OpenAi, "gpt-5-search-api"),
    ])
    .unwrap();
    let r = run_chain(&h, &chain, None).await.unwrap();
    assert!(
        matches!(r.outcome, RunOutcome::Error { .. }),
        "{:?}",
        r.outcome
    );
    assert_eq!(h.stub.requests().len(), 1);
}

#[tokio::test]
async fn a_childs_requests_count_toward_the_roots_step_budget() {
    let list = tool_use("list_dir", r#"{"path":"."}"#);
    // Root step 1 spawns; the child gets the 2 steps left and spends them; the
    // root then has none, so it makes no further request.
    let h = Harness::new(vec![ok(SPAWN_GREEDY), ok(&list), ok(&list), ok(ANSWER)]).await;
    let c = contract("bounded").with_budget(io_harness::Budget {
        steps: 3,
        ..io_harness::Budget::default()
    });
    let options = RunOptions {
        agents: roster(),
        ..RunOptions::default()
    };
    let r = h.run_with(c, options).await;
    assert_eq!(
        r.outcome,
        RunOutcome::BudgetExhausted {
            budget: io_harness::BudgetKind::Steps
        }
    );
    assert_eq!(
        h.stub.requests().len(),
        3,
        "1 root + 2 child requests, no more"
    );
    let child = &h.store.children(r.run_id).unwrap()[0];
    assert_eq!(child.outcome.map(|o| o.as_str()), Some("budget_exhausted"));
}
