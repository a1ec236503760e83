//! The console without a terminal: `update` asserted as whole effect lists, the
//! effect executor driven for real (a run over loopback HTTP into a temp SQLite
//! file, store reads, an approval answered), and every screen drawn into a
//! `TestBackend` and compared with insta snapshots.

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::console::*;

use std::time::Duration;

use crossterm::event::KeyCode;
use io_harness::Vendor;
use io_harness::config::Config;
use io_harness::console::testing as view;
use io_harness::console::testing::initial_state;
use io_harness::console::testing::past_run;
use io_harness::console::testing::update;
use io_harness::console::testing::{Effect, Grouping, Msg, Screen, State};
use io_harness::core::outcome::Outcome;
use io_harness::store::Store;
use io_harness::stub::{Script, ScriptedResponse};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// Replace the allow-list with a block-list of one host.
fn block_only(state: &mut State, host: &str) {
    clear_allowed(state);
    focus(state, "blocked domains");
    update(state, key(KeyCode::Enter));
    typed(state, host);
    update(state, key(KeyCode::Enter));
}

/// Empty the allow-list, so a block-list is what the vendors are asked to carry.
fn clear_allowed(state: &mut State) {
    focus(state, "allowed domains");
    update(state, key(KeyCode::Enter));
    // The edit is committed by Enter, so watch the field's text, not the form.
    while !state.form.editing.as_ref().unwrap().0.is_empty() {
        update(state, key(KeyCode::Backspace));
    }
    update(state, key(KeyCode::Enter));
}

#[test]
fn ctrl_r_starts_exactly_the_declared_contract() {
    let mut s = state();
    let contract = s.form.contract();
    assert_eq!(
        contract.web.as_ref().unwrap().allowed_domains,
        ["docs.rs", "crates.io"]
    );
    let effects = update(&mut s, ctrl('r'));
    assert_eq!(
        effects,
        vec![Effect::StartRun {
            contract: Box::new(contract),
            vendor: Vendor::Anthropic,
            model: "claude-sonnet-4-5".into(),
        }]
    );
    assert_eq!(s.screen, Screen::Run);
    assert!(s.run.running);
    // A second Ctrl-R while one runs starts nothing and says why.
    assert_eq!(update(&mut s, ctrl('r')), vec![]);
    assert_eq!(
        s.notice,
        Some(("a run is already in progress; Esc cancels it".into(), true))
    );
    assert_eq!(update(&mut s, key(KeyCode::Esc)), vec![Effect::CancelRun]);
    assert_eq!(
        update(&mut s, ctrl('q')),
        vec![Effect::CancelRun, Effect::Quit]
    );
}

#[test]
fn a_refused_declaration_is_not_sent_and_the_refusal_is_shown() {
    let mut s = state();
    block_only(&mut s, "pinterest.com");
    assert_eq!(s.form.blocked, ["pinterest.com"]);
    focus(&mut s, "provider");
    update(&mut s, key(KeyCode::Enter)); // anthropic → openai
    assert_eq!(s.form.vendor, Vendor::OpenAi);
    let refusal = s
        .previews
        .iter()
        .find(|p| p.vendor == Vendor::OpenAi)
        .unwrap()
        .request
        .clone()
        .unwrap_err();
    assert!(refusal.ends_with("No request was sent."), "{refusal}");
    assert_eq!(update(&mut s, ctrl('r')), vec![]);
    assert_eq!(s.notice, Some((refusal, true)));
    assert_eq!(s.screen, Screen::Declare);
    // Anthropic still carries the same declaration.
    assert!(s.previews[0].request.is_ok());
}

#[test]
fn editing_a_field_recomputes_the_preview_and_esc_restores_it() {
    let mut s = state();
    let before = s.previews.clone();
    focus(&mut s, "max uses");
    update(&mut s, key(KeyCode::Enter));
    update(&mut s, key(KeyCode::Backspace));
    typed(&mut s, "7");
    // The preview follows the valid draft; the form takes it only on Enter.
    assert_eq!(s.form.max_uses, Some(3));
    let body = s.previews[0].text();
    assert!(body.contains("\"max_uses\": 7"), "{body}");
    typed(&mut s, "x");
    assert_eq!(
        s.form.error.as_deref(),
        Some("max uses must be a whole number, not \"7x\"")
    );
    update(&mut s, key(KeyCode::Esc));
    assert_eq!(s.form.max_uses, Some(3));
    assert_eq!(s.previews, before);
    assert_eq!(s.form.error, None);
    // Toggling fetch adds the fetch tool and the beta header to Anthropic's preview.
    focus(&mut s, "fetch");
    update(&mut s, key(KeyCode::Enter));
    let lines = s.previews[0].request.as_ref().unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l.added && l.text == "anthropic-beta: web-fetch-2025-09-10")
    );
    // Ctrl-S writes what the form says.
    assert_eq!(
        update(&mut s, ctrl('s')),
        vec![Effect::SaveWeb(Box::new(s.form.web()))]
    );
    assert!(s.form.web().fetch);
}

