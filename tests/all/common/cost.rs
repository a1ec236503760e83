//! The ten-step Anthropic search run that the conversation modes are priced on
//! (`tests/conversation_cost.rs` checks the ratio, `benches/conversation.rs`
//! prints the table): nine steps that each search and then ask for a local tool,
//! and a final answer, played on the stub with its cache emulation on.
//!
//! Each search result block is the size of a recorded one: five results whose
//! `encrypted_content` is 5,000 characters (recorded Anthropic results carry
//! several kilobytes each; see tests/fixtures/README.md), about 26 KB a block.

#![allow(dead_code, clippy::unwrap_used)]

use io_harness::core::transcript::{CacheTtl, Conversation};
use io_harness::run::{RunOptions, run_with_options};
use io_harness::stub::{Script, ScriptedResponse, StubVendor};
use io_harness::{
    ApiKey, ApproveAll, Endpoint, HttpProvider, Policy, PriceTable, Store, TaskContract, Vendor,
    Verification, WebAccess, Wire,
};
use serde_json::json;

/// The model the run asks for and is priced as.
pub const MODEL: &str = "claude-sonnet-4-5";

fn search_step(i: usize) -> String {
    let results: Vec<_> = (0..5)
        .map(|r| {
            json!({"type": "web_search_result", "url": format!("https://docs.example/{i}/{r}"),
                   "title": format!("Result {r} for topic {i}"),
                   "encrypted_content": format!("{i}{r}{}", "E".repeat(5_000)),
                   "page_age": "March 3, 2026"})
        })
        .collect();
    json!({"type": "message", "id": format!("msg_{i}"), "model": MODEL, "role": "assistant",
        "content": [
            {"type": "server_tool_use", "id": format!("srvtoolu_{i}"), "name": "web_search",
             "input": {"query": format!("topic {i}")}},
            {"type": "web_search_tool_result", "tool_use_id": format!("srvtoolu_{i}"), "content": results},
            {"type": "text", "text": format!("Topic {i} is covered by the first result."),
             "citations": [{"type": "web_search_result_location", "url": format!("https://docs.example/{i}/0"),
                            "title": format!("Result 0 for topic {i}"), "cited_text": "the first result",
                            "encrypted_index": "Eo8BCioIAhgBIiQ"}]},
            {"type": "tool_use", "id": format!("toolu_{i}"), "name": "list_dir", "input": {"path": "."}}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 0, "output_tokens": 120, "server_tool_use": {"web_search_requests": 1}}})
    .to_string()
}

const FINAL: &str = r#"{"type":"message","id":"msg_final","model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":"Done: the sources agree."}],"stop_reason":"end_turn","usage":{"input_tokens":0,"output_tokens":40}}"#;

/// The ten answers.
pub fn answers() -> Vec<ScriptedResponse> {
    (1..=9)
        .map(search_step)
        .chain([FINAL.to_string()])
        .map(|body| ScriptedResponse {
            body: body.into_bytes(),
            ..ScriptedResponse::default()
        })
        .collect()
}

/// What one mode's run cost on its input side, in millionths of a dollar at the
/// built-in prices, with its token counts.
#[derive(Debug, Clone, Copy, Default)]
pub struct InputCost {
    pub micro_usd: u64,
    pub input: u64,
    pub cache_write: u64,
    pub cache_read: u64,
    pub requests: usize,
}

/// Run the ten steps in one mode and price their input side.
pub async fn input_cost(conversation: Conversation, cache: Option<CacheTtl>) -> InputCost {
    let stub = StubVendor::start(
        "127.0.0.1:0".parse().unwrap(),
        Script {
            responses: answers(),
            repeat: false,
            emulate_usage: true,
        },
    )
    .await
    .unwrap();
    let endpoint = Endpoint {
        base_url: stub.base_url(Vendor::Anthropic),
        api_key_env: "IO_HARNESS_COST_KEY".into(),
        ..Endpoint::public(Vendor::Anthropic).with_wire(Wire::Anthropic2025)
    };
    let provider = HttpProvider::new(endpoint, MODEL.to_string(), 1024)
        .with_api_key(ApiKey::new("sk-cost-bench"));
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("runs.db")).unwrap();
    let mut contract = TaskContract::workspace(
        "survey nine topics, listing the workspace after each",
        dir.path(),
        Verification::None,
    );
    contract.web = Some(WebAccess::search());
    contract.conversation = conversation;
    contract.cache = cache;
    contract.budget.steps = 20;
    let result = run_with_options(
        &contract,
        &provider,
        &store,
        &Policy::workspace_default(),
        &ApproveAll,
        RunOptions::default(),
    )
    .await
    .unwrap();
    stub.shutdown();
    let table = PriceTable::builtin();
    let price = table.price(MODEL).unwrap();
    let calls = store.provider_calls(result.run_id).unwrap();
    let mut out = InputCost {
        requests: calls.len(),
        ..InputCost::default()
    };
    for c in calls {
        let u = c.usage.unwrap_or_default();
        out.input += u.input_tokens;
        out.cache_write += u.cache_write_tokens;
        out.cache_read += u.cache_read_tokens;
    }
    let rate = |n: u64, per_mtok: f64| (n as f64 * per_mtok).round() as u64;
    out.micro_usd = rate(out.input, price.input_per_mtok)
        + rate(out.cache_write, price.cache_write_per_mtok.unwrap_or(0.0))
        + rate(out.cache_read, price.cache_read_per_mtok.unwrap_or(0.0));
    out
}
