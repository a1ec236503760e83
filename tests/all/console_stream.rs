//! The Run panes while an answer streams, drawn into a `TestBackend`: text grows
//! as it arrives, a server-side search appears the moment it starts with its
//! query and a running timer, and turns FAILED with the vendor's code when its
//! result arrives; the request in flight shows its output tokens so far; a cut
//! stream keeps what arrived, marked interrupted, and the retry starts afresh;
//! the summary events of the complete response add nothing twice.

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::console::{loaded, state_of};

use io_harness::console::testing::update;
use io_harness::console::testing::{Msg, Screen, State};
use io_harness::core::vendor::Vendor;
use io_harness::{Cost, Event, EventKind, RunId, Usage};
use pretty_assertions::assert_eq;

fn state() -> State {
    let loaded = loaded("[task]\ngoal = \"Find the release.\"\n");
    let mut s = state_of(&loaded, "offline demo: built-in stub vendor");
    s.screen = Screen::Run;
    s
}

fn screen(state: &State) -> String {
    common::console::screen(state, 80, 24)
}

fn at(s: &mut State, elapsed_ms: u64, kind: EventKind) {
    update(
        s,
        Msg::Run(Box::new(Event {
            run_id: RunId(1),
            step: 1,
            elapsed_ms,
            kind,
        })),
    );
}

fn text(s: &mut State, ms: u64, t: &str) {
    at(s, ms, EventKind::TextDelta { text: t.into() });
}

fn search_started(s: &mut State, ms: u64) {
    at(
        s,
        ms,
        EventKind::ServerToolStarted {
            provider: Vendor::Anthropic,
            tool: "web_search".into(),
            id: "srvtoolu_1".into(),
            input: Some("io-harness latest release".into()),
        },
    );
}

fn started(s: &mut State) {
    at(
        s,
        0,
        EventKind::RunStarted {
            goal: "Find the release.".into(),
            provider: Vendor::Anthropic,
            model: "claude-sonnet-4-5".into(),
            resumed: false,
            agent: None,
            web: None,
            no_local_tools: None,
        },
    );
    at(s, 1, EventKind::StepStarted { observations: 0 });
    at(s, 2, EventKind::RequestSent { attempt: 1 });
}

#[test]
fn a_search_shows_with_its_query_and_a_timer_then_its_verdict() {
    let mut s = state();
    started(&mut s);
    text(&mut s, 300, "I'll look up ");
    text(&mut s, 350, "the current release first.");
    search_started(&mut s, 1_000);
    update(&mut s, Msg::Tick(Some(3_400)));
    assert_eq!(s.run.server.len(), 1);
    assert!(s.run.server[0].running);
    insta::assert_snapshot!("stream_search_running_80x24", screen(&s));

    at(
        &mut s,
        4_000,
        EventKind::ServerToolReturned {
            provider: Vendor::Anthropic,
            tool: "web_search".into(),
            id: "srvtoolu_1".into(),
            ok: false,
            error: Some("max_uses_exceeded".into()),
            input: Some("io-harness latest release".into()),
        },
    );
    text(&mut s, 4_200, " The cap was reached; ");
    text(&mut s, 4_300, "the answer is 0.22.0.");
    at(&mut s, 4_400, EventKind::OutputTokens { output_tokens: 48 });
    insta::assert_snapshot!("stream_search_failed_80x24", screen(&s));

    // The complete response: its summary adds no second text line, no second call.
    at(
        &mut s,
        4_500,
        EventKind::ProviderCalled {
            provider: Vendor::Anthropic,
            model: "claude-sonnet-4-5".into(),
            usage: Some(Usage {
                input_tokens: 2841,
                output_tokens: 48,
                server_tool_requests: 0,
                ..Usage::default()
            }),
            stop_reason: "end_turn".into(),
            latency_ms: 4_500,
            cost: Cost::default(),
            text:
                "I'll look up the current release first. The cap was reached; the answer is 0.22.0."
                    .into(),
            response_id: None,
            finish_reason: None,
            tool_calls: Vec::new(),
            server: Default::default(),
        },
    );
    at(
        &mut s,
        4_500,
        EventKind::ServerToolUsed {
            provider: Vendor::Anthropic,
            tool: "web_search".into(),
            ok: false,
            error: Some("max_uses_exceeded".into()),
            input: Some("io-harness latest release".into()),
        },
    );
    let model_lines: Vec<&str> = s
        .run
        .log
        .iter()
        .map(|(_, t, _)| t.as_str())
        .filter(|t| t.starts_with("model: "))
        .collect();
    assert_eq!(
        model_lines,
        [
            "model: I'll look up the current release first. The cap was reached; the answer is 0.22.0."
        ]
    );
    assert_eq!(s.run.server.len(), 1);
    assert!(s.run.server[0].recorded);
    assert_eq!(s.run.calls.len(), 1);
    assert!(!s.run.live.active);
}

#[test]
fn a_cut_stream_is_marked_interrupted_and_the_retry_starts_afresh() {
    let mut s = state();
    started(&mut s);
    text(&mut s, 300, "Half an ans");
    search_started(&mut s, 400);
    at(
        &mut s,
        900,
        EventKind::Retrying {
            attempt: 1,
            status: Some(529),
            wait_ms: 500,
            reason: "anthropic answered HTTP 529 overloaded_error: Overloaded".into(),
        },
    );
    at(&mut s, 1_400, EventKind::RequestSent { attempt: 2 });
    text(&mut s, 1_600, "A whole answer.");
    insta::assert_snapshot!("stream_interrupted_80x24", screen(&s));
    let log: Vec<&str> = s.run.log.iter().map(|(_, t, _)| t.as_str()).collect();
    assert!(log.contains(&"model: Half an ans ⋯ interrupted"), "{log:?}");
    assert_eq!(log.last(), Some(&"model: A whole answer."));
    assert!(s.run.server[0].interrupted && !s.run.server[0].running);
    // The in-flight row counts only this attempt's text (15 characters: ~4 tokens).
    assert_eq!(s.run.live.output_tokens(), (4, true));
}

/// OpenAI Responses names a search's query only when the search is done: the
/// line shows running without a query, then the query with its verdict.
#[test]
fn a_search_whose_query_comes_with_its_result_shows_it_then() {
    let mut s = state();
    started(&mut s);
    at(
        &mut s,
        500,
        EventKind::ServerToolStarted {
            provider: Vendor::OpenAi,
            tool: "web_search".into(),
            id: "ws_1".into(),
            input: None,
        },
    );
    assert!(s.run.server[0].running);
    assert_eq!(s.run.server[0].input, None);
    at(
        &mut s,
        2_500,
        EventKind::ServerToolReturned {
            provider: Vendor::OpenAi,
            tool: "web_search".into(),
            id: "ws_1".into(),
            ok: true,
            error: None,
            input: Some("io-harness latest release".into()),
        },
    );
    assert_eq!(s.run.server.len(), 1);
    assert!(!s.run.server[0].running);
    assert_eq!(
        s.run.server[0].input.as_deref(),
        Some("io-harness latest release")
    );
    assert!(
        screen(&s).contains("io-harness latest release"),
        "{}",
        screen(&s)
    );
}