#[test]
fn the_goal_takes_text_and_keys_still_work_from_it() {
    let mut s = state();
    assert_eq!(s.form.focus.label(), "goal");
    update(&mut s, key(KeyCode::End));
    typed(&mut s, " Quickly.");
    assert!(s.form.goal_text().ends_with("Quickly."));
    assert!(s.previews[0].text().contains("Quickly."));
    assert_eq!(update(&mut s, key(KeyCode::F(4))), vec![Effect::LoadRuns]);
    assert_eq!(s.screen, Screen::Sources);
}

#[test]
fn an_empty_goal_is_not_run() {
    let mut s = initial_state(
        &loaded("provider = \"openai\"\n"),
        &public_plan(&loaded("provider = \"openai\"\n")),
        LIVE,
    )
    .unwrap();
    assert_eq!(update(&mut s, ctrl('r')), vec![]);
    assert_eq!(
        s.notice.unwrap().0,
        "the goal is empty: type what the run should achieve first"
    );
}

#[test]
fn approval_modal_answers_and_esc_denies() {
    let mut s = state();
    update(&mut s, ctrl('r'));
    let ask = io_harness::ApprovalRequest {
        act: io_harness::Act::Write,
        target: "notes.md".into(),
        tool: "write_file".into(),
        why: "rule ask write ** (layer defaults)".into(),
    };
    assert_eq!(update(&mut s, Msg::Approval(ask.clone())), vec![]);
    // Plain keys do not leak into anything else while it is open.
    assert_eq!(update(&mut s, key(KeyCode::Char('g'))), vec![]);
    assert_eq!(
        update(&mut s, key(KeyCode::Char('y'))),
        vec![Effect::Answer(io_harness::Answer::Yes)]
    );
    assert!(s.run.approval.is_none());
    update(&mut s, Msg::Approval(ask));
    assert_eq!(
        update(&mut s, key(KeyCode::Esc)),
        vec![Effect::Answer(io_harness::Answer::No)]
    );
}

fn run_row(id: i64, goal: &str) -> io_harness::store::RunRow {
    io_harness::store::RunRow {
        run_id: io_harness::RunId(id),
        goal: goal.into(),
        provider: Vendor::Anthropic,
        model: "claude-sonnet-4-5".into(),
        outcome: Some(Outcome::Passed),
        citation_count: 1,
        ..Default::default()
    }
}

fn citation(run: i64, step: u32, url: &str) -> io_harness::store::CitationRow {
    io_harness::store::CitationRow {
        run_id: io_harness::RunId(run),
        step,
        url: url.into(),
        title: Some("T".into()),
        cited_text: None,
    }
}

#[test]
fn sources_navigation_asks_the_store_for_what_it_shows() {
    let mut s = state();
    assert_eq!(update(&mut s, key(KeyCode::F(4))), vec![Effect::LoadRuns]);
    let runs = vec![run_row(2, "b"), run_row(1, "a")];
    assert_eq!(
        update(&mut s, Msg::Runs(runs)),
        vec![Effect::LoadRunSources(io_harness::RunId(2))]
    );
    assert_eq!(
        update(&mut s, key(KeyCode::Down)),
        vec![Effect::LoadRunSources(io_harness::RunId(1))]
    );
    assert_eq!(
        update(&mut s, key(KeyCode::Down)),
        vec![],
        "already at the last run"
    );
    assert_eq!(
        update(&mut s, key(KeyCode::Enter)),
        vec![Effect::OpenRun(io_harness::RunId(1))]
    );
    let cites = vec![
        citation(1, 1, "https://docs.rs/a"),
        citation(1, 2, "https://crates.io/b"),
    ];
    update(
        &mut s,
        Msg::RunSources {
            citations: cites,
            calls: vec![],
            checks: vec![],
            suggestions: vec![],
        },
    );
    update(&mut s, key(KeyCode::Tab));
    update(&mut s, key(KeyCode::Down));
    assert_eq!(
        update(&mut s, key(KeyCode::Char('c'))),
        vec![Effect::Copy("https://crates.io/b".into())]
    );
    assert_eq!(
        update(&mut s, key(KeyCode::Char('o'))),
        vec![Effect::Open("https://crates.io/b".into())]
    );
    // Filtering by step filters here; by domain it asks the store.
    update(&mut s, key(KeyCode::Char('f')));
    assert_eq!(update(&mut s, key(KeyCode::Char('d'))), vec![]);
    assert_eq!(s.visible_citations().len(), 1);
    update(&mut s, key(KeyCode::Enter));
    assert_eq!(
        update(&mut s, key(KeyCode::Char('g'))),
        vec![Effect::LoadRuns]
    );
    assert_eq!(s.sources.grouping, Grouping::ByDomain);
    assert_eq!(
        update(&mut s, Msg::Runs(vec![run_row(1, "a")])),
        vec![Effect::Search("d".into())]
    );
    update(&mut s, key(KeyCode::Char('f')));
    assert_eq!(
        update(&mut s, key(KeyCode::Backspace)),
        vec![Effect::Search(String::new())]
    );
}

