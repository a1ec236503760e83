//! The console's share of issue 27's surprises: a missing workspace refused on
//! the form before any request; everyday words searched as written by `/`;
//! stored comparisons listed on Compare; the demo's mode said on the status
//! line; messages read in full at 80 and 120 columns; the web part of the body
//! kept in view after an edit; the header saying how to quit at 60 columns.

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::console::*;
use io_harness::console::testing::{Msg, Screen};

#[tokio::test]
async fn a_missing_workspace_is_refused_on_the_form_and_nothing_runs() {
    let mut c = LiveConsole::demo().await;
    let missing = c.dir.path().join("no-such-dir").display().to_string();
    c.state.form.workspace = missing.clone();
    for start in [ctrl('r'), ctrl('g')] {
        c.send(start);
        c.until(|s| !s.busy() && s.notice.is_some()).await;
        let (text, error) = c.state.notice.clone().unwrap();
        assert!(error, "{text}");
        assert!(text.contains(&missing), "{text}");
        assert_eq!(c.state.screen, Screen::Declare, "the form says it");
        c.state.notice = None;
    }
    let store = io_harness::store::Store::open(&c.store_path).unwrap();
    assert!(store.runs(Some(10)).unwrap().is_empty());
    let _ = Msg::Resize;
}

#[tokio::test]
async fn compare_lists_the_stored_comparisons_newest_first_and_opens_one() {
    let mut c = LiveConsole::demo().await;
    for _ in 0..2 {
        c.send(ctrl('g'));
        c.until(|s| s.compare.result.is_some() && !s.compare.running)
            .await;
        c.state.compare.result = None;
        c.state.compare.columns.clear();
    }
    // A console opened on this store: nothing compared in it yet.
    c.state.compare = Default::default();
    c.state.screen = Screen::Declare;
    c.send(key(crossterm::event::KeyCode::F(5)));
    c.until(|s| s.compare.stored.len() == 2).await;
    let ids: Vec<i64> = c
        .state
        .compare
        .stored
        .iter()
        .map(|g| g.group_id.0)
        .collect();
    assert_eq!(ids, [2, 1], "newest first");
    let text = screen(&c.state, 100, 24);
    assert!(!text.contains("No comparison yet"), "{text}");
    assert!(text.contains("#2") && text.contains("#1"), "{text}");
    assert!(text.contains("6 runs"), "{text}");
    // Down, Enter: the older one, read back from the store.
    c.send(key(crossterm::event::KeyCode::Down));
    c.send(key(crossterm::event::KeyCode::Enter));
    c.until(|s| s.compare.result.is_some()).await;
    assert_eq!(c.state.compare.result.as_ref().unwrap().group_id.0, 1);
    let text = screen(&c.state, 100, 30);
    assert!(text.contains("overlap of cited sources"), "{text}");
    assert!(text.contains("Compare · group 1"), "{text}");
    // Esc: back to the list.
    c.send(key(crossterm::event::KeyCode::Esc));
    assert!(c.state.compare.listing());
}

#[tokio::test]
async fn the_demo_says_its_transcript_and_cache_on_the_status_line_in_full() {
    let c = LiveConsole::demo().await;
    let mode = &c.state.mode;
    assert!(
        mode.contains("transcript + 5m cache (--demo's default: no [run] in io.toml)"),
        "{mode}"
    );
    // At 80 columns the mode is read to its end.
    let text = screen(&c.state, 80, 24);
    let flat: String = text
        .lines()
        .map(|l| l.trim_matches('"').trim_end())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(flat.contains("nothing leaves this machine"), "{text}");
}

/// The screen's rows joined, frame borders and padding dropped, so a message
/// wrapped over rows reads as one.
fn flat(text: &str) -> String {
    text.lines()
        .map(|l| {
            l.trim_matches('"')
                .trim_matches(|c: char| "│┌┐└┘─ ".contains(c))
                .to_string()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_verdict_summary_and_a_search_error_read_in_full() {
    let summary = "checked 3 sources of run 1: 1 found, 1 not found, 0 with no quote, 1 unreachable, 0 not allowed — a verdict is what this machine fetched now";
    let error = "cannot search for \"\\\"unclosed\": unterminated string. To search for the words as written, put them in double quotes: '\"\"\"unclosed\"'";
    for (w, h) in [(80, 24), (120, 40)] {
        let mut s = state();
        s.screen = Screen::Sources;
        s.notice = Some((summary.to_string(), false));
        let text = screen(&s, w, h);
        assert!(
            flat(&text).contains("this machine fetched now"),
            "{w}×{h}:\n{text}"
        );
        s.notice = None;
        s.sources.hits = Some(Err(error.to_string()));
        let text = screen(&s, w, h);
        assert!(
            flat(&text).contains("double quotes: '\"\"\"unclosed\"'"),
            "{w}×{h}:\n{text}"
        );
    }
}

#[test]
fn turning_fetch_on_in_the_demo_keeps_web_fetch_in_view_at_120_by_40() {
    let l = loaded("");
    let mut s = io_harness::console::testing::initial_state(&l, &demo_plan(&l), "demo").unwrap();
    focus(&mut s, "fetch");
    io_harness::console::testing::update(&mut s, key(crossterm::event::KeyCode::Enter));
    assert!(s.form.fetch);
    let text = screen(&s, 120, 40);
    assert!(text.contains("web_fetch_"), "{text}");
}

#[test]
fn the_header_says_how_to_quit_at_60_columns() {
    let s = state();
    let text = screen(&s, 60, 20);
    let header = text.lines().next().unwrap();
    assert!(header.contains("quit"), "{header}");
}
