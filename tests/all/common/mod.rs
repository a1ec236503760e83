//! Shared test harness: a loopback stub vendor answering scripted responses, a
//! temp SQLite store, a temp workspace, and an observer that keeps every event.

#![allow(dead_code, clippy::unwrap_used)]

pub mod cli;
#[cfg(feature = "console")]
pub mod console;
pub mod cost;
#[cfg(feature = "otlp")]
pub mod otlp;
pub mod stream;

use std::sync::{Arc, Mutex};

use io_harness::run::{Observer, RunOptions, RunResult, run_with_options};
use io_harness::stub::{Script, ScriptedResponse, StubHandle, StubVendor};
use io_harness::{
    ApiKey, ApproveAll, Approver, Endpoint, Event, EventKind, HttpProvider, Policy, RetryPolicy,
    RunId, Store, TaskContract, Vendor, Verification,
};

pub const ANSWER: &str = r#"{"type":"message","model":"m","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}"#;

pub const SEARCH_OK_DUPLICATES: &str = r#"{"type":"message","model":"m","content":[
 {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},
 {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://docs.rs/a","title":"A","encrypted_content":"x"}]},
 {"type":"text","text":"one","citations":[{"type":"web_search_result_location","url":"https://docs.rs/a","title":"A","cited_text":"a","encrypted_index":"i"}]},
 {"type":"text","text":"two","citations":[{"type":"web_search_result_location","url":"https://docs.rs/a","title":"A","cited_text":"a again","encrypted_index":"i"},
                                           {"type":"web_search_result_location","url":"https://docs.rs/b","title":null,"cited_text":"b","encrypted_index":"i"}]}],
 "stop_reason":"end_turn","usage":{"input_tokens":100,"output_tokens":20,"server_tool_use":{"web_search_requests":1}}}"#;

pub const SEARCH_FAILED_THEN_TOOL: &str = r#"{"type":"message","model":"m","content":[
 {"type":"server_tool_use","id":"srvtoolu_9","name":"web_search","input":{"query":"q"}},
 {"type":"web_search_tool_result","tool_use_id":"srvtoolu_9","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}},
 {"type":"tool_use","id":"toolu_1","name":"list_dir","input":{"path":"."}}],
 "stop_reason":"tool_use","usage":{"input_tokens":50,"output_tokens":5,"server_tool_use":{"web_search_requests":0}}}"#;

pub const SEARCH_EMPTY_THEN_TOOL: &str = r#"{"type":"message","model":"m","content":[
 {"type":"server_tool_use","id":"srvtoolu_8","name":"web_search","input":{"query":"nothing"}},
 {"type":"web_search_tool_result","tool_use_id":"srvtoolu_8","content":[]},
 {"type":"tool_use","id":"toolu_1","name":"list_dir","input":{"path":"."}}],
 "stop_reason":"tool_use","usage":{"input_tokens":50,"output_tokens":5,"server_tool_use":{"web_search_requests":1}}}"#;

/// An Anthropic response asking for one local tool.
pub fn tool_use(name: &str, input: &str) -> String {
    format!(
        r#"{{"type":"message","model":"m","content":[{{"type":"tool_use","id":"toolu_x","name":"{name}","input":{input}}}],"stop_reason":"tool_use","usage":{{"input_tokens":10,"output_tokens":3}}}}"#
    )
}

pub fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

pub fn ok(body: &str) -> ScriptedResponse {
    status(200, body, &[])
}

pub fn status(status: u16, body: &str, headers: &[(&str, &str)]) -> ScriptedResponse {
    ScriptedResponse {
        status,
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        body: body.as_bytes().to_vec(),
        ..ScriptedResponse::default()
    }
}

pub fn truncated(body: &str, after: usize) -> ScriptedResponse {
    ScriptedResponse {
        truncate_after: Some(after),
        ..ok(body)
    }
}

pub fn delayed(body: &str, ms: u64) -> ScriptedResponse {
    ScriptedResponse {
        delay_ms: Some(ms),
        ..ok(body)
    }
}