#[test]
fn a_finished_run_reloads_sources_and_idle_ticks_do_not_redraw() {
    let mut s = state();
    s.dirty = false;
    assert_eq!(update(&mut s, Msg::Tick(None)), vec![]);
    assert!(!s.dirty);
    let finished = io_harness::Event {
        run_id: io_harness::RunId(1),
        step: 1,
        elapsed_ms: 10,
        kind: io_harness::EventKind::Finished {
            outcome: io_harness::RunOutcome::Cancelled,
        },
    };
    assert_eq!(
        update(&mut s, Msg::Run(Box::new(finished))),
        vec![Effect::LoadRuns]
    );
    assert!(s.dirty);
    assert_eq!(s.run.ending.as_deref(), Some("cancelled"));
}

#[test]
fn themes_cycle_and_key_overrides_apply_everywhere() {
    let mut s = state();
    assert_eq!(s.theme.0, "dark");
    update(&mut s, ctrl('t'));
    assert_eq!(s.theme.0, "light");
    let mut s = initial_state(
        &loaded(&format!("{CONFIG}\n[console.keys]\nrun = \"f6\"\n")),
        &public_plan(&loaded(&format!(
            "{CONFIG}\n[console.keys]\nrun = \"f6\"\n"
        ))),
        LIVE,
    )
    .unwrap();
    assert!(matches!(
        update(&mut s, key(KeyCode::F(6)))[..],
        [Effect::StartRun { .. }]
    ));
    assert!(screen(&s, 100, 24).contains("F6 run"));
    let e = initial_state(
        &loaded("[console]\ntheme = \"sepia\"\n"),
        &public_plan(&loaded("[console]\ntheme = \"sepia\"\n")),
        LIVE,
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.starts_with("unknown theme `sepia`"), "{e}");
}

// ---- snapshots ------------------------------------------------------------

#[test]
fn snapshot_declare() {
    let s = state();
    insta::assert_snapshot!("declare_80x24", screen(&s, 80, 24));
    insta::assert_snapshot!("declare_50x16", screen(&s, 50, 16));
}

#[test]
fn snapshot_side_by_side_shows_who_refuses() {
    let mut s = state();
    block_only(&mut s, "pinterest.com");
    insta::assert_snapshot!("declare_blocked_anthropic_80x24", screen(&s, 80, 24));
    focus(&mut s, "provider");
    update(&mut s, key(KeyCode::Enter));
    insta::assert_snapshot!("refusal_openai_80x24", screen(&s, 80, 24));
    insta::assert_snapshot!("refusal_openai_50x16", screen(&s, 50, 16));
    update(&mut s, ctrl('v'));
    insta::assert_snapshot!("side_by_side_120x30", screen(&s, 120, 30));
    // Six vendors at 80 columns: each still shows its body or its refusal.
    insta::assert_snapshot!("side_by_side_80x24", screen(&s, 80, 24));
}

#[test]
fn snapshot_help_and_empty_screens() {
    let mut s = state();
    update(&mut s, key(KeyCode::F(3)));
    insta::assert_snapshot!("run_empty_80x24", screen(&s, 80, 24));
    update(&mut s, key(KeyCode::F(4)));
    update(&mut s, Msg::Runs(vec![]));
    insta::assert_snapshot!("sources_empty_store_80x24", screen(&s, 80, 24));
    insta::assert_snapshot!("sources_empty_store_50x16", screen(&s, 50, 16));
    update(&mut s, key(KeyCode::F(1)));
    insta::assert_snapshot!("help_80x24", screen(&s, 80, 24));
    insta::assert_snapshot!("help_50x16", screen(&s, 50, 16));
    // Any key closes it and does nothing else.
    assert_eq!(update(&mut s, key(KeyCode::Char('g'))), vec![]);
    assert!(!s.help);
}

#[test]
fn tiny_and_resized_terminals_never_panic() {
    let mut s = state();
    for screen_key in [KeyCode::F(2), KeyCode::F(3), KeyCode::F(4)] {
        update(&mut s, key(screen_key));
        for (w, h) in [
            (40, 12),
            (39, 9),
            (1, 1),
            (0, 0),
            (200, 60),
            (40, 12),
            (80, 24),
        ] {
            // (TestBackend cannot print a zero-width buffer, so only draw those.)
            let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
            t.draw(|f| view::draw(f, &s)).unwrap();
        }
    }
    assert!(screen(&s, 30, 8).contains("terminal too small"));
}

