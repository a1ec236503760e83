//! Run groups on the loopback stub vendor, one stub serving every vendor's path
//! with its own script: each vendor in its own workspace copy (the operator's
//! untouched), a refusal recorded while the others run, a slow or hanging vendor
//! not holding the others, one cancellation ending all, one dollar cap over the
//! group's total, the rows of a grouped run the same as of the run made alone,
//! and a replay on another vendor carrying none of the original's vendor blocks.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use io_harness::core::transcript::Conversation;
use io_harness::run::group::{
    Column, Copies, Entrant, GroupResult, Replay, Venue, run_group, run_in_group,
};
use io_harness::run::{NoObserver, RunOptions, RunResult, run_with_options};
use io_harness::stub::{Script, ScriptedResponse, StubHandle};
use io_harness::{
    ApproveAll, BudgetKind, HttpProvider, Policy, Provider, RunOutcome, Store, TaskContract,
    Vendor, WebAccess, Wire,
};
use pretty_assertions::assert_eq;

/// An OpenAI Chat Completions answer asking for one local tool.
const OPENAI_TOOL: &str = r#"{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"list_dir","arguments":"{\"path\":\".\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}"#;
/// An OpenAI Chat Completions final answer.
const OPENAI_DONE: &str = r#"{"id":"c2","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}"#;

/// `body` answered only on `vendor`'s path, after `delay_ms`.
fn on(vendor: Vendor, body: &str, delay_ms: u64) -> ScriptedResponse {
    ScriptedResponse {
        vendor: Some(vendor),
        delay_ms: (delay_ms > 0).then_some(delay_ms),
        ..ok(body)
    }
}

async fn stub(responses: Vec<ScriptedResponse>) -> StubHandle {
    start_stub(Script {
        responses,
        repeat: false,
        emulate_usage: false,
    })
    .await
}

fn provider(stub: &StubHandle, vendor: Vendor) -> HttpProvider {
    provider_at(stub, Wire::spec(vendor))
}

fn entrants(stub: &StubHandle, vendors: &[Vendor]) -> Vec<Entrant<HttpProvider>> {
    vendors
        .iter()
        .map(|&v| Entrant {
            vendor: v,
            provider: Ok(provider(stub, v)),
            observer: Arc::new(NoObserver),
        })
        .collect()
}