pub fn contract(goal: &str) -> TaskContract {
    TaskContract::workspace(goal, ".", Verification::None)
}

pub trait ContractExt {
    fn with_verification(self, file: &str, needle: &str) -> Self;
}

impl ContractExt for TaskContract {
    fn with_verification(mut self, file: &str, needle: &str) -> Self {
        self.verification = Verification::WorkspaceFileContains {
            file: file.into(),
            needle: needle.into(),
        };
        self
    }
}

#[derive(Default)]
pub struct Collect(pub Mutex<Vec<Event>>);

impl Observer for Collect {
    fn event(&self, event: &Event) {
        self.0.lock().unwrap().push(event.clone());
    }
}

/// The stub vendor on a free loopback port, answering `script`.
pub async fn start_stub(script: Script) -> StubHandle {
    StubVendor::start("127.0.0.1:0".parse().unwrap(), script)
        .await
        .unwrap()
}

/// The stub on a free port answering every request with `response`.
pub async fn repeating(response: ScriptedResponse) -> StubHandle {
    start_stub(Script {
        responses: vec![response],
        repeat: true,
        emulate_usage: false,
    })
    .await
}

/// A provider for `wire` at `stub`: model `m`, 256 tokens, the test key, quick retries.
pub fn provider_at(stub: &StubHandle, wire: io_harness::Wire) -> HttpProvider {
    let vendor = wire.vendor();
    let endpoint = Endpoint {
        vendor,
        wire,
        base_url: stub.base_url(vendor),
        api_key_env: "IO_HARNESS_TEST_KEY".into(),
        stream: false,
        responses_state: Default::default(),
        search: Default::default(),
    };
    HttpProvider::new(endpoint, "m".to_string(), 256)
        .with_api_key(ApiKey::new("sk-test-SECRET"))
        .with_retry(RetryPolicy {
            base_delay: std::time::Duration::from_millis(10),
            ..RetryPolicy::default()
        })
}

pub struct Harness {
    pub stub: StubHandle,
    pub store: Store,
    pub provider: HttpProvider,
    pub workspace: tempfile::TempDir,
    pub db: tempfile::TempDir,
    pub events: Arc<Collect>,
}

impl Harness {
    pub async fn new(responses: Vec<ScriptedResponse>) -> Harness {
        Harness::vendor(Vendor::Anthropic, responses).await
    }

    pub async fn vendor(vendor: Vendor, responses: Vec<ScriptedResponse>) -> Harness {
        Harness::wire(io_harness::Wire::spec(vendor), responses).await
    }

    pub async fn wire(wire: io_harness::Wire, responses: Vec<ScriptedResponse>) -> Harness {
        Harness::scripted(
            wire,
            Script {
                responses,
                repeat: false,
                emulate_usage: false,
            },
        )
        .await
    }

    /// A harness whose stub reports usage as its cache emulation estimates it.
    pub async fn emulated(wire: io_harness::Wire, responses: Vec<ScriptedResponse>) -> Harness {
        Harness::scripted(
            wire,
            Script {
                responses,
                repeat: false,
                emulate_usage: true,
            },
        )
        .await
    }

    pub async fn scripted(wire: io_harness::Wire, script: Script) -> Harness {
        let stub = start_stub(script).await;
        let provider = provider_at(&stub, wire);
        let db = tempfile::tempdir().unwrap();
        let store = Store::open(db.path().join("runs.db")).unwrap();
        Harness {
            stub,
            store,
            provider,
            workspace: tempfile::tempdir().unwrap(),
            db,
            events: Arc::new(Collect::default()),
        }
    }