// ---- the executor, for real -------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_demo_run_streams_into_the_panes_and_sources_read_it_back() {
    let mut l = LiveConsole::scripted(Script::demo()).await;
    // The temp workspace and the stub's port differ per run; the rest must not.
    let mut shown = l.state.clone();
    shown.form.workspace = "<temp>/ws".into();
    let text = screen(&shown, 80, 24).replace(&l.stub_addr.unwrap().to_string(), "127.0.0.1:PORT");
    insta::assert_snapshot!("declare_demo_80x24", text);
    l.send(ctrl('r'));
    l.until(|s| s.run.ending.is_some()).await;
    let r = &l.state.run;
    assert_eq!(r.ending.as_deref(), Some("passed"));
    assert_eq!(r.calls.len(), 3, "search, pause, answer");
    assert_eq!(
        r.server.iter().map(|x| x.error.clone()).collect::<Vec<_>>(),
        // The search step 2 started and no answer answered: unanswered, at the
        // end of step 3 (the transcript carried it on).
        [
            None,
            None,
            Some("max_uses_exceeded".to_string()),
            Some("unanswered".to_string())
        ]
    );
    // Built-in prices, no [prices] needed: every request priced, the total their sum.
    let live_total = r.total_cost().unwrap();
    assert!(r.calls.iter().all(|c| c.cost.total_micro_usd.is_some()));
    assert_eq!(
        live_total,
        r.calls
            .iter()
            .map(|c| c.cost.total_micro_usd.unwrap())
            .sum::<u64>()
    );
    insta::assert_snapshot!("run_finished_80x24", screen(&l.state, 80, 24));
    insta::assert_snapshot!("run_finished_50x16", screen(&l.state, 50, 16));

    // Finishing reloaded the runs; Sources shows the run's citations and failure.
    l.send(key(KeyCode::F(4)));
    l.until(|s| !s.sources.citations.is_empty()).await;
    let urls: Vec<&str> = l
        .state
        .visible_citations()
        .iter()
        .map(|c| c.url.as_str())
        .collect();
    assert_eq!(
        urls,
        [
            "https://crates.io/crates/io-harness",
            "https://docs.rs/io-harness/latest/io_harness/",
            "https://crates.io/crates/io-harness"
        ]
    );
    assert_eq!(
        l.state
            .sources
            .failures
            .iter()
            .filter(|f| f.error.is_some())
            .count(),
        // max_uses_exceeded, and the search no answer answered (unanswered).
        2
    );
    insta::assert_snapshot!("sources_80x24", screen(&l.state, 80, 24));
    insta::assert_snapshot!("sources_50x16", screen(&l.state, 50, 16));
    l.send(key(KeyCode::Tab));
    l.send(key(KeyCode::Enter));
    insta::assert_snapshot!("citation_detail_80x24", screen(&l.state, 80, 24));
    l.send(key(KeyCode::Esc));
    l.send(key(KeyCode::Char('g')));
    l.until(|s| s.sources.citations.len() == 3 && s.sources.grouping == Grouping::ByDomain)
        .await;
    insta::assert_snapshot!("sources_by_domain_80x24", screen(&l.state, 80, 24));

    // The same run opens in the Run panes from the store, costs recomputed there.
    l.send(key(KeyCode::Tab));
    l.send(key(KeyCode::Enter));
    l.until(|s| s.screen == Screen::Run && s.run.past).await;
    assert_eq!(l.state.run.calls.len(), 3);
    assert_eq!(l.state.run.total_cost(), Some(live_total));
    insta::assert_snapshot!("run_past_80x24", screen(&l.state, 80, 24));

    // Nothing was lost: the store holds what the panes showed.
    let store = Store::open(&l.store_path).unwrap();
    let Msg::Past(past) = past_run(&store, io_harness::RunId(1), &l.state.prices).unwrap() else {
        panic!()
    };
    assert_eq!(past.ledger.lines.len(), 3);
    assert_eq!(past.ledger.total_micro_usd(), Some(live_total));
    assert_eq!(past.server.len(), 4, "three answered, one unanswered");
}

fn anthropic(body: &str) -> ScriptedResponse {
    ScriptedResponse {
        vendor: Some(Vendor::Anthropic),
        status: 200,
        body: body.as_bytes().to_vec(),
        ..ScriptedResponse::default()
    }
}

