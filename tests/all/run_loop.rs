//! The loop end to end: a loopback stub vendor over real HTTP, a real SQLite file,
//! real local tools. Each test asserts rows, events and the observations carried
//! in the next request body.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use io_harness::core::policy::Act;
use io_harness::{
    ApproveAll, BudgetKind, DenyAll, EventKind, Policy, RunOutcome, ServerToolCall, Vendor,
    WebAccess,
};
use pretty_assertions::assert_eq;

#[tokio::test]
async fn duplicate_citations_in_one_step_are_one_row_and_pass_without_tools() {
    let h = Harness::new(vec![ok(SEARCH_OK_DUPLICATES)]).await;
    let r = h
        .run(contract("find it").with_web(WebAccess::search().max_uses(3)))
        .await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let rows = h.store.citations(r.run_id).unwrap();
    assert_eq!(
        rows.iter()
            .map(|c| (c.step, c.url.as_str()))
            .collect::<Vec<_>>(),
        vec![(1, "https://docs.rs/a"), (1, "https://docs.rs/b")]
    );
    assert_eq!(rows[1].title, None);
    let calls = h.store.server_tool_calls(r.run_id).unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].error, None);
    let pc = h.store.provider_calls(r.run_id).unwrap();
    assert_eq!(pc.len(), 1);
    assert_eq!(pc[0].usage.unwrap().server_tool_requests, 1);
    // The request carried the declaration.
    let sent = h.bodies();
    assert_eq!(
        sent[0]["tools"].as_array().unwrap().last().unwrap()["type"],
        "web_search_20250305"
    );
    let citation_events = h
        .events()
        .iter()
        .filter(|e| matches!(e, EventKind::CitationRecorded { .. }))
        .count();
    assert_eq!(citation_events, 2);
}

#[tokio::test]
async fn a_failed_search_is_a_row_an_event_and_the_next_observation() {
    let h = Harness::new(vec![ok(SEARCH_FAILED_THEN_TOOL), ok(ANSWER)]).await;
    let r = h
        .run(contract("find it").with_web(WebAccess::search()))
        .await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let calls = h.store.server_tool_calls(r.run_id).unwrap();
    assert_eq!(
        calls.iter().map(|c| c.error.clone()).collect::<Vec<_>>(),
        vec![Some("max_uses_exceeded".to_string())]
    );
    assert!(h.events().iter().any(|e| matches!(e, EventKind::ServerToolUsed { provider, tool, ok: false, .. } if *provider == Vendor::Anthropic && tool == "web_search")));
    let second = user_text(&h.bodies()[1]);
    assert!(
        second.contains("[step 1] provider web tool: web_search failed (max_uses_exceeded)"),
        "{second}"
    );
}

#[tokio::test]
async fn an_empty_search_is_an_ok_row_and_no_observation() {
    let h = Harness::new(vec![ok(SEARCH_EMPTY_THEN_TOOL), ok(ANSWER)]).await;
    let r = h
        .run(contract("find it").with_web(WebAccess::search()))
        .await;
    let calls = h.store.server_tool_calls(r.run_id).unwrap();
    assert_eq!(calls.len(), 1);
    assert!(calls[0].error.is_none());
    assert!(h.store.citations(r.run_id).unwrap().is_empty());
    let second = user_text(&h.bodies()[1]);
    assert!(!second.contains("provider web tool"), "{second}");
}

#[tokio::test]
async fn a_pause_takes_another_step_and_both_are_charged() {
    let h = Harness::new(vec![ok(&fixture("anthropic/pause-turn.json")), ok(ANSWER)]).await;
    let r = h
        .run(contract("research").with_web(WebAccess::search()))
        .await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    assert_eq!(r.steps, 2);
    let pc = h.store.provider_calls(r.run_id).unwrap();
    assert_eq!(
        pc.iter()
            .map(|c| c.stop_reason.as_str())
            .collect::<Vec<_>>(),
        ["pause_turn", "end_turn"]
    );
    assert_eq!(r.usage.input_tokens, 9120 + 10);
    let second = user_text(&h.bodies()[1]);
    assert!(second.contains("[step 1] partial answer (the provider paused the turn): I'll research quantum computing"), "{second}");
}

