//! What the console tells the operator, and what it keeps: notices that leave once
//! their cause does, edits refused without losing a thing, keys, themes and help,
//! the Run pane's lines, saving `[web]`, and the demo driven for real against the
//! built-in stub vendor (loopback HTTP, a temp SQLite file). Each was a place an
//! operator stumbled, lost an edit or was misled.

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::console::*;

use crossterm::event::KeyCode;
use io_harness::approve::ChannelApprover;
use io_harness::console::testing as view;
use io_harness::console::testing::Executor;
use io_harness::console::testing::initial_state;
use io_harness::console::testing::update;
use io_harness::console::testing::{Action, Keymap};
use io_harness::console::testing::{Effect, Msg, Screen, Tone};
use io_harness::store::Store;
use io_harness::{Cost, Event, EventKind, RunId, Usage, Vendor};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tokio::sync::mpsc;

fn event(step: u32, kind: EventKind) -> Msg {
    Msg::Run(Box::new(Event {
        run_id: RunId(1),
        step,
        elapsed_ms: 0,
        kind,
    }))
}

fn called(step: u32, text: &str, stop: &str) -> Msg {
    event(
        step,
        EventKind::ProviderCalled {
            provider: Vendor::Anthropic,
            model: "claude-sonnet-4-5".into(),
            usage: Some(Usage {
                input_tokens: 10,
                output_tokens: 2,
                server_tool_requests: 1,
                ..Default::default()
            }),
            stop_reason: stop.into(),
            latency_ms: 1,
            cost: Cost::default(),
            text: text.into(),
            response_id: None,
            finish_reason: None,
            tool_calls: Vec::new(),
            server: Default::default(),
        },
    )
}

// ---- 4: the demo runs on every provider; a notice leaves with its cause ------

#[test]
fn the_demo_defaults_run_on_every_provider() {
    let mut s = initial_state(&loaded(""), &demo_plan(&loaded("")), LIVE).unwrap();
    for p in &s.previews {
        assert!(p.request.is_ok(), "{}: {:?}", p.vendor, p.request);
    }
    focus(&mut s, "provider");
    update(&mut s, key(KeyCode::Enter));
    update(&mut s, key(KeyCode::Enter));
    assert_eq!(s.form.vendor, Vendor::OpenRouter);
    assert!(matches!(
        update(&mut s, ctrl('r'))[..],
        [Effect::StartRun {
            vendor: Vendor::OpenRouter,
            ..
        }]
    ));
}

#[test]
fn a_refusal_notice_clears_once_the_form_no_longer_refuses() {
    let mut s = state();
    focus(&mut s, "provider");
    update(&mut s, key(KeyCode::Enter));
    update(&mut s, key(KeyCode::Enter));
    assert_eq!(s.form.vendor, Vendor::OpenRouter);
    assert_eq!(update(&mut s, ctrl('r')), vec![]);
    assert!(s.notice.as_ref().unwrap().1, "{:?}", s.notice);
    // An edit that does not fix it keeps the notice.
    focus(&mut s, "max uses");
    update(&mut s, key(KeyCode::Enter));
    update(&mut s, key(KeyCode::Backspace));
    typed(&mut s, "2");
    update(&mut s, key(KeyCode::Enter));
    assert!(s.notice.is_some());
    focus(&mut s, "allowed domains");
    update(&mut s, key(KeyCode::Enter));
    while !s.form.editing.as_ref().unwrap().0.is_empty() {
        update(&mut s, key(KeyCode::Backspace));
    }
    update(&mut s, key(KeyCode::Enter));
    assert!(s.form.allowed.is_empty());
    assert_eq!(s.notice, None, "the refusal is gone, so is its notice");
    assert!(!screen(&s, 80, 24).contains("cannot restrict"));
}

#[test]
fn the_empty_goal_notice_clears_when_a_goal_is_typed() {
    let mut s = initial_state(
        &loaded("provider = \"openai\"\n"),
        &public_plan(&loaded("provider = \"openai\"\n")),
        LIVE,
    )
    .unwrap();
    update(&mut s, ctrl('r'));
    assert!(s.notice.is_some());
    typed(&mut s, "find it");
    assert_eq!(s.notice, None);
}