const WRITE: &str = r#"{"type":"message","model":"m","content":[{"type":"text","text":"Writing it down."},{"type":"tool_use","id":"toolu_w","name":"write_file","input":{"path":"notes.md","content":"io-harness 0.22.0\n"}}],"stop_reason":"tool_use","usage":{"input_tokens":40,"output_tokens":9}}"#;
const DONE: &str = r#"{"type":"message","model":"m","content":[{"type":"text","text":"Done: 0.22.0."}],"stop_reason":"end_turn","usage":{"input_tokens":60,"output_tokens":4}}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_raises_the_modal_and_the_answer_reaches_the_run() {
    let script = Script {
        responses: vec![
            anthropic(WRITE),
            anthropic(DONE),
            anthropic(WRITE),
            anthropic(DONE),
        ],
        repeat: false,
        emulate_usage: false,
    };
    let mut l = LiveConsole::scripted(script).await;
    let ws = l.state.form.workspace.clone();
    l.send(ctrl('r'));
    // The question and the event that logs it come on two channels; wait for both.
    l.until(|s| {
        s.run.approval.is_some() && s.run.log.iter().any(|(_, t, _)| t.contains("asks to"))
    })
    .await;
    // The status line shows wall-clock time since the run began, which a loaded
    // machine stretches past 0.0s; the snapshot is of the layout, so pin it.
    l.state.run.elapsed_ms = 0;
    insta::assert_snapshot!("approval_80x24", screen(&l.state, 80, 24));
    insta::assert_snapshot!("approval_50x16", screen(&l.state, 50, 16));
    l.send(key(KeyCode::Char('y')));
    l.until(|s| s.run.ending.is_some()).await;
    assert_eq!(
        std::fs::read_to_string(std::path::Path::new(&ws).join("notes.md")).unwrap(),
        "io-harness 0.22.0\n"
    );
    // Denied: the file is left alone and the model is told.
    std::fs::write(std::path::Path::new(&ws).join("notes.md"), "kept\n").unwrap();
    l.send(ctrl('r'));
    l.until(|s| s.run.approval.is_some()).await;
    l.send(key(KeyCode::Char('n')));
    l.until(|s| s.run.ending.is_some()).await;
    assert_eq!(
        std::fs::read_to_string(std::path::Path::new(&ws).join("notes.md")).unwrap(),
        "kept\n"
    );
    assert!(l.state.run.log.iter().any(|(_, t, _)| t == "denied"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_cancels_a_run_and_it_is_recorded_as_cancelled() {
    let slow = ScriptedResponse {
        delay_ms: Some(5_000),
        ..anthropic(DONE)
    };
    let mut l = LiveConsole::scripted(Script {
        responses: vec![slow],
        repeat: false,
        emulate_usage: false,
    })
    .await;
    l.send(ctrl('r'));
    l.until(|s| s.run.in_flight).await;
    l.send(key(KeyCode::Esc));
    l.until(|s| s.run.ending.is_some()).await;
    assert_eq!(l.state.run.ending.as_deref(), Some("cancelled"));
    let store = Store::open(&l.store_path).unwrap();
    assert_eq!(
        store.runs(None).unwrap()[0].outcome.map(|o| o.as_str()),
        Some("cancelled")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_s_writes_web_and_keeps_the_rest_of_io_toml() {
    let mut l = LiveConsole::scripted(Script::default()).await;
    let path = l.dir.path().join("io.toml");
    std::fs::write(&path, "# mine\nprovider = \"anthropic\" # keep\n").unwrap();
    l.send(ctrl('s'));
    l.until(|s| s.notice.is_some()).await;
    let notice = l.state.notice.clone().unwrap();
    assert!(!notice.1, "{notice:?}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("# mine\nprovider = \"anthropic\" # keep\n"),
        "{text}"
    );
    let back = Config::parse(&text, "io.toml").unwrap();
    assert_eq!(back.web, Some(l.state.form.web()));
}

#[test]
fn the_docs_key_table_is_the_keymap() {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/console.md")).unwrap();
    let keymap = io_harness::console::testing::Keymap::default();
    for b in &keymap.bindings {
        let row = format!("| `{}` | {} |", b.key, b.desc);
        assert!(
            page.contains(&row),
            "docs/console.md lacks the row for {}: {row}",
            b.name
        );
    }
}

#[test]
fn chords_work_while_a_field_is_being_edited() {
    let mut s = state();
    focus(&mut s, "allowed domains");
    update(&mut s, key(KeyCode::Enter));
    typed(&mut s, " rust-lang.org");
    assert_eq!(update(&mut s, ctrl('q')), vec![Effect::Quit]);
    assert_eq!(s.form.editing, None, "the edit ended");
    assert_eq!(
        s.form.allowed,
        ["docs.rs", "crates.io", "rust-lang.org"],
        "and was kept"
    );
    update(&mut s, key(KeyCode::Enter));
    assert!(matches!(
        update(&mut s, ctrl('r'))[..],
        [Effect::StartRun { .. }]
    ));
}

const SPAWN: &str = r#"{"type":"message","model":"m","content":[{"type":"tool_use","id":"toolu_s","name":"spawn_agent","input":{"agent":"researcher","task":"find the release"}}],"stop_reason":"tool_use","usage":{"input_tokens":30,"output_tokens":7}}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spawned_child_is_nested_under_its_parent_and_counted_in_the_total() {
    let script = Script {
        responses: vec![anthropic(SPAWN), anthropic(DONE), anthropic(DONE)],
        repeat: false,
        emulate_usage: false,
    };
    let mut l = LiveConsole::scripted_with(script, "[[agent]]\nname = \"researcher\"\n").await;
    l.send(ctrl('r'));
    // Spawning is an `Ask` under the default policy.
    l.until(|s| s.run.approval.is_some()).await;
    assert_eq!(l.state.run.approval.as_ref().unwrap().tool, "spawn_agent");
    l.send(key(KeyCode::Char('y')));
    l.until(|s| s.run.ending.is_some()).await;
    let r = &l.state.run;
    assert_eq!(
        r.run_id,
        Some(io_harness::RunId(1)),
        "the panes stay on the root"
    );
    assert_eq!(r.ending.as_deref(), Some("passed"));
    assert_eq!(r.calls.len(), 3, "the child's request is in the table");
    assert_eq!(r.calls[1].stop, "child 2 (researcher) end_turn");
    assert!(
        r.log
            .iter()
            .any(|(_, t, _)| t == "  ↳ child 2 (researcher) finished: passed"),
        "{:?}",
        r.log
    );
    assert_eq!(r.total_tokens(), 30 + 7 + 60 + 4 + 60 + 4);
}

#[test]
fn snapshot_declare_shows_the_roster_and_mcp_boundaries() {
    let text = format!(
        "{CONFIG}\n[[agent]]\nname = \"researcher\"\ndescription = \"looks things up\"\n\n[[mcp]]\nname = \"everything\"\ncommand = \"npx\"\nnet = [\"example.com\"]\n"
    );
    let mut s = initial_state(&loaded(&text), &public_plan(&loaded(&text)), LIVE).unwrap();
    focus(&mut s, "verify contains");
    insta::assert_snapshot!("declare_roster_100x30", screen(&s, 100, 30));
    // The preview carries what the run will offer: spawn_agent with the roster.
    let body = s.previews[0].text();
    assert!(body.contains("▸ spawn_agent {…}"), "{body}");
}

#[test]
fn the_docs_captures_are_the_snapshots() {
    let root = env!("CARGO_MANIFEST_DIR");
    let page = std::fs::read_to_string(format!("{root}/docs/console.md")).unwrap();
    for name in [
        "declare_80x24",
        "side_by_side_120x30",
        "side_by_side_80x24",
        "run_finished_80x24",
        "approval_80x24",
        "sources_80x24",
        "help_80x24",
    ] {
        let snap = std::fs::read_to_string(format!(
            "{root}/tests/all/snapshots/all__console__{name}.snap"
        ))
        .unwrap();
        let body = snap.splitn(3, "---\n").nth(2).unwrap();
        let lines: Vec<&str> = body
            .lines()
            .map(|l| {
                l.strip_prefix('"')
                    .and_then(|l| l.strip_suffix('"'))
                    .unwrap_or(l)
                    .trim_end()
            })
            .collect();
        let capture = format!("```text\n{}\n```\n", lines.join("\n").trim_end());
        assert!(
            page.contains(&capture),
            "docs/console.md's capture of {name} is stale: copy the screen from tests/all/snapshots/all__console__{name}.snap into docs/console.md"
        );
    }
}

#[test]
fn a_parents_sources_include_its_childrens_marked_as_such() {
    let mut s = state();
    update(&mut s, key(KeyCode::F(4)));
    update(&mut s, Msg::Runs(vec![run_row(1, "root")]));
    update(
        &mut s,
        Msg::RunSources {
            citations: vec![
                citation(1, 1, "https://docs.rs/a"),
                citation(2, 1, "https://crates.io/child"),
            ],
            calls: vec![],
            checks: vec![],
            suggestions: vec![],
        },
    );
    let text = screen(&s, 80, 24);
    assert!(text.contains("step 1"), "{text}");
    assert!(text.contains("child run 2 · step 1"), "{text}");
    assert!(text.contains("https://crates.io/child"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loading_a_runs_sources_reads_its_childrens_from_the_store() {
    let mut l = LiveConsole::scripted(Script::default()).await;
    let store = Store::open(&l.store_path).unwrap();
    let new = |parent| io_harness::store::NewRun {
        goal: "g".into(),
        provider: Vendor::Anthropic,
        model: "m".into(),
        parent_run_id: parent,
        ..Default::default()
    };
    let root = store.begin_run(&new(None)).unwrap();
    let child = store.begin_run(&new(Some(root))).unwrap();
    let cite = |url: &str| io_harness::Citation {
        url: url.into(),
        title: None,
        cited_text: None,
    };
    store.record_citations(root, 1, &[cite("https://docs.rs/root")]);
    store.record_citations(child, 1, &[cite("https://crates.io/child")]);
    assert!(l.executor.perform(Effect::LoadRunSources(root)));
    let msg = tokio::time::timeout(Duration::from_secs(5), l.rx.recv())
        .await
        .unwrap()
        .unwrap();
    let Msg::RunSources { citations, .. } = msg else {
        panic!("{msg:?}")
    };
    assert_eq!(
        citations
            .iter()
            .map(|c| (c.run_id, c.url.as_str()))
            .collect::<Vec<_>>(),
        [
            (root, "https://docs.rs/root"),
            (child, "https://crates.io/child")
        ]
    );
}

#[test]
fn the_total_row_stays_on_screen_however_many_requests() {
    let mut s = state();
    update(&mut s, ctrl('r'));
    for step in 1..=30 {
        let e = io_harness::Event {
            run_id: io_harness::RunId(1),
            step,
            elapsed_ms: 0,
            kind: io_harness::EventKind::ProviderCalled {
                provider: Vendor::Anthropic,
                model: "claude-sonnet-4-5".into(),
                usage: Some(io_harness::Usage {
                    input_tokens: 100,
                    output_tokens: 10,
                    server_tool_requests: 1,
                    ..Default::default()
                }),
                stop_reason: "tool_use".into(),
                latency_ms: 1,
                cost: io_harness::Cost::default(),
                text: String::new(),
                response_id: None,
                finish_reason: None,
                tool_calls: Vec::new(),
                server: Default::default(),
            },
        };
        update(&mut s, Msg::Run(Box::new(e)));
    }
    let text = screen(&s, 80, 24);
    assert!(text.contains("Σ  3000"), "{text}");
    assert!(
        text.contains("30 100"),
        "the latest request is shown: {text}"
    );
    // The wheel scrolls the help overlay, not the list under it.
    update(&mut s, key(KeyCode::F(1)));
    update(
        &mut s,
        Msg::Scroll(io_harness::console::testing::Wheel::Down),
    );
    assert_eq!((s.help, s.help_scroll, s.run_scroll), (true, 1, 0));
}

#[test]
fn n_on_sources_asks_for_the_next_request_and_esc_closes_it() {
    let mut s = state();
    update(&mut s, key(KeyCode::F(4)));
    update(&mut s, Msg::Runs(vec![run_row(1, "root")]));
    let effects = update(&mut s, key(KeyCode::Char('n')));
    assert!(
        matches!(
            effects.as_slice(),
            [Effect::PreviewNext(run_id)] if *run_id == io_harness::RunId(1)
        ),
        "{effects:?}"
    );
    update(
        &mut s,
        Msg::Next {
            run_id: io_harness::RunId(1),
            lines: Ok(vec![
                "step 2 · transcript conversation · POST https://api.anthropic.com/v1/messages"
                    .into(),
            ]),
        },
    );
    let shown = screen(&s, 100, 30);
    assert!(
        shown.contains("the next request, as run --resume sends it"),
        "{shown}"
    );
    assert!(
        shown.contains("step 2 · transcript conversation"),
        "{shown}"
    );
    update(&mut s, key(KeyCode::Esc));
    assert!(s.sources.next.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_on_sources_writes_the_runs_sources_and_says_where() {
    let mut l = LiveConsole::scripted(Script::demo()).await;
    l.send(ctrl('r'));
    l.until(|s| s.run.ending.is_some()).await;
    l.send(key(KeyCode::F(4)));
    l.until(|s| s.sources.loaded && !s.sources.runs.is_empty())
        .await;
    l.state.notice = None;
    l.send(key(KeyCode::Char('e')));
    l.until(|s| s.notice.is_some()).await;
    let path = l.dir.path().join("sources-run-1.md");
    let (notice, error) = l.state.notice.clone().unwrap();
    assert!(!error, "{notice}");
    assert_eq!(
        notice,
        format!("wrote 3 sources of run 1 to {}", path.display())
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# Sources of run 1\n\n1. [io-harness - crates.io](<https://crates.io/crates/io-harness>) — step 1, recorded 20"), "{text}");
}

#[test]
fn a_checked_citation_shows_its_verdict_in_sources() {
    let mut s = state();
    update(&mut s, key(KeyCode::F(4)));
    update(&mut s, Msg::Runs(vec![run_row(1, "root")]));
    let check = |url: &str, verdict: &str| io_harness::store::verdicts::VerdictRow {
        run_id: io_harness::RunId(1),
        step: 1,
        url: url.into(),
        verdict: verdict.parse().unwrap(),
        detail: None,
        overlap: None,
        checked_at: "2026-12-04T00:00:00.000Z".into(),
        resolved_url: None,
    };
    update(
        &mut s,
        Msg::RunSources {
            citations: vec![
                citation(1, 1, "https://docs.rs/a"),
                citation(1, 1, "https://docs.rs/b"),
            ],
            calls: vec![],
            checks: vec![check("https://docs.rs/a", "found")],
            suggestions: vec![],
        },
    );
    let text = screen(&s, 100, 30);
    assert!(text.contains("https://docs.rs/a  [found]"), "{text}");
    assert!(text.contains("https://docs.rs/b "), "{text}");
    assert!(!text.contains("https://docs.rs/b  ["), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn k_on_sources_checks_the_runs_sources_under_the_policy() {
    let mut l = LiveConsole::scripted(Script::demo()).await;
    l.send(ctrl('r'));
    l.until(|s| s.run.ending.is_some()).await;
    l.send(key(KeyCode::F(4)));
    l.until(|s| s.sources.loaded && !s.sources.runs.is_empty())
        .await;
    l.send(key(KeyCode::Char('k')));
    l.until(|s| {
        s.notice
            .as_ref()
            .is_some_and(|(n, _)| n.starts_with("checked "))
    })
    .await;
    // The default policy asks before dialling out, and a check has nobody to
    // ask: nothing leaves this machine, and each verdict says so.
    let (notice, _) = l.state.notice.clone().unwrap();
    assert!(
        notice.starts_with("checked 3 sources of run 1: 0 found, 0 not found, 0 with no quote, 0 unreachable, 3 not allowed"),
        "{notice}"
    );
    l.until(|s| s.sources.checks.len() == 3).await;
    let text = screen(&l.state, 120, 30);
    assert!(
        text.contains("https://crates.io/crates/io-harness  [not_allowed]"),
        "{text}"
    );
}

#[test]
fn slash_searches_every_run_and_enter_opens_the_hit_at_its_step() {
    let mut s = state();
    update(&mut s, key(KeyCode::F(4)));
    update(
        &mut s,
        Msg::Runs(vec![run_row(2, "newer"), run_row(1, "older")]),
    );
    update(&mut s, key(KeyCode::Char('/')));
    typed(&mut s, "again");
    assert!(screen(&s, 100, 30).contains("search every run: again▏"));
    assert_eq!(
        update(&mut s, key(KeyCode::Enter)),
        vec![Effect::SearchAll("again".into())]
    );
    let hit = |run: i64, step: u32| io_harness::store::search::Hit {
        run_id: io_harness::RunId(run),
        step,
        kind: "citation".into(),
        url: Some("https://docs.rs/a".into()),
        snippet: "A a [again]".into(),
    };
    update(&mut s, Msg::Hits(Ok(vec![hit(2, 3), hit(1, 1)])));
    let shown = screen(&s, 100, 30);
    assert!(
        shown.contains("run 2 · step 3 · citation  https://docs.rs/a"),
        "{shown}"
    );
    assert!(shown.contains("A a [again]"), "{shown}");
    update(&mut s, key(KeyCode::Down));
    assert_eq!(
        update(&mut s, key(KeyCode::Enter)),
        vec![Effect::OpenRun(io_harness::RunId(1))]
    );
    update(&mut s, Msg::Past(Box::default()));
    assert_eq!(s.run.focus_step, Some(1));
    // A query FTS5 cannot parse comes back as the store's words.
    update(&mut s, key(KeyCode::F(4)));
    update(
        &mut s,
        Msg::Hits(Err("cannot search for \"a.b\": …".into())),
    );
    assert!(screen(&s, 100, 30).contains("cannot search for"));
    update(&mut s, key(KeyCode::Esc));
    assert!(s.sources.hits.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_that_cannot_be_written_says_where_and_why() {
    let mut l = LiveConsole::scripted(Script::demo()).await;
    l.send(ctrl('r'));
    l.until(|s| s.run.ending.is_some()).await;
    // io.toml's folder is a file: nothing can be written beside it.
    let blocker = l.dir.path().join("not-a-dir");
    std::fs::write(&blocker, "x").unwrap();
    l.executor.config_path = blocker.join("io.toml");
    l.send(key(KeyCode::F(4)));
    l.until(|s| s.sources.loaded && !s.sources.runs.is_empty())
        .await;
    l.state.notice = None;
    l.send(key(KeyCode::Char('e')));
    l.until(|s| s.notice.is_some()).await;
    let (notice, error) = l.state.notice.clone().unwrap();
    assert!(error, "{notice}");
    assert!(
        notice.starts_with(&format!(
            "cannot write {}",
            blocker.join("sources-run-1.md").display()
        )),
        "{notice}"
    );
    assert!(notice.ends_with("; nothing was written"), "{notice}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_never_follows_a_symlink_at_its_path() {
    let mut l = LiveConsole::scripted(Script::demo()).await;
    l.send(ctrl('r'));
    l.until(|s| s.run.ending.is_some()).await;
    l.send(key(KeyCode::F(4)));
    l.until(|s| s.sources.loaded && !s.sources.runs.is_empty())
        .await;
    let path = l.dir.path().join("sources-run-1.md");
    // A link to a file the operator cares about: it is not overwritten.
    let target = l.dir.path().join("precious.txt");
    std::fs::write(&target, "keep me").unwrap();
    std::os::unix::fs::symlink(&target, &path).unwrap();
    l.state.notice = None;
    l.send(key(KeyCode::Char('e')));
    l.until(|s| s.notice.is_some()).await;
    let (notice, error) = l.state.notice.clone().unwrap();
    assert!(error, "{notice}");
    assert!(notice.contains("symbolic link"), "{notice}");
    assert!(notice.ends_with("; nothing was written"), "{notice}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    assert!(path.symlink_metadata().unwrap().file_type().is_symlink());
    // A dangling link: its target is not created.
    std::fs::remove_file(&path).unwrap();
    let absent = l.dir.path().join("created-through-the-link.md");
    std::os::unix::fs::symlink(&absent, &path).unwrap();
    l.state.notice = None;
    l.send(key(KeyCode::Char('e')));
    l.until(|s| s.notice.is_some()).await;
    let (notice, error) = l.state.notice.clone().unwrap();
    assert!(error, "{notice}");
    assert!(!absent.exists(), "the dangling link's target was created");
    // No temporary file is left beside it.
    let left: Vec<String> = std::fs::read_dir(l.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // A regular file there is replaced.
    std::fs::remove_file(&path).unwrap();
    std::fs::write(&path, "old").unwrap();
    l.state.notice = None;
    l.send(key(KeyCode::Char('e')));
    l.until(|s| s.notice.is_some()).await;
    let (notice, error) = l.state.notice.clone().unwrap();
    assert!(!error, "{notice}");
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("# Sources of run 1")
    );
}