#[tokio::test]
async fn continuations_are_bounded() {
    let pause = fixture("anthropic/pause-turn.json");
    let h = Harness::new(vec![
        ok(&pause),
        ok(&pause),
        ok(&pause),
        ok(&pause),
        ok(ANSWER),
    ])
    .await;
    let r = h
        .run(contract("research").with_web(WebAccess::search()))
        .await;
    assert_eq!(
        r.outcome,
        RunOutcome::BudgetExhausted {
            budget: BudgetKind::Continuations
        }
    );
    assert_eq!(h.store.provider_calls(r.run_id).unwrap().len(), 4);
}

#[tokio::test]
async fn a_529_then_success_is_retried_and_visible() {
    let h = Harness::new(vec![
        status(529, &fixture("anthropic/error-overloaded-529.json"), &[]),
        ok(ANSWER),
    ])
    .await;
    let r = h.run(contract("g")).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    assert_eq!(h.bodies().len(), 2);
    assert!(h.events().iter().any(|e| matches!(
        e,
        EventKind::Retrying {
            status: Some(529),
            ..
        }
    )));
}

#[tokio::test]
async fn a_429_with_retry_after_waits_as_told() {
    let h = Harness::new(vec![
        status(
            429,
            &fixture("anthropic/error-rate-limit-429.json"),
            &[("retry-after-ms", "120")],
        ),
        ok(ANSWER),
    ])
    .await;
    let r = h.run(contract("g")).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let waited = h.events().iter().find_map(|e| match e {
        EventKind::Retrying { wait_ms, .. } => Some(*wait_ms),
        _ => None,
    });
    assert_eq!(waited, Some(120));
}

