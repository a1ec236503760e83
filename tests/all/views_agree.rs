//! Every view of a run says the same (issue 33 items 9–11), on the demo run
//! headless by the real binary and its events folded by the console: a step's
//! searches (made and failed) and its `in` tokens are one definition — `run`'s
//! step lines, the console's Run pane (live and opened from the store) and
//! `runs --json` add up to the same figures; a search started and never
//! answered is recorded, once, as unanswered in the CLI, the JSON events, the
//! store and both console views; and a run opened from the store shows what it
//! showed live (every paragraph of a step, Google Search suggestions).

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::cli::{at, json, place, run};
use common::console::{demo_plan, loaded};
use io_harness::console::testing::{Msg, State, initial_state, past_run, update};
use io_harness::store::Store;
use io_harness::{Event, EventKind, PriceTable, RunId};
use pretty_assertions::assert_eq;
use serde_json::Value;

/// `run --demo ARGS` in `dir`: its stderr lines, and its events when `--json`.
fn demo(dir: &std::path::Path, args: &[&str]) -> (Vec<String>, Vec<Event>) {
    let (code, out, err) = run(at(dir).args(["run", "--demo"]).args(args));
    assert_eq!(code, 0, "{err}");
    let events = out
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (err.lines().map(str::to_string).collect(), events)
}

/// The console with `events` folded in, as a live run's reach it.
fn live(events: &[Event]) -> State {
    let mut s = initial_state(&loaded(""), &demo_plan(&loaded("")), "demo").unwrap();
    for e in events {
        update(&mut s, Msg::Run(Box::new(e.clone())));
    }
    s
}

/// The console with run `id` opened from the store in `dir`.
fn past(dir: &std::path::Path, id: u64) -> State {
    let store = Store::open(dir.join("data/runs.db")).unwrap();
    let mut s = initial_state(&loaded(""), &demo_plan(&loaded("")), "demo").unwrap();
    let msg = past_run(&store, RunId(id as i64), &PriceTable::builtin()).unwrap();
    update(&mut s, msg);
    s
}

/// `runs --json`'s row of run `id`.
fn row(dir: &std::path::Path, id: u64) -> Value {
    let rows = json(dir, &["runs", "--json"]);
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| r["run_id"] == id)
        .unwrap()
        .clone()
}

/// The figures `runs --json` gives: input, cache write, cache read, output,
/// searches, failed searches.
fn figures(r: &Value) -> [u64; 6] {
    [
        "input_tokens",
        "cache_write_tokens",
        "cache_read_tokens",
        "output_tokens",
        "searches",
        "failed_searches",
    ]
    .map(|k| r[k].as_u64().unwrap())
}

/// The same six figures summed over the Run pane's request rows.
fn pane(s: &State) -> [u64; 6] {
    let sum = |f: &dyn Fn(&io_harness::console::testing::CallLine) -> u64| {
        s.run.calls.iter().map(f).sum::<u64>()
    };
    [
        sum(&|c| c.input),
        sum(&|c| c.cache_write),
        sum(&|c| c.cache_read),
        sum(&|c| c.output),
        sum(&|c| c.server.searches),
        sum(&|c| c.server.failed_searches),
    ]
}

/// The same six figures summed over `run`'s step lines.
fn step_lines(lines: &[String]) -> [u64; 6] {
    let re = regex::Regex::new(
        r"\] (\d+) in, (\d+) cache write, (\d+) cache read / (\d+) out tokens, (\d+) search(?:es)?(?: \((\d+) failed\))?",
    )
    .unwrap();
    let mut sum = [0u64; 6];
    let mut steps = 0;
    for c in lines.iter().filter_map(|l| re.captures(l)) {
        steps += 1;
        for (i, s) in sum.iter_mut().enumerate() {
            *s += c
                .get(i + 1)
                .map_or(0, |m| m.as_str().parse::<u64>().unwrap());
        }
    }
    assert_eq!(steps, 3, "a step line per request:\n{}", lines.join("\n"));
    sum
}

