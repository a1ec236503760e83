//! The Compare screen: one key on Declare runs the goal on every vendor that
//! carries the declaration (the others shown with their refusal), a column per
//! vendor while it runs, the comparison table when done, Enter opening the chosen
//! run in Run and `s` in Sources, Esc twice cancelling every run — on the pure
//! state (TestBackend snapshots) and driven for real against the demo stub.

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeSet;

use common::console::*;
use crossterm::event::KeyCode;
use io_harness::console::testing::update;
use io_harness::console::testing::{Effect, Msg, Screen};
use io_harness::core::compare::{Column, Comparison, NotRun};
use io_harness::{Event, EventKind, RunId, Vendor};
use pretty_assertions::assert_eq;

fn event(run: i64, step: u32, kind: EventKind) -> Box<Event> {
    Box::new(Event {
        run_id: RunId(run),
        step,
        elapsed_ms: 1200,
        kind,
    })
}

#[test]
fn one_key_runs_every_vendor_that_carries_the_declaration_and_shows_the_refusal() {
    // CONFIG's allow-list: OpenRouter's web plugin cannot carry it.
    let mut s = state();
    let effects = update(&mut s, ctrl('g'));
    let Some(Effect::StartCompare { contract, vendors }) = effects.first() else {
        panic!("{effects:?}");
    };
    assert_eq!(contract.goal, s.form.goal_text());
    let asked: Vec<Vendor> = vendors.iter().map(|v| v.0).collect();
    assert_eq!(
        asked,
        Vendor::ALL.to_vec(),
        "every vendor asked; the library records refusals"
    );
    assert_eq!(s.screen, Screen::Compare);
    let refused = s.compare.columns[2].refused.clone().unwrap();
    assert!(
        refused.starts_with("provider \"openrouter\" cannot restrict search"),
        "{refused}"
    );
    assert!(s.compare.columns[0].refused.is_none() && s.compare.columns[1].refused.is_none());
    // A second press while it runs starts nothing.
    assert_eq!(update(&mut s, ctrl('g')), vec![]);

    // Anthropic's events land in its column only.
    for kind in [
        EventKind::RunStarted {
            goal: "g".into(),
            provider: Vendor::Anthropic,
            model: "claude-sonnet-4-5".into(),
            resumed: false,
            agent: None,
            web: None,
            no_local_tools: None,
        },
        EventKind::ServerToolUsed {
            provider: Vendor::Anthropic,
            tool: "web_search".into(),
            ok: false,
            error: Some("max_uses_exceeded".into()),
            input: Some("io-harness release".into()),
        },
    ] {
        update(
            &mut s,
            Msg::GroupRun {
                vendor: Vendor::Anthropic,
                event: event(1, 1, kind),
            },
        );
    }
    assert_eq!(s.compare.columns[0].run.server.len(), 1);
    assert!(s.compare.columns[1].run.server.is_empty());
    insta::assert_snapshot!("compare_running_100x24", screen(&s, 100, 24));
}

fn comparison() -> Comparison {
    let col = |id: i64, vendor: &str, urls: &[&str], cost: u64| Column {
        run_id: RunId(id),
        vendor: vendor.parse().unwrap(),
        model: format!("{vendor}-model"),
        outcome: Some(io_harness::Outcome::Passed),
        figures: io_harness::core::figures::RunFigures {
            requests: 2,
            input_tokens: 1000,
            output_tokens: 100,
            cost_micro_usd: Some(cost),
            wall_ms: Some(2500),
            searches: 2,
            failed_searches: 1,
            ..Default::default()
        },
        citations: urls.len() as u64,
        domains: 1,
        answer: vec![format!("{vendor} says 0.22.0")],
        urls: urls.iter().map(|u| u.to_string()).collect::<BTreeSet<_>>(),
        ..Column::default()
    };
    Comparison::new(
        io_harness::GroupId(4),
        "Find the current io-harness release".into(),
        vec![
            col(
                7,
                "anthropic",
                &["https://crates.io/crates/io-harness"],
                40_000,
            ),
            col(
                8,
                "openai",
                &[
                    "https://crates.io/crates/io-harness",
                    "https://docs.rs/io-harness",
                ],
                11_000,
            ),
        ],
        vec![NotRun {
            vendor: Vendor::OpenRouter,
            message: "provider \"openrouter\" cannot restrict search to individual domains".into(),
        }],
    )
}