#[tokio::test]
async fn a_quota_429_is_not_retried() {
    let h = Harness::vendor(
        Vendor::OpenAi,
        vec![
            status(
                429,
                &fixture("openai/error-insufficient-quota-429.json"),
                &[],
            ),
            ok(ANSWER),
        ],
    )
    .await;
    let r = h.run(contract("g")).await;
    match &r.outcome {
        RunOutcome::Error { message } => {
            assert!(message.contains("insufficient_quota"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(h.bodies().len(), 1);
}

#[tokio::test]
async fn a_truncated_body_is_retried() {
    let h = Harness::new(vec![truncated(ANSWER, 20), ok(ANSWER)]).await;
    let r = h.run(contract("g")).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    assert_eq!(h.bodies().len(), 2);
}

#[tokio::test]
async fn a_write_refused_by_policy_is_told_to_the_model() {
    let h = Harness::new(vec![
        ok(&tool_use(
            "write_file",
            r#"{"path":"secrets/k","content":"x"}"#,
        )),
        ok(ANSWER),
    ])
    .await;
    let policy = Policy::default()
        .layer("defaults")
        .allow(Act::Write, "**")
        .layer("project")
        .deny(Act::Write, "secrets/**");
    let r = h.run_under(contract("g"), &policy, &ApproveAll).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let second = user_text(&h.bodies()[1]);
    assert!(
        second.contains(
            "refused: write secrets/k is denied by rule deny(\"secrets/**\") in layer \"project\""
        ),
        "{second}"
    );
    assert!(!h.workspace.path().join("secrets").exists());
}

#[tokio::test]
async fn an_ask_approved_writes_and_the_verification_passes() {
    let h = Harness::new(vec![
        ok(&tool_use(
            "write_file",
            r#"{"path":"README.md","content":"cargo install io-harness"}"#,
        )),
        ok(ANSWER),
    ])
    .await;
    let c = contract("g").with_verification("README.md", "install");
    let r = h
        .run_under(c, &Policy::workspace_default(), &ApproveAll)
        .await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let ev = h.events();
    assert!(ev.iter().any(|e| matches!(
        e,
        EventKind::ApprovalAsked {
            act: Act::Write,
            ..
        }
    )));
    assert!(ev.contains(&EventKind::ApprovalAnswered { approved: true }));
}

#[tokio::test]
async fn an_ask_denied_fails_the_verification() {
    let h = Harness::new(vec![
        ok(&tool_use(
            "write_file",
            r#"{"path":"README.md","content":"cargo install io-harness"}"#,
        )),
        ok(ANSWER),
    ])
    .await;
    let c = contract("g").with_verification("README.md", "install");
    let r = h.run_under(c, &Policy::workspace_default(), &DenyAll).await;
    assert!(
        matches!(r.outcome, RunOutcome::Failed { .. }),
        "{:?}",
        r.outcome
    );
    assert!(
        h.events()
            .contains(&EventKind::ApprovalAnswered { approved: false })
    );
    assert!(user_text(&h.bodies()[1]).contains("refused: the approver said no to write README.md"));
}

#[tokio::test]
async fn budgets_end_the_run_saying_which() {
    let tool = tool_use("list_dir", r#"{"path":"."}"#);
    let h = Harness::new(vec![ok(&tool), ok(&tool), ok(&tool)]).await;
    let r = h.run(contract("g").max_steps(2)).await;
    assert_eq!(
        r.outcome,
        RunOutcome::BudgetExhausted {
            budget: BudgetKind::Steps
        }
    );
    let row = h.store.run(r.run_id).unwrap().unwrap();
    assert_eq!(row.outcome.map(|o| o.as_str()), Some("budget_exhausted"));

    let h = Harness::new(vec![ok(&tool), ok(&tool)]).await;
    let r = h.run(contract("g").max_tokens(5)).await;
    assert_eq!(
        r.outcome,
        RunOutcome::BudgetExhausted {
            budget: BudgetKind::Tokens
        }
    );

    let h = Harness::new(vec![delayed(&tool, 3_000)]).await;
    let r = h.run(contract("g").max_seconds(1)).await;
    assert_eq!(
        r.outcome,
        RunOutcome::BudgetExhausted {
            budget: BudgetKind::Time
        }
    );
}

#[tokio::test]
async fn a_refused_declaration_sends_nothing_and_records_nothing() {
    let h = Harness::vendor(Vendor::OpenRouter, vec![ok(ANSWER)]).await;
    let err = h
        .try_run(contract("g").with_web(WebAccess::search().allow("docs.rs")))
        .await
        .unwrap_err();
    assert!(err.is_config());
    assert!(h.bodies().is_empty());
    assert!(h.store.runs(None).unwrap().is_empty());
}

#[tokio::test]
async fn a_killed_run_resumes_from_its_checkpoint() {
    let tool = tool_use("list_dir", r#"{"path":"."}"#);
    let h = Harness::new(vec![ok(&tool), delayed(ANSWER, 10_000), ok(ANSWER)]).await;
    // Kill it while step 2 is in flight.
    let killed = tokio::time::timeout(
        std::time::Duration::from_millis(1_500),
        h.try_run(contract("g")),
    )
    .await;
    assert!(killed.is_err(), "the run should still have been in flight");
    let run_id = h.store.runs(None).unwrap()[0].run_id;
    assert_eq!(h.store.run(run_id).unwrap().unwrap().outcome, None);
    let r = h.resume(run_id).await;
    assert_eq!(r.run_id, run_id);
    assert_eq!(r.outcome, RunOutcome::Passed);
    assert_eq!(r.steps, 2);
    let last = h.bodies().last().cloned().unwrap();
    assert!(
        user_text(&last).contains("[step 1] list_dir"),
        "resumed with step 1's observation"
    );
    assert!(
        h.events()
            .iter()
            .any(|e| matches!(e, EventKind::RunStarted { resumed: true, .. }))
    );
}

#[tokio::test]
async fn server_tool_rows_match_the_completion() {
    let h = Harness::new(vec![ok(&fixture("anthropic/search-error.json"))]).await;
    let r = h.run(contract("g").with_web(WebAccess::search())).await;
    let rows: Vec<ServerToolCall> = h
        .store
        .server_tool_calls(r.run_id)
        .unwrap()
        .into_iter()
        .map(|c| ServerToolCall {
            provider: c.provider,
            tool: c.tool,
            error: c.error,
            input: c.input,
        })
        .collect();
    assert_eq!(
        rows[1],
        ServerToolCall::failed(Vendor::Anthropic, "web_search", "max_uses_exceeded")
            .with_input("claude shannon information theory 1948 paper")
    );
}

fn priced_at(input_per_mtok: f64) -> io_harness::PriceTable {
    io_harness::PriceTable::new([(
        "m".to_string(),
        io_harness::Price {
            input_per_mtok,
            ..Default::default()
        },
    )])
}

#[tokio::test]
async fn a_dollar_budget_ends_the_run_after_the_completion_that_exceeds_it() {
    // Each request: 10 input tokens at $1000 per million = $0.01.
    let tool = tool_use("list_dir", r#"{"path":"."}"#);
    let h = Harness::new(vec![ok(&tool), ok(&tool), ok(&tool)]).await;
    let mut c = contract("g");
    c.budget.usd_micro = Some(15_000);
    let options = io_harness::RunOptions {
        prices: priced_at(1000.0),
        ..Default::default()
    };
    let r = h.run_with(c, options).await;
    assert_eq!(
        r.outcome,
        RunOutcome::BudgetExhausted {
            budget: BudgetKind::Usd
        }
    );
    assert_eq!((r.steps, r.spent_micro_usd), (2, 20_000));
    assert_eq!(h.bodies().len(), 2, "no request after the limit was passed");
    let row = h.store.run(r.run_id).unwrap().unwrap();
    assert_eq!(
        (
            row.outcome.map(|o| o.as_str()),
            row.outcome_detail.as_deref()
        ),
        (Some("budget_exhausted"), Some("usd"))
    );
    assert_eq!(
        h.store
            .ledger(r.run_id, &priced_at(1000.0))
            .unwrap()
            .total_micro_usd(),
        Some(20_000)
    );
}

#[tokio::test]
async fn a_dollar_budget_without_a_price_is_refused_before_any_request() {
    let h = Harness::new(vec![ok(ANSWER)]).await;
    let mut c = contract("g");
    c.budget.usd_micro = Some(2_000_000);
    let e = h.try_run(c).await.unwrap_err();
    assert!(e.is_config());
    assert_eq!(
        e.to_string(),
        "a dollar budget of $2.000000 cannot be kept: model m has no price (no row in the built-in table, no [prices.\"m\"] in io.toml). State it under [prices.\"m\"] in io.toml, or remove [budget] usd / --max-usd. No request was sent."
    );
    assert!(h.bodies().is_empty());
    assert!(h.store.runs(None).unwrap().is_empty());
}

#[tokio::test]
async fn openrouters_reported_cost_is_the_requests_cost() {
    let h = Harness::vendor(
        Vendor::OpenRouter,
        vec![ok(&fixture("openrouter/web-ok.json"))],
    )
    .await;
    let r = h.run(contract("find it")).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let costs: Vec<io_harness::Cost> = h
        .events()
        .into_iter()
        .filter_map(|e| match e {
            EventKind::ProviderCalled { cost, .. } => Some(cost),
            _ => None,
        })
        .collect();
    // usage.cost 0.0077641 → $0.007764, the vendor's own figure, no table needed.
    assert_eq!(costs.len(), 1);
    assert_eq!(
        (costs[0].vendor_micro_usd, costs[0].total_micro_usd),
        (Some(7_764), Some(7_764))
    );
    let ledger = h
        .store
        .ledger(r.run_id, &io_harness::PriceTable::default())
        .unwrap();
    assert_eq!(ledger.total_micro_usd(), Some(7_764));
    assert!(ledger.figures(None).vendor_reported());
    assert_eq!(r.spent_micro_usd, 7_764);
}
