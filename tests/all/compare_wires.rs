//! What `compare` and the panes say of a run, unambiguous (issue 33 item 13):
//! OpenAI on Chat and OpenAI on Responses are told apart (each run's wire, from
//! its stored plan, in the table and in the JSON); the `v` after a cost is
//! explained under the table; a cancelled run's server-tool header counts the
//! call its list shows interrupted.

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::cli::{at, json, place, run};
use common::console::{screen, state};
use io_harness::console::testing::{Msg, update};
use io_harness::{Event, EventKind, RunId, RunOutcome, Vendor};

#[test]
fn compare_tells_openai_chat_from_openai_responses() {
    let dir = place();
    let (code, _, err) = run(at(dir.path()).args(["run", "--demo", "--provider", "openai"]));
    assert_eq!(code, 0, "{err}");
    std::fs::write(
        dir.path().join("io.toml"),
        "[providers.openai]\napi = \"responses\"\n",
    )
    .unwrap();
    let (code, _, err) =
        run(at(dir.path()).args(["run", "--demo", "--replay", "1", "--provider", "openai"]));
    assert_eq!(code, 0, "{err}");
    let (code, text, err) = run(at(dir.path()).args(["compare", "1"]));
    assert_eq!(code, 0, "{err}");
    let wire = text
        .lines()
        .find(|l| l.starts_with("wire "))
        .unwrap_or_else(|| panic!("no wire row:\n{text}"));
    assert_eq!(
        wire.split("  ")
            .filter(|c| !c.trim().is_empty())
            .map(str::trim)
            .collect::<Vec<_>>(),
        ["wire", "chat", "responses"],
        "{text}"
    );
    let c = json(dir.path(), &["compare", "1", "--json"]);
    let wires: Vec<&str> = c["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["wire"].as_str().unwrap())
        .collect();
    assert_eq!(wires, ["openai-chat", "openai-responses"]);
}

#[test]
fn the_v_after_a_cost_is_explained() {
    let dir = place();
    let (code, _, err) =
        run(at(dir.path()).args(["run", "--demo", "--providers", "anthropic,openrouter"]));
    assert_eq!(code, 0, "{err}");
    let (_, text, _) = run(at(dir.path()).args(["compare", "1"]));
    let cost = text.lines().find(|l| l.starts_with("cost ")).unwrap();
    assert!(cost.trim_end().ends_with('v'), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("v: the vendor's own figure for the cost")),
        "{text}"
    );
    // Without a vendor's own figure, no such line.
    let dir = place();
    run(at(dir.path()).args(["run", "--demo", "--providers", "anthropic,openai"]));
    let (_, text, _) = run(at(dir.path()).args(["compare", "1"]));
    assert!(!text.contains("v: the vendor's own figure"), "{text}");
}

fn event(step: u32, kind: EventKind) -> Msg {
    Msg::Run(Box::new(Event {
        run_id: RunId(1),
        step,
        elapsed_ms: 100,
        kind,
    }))
}

#[test]
fn a_cancelled_runs_header_counts_its_interrupted_call() {
    let mut s = state();
    let events = [
        EventKind::RunStarted {
            goal: "g".into(),
            provider: Vendor::Anthropic,
            model: "claude-sonnet-4-5".into(),
            resumed: false,
            agent: None,
            web: None,
            no_local_tools: None,
        },
        EventKind::StepStarted { observations: 0 },
        EventKind::RequestSent { attempt: 1 },
        EventKind::ServerToolStarted {
            provider: Vendor::Anthropic,
            tool: "web_search".into(),
            id: "srvtoolu_1".into(),
            input: Some("io-harness release".into()),
        },
        EventKind::Finished {
            outcome: RunOutcome::Cancelled,
        },
    ];
    for e in events {
        update(&mut s, event(1, e));
    }
    update(
        &mut s,
        common::console::key(crossterm::event::KeyCode::F(3)),
    );
    let shown = screen(&s, 120, 40);
    assert!(shown.contains("1 web_search interrupted"), "{shown}");
    assert!(
        shown.contains("1 server call · 0 failed · 1 interrupted"),
        "{shown}"
    );
}
