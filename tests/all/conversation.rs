//! A real conversation: in `"transcript"` mode each wire gets the vendor's own
//! blocks back, a paused Anthropic turn is continued by resending its content
//! unchanged, caching marks the prefix, a resumed run re-sends byte for byte what
//! the uninterrupted run sent, and a damaged stored transcript is refused.

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

use std::time::Duration;

use common::*;
use io_harness::core::transcript::{CacheTtl, Conversation, Exchange, ResponsesState, ToolReturn};
use io_harness::run::RunOptions;
use io_harness::{RunOutcome, TaskContract, Vendor, Wire};
use serde_json::{Value, json};

fn transcript(goal: &str) -> TaskContract {
    let mut c = contract(goal);
    c.conversation = Conversation::Transcript;
    c
}

fn content_of(body: &str) -> Value {
    serde_json::from_str::<Value>(body).unwrap()["content"].clone()
}

const LIST_THEN_SEARCH: &str = SEARCH_FAILED_THEN_TOOL;

/// Run `c` until its `n`th request is in flight, then drop it there, as a killed
/// process would leave it: the run unfinished, that request unanswered.
async fn interrupted_at(h: &Harness, c: &TaskContract, n: usize) {
    tokio::select! {
        _ = h.run(c.clone()) => panic!("the run should still be waiting on request {n}"),
        _ = async {
            while h.stub.requests().len() < n {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        } => {}
    }
}

#[tokio::test]
async fn anthropic_gets_its_blocks_back_then_one_tool_result_per_tool_use() {
    let h = Harness::new(vec![ok(LIST_THEN_SEARCH), ok(ANSWER)]).await;
    let result = h.run(transcript("look around")).await;
    assert_eq!(result.outcome, RunOutcome::Passed);
    let bodies = h.bodies();
    let messages = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert_eq!(
        messages[0],
        json!({"role": "user", "content": "look around"})
    );
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(
        messages[1]["content"],
        content_of(LIST_THEN_SEARCH),
        "the answer's content goes back unchanged, the failed search's result block included"
    );
    let back = messages[2]["content"].as_array().unwrap();
    assert_eq!(messages[2]["role"], "user");
    assert_eq!(back[0]["type"], "tool_result");
    assert_eq!(back[0]["tool_use_id"], "toolu_1");
    assert!(back[0].get("is_error").is_none());
    // The failed search is still told to the model, as the spec says, as text.
    assert_eq!(back[1]["type"], "text");
    assert!(
        back[1]["text"]
            .as_str()
            .unwrap()
            .contains("web_search failed (max_uses_exceeded)"),
        "{back:#?}"
    );
    // Flattened is the default: the same script sends the spec's one message.
    let h = Harness::new(vec![ok(LIST_THEN_SEARCH), ok(ANSWER)]).await;
    h.run(contract("look around")).await;
    let flat = &h.bodies()[1]["messages"];
    assert_eq!(flat.as_array().unwrap().len(), 1);
    assert!(
        flat[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("look around\n\nObservations so far:\n")
    );
}

/// The recorded-shape paused turn (shared fixture): it ends with a search that has
/// not run yet. The continuation answers it and finishes.
const CONTINUED: &str = r#"{"type":"message","model":"m","content":[
 {"type":"web_search_tool_result","tool_use_id":"srvtoolu_01HxbWnMRmbWyMfUtJKC45rA","content":[{"type":"web_search_result","url":"https://example.com/qec","title":"QEC","encrypted_content":"Eq..."}]},
 {"type":"text","text":"Error correction crossed a threshold."}],
 "stop_reason":"end_turn","usage":{"input_tokens":300,"output_tokens":20,"server_tool_use":{"web_search_requests":1}}}"#;