/// A store and an operator workspace holding one file.
struct Place {
    dir: tempfile::TempDir,
    store: Store,
    copies: Copies,
    policy: Policy,
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("ws")).unwrap();
        std::fs::write(dir.path().join("ws/seed.txt"), "the operator's").unwrap();
        let store = Store::open(dir.path().join("data/runs.db")).unwrap();
        // Kept, so each test can read what a run left in its copy.
        let copies = Copies {
            keep: true,
            ..Copies::beside(&dir.path().join("data/runs.db"))
        };
        Place {
            dir,
            store,
            copies,
            policy: Policy::workspace_default(),
        }
    }

    fn contract(&self, goal: &str) -> TaskContract {
        TaskContract {
            workspace: self.dir.path().join("ws"),
            ..contract(goal)
        }
    }

    /// The store, copies beside it, the workspace policy, and approving all.
    fn venue(&self) -> Venue<'_, ApproveAll> {
        Venue {
            store: &self.store,
            copies: &self.copies,
            policy: &self.policy,
            approver: &ApproveAll,
        }
    }

    fn operator_files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.dir.path().join("ws"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Place {
    /// `contract` on `vendors` of `stub` as a new group, with `options` and `cap`.
    async fn group(
        &self,
        stub: &StubHandle,
        vendors: &[Vendor],
        contract: &TaskContract,
        options: RunOptions,
        cap: Option<u64>,
    ) -> GroupResult {
        run_group(
            &self.venue(),
            contract,
            entrants(stub, vendors),
            options,
            cap,
        )
        .await
        .unwrap()
    }

    /// `contract` alone on `vendor` of `stub`.
    async fn alone(&self, stub: &StubHandle, vendor: Vendor, contract: &TaskContract) -> RunResult {
        run_with_options(
            contract,
            &provider(stub, vendor),
            &self.store,
            &Policy::workspace_default(),
            &ApproveAll,
            RunOptions::default(),
        )
        .await
        .unwrap()
    }
}

fn ran(column: &Column) -> &io_harness::RunResult {
    match column {
        Column::Ran(r) => r,
        other => panic!("did not run: {other:?}"),
    }
}

#[tokio::test]
async fn each_vendor_runs_in_its_own_copy_and_a_refusal_is_recorded_while_the_others_run() {
    let write = tool_use("write_file", r#"{"path":"notes.md","content":"0.22.0"}"#);
    let stub = stub(vec![
        on(Vendor::Anthropic, &write, 0),
        on(Vendor::Anthropic, &fixture("anthropic/search-ok.json"), 0),
        on(Vendor::OpenAi, &fixture("openai/search-ok.json"), 0),
    ])
    .await;
    let place = Place::new();
    // An allow-list: OpenRouter's web plugin cannot carry it.
    let contract = place
        .contract("find it")
        .with_web(WebAccess::search().allow("docs.rs"));
    let vendors = [Vendor::Anthropic, Vendor::OpenAi, Vendor::OpenRouter];
    let want_refusal = provider(&stub, Vendor::OpenRouter)
        .carries(contract.web.as_ref())
        .unwrap_err()
        .to_string();
    assert!(
        want_refusal
            .starts_with("provider \"openrouter\" cannot restrict search to individual domains"),
        "{want_refusal}"
    );
    let g = place
        .group(&stub, &vendors, &contract, RunOptions::default(), None)
        .await;

    let names: Vec<&str> = g.columns.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["anthropic", "openai", "openrouter"]);
    assert_eq!(ran(&g.columns[0].2).outcome, RunOutcome::Passed);
    assert_eq!(ran(&g.columns[1].2).outcome, RunOutcome::Passed);
    match &g.columns[2].2 {
        Column::Refused(said) => assert_eq!(said, &want_refusal),
        other => panic!("{other:?}"),
    }
    // Each copy under the store's folder, named by group and vendor; only the
    // run that wrote has the file; the operator's workspace is as it was.
    let anthropic_ws = g.columns[0].1.clone().unwrap();
    let openai_ws = g.columns[1].1.clone().unwrap();
    let group_dir = place
        .dir
        .path()
        .join("data/groups")
        .join(g.group_id.to_string());
    assert_eq!(anthropic_ws, group_dir.join("anthropic"));
    assert_eq!(openai_ws, group_dir.join("openai"));
    assert_eq!(
        std::fs::read_to_string(anthropic_ws.join("notes.md")).unwrap(),
        "0.22.0"
    );
    assert!(!openai_ws.join("notes.md").exists());
    assert_eq!(
        std::fs::read_to_string(openai_ws.join("seed.txt")).unwrap(),
        "the operator's"
    );
    assert_eq!(place.operator_files(), ["seed.txt"]);

    // The store: both runs in the group, the refusal beside them, and the overlap.
    let c = place
        .store
        .comparison(g.group_id, &Default::default())
        .unwrap()
        .unwrap();
    assert_eq!(c.runs.len(), 2);
    assert_eq!(c.not_run.len(), 1);
    assert_eq!(c.not_run[0].vendor.as_str(), "openrouter");
    assert_eq!(c.not_run[0].message, want_refusal);
    assert_eq!(c.runs[0].vendor.as_str(), "anthropic");
    assert_eq!(c.runs[0].figures.requests, 2);
    assert_eq!(c.runs[0].figures.searches, 1);
    assert_eq!(c.runs[1].vendor.as_str(), "openai");
    assert!(c.runs[0].citations > 0 && c.runs[1].citations > 0, "{c:#?}");
    assert_eq!(c.overlaps.len(), 1);
    assert!(c.runs.iter().all(|r| r.workspace.is_some()));
    for r in place.store.runs(None).unwrap() {
        assert_eq!(r.group_id, Some(g.group_id));
    }
}

#[tokio::test]
async fn a_vendor_hanging_to_its_time_budget_does_not_hold_the_others() {
    let stub = stub(vec![
        // Anthropic answers long after the run's one-second budget.
        on(Vendor::Anthropic, ANSWER, 5_000),
        on(Vendor::OpenAi, OPENAI_DONE, 0),
        // OpenRouter's vendor fails outright.
        ScriptedResponse {
            vendor: Some(Vendor::OpenRouter),
            ..status(
                400,
                r#"{"error":{"message":"bad request","code":400}}"#,
                &[],
            )
        },
    ])
    .await;
    let place = Place::new();
    let mut contract = place.contract("answer");
    contract.budget.seconds = 1;
    let started = std::time::Instant::now();
    let g = place
        .group(
            &stub,
            &[Vendor::Anthropic, Vendor::OpenAi, Vendor::OpenRouter],
            &contract,
            RunOptions::default(),
            None,
        )
        .await;
    assert_eq!(
        ran(&g.columns[0].2).outcome,
        RunOutcome::BudgetExhausted {
            budget: BudgetKind::Time
        }
    );
    assert_eq!(ran(&g.columns[1].2).outcome, RunOutcome::Passed);
    assert!(matches!(
        ran(&g.columns[2].2).outcome,
        RunOutcome::Error { .. }
    ));
    // The group ended with its slowest run (the one-second budget), not after
    // the hung answer; and the others finished before the hung one was given up.
    assert!(started.elapsed() < Duration::from_secs(5));
    let runs = place.store.runs(None).unwrap();
    let finished = |vendor: &str| {
        runs.iter()
            .find(|r| r.provider.as_str() == vendor)
            .and_then(|r| r.finished_at.clone())
            .unwrap()
    };
    assert!(finished("openai") < finished("anthropic"));
    assert!(finished("openrouter") < finished("anthropic"));
}

#[tokio::test]
async fn one_cancellation_ends_every_run_and_each_is_recorded_cancelled() {
    let stub = stub(vec![
        on(Vendor::Anthropic, ANSWER, 10_000),
        on(Vendor::OpenAi, OPENAI_DONE, 10_000),
    ])
    .await;
    let place = Place::new();
    let options = RunOptions::default();
    let cancel = options.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let g = place
        .group(
            &stub,
            &[Vendor::Anthropic, Vendor::OpenAi],
            &place.contract("answer"),
            options,
            None,
        )
        .await;
    for (_, _, column) in &g.columns {
        assert_eq!(ran(column).outcome, RunOutcome::Cancelled);
    }
    let outcomes: Vec<Option<io_harness::Outcome>> = place
        .store
        .runs(None)
        .unwrap()
        .into_iter()
        .map(|r| r.outcome)
        .collect();
    assert_eq!(outcomes, vec![Some(io_harness::Outcome::Cancelled); 2]);
}

fn priced() -> io_harness::PriceTable {
    // 10 input tokens at $1000 per million: $0.01 a request.
    io_harness::PriceTable::new([(
        "m".to_string(),
        io_harness::Price {
            input_per_mtok: 1000.0,
            ..Default::default()
        },
    )])
}

#[tokio::test]
async fn the_dollar_cap_is_on_the_groups_total() {
    let tool = tool_use("list_dir", r#"{"path":"."}"#);
    let stub = stub(vec![
        // Anthropic's first answer comes once OpenAI has spent its $0.02.
        on(Vendor::Anthropic, &tool, 1_500),
        on(Vendor::Anthropic, ANSWER, 0),
        on(Vendor::OpenAi, OPENAI_TOOL, 0),
        on(Vendor::OpenAi, OPENAI_DONE, 0),
    ])
    .await;
    let place = Place::new();
    let cap = 25_000;
    let mut contract = place.contract("answer");
    contract.budget.usd_micro = Some(cap);
    let options = RunOptions {
        prices: priced(),
        ..RunOptions::default()
    };
    let g = place
        .group(
            &stub,
            &[Vendor::Anthropic, Vendor::OpenAi],
            &contract,
            options,
            Some(cap),
        )
        .await;
    // Alone, each would pass on $0.02 (under $0.025); together they cross it
    // with Anthropic's first request, and Anthropic stops there.
    assert_eq!(ran(&g.columns[1].2).outcome, RunOutcome::Passed);
    let a = ran(&g.columns[0].2);
    assert_eq!(
        a.outcome,
        RunOutcome::BudgetExhausted {
            budget: BudgetKind::Usd
        }
    );
    assert_eq!(a.steps, 1);
    let c = place
        .store
        .comparison(g.group_id, &priced())
        .unwrap()
        .unwrap();
    assert_eq!(c.max_usd_micro, Some(cap));
    assert_eq!(c.runs[0].figures.cost_micro_usd, Some(10_000));
    assert_eq!(c.runs[1].figures.cost_micro_usd, Some(20_000));
}

/// Row counts of every table a run writes, for one run.
fn rows(store_path: &std::path::Path, run_id: i64) -> Vec<(String, i64)> {
    let conn = rusqlite::Connection::open(store_path).unwrap();
    [
        "provider_calls",
        "citations",
        "server_tool_calls",
        "steps",
        "checkpoints",
        "exchanges",
        "search_index",
    ]
    .iter()
    .map(|t| {
        let n: i64 = conn
            .query_row(
                &format!("SELECT COUNT(*) FROM {t} WHERE run_id = ?1"),
                [run_id],
                |r| r.get(0),
            )
            .unwrap();
        (t.to_string(), n)
    })
    .collect()
}

#[tokio::test]
async fn a_grouped_run_writes_the_rows_of_the_same_run_made_alone() {
    let script = || {
        vec![
            on(Vendor::Anthropic, SEARCH_OK_DUPLICATES, 0),
            on(Vendor::Anthropic, &fixture("anthropic/search-ok.json"), 0),
        ]
    };
    let place = Place::new();
    let mut contract = place.contract("find it").with_web(WebAccess::search());
    contract.conversation = Conversation::Transcript;
    // Alone.
    let alone_stub = stub(script()).await;
    let alone = place.alone(&alone_stub, Vendor::Anthropic, &contract).await;
    // In a group of two (OpenAI beside it).
    let mut responses = script();
    responses.push(on(Vendor::OpenAi, &fixture("openai/search-ok.json"), 0));
    let group_stub = stub(responses).await;
    let g = place
        .group(
            &group_stub,
            &[Vendor::Anthropic, Vendor::OpenAi],
            &contract,
            RunOptions::default(),
            None,
        )
        .await;
    let grouped = ran(&g.columns[0].2);
    assert_eq!(alone.outcome, grouped.outcome);
    let db = place.dir.path().join("data/runs.db");
    let alone_rows = rows(&db, alone.run_id.0);
    assert!(alone_rows.iter().all(|(_, n)| *n > 0), "{alone_rows:?}");
    assert_eq!(alone_rows, rows(&db, grouped.run_id.0));
}

#[tokio::test]
async fn a_replay_runs_the_task_on_another_vendor_without_the_originals_blocks() {
    const SECRET: &str = "ENC-ORIGINAL-VENDOR-BLOB";
    // A search whose result carries the vendor's encrypted content, then a tool.
    let search = format!(
        r#"{{"type":"message","model":"m","content":[
 {{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{{"query":"release"}}}},
 {{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{{"type":"web_search_result","url":"https://crates.io/crates/io-harness","title":"io-harness","encrypted_content":"{SECRET}"}}]}},
 {{"type":"text","text":"0.22.0","citations":[{{"type":"web_search_result_location","url":"https://crates.io/crates/io-harness","title":"io-harness","cited_text":"0.22.0","encrypted_index":"{SECRET}-index"}}]}},
 {{"type":"tool_use","id":"toolu_1","name":"list_dir","input":{{"path":"."}}}}],
 "stop_reason":"tool_use","usage":{{"input_tokens":100,"output_tokens":20,"server_tool_use":{{"web_search_requests":1}}}}}}"#
    );
    let stub = stub(vec![
        on(Vendor::Anthropic, &search, 0),
        on(Vendor::Anthropic, &fixture("anthropic/search-ok.json"), 0),
        on(Vendor::OpenAi, &fixture("openai/search-ok.json"), 0),
    ])
    .await;
    let place = Place::new();
    let mut contract = place
        .contract("find the release")
        .with_web(WebAccess::search().max_uses(3));
    contract.conversation = Conversation::Transcript;
    let original = place.alone(&stub, Vendor::Anthropic, &contract).await;
    assert_eq!(original.outcome, RunOutcome::Passed);
    // The original's second request carried its blocks back, as a transcript does.
    assert!(
        stub.requests()
            .iter()
            .any(|r| String::from_utf8_lossy(&r.body).contains(SECRET))
    );

    let replay = Replay::of(&place.store, original.run_id).unwrap();
    assert_eq!(replay.contract.goal, contract.goal);
    assert_eq!(replay.contract.web, contract.web);
    assert_eq!(replay.contract.workspace, contract.workspace);
    let group_id = replay.group(&place.store, None).unwrap();
    let g = run_in_group(
        &place.venue(),
        &replay.contract,
        entrants(&stub, &[Vendor::OpenAi]),
        RunOptions::default(),
        None,
        group_id,
    )
    .await
    .unwrap();
    assert_eq!(ran(&g.columns[0].2).outcome, RunOutcome::Passed);
    let to_openai: Vec<String> = stub
        .requests()
        .iter()
        .filter(|r| r.path.contains("chat/completions"))
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .collect();
    assert_eq!(to_openai.len(), 1);
    assert!(!to_openai[0].contains(SECRET), "{}", to_openai[0]);
    assert!(to_openai[0].contains("find the release"));
    // The original joined the new group beside its replay; a second replay
    // joins the same group.
    let c = place
        .store
        .comparison(group_id, &Default::default())
        .unwrap()
        .unwrap();
    let ids: Vec<i64> = c.runs.iter().map(|r| r.run_id.0).collect();
    assert_eq!(ids, vec![original.run_id.0, ran(&g.columns[0].2).run_id.0]);
    assert_eq!(
        Replay::of(&place.store, original.run_id).unwrap().group_id,
        Some(group_id)
    );
    let missing = Replay::of(&place.store, io_harness::RunId(999)).unwrap_err();
    assert!(
        missing.to_string().contains("there is no run 999"),
        "{missing}"
    );
}
