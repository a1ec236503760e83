//! Sources follows the run, not the row (issue 33 item 12): a new run arriving
//! above the selected one leaves that run selected (and its sources loaded); the
//! `f` filter, typed for one run's citations, does not carry over to another
//! run's list; listing every run by domain, it is over all runs and stays.

#![cfg(feature = "console")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::console::*;
use crossterm::event::KeyCode;
use io_harness::console::testing::{Effect, Msg, State, update};
use io_harness::core::outcome::Outcome;
use io_harness::{RunId, Vendor};
use pretty_assertions::assert_eq;

fn row(id: i64) -> io_harness::store::RunRow {
    io_harness::store::RunRow {
        run_id: RunId(id),
        goal: format!("goal {id}"),
        provider: Vendor::Anthropic,
        model: "claude-sonnet-4-5".into(),
        outcome: Some(Outcome::Passed),
        citation_count: 1,
        ..Default::default()
    }
}

/// Newest first, as the store lists them.
fn runs(ids: &[i64]) -> Msg {
    Msg::Runs(ids.iter().map(|&i| row(i)).collect())
}

/// The run the Sources list has selected.
fn selected(s: &State) -> Option<RunId> {
    s.sources.runs.get(s.sources.selected).map(|r| r.run_id)
}

fn on_sources() -> State {
    let mut s = state();
    update(&mut s, key(KeyCode::F(4)));
    s
}

#[test]
fn the_selected_run_stays_selected_when_a_new_run_arrives() {
    let mut s = on_sources();
    assert_eq!(
        update(&mut s, runs(&[5, 4, 3])),
        [Effect::LoadRunSources(RunId(5))]
    );
    // Run 6 starts and finishes; back on F4 the list is read again.
    assert_eq!(
        update(&mut s, runs(&[6, 5, 4, 3])),
        [Effect::LoadRunSources(RunId(5))],
        "run 5 is still the one loaded"
    );
    assert_eq!(selected(&s), Some(RunId(5)));
    // Moved to run 4, then a run is deleted above it: still run 4.
    update(&mut s, key(KeyCode::Down));
    update(&mut s, runs(&[5, 4, 3]));
    assert_eq!(selected(&s), Some(RunId(4)));
    // A selected run no longer listed: the row, kept in range.
    update(&mut s, runs(&[2]));
    assert_eq!(selected(&s), Some(RunId(2)));
}

#[test]
fn the_filter_does_not_leak_across_runs() {
    let mut s = on_sources();
    update(&mut s, runs(&[2, 1]));
    for m in [key(KeyCode::Char('f')), key(KeyCode::Char('d'))] {
        update(&mut s, m);
    }
    update(&mut s, key(KeyCode::Enter));
    assert_eq!(s.sources.filter, "d");
    // The same run read again keeps it.
    update(&mut s, runs(&[2, 1]));
    assert_eq!(s.sources.filter, "d");
    // Another run: its citations unfiltered.
    update(&mut s, key(KeyCode::Down));
    assert_eq!(selected(&s), Some(RunId(1)));
    assert_eq!(s.sources.filter, "");
    // By domain, over every run: the filter stays whichever run is selected.
    update(&mut s, key(KeyCode::Char('g')));
    for m in [key(KeyCode::Char('f')), key(KeyCode::Char('x'))] {
        update(&mut s, m);
    }
    update(&mut s, key(KeyCode::Enter));
    update(&mut s, key(KeyCode::Up));
    assert_eq!(s.sources.filter, "x");
}