#[tokio::test]
async fn a_paused_turn_is_continued_with_its_content_unchanged_and_no_new_user_message() {
    let paused = fixture("anthropic/pause-turn.json");
    let h = Harness::new(vec![ok(&paused), ok(CONTINUED)]).await;
    let mut c = transcript("quantum computing in 2025");
    c.web = Some(io_harness::WebAccess::search());
    let result = h.run(c).await;
    assert_eq!(result.outcome, RunOutcome::Passed);
    let bodies = h.bodies();
    assert_eq!(bodies.len(), 2);
    let messages = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(
        messages.len(),
        2,
        "the goal, then the paused content: {messages:#?}"
    );
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "assistant");
    assert_eq!(last["content"], content_of(&paused));
    assert_eq!(bodies[1]["tools"], bodies[0]["tools"], "the same tools");
    // The paused query is asked once: the continuation carries its one
    // server_tool_use back and the answer brings its result, no second call.
    let query = "quantum error correction milestone 2025";
    let asked = |v: &Value| {
        v.to_string()
            .matches(&format!("\"query\":\"{query}\""))
            .count()
    };
    assert_eq!(asked(&bodies[1]), 1);
    assert_eq!(asked(&content_of(CONTINUED)), 0);
}

#[tokio::test]
async fn caching_marks_the_last_tool_the_previous_end_and_the_newest_block() {
    let h = Harness::new(vec![
        ok(LIST_THEN_SEARCH),
        ok(&tool_use("list_dir", r#"{"path":"."}"#)),
        ok(ANSWER),
    ])
    .await;
    let mut c = transcript("look around");
    c.cache = Some(CacheTtl::OneHour);
    h.run(c).await;
    let bodies = h.bodies();
    let marks = |v: &Value| v.to_string().matches("\"cache_control\"").count();
    let tools = bodies[2]["tools"].as_array().unwrap();
    assert_eq!(
        tools.last().unwrap()["cache_control"],
        json!({"type": "ephemeral", "ttl": "1h"})
    );
    assert_eq!(marks(&bodies[0]), 2, "first step: the tools and the goal");
    assert_eq!(
        marks(&bodies[2]),
        3,
        "then also where the previous step ended"
    );
    let messages = bodies[2]["messages"].as_array().unwrap();
    let newest = messages.last().unwrap()["content"].as_array().unwrap();
    assert!(newest.last().unwrap().get("cache_control").is_some());
    // The previous request's last block is marked where it now stands.
    let before = bodies[1]["messages"].as_array().unwrap().len();
    let previous = messages[before - 1]["content"].as_array().unwrap();
    assert!(previous.last().unwrap().get("cache_control").is_some());
}

#[tokio::test]
async fn chat_gets_an_assistant_message_and_one_tool_message_per_call() {
    let first = r#"{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-x","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"refusal":null,"annotations":[],"tool_calls":[{"id":"call_a","type":"function","function":{"name":"list_dir","arguments":"{\"path\":\".\"}"}},{"id":"call_b","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"missing.txt\"}"}}]}}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}"#;
    let done = r#"{"id":"chatcmpl-2","object":"chat.completion","model":"gpt-x","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"done"}}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}"#;
    let h = Harness::vendor(Vendor::OpenAi, vec![ok(first), ok(done)]).await;
    h.run(transcript("look")).await;
    let messages = h.bodies()[1]["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 4, "{messages:#?}");
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"], Value::Null);
    let sent: Value = serde_json::from_str(first).unwrap();
    assert_eq!(
        messages[1]["tool_calls"],
        sent["choices"][0]["message"]["tool_calls"]
    );
    assert!(
        messages[1].get("annotations").is_none(),
        "only what a request message takes"
    );
    assert_eq!(messages[2]["role"], "tool");
    assert_eq!(messages[2]["tool_call_id"], "call_a");
    assert_eq!(messages[3]["tool_call_id"], "call_b");
}

#[tokio::test]
async fn responses_input_grows_by_every_output_item_then_each_call_output() {
    let first = r#"{"id":"resp_1","object":"response","status":"completed","model":"gpt-x","output":[
      {"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA-opaque"},
      {"type":"function_call","id":"fc_1","call_id":"call_1","name":"list_dir","arguments":"{\"path\":\".\"}","status":"completed"}],
      "usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}"#;
    let done = r#"{"id":"resp_2","object":"response","status":"completed","model":"gpt-x","output":[
      {"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"done","annotations":[]}]}],
      "usage":{"input_tokens":10,"output_tokens":1,"total_tokens":11}}"#;
    let h = Harness::wire(Wire::OpenAiResponses, vec![ok(first), ok(done)]).await;
    h.run(transcript("look")).await;
    let bodies = h.bodies();
    assert_eq!(bodies[0]["store"], false);
    assert_eq!(bodies[0]["include"], json!(["reasoning.encrypted_content"]));
    let input = bodies[1]["input"].as_array().unwrap();
    let sent: Value = serde_json::from_str(first).unwrap();
    assert_eq!(input.len(), 4, "{input:#?}");
    assert_eq!(
        input[1], sent["output"][0],
        "reasoning with its encrypted content, verbatim"
    );
    assert_eq!(input[2], sent["output"][1]);
    assert_eq!(input[3]["type"], "function_call_output");
    assert_eq!(input[3]["call_id"], "call_1");
    assert!(bodies[1].get("previous_response_id").is_none());
}

#[tokio::test]
async fn a_run_resumed_after_step_two_sends_step_three_byte_for_byte() {
    let answers = || {
        vec![
            ok(LIST_THEN_SEARCH),
            ok(&tool_use("list_dir", r#"{"path":"."}"#)),
        ]
    };
    let mut c = transcript("look around twice");
    c.cache = Some(CacheTtl::FiveMinutes);
    // Uninterrupted.
    let whole = Harness::new([answers(), vec![ok(ANSWER)]].concat()).await;
    whole.run(c.clone()).await;
    let want = whole.stub.requests()[2].body.clone();
    // Killed while step 3's request is in flight, then resumed.
    let broken =
        Harness::new([answers(), vec![delayed(ANSWER, 30_000), ok(ANSWER)]].concat()).await;
    interrupted_at(&broken, &c, 3).await;
    let run_id = io_harness::RunId(1);
    let resumed = broken
        .run_with(
            c,
            RunOptions {
                resume: Some(run_id),
                ..RunOptions::default()
            },
        )
        .await;
    assert_eq!(resumed.outcome, RunOutcome::Passed);
    let got = broken.stub.requests()[3].body.clone();
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
}

/// `preview --resume` prints the exact body `run --resume` then sends.
#[tokio::test]
async fn preview_resume_prints_the_body_the_resumed_step_sends() {
    let h = Harness::new(vec![
        ok(LIST_THEN_SEARCH),
        delayed(ANSWER, 30_000),
        ok(ANSWER),
    ])
    .await;
    let mut c = transcript("look");
    c.cache = Some(CacheTtl::FiveMinutes);
    interrupted_at(&h, &c, 2).await;
    let cfg = h.db.path().join("io.toml");
    std::fs::write(
        &cfg,
        format!(
            "provider = \"anthropic\"\n[providers.anthropic]\nmodel = \"m\"\nmax_tokens = 256\nbase_url = \"{}\"\nstream = false\n",
            h.stub.base_url(Vendor::Anthropic)
        ),
    )
    .unwrap();
    let db = h.db.path().join("runs.db");
    let (code, out, err) = common::cli::run(common::cli::bin().args([
        "preview",
        "--body-only",
        "--resume",
        "1",
        "--config",
        cfg.to_str().unwrap(),
        "--store",
        db.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("the next step (step 2) of run 1, in its transcript conversation"),
        "{err}"
    );
    let resumed = h
        .run_with(
            c,
            RunOptions {
                resume: Some(io_harness::RunId(1)),
                ..RunOptions::default()
            },
        )
        .await;
    assert_eq!(resumed.outcome, RunOutcome::Passed);
    let sent = h.stub.requests()[2].body.clone();
    assert_eq!(out, String::from_utf8_lossy(&sent));
    // An unknown run is a clear refusal, exit 2.
    let (code, _, err) = common::cli::run(common::cli::bin().args([
        "preview",
        "--resume",
        "7",
        "--config",
        cfg.to_str().unwrap(),
        "--store",
        db.to_str().unwrap(),
    ]));
    assert_eq!(
        (code, err.trim()),
        (
            2,
            "there is no run 7 in this store; `io-harness runs` lists them"
        )
    );
}

#[tokio::test]
async fn a_stored_transcript_that_does_not_parse_is_refused_naming_run_and_step() {
    let h = Harness::new(vec![
        ok(LIST_THEN_SEARCH),
        delayed(ANSWER, 30_000),
        ok(ANSWER),
    ])
    .await;
    let c = transcript("look");
    interrupted_at(&h, &c, 2).await;
    let db = h.db.path().join("runs.db");
    assert_eq!(damage(&db), 1);
    let err = h
        .try_run_with(
            c,
            RunOptions {
                resume: Some(io_harness::RunId(1)),
                ..RunOptions::default()
            },
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("run 1") && err.contains("step 1"), "{err}");
    assert_eq!(h.stub.requests().len(), 2, "nothing was sent");
}

/// Damage the stored exchange of step 1.
fn damage(db: &std::path::Path) -> usize {
    rusqlite::Connection::open(db)
        .unwrap()
        .execute(
            "UPDATE exchanges SET exchange_json = '{not json' WHERE run_id = 1 AND step = 1",
            [],
        )
        .unwrap()
}

/// `[budget] usd` on OpenRouter: no price table is needed (the vendor reports
/// each request's cost), and the run stops after the request that crosses it.
#[tokio::test]
async fn a_dollar_budget_on_openrouter_runs_on_the_vendors_reported_cost() {
    let body = fixture("openrouter/web-ok.json");
    let mut calls: Value = serde_json::from_str(&body).unwrap();
    // The same reported cost ($0.0077641), asking for a tool each time.
    calls["choices"][0]["finish_reason"] = json!("tool_calls");
    calls["choices"][0]["message"]["tool_calls"] = json!([{"id": "call_1", "type": "function",
        "function": {"name": "list_dir", "arguments": "{\"path\":\".\"}"}}]);
    let step = calls.to_string();
    let h = Harness::vendor(
        Vendor::OpenRouter,
        vec![ok(&step), ok(&step), ok(&step), ok(&body)],
    )
    .await;
    let mut c = contract("find it");
    c.budget.usd_micro = Some(10_000);
    let r = h.run(c).await;
    assert_eq!(
        r.outcome,
        RunOutcome::BudgetExhausted {
            budget: io_harness::BudgetKind::Usd
        }
    );
    assert_eq!(
        h.bodies().len(),
        2,
        "stopped after the request that crossed $0.01"
    );
    assert_eq!(r.spent_micro_usd, 2 * 7_764);
}

/// The tools' breakpoint sits on the last local tool, so declaring web access adds
/// the vendor's web tool after it without moving it (and the preview's diff shows
/// only what the declaration adds).
#[test]
fn the_tools_breakpoint_stays_on_the_last_local_tool() {
    let mut c = transcript("look");
    c.cache = Some(CacheTtl::FiveMinutes);
    c.web = Some(io_harness::WebAccess::search());
    let turn = io_harness::Turn::for_step(
        &c,
        "m".into(),
        64,
        io_harness::core::tools::local_tool_specs(),
        Vec::new(),
        Vec::new(),
    );
    let body: Value = serde_json::from_slice(
        &io_harness::core::wire::encode(&io_harness::Endpoint::public(Vendor::Anthropic), &turn)
            .unwrap()
            .body,
    )
    .unwrap();
    let tools = body["tools"].as_array().unwrap();
    let marked: Vec<&str> = tools
        .iter()
        .filter(|t| t.get("cache_control").is_some())
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(marked, ["http_get"]);
    assert_eq!(tools.last().unwrap()["name"], "web_search");
}

/// A 400 about one block of a transcript: the vendor's words and where the block
/// is, nothing retried, step 1 kept in the store.
#[tokio::test]
async fn a_400_about_a_transcript_block_names_the_block_and_is_not_retried() {
    let bad = r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.1.encrypted_content: the encrypted content could not be verified"},"request_id":"req_bad_block"}"#;
    let h = Harness::new(vec![
        ok(LIST_THEN_SEARCH),
        status(400, bad, &[]),
        ok(ANSWER),
    ])
    .await;
    let r = h.run(transcript("look")).await;
    let RunOutcome::Error { message } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert!(
        message.contains(
            "messages.1.content.1.encrypted_content: the encrypted content could not be verified"
        ),
        "{message}"
    );
    assert!(
        message.ends_with("(the transcript's message 1, block 1; nothing was retried)"),
        "{message}"
    );
    assert_eq!(h.bodies().len(), 2, "a 400 is not retried");
    let steps = h.store.steps(r.run_id).unwrap();
    assert_eq!(steps.len(), 1, "step 1 stays recorded");
}

/// `[run]` in io.toml: its keys in `io-harness config`, and a value it does not
/// take named with its line.
#[test]
fn run_keys_are_listed_and_a_wrong_mode_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("io.toml");
    std::fs::write(
        &p,
        "[run]\nconversation = \"transcript\"\ncache = true\ncache_ttl = \"1h\"\n",
    )
    .unwrap();
    let (code, out, err) =
        common::cli::run(common::cli::bin().args(["config", "--config", p.to_str().unwrap()]));
    assert_eq!(code, 0, "{err}");
    let p = p.display();
    for line in [
        format!("run.conversation = \"transcript\"  {p}:2"),
        format!("run.cache = true  {p}:3"),
        format!("run.cache_ttl = \"1h\"  {p}:4"),
    ] {
        assert!(out.contains(&line), "{line} not in:\n{out}");
    }
    let loaded = io_harness::Config::parse("[run]\nconversation = \"chat\"\n", "io.toml");
    let err = loaded.unwrap_err().to_string();
    assert!(err.starts_with("io.toml:2:"), "{err}");
    assert!(
        err.contains("conversation") && err.contains("transcript"),
        "{err}"
    );
}

fn exchange_on(wire: Wire, blocks: Vec<Value>, response_id: &str, call: &str) -> Exchange {
    Exchange {
        wire,
        blocks: blocks.iter().map(Value::to_string).collect(),
        response_id: Some(response_id.into()),
        paused: false,
        results: vec![ToolReturn {
            call_id: call.into(),
            output: "notes.md".into(),
            is_error: false,
        }],
        notes: vec![],
        observations_before: 0,
    }
}

fn body_for(endpoint: &io_harness::Endpoint, turn: &io_harness::Turn) -> Value {
    serde_json::from_slice(&io_harness::core::wire::encode(endpoint, turn).unwrap().body).unwrap()
}

/// `[providers.openai] responses_state = "server"`: OpenAI keeps the transcript;
/// a request names the last response and carries only what is new.
#[test]
fn responses_server_state_sends_the_previous_id_and_only_new_items() {
    let call = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "list_dir", "arguments": "{}"});
    let turn = io_harness::Turn {
        model: "gpt-5".into(),
        max_tokens: 64,
        goal: "look".into(),
        observations: vec!["[step 1] list_dir {}: notes.md".into()],
        conversation: Conversation::Transcript,
        history: vec![exchange_on(
            Wire::OpenAiResponses,
            vec![call],
            "resp_1",
            "call_1",
        )],
        ..io_harness::Turn::default()
    };
    let mut endpoint =
        io_harness::Endpoint::public(Vendor::OpenAi).with_wire(Wire::OpenAiResponses);
    endpoint.responses_state = ResponsesState::Server;
    let body = body_for(&endpoint, &turn);
    assert_eq!(body["previous_response_id"], "resp_1");
    assert_eq!(body["store"], true);
    assert_eq!(
        body["input"],
        json!([{"type": "function_call_output", "call_id": "call_1", "output": "notes.md"}])
    );
    assert!(body.get("include").is_none());
}

/// A fallback to another vendor: the first vendor's blocks (its encrypted content
/// is unreadable elsewhere) are not sent; the new vendor starts from the goal and
/// the observations made so far.
#[test]
fn a_fallback_vendor_starts_from_the_goal_and_the_observations() {
    let tool_use = json!({"type": "tool_use", "id": "toolu_1", "name": "list_dir", "input": {}});
    let turn = io_harness::Turn {
        model: "gpt-5".into(),
        max_tokens: 64,
        goal: "look".into(),
        observations: vec!["[step 1] list_dir {}: notes.md".into()],
        conversation: Conversation::Transcript,
        history: vec![exchange_on(
            Wire::Anthropic2025,
            vec![tool_use],
            "msg_1",
            "toolu_1",
        )],
        ..io_harness::Turn::default()
    };
    let body = body_for(&io_harness::Endpoint::public(Vendor::OpenAi), &turn);
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": "look\n\nObservations so far:\n[step 1] list_dir {}: notes.md"}])
    );
    // The Anthropic wire of the other tool version is the same conversation.
    let back = body_for(
        &io_harness::Endpoint::public(Vendor::Anthropic).with_wire(Wire::Anthropic2026),
        &turn,
    );
    assert_eq!(back["messages"].as_array().unwrap().len(), 3);
}

/// A dollar budget on OpenRouter is previewed with what it runs on.
#[test]
fn the_preview_says_an_openrouter_dollar_budget_is_known_after_each_request() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("io.toml");
    std::fs::write(
        &p,
        "provider = \"openrouter\"\n[task]\ngoal = \"g\"\n[budget]\nusd = 1.0\n",
    )
    .unwrap();
    let (code, out, err) =
        common::cli::run(common::cli::bin().args(["preview", "--config", p.to_str().unwrap()]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "note: [budget] usd runs on OpenRouter's own usage.cost, known only after each request"
        ),
        "{out}"
    );
}

/// The console's `n` on Sources shows what `run --resume` will send: the lines
/// are the same body, pretty-printed.
#[tokio::test]
async fn the_consoles_next_request_is_the_body_the_resume_sends() {
    let h = Harness::new(vec![
        ok(LIST_THEN_SEARCH),
        delayed(ANSWER, 30_000),
        ok(ANSWER),
    ])
    .await;
    let c = transcript("look");
    interrupted_at(&h, &c, 2).await;
    // The plan with this harness's endpoint and output cap, no roster.
    let vendor = h.provider.endpoint().vendor;
    let mut plan = io_harness::launch::Plan::of(&io_harness::Config::default(), false);
    let setup = plan.vendors.get_mut(&vendor).unwrap();
    setup.endpoint = h.provider.endpoint().clone();
    setup.max_tokens = 256;
    let lines =
        io_harness::console::testing::next_request(&h.store, &plan, io_harness::RunId(1)).unwrap();
    assert!(
        lines[0].starts_with("step 2 · transcript conversation · POST http://127.0.0.1:"),
        "{}",
        lines[0]
    );
    let shown: Value = serde_json::from_str(&lines[2..].join("\n")).unwrap();
    h.run_with(
        c,
        RunOptions {
            resume: Some(io_harness::RunId(1)),
            ..RunOptions::default()
        },
    )
    .await;
    let sent: Value = serde_json::from_slice(&h.stub.requests()[2].body).unwrap();
    assert_eq!(shown, sent);
    // A finished run has no next step, and says so.
    let err = io_harness::console::testing::next_request(&h.store, &plan, io_harness::RunId(1))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "run 1 already finished (passed); it has no next step to preview"
    );
}

/// A transcript's request counts against the token budget before it is sent: a
/// run whose next transcript would pass the budget stops there, saying which.
#[tokio::test]
async fn a_transcript_that_would_outgrow_the_token_budget_is_not_sent() {
    let h = Harness::new(vec![ok(LIST_THEN_SEARCH), ok(ANSWER)]).await;
    let mut c = transcript("look");
    // Step 1's usage is 55 tokens; step 2's request (goal, tools, step 1's
    // blocks and result) is several hundred more at 4 bytes a token.
    c.budget.tokens = 300;
    let r = h.run(c).await;
    assert_eq!(
        r.outcome,
        RunOutcome::BudgetExhausted {
            budget: io_harness::BudgetKind::Tokens
        }
    );
    assert_eq!(h.bodies().len(), 1, "step 2 was not sent");
}

/// OpenRouter's `reasoning_details` go back on the assistant message.
#[tokio::test]
async fn openrouter_reasoning_details_go_back_on_the_assistant_message() {
    let first = r#"{"id":"gen-1","model":"anthropic/claude-sonnet-4.5","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.encrypted","data":"opaque","id":"rd_1","format":"anthropic-claude-v1","index":0}],"tool_calls":[{"id":"call_a","type":"function","function":{"name":"list_dir","arguments":"{\"path\":\".\"}"}}]}}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}"#;
    let done = r#"{"id":"gen-2","model":"anthropic/claude-sonnet-4.5","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"done"}}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}"#;
    let h = Harness::vendor(Vendor::OpenRouter, vec![ok(first), ok(done)]).await;
    h.run(transcript("look")).await;
    let sent: Value = serde_json::from_str(first).unwrap();
    let back = &h.bodies()[1]["messages"][1];
    assert_eq!(
        back["reasoning_details"],
        sent["choices"][0]["message"]["reasoning_details"]
    );
    assert_eq!(
        back["tool_calls"],
        sent["choices"][0]["message"]["tool_calls"]
    );
}