// ---- 5 and 6: an edit is committed on Enter, only when valid -----------------

#[test]
fn an_invalid_edit_stays_in_the_field_and_commits_nothing() {
    let mut s = state();
    focus(&mut s, "max uses");
    update(&mut s, key(KeyCode::Enter));
    update(&mut s, key(KeyCode::Backspace));
    typed(&mut s, "abc");
    update(&mut s, key(KeyCode::Enter));
    assert_eq!(s.form.max_uses, Some(3), "nothing was committed");
    assert_eq!(
        s.form.editing.as_ref().map(|e| e.0.as_str()),
        Some("abc"),
        "the edit stays in the field"
    );
    assert_eq!(
        s.form.error.as_deref(),
        Some("max uses must be a whole number, not \"abc\"")
    );
    // Tab does not carry it off either.
    update(&mut s, key(KeyCode::Tab));
    assert_eq!(s.form.focus.label(), "max uses");
    assert!(s.form.editing.is_some());
    // Fixed and committed.
    for _ in 0..3 {
        update(&mut s, key(KeyCode::Backspace));
    }
    typed(&mut s, "7");
    update(&mut s, key(KeyCode::Enter));
    assert_eq!((s.form.max_uses, s.form.error.as_deref()), (Some(7), None));
    assert_eq!(s.form.editing, None);
    let body = s.previews[0].text();
    assert!(body.contains("\"max_uses\": 7"), "{body}");
}

#[test]
fn the_model_cannot_be_emptied() {
    let mut s = state();
    focus(&mut s, "model");
    update(&mut s, key(KeyCode::Enter));
    while !s.form.editing.as_ref().unwrap().0.is_empty() {
        update(&mut s, key(KeyCode::Backspace));
    }
    update(&mut s, key(KeyCode::Enter));
    assert_eq!(s.form.model(), "claude-sonnet-4-5");
    assert!(s.form.editing.is_some());
    assert_eq!(
        s.form.error.as_deref(),
        Some(
            "the model cannot be empty: type the model anthropic should use, or Esc to keep claude-sonnet-4-5"
        )
    );
    for p in &s.previews {
        if p.request.is_ok() {
            assert!(!p.text().contains("\"model\": \"\""), "{}", p.text());
        }
    }
    // Ctrl-R does not run past an edit that cannot be committed.
    assert_eq!(update(&mut s, ctrl('r')), vec![]);
    assert_eq!(s.screen, Screen::Declare);
    // Esc puts the committed value back, as the help says.
    update(&mut s, key(KeyCode::Esc));
    assert_eq!((s.form.editing.clone(), s.form.error.clone()), (None, None));
    let esc = Keymap::default()
        .bindings
        .into_iter()
        .find(|b| b.action == Action::Cancel)
        .unwrap();
    assert_eq!(esc.desc, "cancel run / close / undo the edit");
}

// ---- 8: no binding shadows another; Ctrl-C quits or says what does -----------

#[test]
fn a_binding_that_shadows_another_is_a_config_error_naming_both() {
    let err = |keys: &str| {
        initial_state(
            &loaded(&format!("{CONFIG}\n[console.keys]\n{keys}\n")),
            &public_plan(&loaded(&format!("{CONFIG}\n[console.keys]\n{keys}\n"))),
            LIVE,
        )
        .err()
        .map(|e| e.to_string())
    };
    assert_eq!(
        err("run = \"ctrl-q\""),
        Some("[console.keys]: run and quit are both bound to \"ctrl-q\" everywhere, so one of them could never be pressed; give one of them another key".into())
    );
    assert_eq!(
        err("group_by = \"tab\""),
        Some("[console.keys]: switch_pane and group_by are both bound to \"tab\" in Sources, so one of them could never be pressed; give one of them another key".into())
    );
    // A screen's own binding over a global one hides the global one there.
    assert_eq!(
        err("next_field = \"f4\""),
        Some("[console.keys]: sources (everywhere) and next_field (in Declare) are both bound to \"f4\", so one of them could never be pressed; give one of them another key".into())
    );
    // Swapping two keys is fine; the same key on two different screens too.
    assert_eq!(err("run = \"f6\"\nquit = \"ctrl-r\""), None);
}