#[test]
fn when_done_the_table_then_enter_opens_the_chosen_run_and_s_its_sources() {
    let mut s = state();
    update(&mut s, ctrl('g'));
    update(&mut s, Msg::Compared(Ok(comparison())));
    assert!(!s.compare.running);
    insta::assert_snapshot!("compare_done_100x30", screen(&s, 100, 30));
    // Taller than the screen: PageDown brings the answers into view, the chosen
    // run's line staying on top.
    let before = screen(&s, 100, 30);
    assert!(!before.contains("openai says 0.22.0"), "{before}");
    update(&mut s, key(KeyCode::PageDown));
    let after = screen(&s, 100, 30);
    assert!(after.contains("openai says 0.22.0"), "{after}");
    assert!(after.contains("▶ #7 anthropic"), "{after}");
    update(&mut s, key(KeyCode::PageUp));
    assert_eq!(screen(&s, 100, 30), before);
    // Small terminals draw without a panic, scrolled past the end or not.
    for _ in 0..5 {
        update(&mut s, key(KeyCode::PageDown));
    }
    for (w, h) in [(40, 10), (50, 16), (60, 12)] {
        assert!(screen(&s, w, h).contains("F5"), "{w}x{h}");
    }
    // ↓ chooses the OpenAI run; `r` opens it in the Run panes.
    update(&mut s, key(KeyCode::Down));
    assert_eq!(
        update(&mut s, key(KeyCode::Char('r'))),
        vec![Effect::OpenRun(RunId(8))]
    );
    // `s`: Sources, that run selected once the runs are in.
    assert_eq!(
        update(&mut s, key(KeyCode::Char('s'))),
        vec![Effect::LoadRuns]
    );
    assert_eq!(s.screen, Screen::Sources);
    let row = |id| io_harness::store::RunRow {
        run_id: RunId(id),
        ..Default::default()
    };
    update(&mut s, Msg::Runs(vec![row(9), row(8), row(7)]));
    assert_eq!(s.sources.selected, 1);
}

#[test]
fn esc_twice_cancels_every_run_and_nothing_starts_without_a_goal() {
    let mut s = state();
    update(&mut s, ctrl('g'));
    assert_eq!(update(&mut s, key(KeyCode::Esc)), vec![]);
    assert!(
        s.notice
            .as_ref()
            .unwrap()
            .0
            .contains("again cancels every run")
    );
    assert_eq!(update(&mut s, key(KeyCode::Esc)), vec![Effect::CancelRun]);
    // From another screen too: the comparison is what runs.
    let mut s = state();
    update(&mut s, ctrl('g'));
    update(&mut s, key(KeyCode::F(3)));
    assert_eq!(update(&mut s, key(KeyCode::Esc)), vec![]);
    assert_eq!(update(&mut s, key(KeyCode::Esc)), vec![Effect::CancelRun]);

    let mut s = state();
    s.form.goal = ratatui_textarea::TextArea::default();
    assert_eq!(update(&mut s, ctrl('g')), vec![]);
    assert!(s.notice.as_ref().unwrap().0.contains("the goal is empty"));
    assert_ne!(s.screen, Screen::Compare);
}

#[tokio::test]
async fn the_demo_compares_every_vendor_for_real_and_opens_one() {
    let mut c = LiveConsole::demo().await;
    c.send(ctrl('g'));
    c.until(|s| s.compare.result.is_some()).await;
    let result = c.state.compare.result.clone().unwrap();
    let vendors: Vec<&str> = result.runs.iter().map(|r| r.vendor.as_str()).collect();
    assert_eq!(
        vendors,
        [
            "anthropic",
            "openai",
            "openrouter",
            "gemini",
            "xai",
            "perplexity"
        ]
    );
    assert!(
        result
            .runs
            .iter()
            .all(|r| r.outcome == Some(io_harness::Outcome::Passed)),
        "{result:#?}"
    );
    // Each ran in its own copy beside the store, removed once its run ended:
    // the comparison names none, and the group's folder is gone.
    assert!(
        result.runs.iter().all(|r| r.workspace.is_none()),
        "{result:#?}"
    );
    let groups = c.store_path.parent().unwrap().join("groups");
    assert!(!groups.join(result.group_id.to_string()).exists());
    let text = screen(&c.state, 120, 40);
    assert!(text.contains("overlap of cited sources"), "{text}");
    assert!(text.contains("▶ #"), "{text}");
    // `r` opens the chosen (first) run in the Run panes.
    c.send(key(KeyCode::Char('r')));
    c.until(|s| s.screen == Screen::Run).await;
    assert_eq!(c.state.run.run_id, Some(result.runs[0].run_id));
    assert_eq!(c.state.run.ending.as_deref(), Some("passed"));
}

#[tokio::test]
async fn esc_twice_in_the_demo_records_every_run_cancelled() {
    let mut c = LiveConsole::demo().await;
    c.send(ctrl('g'));
    c.send(key(KeyCode::Esc));
    c.send(key(KeyCode::Esc));
    c.until(|s| s.compare.result.is_some()).await;
    let result = c.state.compare.result.clone().unwrap();
    assert_eq!(result.runs.len(), 6);
    for r in &result.runs {
        assert_eq!(r.outcome, Some(io_harness::Outcome::Cancelled), "{r:#?}");
    }
}