    /// What the store says about a run, minus what differs run to run (latency,
    /// the stub's port):
    /// its provider calls, citations, server-tool calls and steps.
    pub fn recorded(&self, run: RunId) -> String {
        let mut calls = self.store.provider_calls(run).unwrap();
        for c in &mut calls {
            c.latency_ms = 0;
            // Each harness's stub listens on a port of its own.
            c.endpoint = None;
        }
        format!(
            "{calls:#?}\n{:#?}\n{:#?}\n{:#?}",
            self.store.citations(run).unwrap(),
            self.store.server_tool_calls(run).unwrap(),
            self.store
                .steps(run)
                .unwrap()
                .iter()
                .map(|s| (s.step, s.text.clone(), s.observations.clone()))
                .collect::<Vec<_>>()
        )
    }

    /// The same harness, its provider asking for streams (idle timeout `idle`).
    pub fn streamed(mut self, idle: std::time::Duration) -> Harness {
        let endpoint = self.provider.endpoint().clone().streaming(true);
        self.provider = HttpProvider::new(endpoint, "m".to_string(), 256)
            .with_api_key(ApiKey::new("sk-test-SECRET"))
            .with_retry(RetryPolicy {
                base_delay: std::time::Duration::from_millis(10),
                ..RetryPolicy::default()
            })
            .with_idle_timeout(idle);
        self
    }

    fn options(&self) -> RunOptions {
        RunOptions {
            observer: self.events.clone(),
            ..RunOptions::default()
        }
    }

    fn place(&self, mut c: TaskContract) -> TaskContract {
        c.workspace = self.workspace.path().to_path_buf();
        c
    }

    /// A run in the harness workspace under the default policy, approving
    /// everything, with `options` (their observer replaced by the harness's).
    pub async fn run_with(&self, c: TaskContract, options: RunOptions) -> RunResult {
        let options = RunOptions {
            observer: self.events.clone(),
            ..options
        };
        run_with_options(
            &self.place(c),
            &self.provider,
            &self.store,
            &Policy::workspace_default(),
            &ApproveAll,
            options,
        )
        .await
        .unwrap()
    }

    /// Like `run_with`, returning the error instead of unwrapping it.
    pub async fn try_run_with(
        &self,
        c: TaskContract,
        options: RunOptions,
    ) -> io_harness::Result<RunResult> {
        let options = RunOptions {
            observer: self.events.clone(),
            ..options
        };
        run_with_options(
            &self.place(c),
            &self.provider,
            &self.store,
            &Policy::workspace_default(),
            &ApproveAll,
            options,
        )
        .await
    }

    pub async fn try_run(&self, c: TaskContract) -> io_harness::Result<RunResult> {
        run_with_options(
            &self.place(c),
            &self.provider,
            &self.store,
            &Policy::workspace_default(),
            &ApproveAll,
            self.options(),
        )
        .await
    }

    pub async fn run(&self, c: TaskContract) -> RunResult {
        self.try_run(c).await.unwrap()
    }

    pub async fn run_under(
        &self,
        c: TaskContract,
        policy: &Policy,
        approver: &dyn Approver,
    ) -> RunResult {
        run_with_options(
            &self.place(c),
            &self.provider,
            &self.store,
            policy,
            approver,
            self.options(),
        )
        .await
        .unwrap()
    }

    pub async fn resume(&self, run_id: RunId) -> RunResult {
        let options = RunOptions {
            resume: Some(run_id),
            ..self.options()
        };
        run_with_options(
            &self.place(contract("ignored on resume")),
            &self.provider,
            &self.store,
            &Policy::workspace_default(),
            &ApproveAll,
            options,
        )
        .await
        .unwrap()
    }

    /// Every request body the stub received, parsed.
    pub fn bodies(&self) -> Vec<serde_json::Value> {
        self.stub
            .requests()
            .iter()
            .map(|r| serde_json::from_slice(&r.body).unwrap())
            .collect()
    }

    pub fn events(&self) -> Vec<EventKind> {
        self.events
            .0
            .lock()
            .unwrap()
            .iter()
            .map(|e| e.kind.clone())
            .collect()
    }
}

/// The flattened user message of a request body (all three vendors put it first).
pub fn user_text(body: &serde_json::Value) -> String {
    body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}