#[test]
fn ctrl_c_quits_and_asks_first_while_a_run_is_in_flight() {
    let mut s = state();
    assert_eq!(update(&mut s, ctrl('c')), vec![Effect::Quit]);
    let mut s = state();
    update(&mut s, ctrl('r'));
    assert_eq!(update(&mut s, ctrl('c')), vec![]);
    assert_eq!(
        s.notice,
        Some((
            "a run is in progress: ctrl-c again cancels it and quits; esc cancels the run only"
                .into(),
            true
        ))
    );
    assert_eq!(
        update(&mut s, ctrl('c')),
        vec![Effect::CancelRun, Effect::Quit]
    );
    // Any other key in between withdraws the question.
    let mut s = state();
    update(&mut s, ctrl('r'));
    update(&mut s, ctrl('c'));
    update(&mut s, key(KeyCode::F(2)));
    assert_eq!(update(&mut s, ctrl('c')), vec![]);
}

// ---- 9 and 10: the Run pane -------------------------------------------------

#[test]
fn the_run_pane_shows_each_thing_once() {
    let mut s = state();
    update(&mut s, ctrl('r'));
    update(&mut s, called(1, "first.", "tool_use"));
    update(
        &mut s,
        event(
            1,
            EventKind::ToolCalled {
                name: "list_dir".into(),
                input: "{\"path\":\".\"}".into(),
                ok: true,
                output: "(empty)".into(),
            },
        ),
    );
    update(
        &mut s,
        event(
            1,
            EventKind::Observation {
                text: "[step 1] list_dir {\"path\":\".\"}: (empty)".into(),
            },
        ),
    );
    update(&mut s, called(2, "Checking the changelog.", "pause_turn"));
    update(
        &mut s,
        event(
            2,
            EventKind::Observation {
                text: "[step 2] partial answer (the provider paused the turn): Checking the changelog.".into(),
            },
        ),
    );
    update(
        &mut s,
        event(
            2,
            EventKind::Observation {
                text: "[step 2] provider web tool: web_search failed (max_uses_exceeded)".into(),
            },
        ),
    );
    let lines: Vec<&str> = s.run.log.iter().map(|(_, t, _)| t.as_str()).collect();
    assert_eq!(
        lines,
        [
            "model: first.",
            "list_dir {\"path\":\".\"} → (empty)",
            "model: Checking the changelog.",
            "[step 2] provider web tool: web_search failed (max_uses_exceeded)",
        ]
    );
}

#[test]
fn text_blocks_on_either_side_of_a_tool_block_are_separate_paragraphs() {
    let mut s = state();
    update(&mut s, ctrl('r'));
    update(
        &mut s,
        called(
            1,
            "I'll look first.\n\nThe newest is 0.22.0, and docs agree.",
            "end_turn",
        ),
    );
    let lines: Vec<&str> = s.run.log.iter().map(|(_, t, _)| t.as_str()).collect();
    assert_eq!(
        lines,
        [
            "model: I'll look first.",
            "The newest is 0.22.0, and docs agree."
        ]
    );
}

#[test]
fn a_run_that_cannot_start_says_why_in_the_run_pane() {
    let mut s = state();
    update(&mut s, ctrl('r'));
    let why = "OPENAI_API_KEY is not set: export it, or name another variable with api_key_env under [providers.openai] in io.toml";
    update(&mut s, Msg::RunFailed(why.into()));
    let text = screen(&s, 80, 24);
    assert!(!text.contains("No run yet"), "{text}");
    assert!(text.contains("could not start"), "{text}");
    assert!(text.contains("OPENAI_API_KEY is not set"), "{text}");
    assert!(!s.run.running);
}

// ---- 11: small things --------------------------------------------------------

#[test]
fn counts_are_singular_when_one() {
    let mut s = state();
    update(&mut s, ctrl('r'));
    update(&mut s, called(1, "", "tool_use"));
    update(
        &mut s,
        event(
            1,
            EventKind::CitationRecorded {
                citation: io_harness::Citation {
                    url: "https://docs.rs/x".into(),
                    title: None,
                    cited_text: None,
                },
            },
        ),
    );
    let text = screen(&s, 100, 30);
    assert!(text.contains("· 1 source"), "{text}");
    assert!(!text.contains("1 sources"), "{text}");
}