#[test]
fn a_steps_in_and_searches_are_one_definition_in_every_view() {
    let dir = place();
    let (lines, _) = demo(dir.path(), &[]);
    let (_, events) = demo(dir.path(), &["--json"]);
    let (one, two) = (figures(&row(dir.path(), 1)), figures(&row(dir.path(), 2)));
    // The demo: three requests, four searches started, one failed, one unanswered.
    assert_eq!([one[4], one[5]], [4, 2], "runs --json: {one:?}");
    assert_eq!(
        step_lines(&lines),
        one,
        "run's step lines against runs --json"
    );
    assert_eq!(
        pane(&live(&events)),
        two,
        "the live Run pane against runs --json"
    );
    assert_eq!(
        pane(&past(dir.path(), 2)),
        two,
        "the stored Run pane against runs --json"
    );
}

#[test]
fn a_search_never_answered_is_recorded_as_unanswered_everywhere() {
    let dir = place();
    let (lines, _) = demo(dir.path(), &[]);
    let (_, events) = demo(dir.path(), &["--json"]);
    // The CLI: every search started has its line saying how it ended.
    let started = lines
        .iter()
        .filter(|l| l.contains("web_search started"))
        .count();
    let ended = lines
        .iter()
        .filter(|l| {
            l.contains("web_search ok")
                || l.contains("web_search FAILED")
                || l.contains("web_search unanswered")
        })
        .count();
    assert_eq!((started, ended), (4, 4), "{}", lines.join("\n"));
    assert!(
        lines
            .iter()
            .any(|l| l.contains("web_search unanswered (no result came): io-harness release notes")),
        "{}",
        lines.join("\n")
    );
    // The JSON events: one ServerToolUsed per started call, the open one unanswered.
    let used: Vec<(Option<String>, Option<String>)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ServerToolUsed { error, input, .. } => Some((error.clone(), input.clone())),
            _ => None,
        })
        .collect();
    let open = (
        Some("unanswered".to_string()),
        Some("io-harness release notes".to_string()),
    );
    assert_eq!(used.len(), 4, "{used:?}");
    assert!(used.contains(&open), "{used:?}");
    // The store, and the console live and opened from the store.
    let store = Store::open(dir.path().join("data/runs.db")).unwrap();
    let stored: Vec<(Option<String>, Option<String>)> = store
        .server_tool_calls(RunId(2))
        .unwrap()
        .into_iter()
        .map(|c| (c.error, c.input))
        .collect();
    drop(store);
    let shown = |s: &State| -> Vec<(Option<String>, Option<String>)> {
        s.run
            .server
            .iter()
            .filter(|l| !l.interrupted)
            .map(|l| (l.error.clone(), l.input.clone()))
            .collect()
    };
    assert_eq!(stored, used, "the store against the events");
    assert_eq!(shown(&live(&events)), used, "the live Run pane");
    assert_eq!(shown(&past(dir.path(), 2)), used, "the stored Run pane");
}

/// The log lines a step's answer and its suggestions make: the model's
/// paragraphs and Google Search suggestions.
fn answer_lines(s: &State) -> Vec<(u32, String)> {
    s.run
        .log
        .iter()
        .filter(|(_, l, _)| !l.starts_with("step ") && !l.contains("→") && !l.starts_with("["))
        .filter(|(_, l, _)| !l.starts_with("started run") && !l.starts_with("finished"))
        .map(|(step, l, _)| (*step, l.clone()))
        .collect()
}

#[test]
fn a_run_opened_from_the_store_shows_what_it_showed_live() {
    let dir = place();
    let (_, anthropic) = demo(dir.path(), &["--json"]);
    let (_, gemini) = demo(dir.path(), &["--json", "--provider", "gemini"]);
    for (id, events) in [(1, &anthropic), (2, &gemini)] {
        let (now, later) = (live(events), past(dir.path(), id));
        let shown = answer_lines(&now);
        assert_eq!(answer_lines(&later), shown, "run {id}");
        let said = |needle: &str| shown.iter().any(|(_, l)| l.contains(needle));
        match id {
            // Step 1's second paragraph, after its search.
            1 => assert!(said("The newest published version is 0.22.0"), "{shown:?}"),
            _ => assert!(said("Google Search suggestions"), "{shown:?}"),
        }
    }
}