#[test]
fn the_header_fits_at_60_columns() {
    let s = state();
    let text = screen(&s, 60, 20);
    let header = text.lines().next().unwrap().trim_matches('"').trim_end();
    assert!(
        header.ends_with("help") || header.ends_with("quit"),
        "{header:?}"
    );
    // Issue 27: with the F5 tab, help and quit no longer fit together; how to
    // quit is said (help says how to quit, not the reverse).
    assert!(header.contains("CTRL-Q quit"), "{header:?}");
}

#[test]
fn the_help_overlay_shows_its_whole_header_and_every_description() {
    let mut s = state();
    update(&mut s, key(KeyCode::F(1)));
    let first = screen(&s, 80, 24);
    assert!(first.contains("[console.keys]"), "{first}");
    for _ in 0..40 {
        update(&mut s, key(KeyCode::Down));
    }
    let last = screen(&s, 80, 24);
    assert!(last.contains("deny"), "{last}");
    // A few rows up: the longest description wraps onto a second row rather
    // than being cut (the names' column is as wide as `sources_of_compared`).
    let mut above = screen(&s, 80, 24);
    for _ in 0..40 {
        if above.contains("open_run") {
            break;
        }
        update(&mut s, key(KeyCode::Up));
        above = screen(&s, 80, 24);
    }
    assert!(
        above.contains("open run in the Run panes / citation")
            && above.contains("│          detail"),
        "{above}"
    );
}

#[test]
fn ctrl_t_says_which_theme_is_active_and_light_has_a_background() {
    let mut s = state();
    update(&mut s, ctrl('t'));
    assert_eq!(s.theme.0, "light");
    assert_eq!(s.notice, Some(("theme: light".into(), false)));
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| view::draw(f, &s)).unwrap();
    let buf = t.backend().buffer();
    for (x, y) in [(0, 0), (79, 23), (40, 12)] {
        assert_eq!(
            buf[(x, y)].bg,
            ratatui::style::Color::White,
            "cell {x},{y} has no background"
        );
    }
}

// ---- 7: Ctrl-S keeps comments and says what it wrote ------------------------

#[test]
fn saving_web_keeps_every_trailing_comment() {
    let example =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/io.toml.example")).unwrap();
    let web = io_harness::WebAccess::search().max_uses(2).allow("docs.rs");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("io.toml");
    std::fs::write(&path, &example).unwrap();
    io_harness::write_web(&path, &web).unwrap();
    let written = std::fs::read_to_string(&path).unwrap();
    let comments = |text: &str| -> Vec<String> {
        let start = text.find("\n[web]").unwrap();
        let section = &text[start + 1..];
        let end = section[1..].find("\n[").map_or(section.len(), |i| i + 1);
        section[..end]
            .lines()
            .filter(|l| !l.starts_with('#') && l.contains('='))
            .map(|l| {
                l.split_once('#')
                    .map(|(_, c)| c.trim().to_string())
                    .unwrap_or_default()
            })
            .collect()
    };
    assert_eq!(comments(&written), comments(&example));
    assert!(comments(&example).iter().all(|c| !c.is_empty()));
    assert!(written.contains("max_uses = 2"), "{written}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_s_says_which_file_and_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("io.toml");
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (approver, _approvals) = ChannelApprover::new();
    let s = state();
    let store_path = dir.path().join("runs.db");
    let loaded = io_harness::config::Loaded {
        path: Some(path.clone()),
        ..loaded(CONFIG)
    };
    let launch = std::sync::Arc::new(io_harness::launch::Launch::resolve(&loaded, false));
    let mut executor = Executor::new(
        Store::open(&store_path).unwrap(),
        &store_path,
        launch,
        tx,
        approver,
    );
    assert!(executor.perform(Effect::SaveWeb(Box::new(s.form.web()))));
    let Some(Msg::Notice {
        text,
        tone: Tone::Info,
    }) = rx.recv().await
    else {
        panic!()
    };
    assert_eq!(
        text,
        format!(
            "wrote [web] to {} (search on, fetch off, max_uses 3, 2 allowed, 0 blocked); goal, provider and the other fields are not saved",
            path.display()
        )
    );
}

// ---- 3: every demo run sees the whole script --------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_demo_run_after_a_cancel_sees_the_whole_script() {
    let mut d = LiveConsole::demo().await;
    d.send(ctrl('r'));
    d.until(|s| s.run.calls.len() == 1 && s.run.in_flight).await;
    d.send(key(KeyCode::Esc));
    d.until(|s| s.run.ending.is_some()).await;
    assert_eq!(d.state.run.ending.as_deref(), Some("cancelled"));
    d.send(ctrl('r'));
    d.until(|s| s.run.ending.is_some()).await;
    let r = &d.state.run;
    assert_eq!(r.ending.as_deref(), Some("passed"));
    assert_eq!(
        r.calls.iter().map(|c| c.stop.as_str()).collect::<Vec<_>>(),
        ["tool_use", "pause_turn", "end_turn"],
        "the second run starts at the script's first answer"
    );
    // Each thing once, and the first step's two paragraphs apart.
    let lines: Vec<&str> = r.log.iter().map(|(_, t, _)| t.as_str()).collect();
    assert!(
        lines.contains(&"model: I'll look up the current release first."),
        "{lines:#?}"
    );
    assert!(
        lines.contains(&"The newest published version is 0.22.0, and its docs agree."),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("[step 1] list_dir")
            || l.starts_with("[step 2] partial answer")),
        "{lines:#?}"
    );
}

/// The flake CI caught in `a_demo_run_after_a_cancel_sees_the_whole_script`: the
/// cancelled run's last request reached the stub only after the next run had
/// rewound it, took the script's first answer, and the new run began at the second.
/// Here that late request is sent on purpose, after the rewind.
#[tokio::test]
async fn a_request_from_before_a_rewind_takes_no_answer_from_the_next_run() {
    use io_harness::stub::{Script, StubVendor};
    let stub = StubVendor::start("127.0.0.1:0".parse().unwrap(), Script::demo())
        .await
        .unwrap();
    let rewinder = stub.rewinder();
    let cancelled = rewinder.rewind();
    let next = rewinder.rewind();
    let url = format!("{}/v1/messages", stub.base_url(Vendor::Anthropic));
    io_harness::provider::tls::install();
    let client = reqwest::Client::new();
    let send = |key: String| {
        client
            .post(&url)
            .header("x-api-key", key)
            .header("content-type", "application/json")
            .body(r#"{"model":"m","max_tokens":16,"messages":[]}"#)
            .send()
    };
    let late = send(cancelled).await.unwrap();
    assert_eq!(late.status(), 409, "the late request is refused");
    let first = send(next).await.unwrap().bytes().await.unwrap();
    let first: serde_json::Value = serde_json::from_slice(&first).unwrap();
    assert_eq!(
        first["stop_reason"], "tool_use",
        "the new run's first request gets the script's first answer: {first}"
    );
}

/// A notice longer than the status line (Ctrl-S's, with a long config path; a
/// refusal) takes up to five rows, wrapped at words, instead of being cut at the
/// screen's edge; one that fits keeps its single row.
#[test]
fn a_long_notice_wraps_onto_more_status_rows_instead_of_being_cut() {
    let mut s = state();
    let path = "/home/operator/projects/a-rather-long-directory-name/another-level/io.toml";
    let text = format!(
        "wrote [web] to {path} (search on, fetch off, max_uses 3, 2 allowed, 0 blocked); goal, provider and the other fields are not saved"
    );
    update(&mut s, Msg::info(text));
    let shown = screen(&s, 80, 24);
    assert!(shown.contains(path), "{shown}");
    assert!(shown.contains("are not saved"), "{shown}");
    // Longer than five rows: cut at the fifth, marked.
    update(&mut s, Msg::error("word ".repeat(100)));
    let shown = screen(&s, 80, 24);
    assert!(shown.contains("word…"), "{shown}");
    update(&mut s, Msg::info("saved"));
    let shown = screen(&s, 80, 24);
    let last = shown.lines().last().unwrap();
    assert!(last.contains("saved"), "{shown}");
}
